"""R14 shown to players: what may still be paid this turn on each board where an adventurer
stands, in /status and the hand; and the counts of Ecus, cards and cubes in words."""

from __future__ import annotations

import engine
from bot.service import hand_text, status_text
from engine import Age, GameState


def _state() -> GameState:
    return engine.new_game(engine.Options(players=3), seed=5)


def test_r14_status_and_hand_show_each_boards_cards_left() -> None:
    state = _state()
    seat = state.turn
    p = state.players[seat]
    p.adventurers = [Age.MIGHT, Age.FAITH]
    p.used = [2, 0]  # adventurer 1 paid two cards on Might
    names = {s: f"P{s}" for s in range(3)}
    status = status_text(state, names, "active")
    assert "this turn (R14): Might: 0 cards left, Faith: 2 cards left" in status
    assert status.count("this turn (R14)") == 1  # only the player to move
    assert "This turn (R14): Might: 0 cards left, Faith: 2 cards left." in hand_text(state, seat)
    other = (seat + 1) % 3
    assert "R14" not in hand_text(state, other)


def test_r14_two_adventurers_on_one_board_say_it_once() -> None:
    state = _state()
    p = state.players[state.turn]
    p.adventurers = [Age.MIGHT, Age.MIGHT]
    p.used = [0, 0]
    p.shared = 3  # three cards where both stood: one more in all
    assert "This turn (R14): Might: 1 card left." in hand_text(state, state.turn)


def test_r14_cards_paid_where_both_stood_bound_the_boards_once_they_part() -> None:
    state = _state()
    p = state.players[state.turn]
    p.adventurers = [Age.MIGHT, Age.FAITH]
    p.used = [0, 0]
    p.shared = 3  # three cards paid while both stood on one board: one more in all
    assert "Might: 1 card left, Faith: 1 card left, at most 1 in all." in hand_text(
        state, state.turn)


def test_one_ecu_is_one_ecu() -> None:
    state = _state()
    p = state.players[state.turn]
    p.ecus, p.cubes = 1, 1
    names = {s: f"P{s}" for s in range(3)}
    assert "1 Ecu, 1 cube," in hand_text(state, state.turn)
    assert "1 Ecu, 4 cards, 1 cube," in status_text(state, names, "active")
    assert "1 écu, 1 cube," in hand_text(state, state.turn, "fr")
    p.ecus = 4
    assert "4 Ecus, 1 cube," in hand_text(state, state.turn)


def test_both_adventurers_on_one_age_are_named_once_in_the_hand() -> None:
    """R6: both adventurers start on Might; the hand says so once, in every language, and
    names both ages once they stand apart."""
    state = _state()
    seat = state.turn
    assert state.players[seat].adventurers == [Age.MIGHT, Age.MIGHT]
    assert "adventurers on Might (both)." in hand_text(state, seat, "en")
    assert "(les deux)." in hand_text(state, seat, "fr")
    assert "(beide)." in hand_text(state, seat, "de")
    state.players[seat].adventurers = [Age.FAITH, Age.MIGHT]
    assert "adventurers on Faith and Might." in hand_text(state, seat, "en")
