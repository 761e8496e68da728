"""What each adventurer of the player to move may still pay this turn (R14),
on the panel, the move image's key and the hand of the player to move."""

from __future__ import annotations

import io

from PIL import Image

import render
from engine import Age, BuildingType, Construct, Travel, apply, player_view, public_view
from engine.builder import position
from render.panel import allowance_items, allowance_text, panel_height
from render.strings import speaking
from render.style import line_height

from . import states


def _height(png: bytes) -> int:
    return Image.open(io.BytesIO(png)).height


def test_r14_each_adventurer_says_its_board_and_its_cards_left() -> None:
    state = position(2, adventurers={0: [Age.MIGHT, Age.FAITH]}, hands={0: "mmmm"})
    assert allowance_items(public_view(state).players[0]) == (
        "Might: 2 cards left \u00b7 Faith: 2 cards left")
    state, _ = apply(state, 0, Construct(age=Age.MIGHT, building=BuildingType.WATCHTOWER,
                                         square="E1"))
    view = public_view(state)
    assert allowance_items(view.players[0]) == "Might: 1 card left \u00b7 Faith: 2 cards left"
    assert allowance_text(view) == "This turn: Might: 1 card left \u00b7 Faith: 2 cards left"
    with speaking("fr"):
        assert allowance_text(view) == (
            "Ce tour-ci : Puissance : encore 1 carte \u00b7 Foi : encore 2 cartes")


def test_r14_both_adventurers_on_one_board_say_that_board_once() -> None:
    # mid_game: Alice's Keep (2 cards) was paid on Might where both her adventurers stand
    view, _, _ = states.mid_game()
    alice = view.players[0]
    assert alice.left == [2, 2]
    assert allowance_items(alice) == "Might: 2 cards left"


def test_r14_cards_played_where_both_stood_bound_the_total_once_they_part() -> None:
    state = position(2, adventurers={0: [Age.MIGHT, Age.MIGHT]}, hands={0: "mmmm"})
    # a Keep at E1 costs 3 cards (2 and 1 for its forest, R18), paid where both stood
    state, _ = apply(state, 0, Construct(age=Age.MIGHT, building=BuildingType.KEEP,
                                         square="E1"))
    state, _ = apply(state, 0, Travel(adventurer=1, to=Age.FAITH))
    assert allowance_items(public_view(state).players[0]) == (
        "Might: 1 card left \u00b7 Faith: 1 card left \u00b7 at most 1 in all")


def test_no_allowance_once_the_game_is_over() -> None:
    assert allowance_text(states.end_game()) is None


def test_the_panel_row_of_the_player_to_move_grows_for_his_allowance() -> None:
    view, _, _ = states.mid_game()
    # the same view without the figures (an older view) draws no allowance
    bare = view.model_copy(update={"players": [p.model_copy(update={"left": []})
                                               for p in view.players]})
    assert allowance_text(bare) is None
    assert panel_height(view, states.NAMES_4) > panel_height(bare, states.NAMES_4)


def test_the_hand_of_the_player_to_move_shows_his_allowance_and_no_other_hand_does() -> None:
    _, _, hand = states.mid_game()
    not_his_turn = hand.model_copy(update={"turn": 1})
    grown = _height(render.hand_png(hand, states.NAMES_4)) - _height(
        render.hand_png(not_his_turn, states.NAMES_4))
    assert grown == line_height(14)


def test_the_move_image_key_shows_the_allowance_of_the_player_to_move() -> None:
    view, events, _ = states.mid_game()
    lay = render.images.move_layout(view, states.NAMES_4, events)
    alice = next(e for e in lay.key if e.seat == 0)
    assert "This turn: Might: 2 cards left" in " ".join(alice.ecus)
    others = [e for e in lay.key if e.seat != 0]
    assert all(len(e.ecus) == 1 for e in others)


def test_a_travel_shows_where_each_adventurer_now_stands() -> None:
    state = position(2, hands={0: "mm"})
    state, events = apply(state, 0, Travel(adventurer=1, to=Age.REASON))
    assert events[0].adventurer == 1
    view = player_view(state, 0)
    assert allowance_items(view.players[0]) == "Might: 2 cards left \u00b7 Reason: 2 cards left"


def test_the_alt_text_says_the_allowance_after_whose_turn_it_is() -> None:
    view, events, _ = states.mid_game()
    text = render.alt_text(view, states.NAMES_4, events)
    assert text.startswith("Khronos boards, round 5 of 7. Alice's turn. This turn: "
                           "Might: 2 cards left. Last move")
    assert "cards left" not in render.alt_text(states.end_game(), states.NAMES_5)
