"""R37: computer seats answer the choices asked of them (R32/R36 which building is downsized,
R33 where a downsized tile sits), at every level, with a legal option."""

from __future__ import annotations

import random

import pytest

from ai import Level, choose_action
from engine import (
    Age,
    BuildingType,
    Choose,
    Construct,
    GameState,
    apply,
    check,
    current_seat,
    player_view,
)
from engine.builder import position

RED, BLUE, GREEN = 0, 1, 2


def _green_must_choose(red_ecus: int, blue_ecus: int) -> GameState:
    """R32: green's Hamlet joins red's and blue's domains, whose Keeps tie at power 2; green owns
    neither Keep, so he chooses which is downsized."""
    s = position(
        3,
        might=f"Keep F4 {RED}; Chapel G6 {GREEN}; Keep I4 {BLUE}; Chapel I6 {BLUE}",
        hands={GREEN: "ccmr"},
        turn=GREEN,
        ecus={RED: red_ecus, BLUE: blue_ecus},
    )
    s, _ = apply(s, GREEN, Construct(age=Age.MIGHT, building=BuildingType.HAMLET, square="H5"))
    assert s.pending is not None and s.pending.kind == "downsize_which"
    assert current_seat(s) == GREEN
    return s


def _label(state: GameState, action: Choose) -> str:
    assert state.pending is not None
    return state.pending.options[action.option].label


@pytest.mark.parametrize("level", list(Level))
def test_r37_every_level_answers_a_downsize_choice_legally(level: Level) -> None:
    s = _green_must_choose(9, 3)
    action = choose_action(player_view(s, GREEN), level, 0.05, random.Random(1))
    assert isinstance(action, Choose)
    check(s, GREEN, action)


@pytest.mark.parametrize("level", [Level.EASY, Level.NORMAL])
def test_r32_r37_the_computer_downsizes_the_richest_rivals_building(level: Level) -> None:
    red_rich = _green_must_choose(red_ecus=12, blue_ecus=3)
    action = choose_action(player_view(red_rich, GREEN), level, 0.05, random.Random(1))
    assert isinstance(action, Choose) and "F4" in _label(red_rich, action)
    blue_rich = _green_must_choose(red_ecus=3, blue_ecus=12)
    action = choose_action(player_view(blue_rich, GREEN), level, 0.05, random.Random(1))
    assert isinstance(action, Choose) and "I4" in _label(blue_rich, action)


def test_r33_r37_the_owner_places_its_downsized_tile_and_the_game_goes_on() -> None:
    """R33: after green's choice, red (a computer) places her smaller tile; she takes the
    R37 default, which keeps it in the largest domain."""
    s = _green_must_choose(red_ecus=12, blue_ecus=3)
    s, _ = apply(s, GREEN, choose_action(player_view(s, GREEN), "easy", 0.05, random.Random(1)))
    assert s.pending is not None and s.pending.kind == "place_downsized"
    assert current_seat(s) == RED
    action = choose_action(player_view(s, RED), "normal", 0.05, random.Random(1))
    assert action == Choose(option=s.pending.default)
    s, _ = apply(s, RED, action)
    assert s.pending is None and current_seat(s) == GREEN  # green's turn goes on
