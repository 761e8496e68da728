"""``benchmarks/bench_evaluate.py``: the rows it notes at turn starts and its fits."""

from __future__ import annotations

import statistics

import pytest

from tests.ai.benches import load_bench


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


def test_the_table_gives_each_rounds_slope_of_the_income_on_the_estimate() -> None:
    points = [(1.0, 0), (3.0, 1), (4.0, 0), (6.0, 2), (8.0, 1)]  # estimate, tops
    incomes = [0.9 * e + 0.25 * t + 2 for e, t in points]
    rows = [{"round": 4, "estimate": e, "tops": t, "next": y, "later": None}
            for (e, t), y in zip(points, incomes, strict=True)]
    alone = statistics.linear_regression([e for e, _ in points], incomes).slope
    table = load_bench("bench_evaluate").fits(rows)
    assert table[2:] == [f"| 4 | next | 5 | {alone:+.2f} | +0.90, +0.25 |"]  # by construction
