"""Property test: random legal games to the end, every invariant of RULES.md section 9 checked
after every action, JSON round trip, and replay from seed + log (style 13).

KHRONOS_LONG_RUN=N plays N games instead of the CI default."""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    Choose,
    GameState,
    Options,
    apply,
    current_seat,
    default_choice,
    dump_action,
    invariant_problems,
    legal_actions,
    new_game,
    parse_action,
)
from engine.actions import Action
from engine.random_player import play_random_game, random_action

GAMES = int(os.environ.get("KHRONOS_LONG_RUN", "240"))


def _play_checked(options: Options, seed: int, use_defaults: bool) -> tuple[GameState, list]:
    chooser = random.Random(seed * 7919 + 1)
    state = new_game(options, seed)
    assert invariant_problems(state) == []
    log = []
    while not state.over:
        seat = current_seat(state)
        assert seat is not None
        if state.pending is not None and use_defaults and chooser.random() < 0.5:
            action: Action = Choose(option=default_choice(state))
        else:
            _, action = random_action(state, chooser)
        state, _ = apply(state, seat, action)
        problems = invariant_problems(state)
        assert problems == [], (seed, state.step, action, problems)
        log.append((seat, dump_action(action)))
        assert len(log) < 5000
    return state, log


@pytest.mark.parametrize("chunk", range(4))
def test_random_games_keep_every_invariant(chunk: int) -> None:
    seeds = range(chunk, GAMES, 4)
    for seed in seeds:
        options = Options(players=2 + seed % 4, holdem=seed % 3 == 0)
        final, log = _play_checked(options, seed, use_defaults=seed % 2 == 0)
        assert final.over and final.round == 7 and final.winners
        # the state round-trips through JSON exactly
        assert GameState.model_validate_json(final.model_dump_json()) == final
        # replay from the seed and the stored log reproduces the same final state
        replay = new_game(options, seed)
        for seat, data in log:
            replay, _ = apply(replay, seat, parse_action(data))
        assert replay == final


def test_random_games_reach_the_hard_parts() -> None:
    """The random games really exercise ripples, paradoxes, junctions and choices."""
    kinds: set[str] = set()
    for seed in range(12):
        state = new_game(Options(players=2 + seed % 4), seed)
        chooser = random.Random(seed)
        while not state.over:
            seat = current_seat(state)
            assert seat is not None
            assert legal_actions(state, seat)
            state, events = apply(state, seat, random_action(state, chooser)[1])
            kinds.update(e.kind for e in events)
    assert {"rippled", "junction", "removed", "income", "game_over"} <= kinds


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.integers(2, 5), holdem=st.booleans())
def test_same_seed_same_game(seed: int, players: int, holdem: bool) -> None:
    a, log_a = play_random_game(Options(players=players, holdem=holdem), seed, max_steps=60)
    b, log_b = play_random_game(Options(players=players, holdem=holdem), seed, max_steps=60)
    assert a == b and log_a == log_b
    assert invariant_problems(a) == []
