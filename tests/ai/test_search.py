"""``normal``'s search (docs/ai.md): it plays whole turns even when its time runs out, it always
weighs the turn ``easy`` would play, and the candidates it remembers per board are the ones it
would compute afresh."""

from __future__ import annotations

import random

from bot.ai import choose_action, policy
from bot.ai.policy import BEAM, candidates, finish_turn, plan_turns, shortlist
from engine import (
    Construct,
    Demolish,
    EndTurn,
    GameState,
    Options,
    Populate,
    Renovate,
    Upgrade,
    apply,
    current_seat,
    new_game,
    player_view,
)

CARD_ACTIONS = (Construct, Upgrade, Demolish, Populate, Renovate)


def _turn_starts(players: int, seed: int, turns: int) -> list[GameState]:
    """The state at the start of the first ``turns`` turns of a game between easy computers."""
    state = new_game(Options(players=players), seed)
    chooser = random.Random(seed)
    out = [state]
    while not state.over and len(out) < turns:
        seat = current_seat(state)
        assert seat is not None
        turn = state.turn
        state, _ = apply(state, seat, choose_action(player_view(state, seat), "easy", 0, chooser))
        if not state.over and state.turn != turn and state.pending is None:
            out.append(state)
    return out


def _busy_turn(players: int, seed: int) -> GameState:
    """The first turn start where easy plays at least two card actions."""
    for state in _turn_starts(players, seed, 6):
        _, actions = finish_turn(state, state.turn)
        if sum(isinstance(a, CARD_ACTIONS) for a in actions) >= 2:
            return state
    raise AssertionError("no busy turn in this game")


def test_r11_a_search_out_of_time_still_plays_the_whole_turn() -> None:
    """R11/R12: when the beam's time is up, its unfinished plans go on greedily to the end of the
    turn instead of ending it where they stand (cards left unplayed are a turn lost)."""
    state = _busy_turn(2, 4)
    plans = plan_turns(state, state.turn, BEAM, deadline=0.0)
    assert plans
    best = plans[0]
    assert isinstance(best.actions[-1], EndTurn)
    assert sum(isinstance(a, CARD_ACTIONS) for a in best.actions) >= 2


def test_normal_always_weighs_the_turn_easy_would_play() -> None:
    """Whatever the beam finds, easy's whole turn is among the plans compared after the replies:
    the search can only add to what easy sees."""
    for state in _turn_starts(2, 6, 7)[2:]:
        seat = state.turn
        _, easy_actions = finish_turn(state, seat)
        plans = shortlist(state, seat, deadline=0.0)
        assert any(p.actions == easy_actions for p in plans), state.step


def test_candidates_remembered_per_board_are_those_computed_afresh() -> None:
    """The per-board memory of constructs and upgrades (keyed by board, hand, allowance, stock)
    gives the same candidates as an empty memory, over the turns of two games."""
    checked = 0
    for players, seed in ((2, 7), (4, 8)):
        for state in _turn_starts(players, seed, 9)[1:]:
            seat = state.turn
            warm = candidates(state, seat)
            policy._BOARD_MOVES.clear()
            assert candidates(state, seat) == warm, state.step
            checked += 1
    assert checked > 5
