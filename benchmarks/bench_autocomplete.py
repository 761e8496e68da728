"""Autocomplete, the query Discord sends while a player types (3 s budget).

Prints the median and worst time of ``bot.suggestions.square_suggestions`` over the states of a
played game, for /build and /upgrade with no option filled yet (both ages, every building),
with the age only, and with the age and the building; and of ``cards_suggestions`` for
/build's pay (from the engine's legal actions) and /exchange.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from bot.suggestions import cards_suggestions, square_suggestions


def states(n: int = 60) -> list[engine.GameState]:
    """The start of each turn along a random 3-player game (a full hand: the most
    suggestions), adventurers spread over the ages by earlier travels."""
    rng = random.Random(7)
    state = engine.new_game(engine.Options(players=3), 7)
    out: list[engine.GameState] = []
    while not state.over and len(out) < n:
        seat = engine.current_seat(state)
        assert seat is not None
        actions = engine.legal_actions(state, seat)
        plays = [a for a in actions if a.kind != "end_turn"]
        action = rng.choice(plays) if plays and rng.random() < 0.6 else engine.EndTurn()
        state, _ = engine.apply(state, seat, action)
        if action.kind == "end_turn" and state.pending is None and not state.over:
            out.append(state)
    return out


def main() -> None:
    cases = [
        ("build", {}), ("build", {"age": "might"}), ("build", {"age": "might", "building": "keep"}),
        ("upgrade", {}), ("upgrade", {"age": "faith"}),
    ]
    sample = states()
    for command, filled in cases:
        times = []
        for state in sample:
            t0 = time.perf_counter()
            square_suggestions(state, state.turn, command, "square", filled)
            times.append(time.perf_counter() - t0)
        what = ", ".join(f"{k}={v}" for k, v in filled.items()) or "nothing filled"
        print(f"/{command} square ({what}): median {statistics.median(times) * 1000:.1f} ms, "
              f"max {max(times) * 1000:.1f} ms (n={len(times)})")
    for command, param, filled in (("build", "pay", {"age": "might", "building": "keep"}),
                                   ("exchange", "cards", {})):
        times = []
        for state in sample:
            t0 = time.perf_counter()
            cards_suggestions(state, state.turn, command, param, filled)
            times.append(time.perf_counter() - t0)
        print(f"/{command} {param}: median {statistics.median(times) * 1000:.1f} ms, "
              f"max {max(times) * 1000:.1f} ms (n={len(times)})")


if __name__ == "__main__":
    main()
