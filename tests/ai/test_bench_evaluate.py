"""``benchmarks/bench_evaluate.py``: the rows it notes at turn starts and its fits."""

from __future__ import annotations

import statistics
from typing import Any

import pytest

from ai.evaluate import MAJORITY_SAFETY, TOP_SAFETY, board_incomes
from engine import Age
from tests.ai.benches import load_bench
from tests.ai.positions import turn_starts


def test_least_squares_finds_the_slopes_and_intercept_of_exact_data() -> None:
    xs = [[1.0, 0.0], [2.0, 1.0], [3.0, 5.0], [4.0, 2.0], [7.0, 3.0]]
    ys = [2 * a - 0.5 * b + 3 for a, b in xs]
    bench = load_bench("bench_evaluate")
    assert bench.least_squares(xs, ys) == pytest.approx([2.0, -0.5, 3.0])
    with pytest.raises(ValueError, match="independently"):
        bench.least_squares([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]], [1.0, 2.0, 3.0])


def test_r46_a_row_per_turn_start_with_the_incomes_its_seat_collected_next() -> None:
    """Two players, seven rounds: a row per seat and round (none for a choice answered in a
    turn); before the first income (R46, round 4) the next income is the same for all of a
    seat's rows and the one after is the next income of its rows from round 5 on."""
    bench = load_bench("bench_evaluate")
    rows = bench.play(2, 7, "easy")
    assert sorted((r["round"], r["seat"]) for r in rows) == [
        (round_, seat) for round_ in range(1, 8) for seat in (0, 1)]
    for seat in (0, 1):
        early = [r for r in rows if r["seat"] == seat and r["round"] <= 4]
        late = [r for r in rows if r["seat"] == seat and r["round"] > 4]
        assert len({r["next"] for r in early}) == 1 and early[0]["next"] is not None
        assert {r["later"] for r in early} == {late[0]["next"]} != {None}
        assert all(r["later"] is None for r in late)
    assert rows[0]["estimate"] == 0 and rows[0]["tops"] == 0  # nothing built yet
    for seat in (0, 1):  # what every board paid at the next income: where it stood, the income
        early = [r for r in rows if r["seat"] == seat and r["round"] <= 4]
        assert len({tuple(r["boards"]) for r in early}) == 1
        assert max(early[0]["boards"]) <= early[0]["next"] <= sum(early[0]["boards"])


def test_r47_r49_the_kinds_of_hold_add_up_to_each_boards_income_and_its_careful_discount() -> None:
    """Split by kind (a top's value on Might and Faith, the lead in cubes on Reason), a seat's
    parts add up to what the board pays it now, and weighted by the careful factors of their
    kinds to the careful evaluation's figure: each part is of the kind the evaluation says."""
    bench = load_bench("bench_evaluate")
    factor = {**{k: TOP_SAFETY[i + 1] for i, k in enumerate(bench.TOP_KINDS)},
              **{k: MAJORITY_SAFETY[i] for i, k in enumerate(bench.LEAD_KINDS)}}
    seen: set[str] = set()
    for state in turn_starts(3, 2, 100):  # the whole game
        for board in state.boards:
            plain, careful = board_incomes(board, 3)[0], board_incomes(board, 3, careful=True)[0]
            for seat in range(3):
                parts = bench.kinds(board, seat)
                assert sum(parts.values()) == plain[seat]
                assert sum(v * factor[k] for k, v in parts.items()) == pytest.approx(careful[seat])
                seen.update(parts)
    assert seen == {*bench.TOP_KINDS, *bench.LEAD_KINDS}  # the game met every kind


def test_the_table_gives_each_rounds_slope_of_the_income_on_the_estimate() -> None:
    points = [(1.0, 0), (3.0, 1), (4.0, 0), (6.0, 2), (8.0, 1)]  # estimate, tops
    incomes = [0.9 * e + 0.25 * t + 2 for e, t in points]
    rows = [{"round": 4, "estimate": e, "tops": t, "next": y, "later": None}
            for (e, t), y in zip(points, incomes, strict=True)]
    alone = statistics.linear_regression([e for e, _ in points], incomes).slope
    table = load_bench("bench_evaluate").fits(rows)
    assert table[2:] == [f"| 4 | next | 5 | {alone:+.2f} | +0.90, +0.25 |"]  # by construction


def test_the_safety_table_gives_each_kinds_slope_before_the_first_income() -> None:
    """A board's next income made of known shares of each kind, rounds 1-3 only: the table
    gives those shares and the careful factors, and nothing for rounds 5-6."""
    bench = load_bench("bench_evaluate")
    share = {"top 1": 0.6, "top 2": 0.7, "top 3": 1.1, "lead 0": 0.9, "lead 1": 1.2, "lead 2": 1.0}
    parts = [(1, 0, 2, 0, 3, 1), (0, 2, 1, 2, 0, 0), (3, 1, 0, 1, 1, 2), (2, 2, 2, 0, 4, 1),
             (0, 0, 3, 3, 2, 0), (1, 3, 1, 1, 0, 3), (4, 0, 0, 2, 2, 2)]
    rows: list[dict[str, Any]] = []
    for i, p in enumerate(parts):
        held = dict(zip((*bench.TOP_KINDS, *bench.LEAD_KINDS), p, strict=True))
        boards = [sum(share[k] * v for k, v in held.items() if k.startswith(prefix)) + 2
                  for prefix in ("top", "none", "lead")]  # Faith: nothing held, the intercept
        might = {k: v for k, v in held.items() if k.startswith("top")}
        reason = {k: v for k, v in held.items() if k.startswith("lead")}
        rows.append({"round": 1 + i % 3, "kinds": [might, {}, reason], "boards": boards})
    rows[0]["kinds"][Age.FAITH] = {"top 3": 1}  # Faith's rows: top 3 alone
    rows[0]["boards"][Age.FAITH] = 1.1 + 2
    table = bench.safety(rows)
    assert table[2] == f"| top 1 | {TOP_SAFETY[1]:.2f} | +0.60 (11) | - |"
    assert table[4] == f"| top 3 | {TOP_SAFETY[3]:.2f} | +1.10 (10) | - |"
    assert table[6] == f"| lead 1 | {MAJORITY_SAFETY[1]:.2f} | +1.20 (12) | - |"
    assert len(table) == 2 + 6
