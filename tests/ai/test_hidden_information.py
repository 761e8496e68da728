"""The computer sees only ``player_view(seat)``: its samples of the hidden cards agree
with what it saw, and games that differ only in hidden cards get the same decision."""

from __future__ import annotations

import random

import pytest

from ai import Level, choose_action
from ai.determinize import sample_state, unseen_cards
from ai.policy import forget_plans
from engine import current_seat, invariant_problems, player_view, public_view

from .positions import midgame, reshuffle_hidden


@pytest.mark.parametrize(("players", "seed"), [(2, 3), (3, 4), (4, 5), (5, 6)])
def test_the_sampled_state_agrees_with_the_view_and_keeps_the_invariants(
    players: int, seed: int
) -> None:
    """R7/section 9: every sample holds 55 cards, the seat's own hand, the public boards."""
    state = midgame(players, seed, moves=25, holdem=seed % 2 == 0)
    seat = current_seat(state)
    assert seat is not None
    view = player_view(state, seat)
    for k in range(5):
        sample = sample_state(view, random.Random(k))
        assert invariant_problems(sample) == []
        assert player_view(sample, seat) == view
        assert public_view(sample) == public_view(state)
    assert sorted(unseen_cards(view)) == sorted(
        [c for p in state.players if p.seat != seat for c in p.hand]
        + state.draw_pile
        + state.discard
    )


def test_samples_vary_the_hidden_cards() -> None:
    state = midgame(3, 8, moves=20)
    seat = current_seat(state)
    assert seat is not None
    view = player_view(state, seat)
    hands = {tuple(sample_state(view, random.Random(k)).players[(seat + 1) % 3].hand)
             for k in range(20)}
    assert len(hands) > 1


@pytest.mark.parametrize("level", list(Level))
@pytest.mark.parametrize(("players", "seed", "moves"), [(2, 11, 6), (4, 12, 30)])
def test_hidden_cards_do_not_change_the_decision(
    level: Level, players: int, seed: int, moves: int
) -> None:
    """Two games that differ only in the cards the seat cannot see (other hands, draw pile,
    discard pile, future shuffles) give the same decision for the same random seed."""
    state = midgame(players, seed, moves)
    seat = current_seat(state)
    assert seat is not None
    twin = reshuffle_hidden(state, seat, seed + 1)
    assert twin != state
    assert [p.hand for p in twin.players] != [p.hand for p in state.players] or (
        twin.draw_pile != state.draw_pile
    )
    assert player_view(twin, seat) == player_view(state, seat)
    decisions = []
    for game in (state, twin):
        forget_plans()
        # budget 0: normal's search is then the same whatever the machine's speed
        decisions.append(choose_action(player_view(game, seat), level, 0, random.Random(99)))
    assert decisions[0] == decisions[1]
