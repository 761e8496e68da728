"""How well the rival models a search can afford foretell the turns the computers really play.

``hard`` expects every rival to play a greedy turn (``ai/hard.py``): ``quick_turn`` (its first
step weighs travel too, its later ones stay on the boards the seat stands on) by the careful
evaluation, as it is. This plays whole games at ``--levels``, and at each turn start foretells
the turn with four models, on the true position (the seat's own hand: what a sample guesses
is left out):

- ``quick careful`` (``hard`` as it is), ``quick plain``;
- ``whole careful``, ``whole plain`` (``finish_turn``: every step weighs travel too; by the
  plain evaluation it is ``easy``'s turn exactly).

For each model and level it prints how often the foretold turn left the position the real turn
left (every board, Ecus, adventurers), and the error of every other seat's careful evaluation
after the foretold turn against after the real one (what a search's leaf would be wrong by):
the mean error (a model that expects too little of its rivals reads positive), the mean
absolute error and its standard deviation (the part no constant offset explains).

    .venv/bin/python benchmarks/bench_rivals.py --levels normal,easy --games 8
    .venv/bin/python benchmarks/bench_rivals.py --levels normal,normal,normal,normal --games 3
    .venv/bin/python benchmarks/bench_rivals.py --table /tmp/bench_rivals.jsonl
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rows import play_logged, read_log

from ai.choose import choose_action
from ai.evaluate import evaluate
from ai.hard import play_turn, quick_turn
from ai.policy import finish_turn
from ai.work import WORK
from engine import GameState, Options, apply, current_seat, new_game, player_view

FIRST_SEED = 60_000
BUDGET_S = 0.8  # the levels' budget (the bot's default)


def _quick(careful: bool) -> Callable[[GameState, int], GameState]:
    return lambda state, seat: play_turn(state, seat, quick_turn(state, seat, careful))


def _whole(careful: bool) -> Callable[[GameState, int], GameState]:
    return lambda state, seat: finish_turn(state, seat, careful=careful)[0]


# name -> (the turn it foretells, whether it runs lean as hard's search does)
MODELS: dict[str, tuple[Callable[[GameState, int], GameState], bool]] = {
    "quick careful": (_quick(True), True),
    "quick plain": (_quick(False), True),
    "whole careful": (_whole(True), False),
    "whole plain": (_whole(False), False),
}


def position(state: GameState) -> tuple[object, ...]:
    """What a turn leaves that a later turn depends on, tile ids left out (hands too: the
    cards drawn at the end of a turn are the deck's, not the model's)."""
    boards = tuple(
        (tuple(sorted((t.type, t.at, t.owner, t.ruin, tuple(t.cubes)) for t in b.tiles)),
         tuple(sorted(b.hamlet_cubes.items())))
        for b in state.boards)
    seats = tuple((p.ecus, tuple(p.adventurers)) for p in state.players)
    return boards, seats, state.round, state.turn, state.over


def foretell(start: GameState, actual: GameState, seat: int) -> dict[str, Any]:
    """Each model's turn from ``start`` against the turn ``seat`` played (``actual``)."""
    row: dict[str, Any] = {}
    for name, (model, lean) in MODELS.items():
        before, WORK.lean = WORK.lean, lean
        try:
            foretold = model(start, seat)
        finally:
            WORK.lean = before
        errors = [evaluate(foretold, other, True) - evaluate(actual, other, True)
                  for other in range(len(start.players)) if other != seat]
        row[name] = {"same": position(foretold) == position(actual), "errors": errors}
    return row


def play(levels: Sequence[str], seed: int) -> list[dict[str, Any]]:
    """One game, seat ``i`` at ``levels[i]``: a row per turn (none for the turn in which the
    game ends), with what each model foretold."""
    state = new_game(Options(players=len(levels)), seed)
    chooser = random.Random(seed)
    rows: list[dict[str, Any]] = []
    start: GameState | None = None
    while not state.over:
        seat = current_seat(state)
        assert seat is not None
        if start is None and state.pending is None:
            start = state
        action = choose_action(player_view(state, seat), levels[seat], BUDGET_S, chooser)
        state, _ = apply(state, seat, action)
        if start is not None and not state.over and state.turn != start.turn:
            played = start.turn
            rows.append({"seed": seed, "seat": played, "level": levels[played],
                         "round": start.round, **foretell(start, state, played)})
            start = None
    return rows


def table(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Per level and model: turns, the share foretold exactly, the evaluation's error."""
    out = ["| level | model | turns | same position | error: mean | mean absolute | sd |",
           "|---|---|---|---|---|---|---|"]
    for level in sorted({r["level"] for r in rows}):
        mine = [r for r in rows if r["level"] == level]
        for name in MODELS:
            errors = [e for r in mine for e in r[name]["errors"]]
            same = sum(1 for r in mine if r[name]["same"]) / len(mine)
            spread = statistics.pstdev(errors) if errors else 0.0
            mean = statistics.fmean(errors) if errors else 0.0
            absolute = statistics.fmean(abs(e) for e in errors) if errors else 0.0
            out.append(f"| {level} | {name} | {len(mine)} | {same:.0%} | {mean:+.2f} "
                       f"| {absolute:.2f} | {spread:.2f} |")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--levels", default="normal,easy",
                        help="every seat's level, comma-separated (the number of players)")
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--first", type=int, default=0, help="seed offset (another batch)")
    parser.add_argument("--log", default=str(Path(tempfile.gettempdir()) / "bench_rivals.jsonl"),
                        help="every turn's row is appended here, game by game")
    parser.add_argument("--table", metavar="LOG", help="print the table of a log and stop")
    args = parser.parse_args()
    if args.table:
        print("\n".join(table(read_log(args.table))))
        return
    levels = args.levels.split(",")
    rows = play_logged(args.games, lambda g: play(levels, FIRST_SEED + args.first + g), args.log)
    print(f"{args.games} games at {','.join(levels)}, budget {BUDGET_S} s; log: {args.log}")
    print("\n".join(table(rows)))


if __name__ == "__main__":
    main()
