"""``hard``'s iterations score each step once per position, whatever the mover's hand
(``WORK.scores``): a step's evaluation reads no hand, so a rival's turn on another deal of its
cards reuses the scores met before. What a seat's turn below the root is must not change:
the same steps, scores, positions and greedy turns as without the memory."""

from __future__ import annotations

import random

import pytest

from ai import hard
from ai.determinize import sample_state
from ai.hard import Search
from ai.policy import steps
from ai.work import WORK
from engine import GameState, player_view

from .positions import turn_starts


def _two_hands(state: GameState) -> tuple[GameState, GameState]:
    """The position twice, as the next seat samples it: the mover's hand dealt twice."""
    other = (state.turn + 1) % len(state.players)
    view = player_view(state, other)
    for k in range(2, 40):
        a = sample_state(view, random.Random(1))
        b = sample_state(view, random.Random(k))
        if a.players[state.turn].hand != b.players[state.turn].hand:
            return a, b
    pytest.skip("no other hand to deal")


def _turns(state: GameState, seat: int, careful: bool) -> tuple[object, ...]:
    listed = [(s.actions, s.score, s.state.players[seat].ecus, s.state.step)
              for s in steps(state, seat, careful)]
    rest = hard.quick_rest(state, seat, careful, 8)
    turn = hard.quick_turn(state, seat, careful)
    return listed, rest[1], rest[0].step, turn


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_turn_below_the_root_is_the_same_with_scores_met_on_another_hand(
    players: int,
) -> None:
    """With the scores a first hand left, a second hand of the same seat in the same position
    lists the same steps, with the same scores and positions, and plays the same greedy turns
    (``steps``, ``quick_rest``, ``quick_turn``) as without them."""
    checked = 0
    for state in turn_starts(players, 300 + players, 14)[2:]:
        first, second = _two_hands(state)
        seat = state.turn
        for careful in (True, False):
            assert WORK.scores is None
            units = WORK.units
            want = _turns(second, seat, careful)
            alone = WORK.units - units
            WORK.scores = {}
            try:
                _turns(first, seat, careful)
                met = sum(len(v) for v in WORK.scores.values())
                units = WORK.units
                got = _turns(second, seat, careful)
                spent = WORK.units - units
            finally:
                WORK.scores = None
            assert got == want
            assert met > 0
            assert spent < alone  # fewer positions played and evaluated for the second hand
            checked += 1
    assert checked >= 20


def test_the_memory_lives_only_while_the_iterations_run() -> None:
    """The scores are kept for one search's iterations: none before, none after (a search of
    another position must not read them), and the beam of the seat's own turn runs without."""
    seen: list[object] = []
    original = Search.iterate

    def spy(self: Search, arm: hard.Arm) -> None:
        seen.append(WORK.scores is not None)
        original(self, arm)

    state = turn_starts(2, 321, 9)[-1]
    Search.iterate = spy  # type: ignore[method-assign]
    try:
        Search(player_view(state, state.turn), random.Random(2), 0.1).run()
    finally:
        Search.iterate = original  # type: ignore[method-assign]
    assert seen and all(seen)
    assert WORK.scores is None
