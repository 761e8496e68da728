"""R14 shown to players: what each adventurer may still pay this turn, in /status and the hand."""

from __future__ import annotations

import engine
from bot.service import hand_text, status_text
from engine import Age, GameState


def _state() -> GameState:
    return engine.new_game(engine.Options(players=3), seed=5)


def test_r14_status_and_hand_show_each_adventurers_cards_left() -> None:
    state = _state()
    seat = state.turn
    p = state.players[seat]
    p.adventurers = [Age.MIGHT, Age.FAITH]
    p.used = [2, 0]  # adventurer 1 paid two cards on Might
    names = {s: f"P{s}" for s in range(3)}
    status = status_text(state, names, "active")
    line = ("this turn (R14): adventurer 1 on Might: 0 more cards, "
            "adventurer 2 on Faith: 2 more cards")
    assert line in status
    assert status.count("this turn (R14)") == 1  # only the player to move
    assert "adventurer 1 on Might: 0 more cards" in hand_text(state, seat)
    other = (seat + 1) % 3
    assert "R14" not in hand_text(state, other)


def test_r14_two_adventurers_on_one_board_share_what_is_left() -> None:
    state = _state()
    p = state.players[state.turn]
    p.adventurers = [Age.MIGHT, Age.MIGHT]
    p.used = [0, 0]
    p.shared = 3  # three cards where both stood: one more in all
    text = hand_text(state, state.turn)
    assert "adventurer 1 on Might: 1 more card," in text
    assert "(1 in all on Might)" in text
