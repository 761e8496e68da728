"""Positions the computer-player tests share: games part played by easy computers, and the same
game with the cards one seat cannot see dealt otherwise."""

from __future__ import annotations

import random

from ai import choose_action
from engine import GameState, Options, apply, current_seat, new_game, player_view


def midgame(players: int, seed: int, moves: int, holdem: bool = False) -> GameState:
    """The state after ``moves`` actions of easy computers from a fresh deal."""
    state = new_game(Options(players=players, holdem=holdem), seed)
    chooser = random.Random(seed)
    for _ in range(moves):
        seat = current_seat(state)
        assert seat is not None
        state, _ = apply(state, seat, choose_action(player_view(state, seat), "easy", 0, chooser))
    return state


def turn_starts(players: int, seed: int, turns: int) -> list[GameState]:
    """The state at the start of each of the first ``turns`` turns of a game of easy computers
    (no decision pending)."""
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


def reshuffle_hidden(state: GameState, seat: int, seed: int) -> GameState:
    """The same game with the cards ``seat`` cannot see dealt differently (same sizes)."""
    other = state.clone()
    others = [p for p in other.players if p.seat != seat]
    pool = [c for p in others for c in p.hand] + other.draw_pile + other.discard
    random.Random(seed).shuffle(pool)
    for p in others:
        n = len(p.hand)
        p.hand, pool = sorted(pool[:n]), pool[n:]
    n = len(other.draw_pile)
    other.draw_pile, other.discard = pool[:n], pool[n:]
    other.rng ^= 0x5DEECE66D  # the future shuffles differ too
    return other
