"""Whole games between computer players, for the tests and ``benchmarks/bench_ai.py``."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from engine import (
    Action,
    GameState,
    Options,
    apply,
    current_seat,
    invariant_problems,
    new_game,
    player_view,
)

from .choose import choose_action
from .policy import Level

MAX_ACTIONS = 3000  # far beyond any real game (about 30 actions per seat): a stall guard


class Stalled(RuntimeError):
    """A game did not end within ``MAX_ACTIONS`` actions."""


@dataclass
class GameRecord:
    final: GameState
    actions: list[tuple[int, Action]] = field(default_factory=list)
    think_s: dict[int, list[float]] = field(default_factory=dict)  # seat -> seconds per decision


def play_game(
    levels: Sequence[Level | str],
    seed: int,
    budget_s: float = 0.5,
    holdem: bool = False,
    on_state: Callable[[GameState], None] | None = None,
    budgets: Mapping[str, float] | None = None,
) -> GameRecord:
    """Seat ``i`` is played at ``levels[i]``; every decision sees only ``player_view(seat)``.

    ``budget_s`` is every level's budget, unless ``budgets`` gives a level its own.
    ``on_state`` is called with every state reached (the tests check the invariants there)."""
    budget = [(budgets or {}).get(str(level), budget_s) for level in levels]
    state = new_game(Options(players=len(levels), holdem=holdem), seed)
    record = GameRecord(state, think_s={s: [] for s in range(len(levels))})
    chooser = random.Random(seed * 1_000_003 + 17)
    if on_state is not None:
        on_state(state)
    while not state.over:
        if len(record.actions) >= MAX_ACTIONS:
            raise Stalled(f"game {seed} passed {MAX_ACTIONS} actions")
        seat = current_seat(state)
        assert seat is not None
        view = player_view(state, seat)
        t0 = time.perf_counter()
        action = choose_action(view, levels[seat], budget[seat], chooser)
        record.think_s[seat].append(time.perf_counter() - t0)
        state, _ = apply(state, seat, action)  # raises on an illegal action
        record.actions.append((seat, action))
        if on_state is not None:
            on_state(state)
    record.final = state
    return record


def check_invariants(state: GameState) -> None:
    """Raise AssertionError with the broken RULES.md section 9 invariants, if any."""
    problems = invariant_problems(state)
    if problems:
        raise AssertionError(f"step {state.step}: {problems}")
