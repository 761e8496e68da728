"""The engine's fingerprint: one hash of what random games do, to prove a refactoring changed
nothing. It plays uniform and scenario-seeking random games (the same seeds every run) and
hashes, after every action, the new state, the events (their kind, text, parameters and
breakdown) and the legal actions of the player to act, plus the refusal of a few illegal
candidates. Equal hashes before and after a change: the engine answers every question the same.

    python benchmarks/fingerprint.py [--games 36]
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import (
    Construct,
    EngineError,
    Populate,
    apply,
    check,
    current_seat,
    dump_action,
    legal_actions,
    new_game,
)
from engine.constants import Age, BuildingType
from engine.random_player import random_action, seeking_action
from engine.state import Options


def _probes(chooser: random.Random) -> list[object]:
    """A few candidates, mostly illegal, whose refusal (or acceptance) is hashed too."""
    col = chooser.choice("ABCDEFGHIJKLMNOPQRST")
    row = chooser.randint(1, 16)
    age = chooser.choice(list(Age))
    return [
        Construct(age=age, building=chooser.choice(list(BuildingType)), square=f"{col}{row}"),
        Populate(square=f"{col}{row}", count=1),
    ]


def fingerprint(games: int) -> tuple[str, int]:
    h = hashlib.sha256()
    actions = 0
    for g in range(games):
        player = random_action if g % 2 == 0 else seeking_action
        chooser = random.Random(1000 + g)
        state = new_game(Options(players=2 + g % 4, holdem=g % 3 == 0), 500 + g)
        while not state.over and actions < 10**6:
            seat = current_seat(state)
            assert seat is not None
            for act in legal_actions(state, seat):
                h.update(repr(dump_action(act)).encode())
            for probe in _probes(chooser):
                try:
                    check(state, seat, probe)  # type: ignore[arg-type]
                    h.update(b"ok")
                except EngineError as e:
                    h.update(f"{type(e).__name__}|{e.rule}|{e}".encode())
            seat, action = player(state, chooser)
            state, events = apply(state, seat, action)
            actions += 1
            h.update(state.model_dump_json().encode())
            for event in events:
                h.update(event.model_dump_json().encode())
    return h.hexdigest(), actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=36)
    args = parser.parse_args()
    start = time.perf_counter()
    digest, actions = fingerprint(args.games)
    print(f"games {args.games}  actions {actions}  time {time.perf_counter() - start:.1f} s")
    print(f"fingerprint {digest}")


if __name__ == "__main__":
    main()
