"""A random legal player (uniform over ``legal_actions``) for tests and benchmarks."""

from __future__ import annotations

import random

from .actions import Action
from .game import apply, current_seat, iter_legal_specs, new_game
from .state import GameState, Options


def random_action(state: GameState, chooser: random.Random) -> tuple[int, Action]:
    seat = current_seat(state)
    assert seat is not None
    specs = list(iter_legal_specs(state, seat))
    cls, fields = chooser.choice(specs)
    return seat, cls.model_construct(**fields)


def play_random_game(
    options: Options, seed: int, chooser_seed: int | None = None, max_steps: int = 5000
) -> tuple[GameState, list[tuple[int, Action]]]:
    """Play a whole game; returns the final state and the (seat, action) log."""
    chooser = random.Random(seed if chooser_seed is None else chooser_seed)
    state = new_game(options, seed)
    log: list[tuple[int, Action]] = []
    for _ in range(max_steps):
        if state.over:
            break
        seat, action = random_action(state, chooser)
        state, _ = apply(state, seat, action)
        log.append((seat, action))
    return state, log
