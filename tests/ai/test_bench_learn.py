"""``benchmarks/bench_learn.py``: each seat's figures, and the fit of the final margins."""

from __future__ import annotations

import pytest

from ai.evaluate import board_incomes, seat_values
from engine import BUILDINGS, Age, GameState, Options, new_game
from tests.ai.benches import load_bench
from tests.ai.positions import turn_starts

bench = load_bench("bench_learn")
FIGURE = {name: i for i, name in enumerate(bench.FEATURES)}


def test_a_fresh_deal_gives_each_seat_its_ecus_and_cubes_and_the_mover_its_turn() -> None:
    state = new_game(Options(players=3), 7)
    rows = bench.features(state)
    for seat, row in enumerate(rows):
        assert row[FIGURE["ecus"]] == 4 and row[FIGURE["cubes"]] == 25  # R6
        assert row[FIGURE["mover"]] == (1.0 if seat == state.turn else 0.0)
        assert all(row[FIGURE[n]] == 0 for n in bench.FEATURES
                   if n not in ("ecus", "cubes", "mover"))


def _owned(state: GameState, seat: int, age: Age) -> tuple[int, int]:
    tiles = [t for t in state.boards[age].tiles if t.owner == seat]
    return len(tiles), sum(BUILDINGS[t.type].value for t in tiles)


def test_the_figures_are_those_the_board_shows() -> None:
    """Mid-game, every seat's figures against the boards: its buildings on Might and Faith
    (R15: the cube marks the owner), the careful income per board and the tops, and the careful
    evaluation's income to come."""
    state = turn_starts(2, 31, 9)[-1]
    values = seat_values(state, careful=True)
    incomes = [board_incomes(b, 2, careful=True) for b in state.boards]
    rows = bench.features(state)
    built = 0
    for seat, row in enumerate(rows):
        player = state.players[seat]
        assert row[FIGURE["cubes"]] == player.cubes
        assert row[FIGURE["future"]] == pytest.approx(values[seat] - player.ecus)
        for age, name in ((Age.MIGHT, "might"), (Age.FAITH, "faith")):
            count, value = _owned(state, seat, age)
            built += count
            assert (row[FIGURE[f"own_{name}"]], row[FIGURE[f"value_{name}"]]) == (count, value)
            assert row[FIGURE[f"tops_{name}"]] == incomes[age][1][seat]
        for age, name in ((Age.MIGHT, "might"), (Age.FAITH, "faith"), (Age.REASON, "reason")):
            assert row[FIGURE[f"care_{name}"]] == pytest.approx(incomes[age][0][seat])
    assert built > 0  # the position has buildings to count


def test_the_fit_recovers_weights_that_make_the_margins() -> None:
    """Rows whose final margins are exactly two Ecus per Ecu held and one per cube placed: the
    fit finds those weights and foretells every margin; the careful evaluation less well."""
    rows = []
    for game in range(12):
        for round_ in (1, 2):
            table = [[0.0] * len(bench.FEATURES) for _ in range(2)]
            for seat in range(2):
                table[seat][FIGURE["ecus"]] = 4 + (game * 3 + seat * 5 + round_) % 7
                table[seat][FIGURE["cubes"]] = 25 - (game + seat * 2) % 5
            final = [2 * r[FIGURE["ecus"]] - r[FIGURE["cubes"]] for r in table]
            rows.append({"game": game, "round": round_, "features": table, "final": final})
    out, weights = bench.fits(rows)
    for round_ in (1, 2):
        assert weights[round_][FIGURE["ecus"]] == pytest.approx(2.0, abs=0.05)
        assert weights[round_][FIGURE["cubes"]] == pytest.approx(-1.0, abs=0.05)
    row = next(line for line in out if line.startswith("| 1 |"))
    careful, _, learnt = (float(v) for v in row.strip("|").split("|")[2:5])
    assert learnt > 0.99 and careful < learnt


def test_a_played_game_gives_a_row_per_turn_start_with_the_final_ecus() -> None:
    rows = bench.play(2, 95_000, "easy", 0)
    assert len(rows) >= 13 and {r["round"] for r in rows} == set(range(1, 8))
    assert all(len(r["features"]) == 2 and len(r["final"]) == 2 for r in rows)
    assert rows[0]["features"] == bench.features(new_game(Options(players=2), 95_000))
