"""A refusal per kind of bad input: each names its rule, explains itself, changes nothing."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine import (
    BuildingType,
    Construct,
    Demolish,
    EndTurn,
    MalformedAction,
    Populate,
    Travel,
    Upgrade,
    apply,
    parse_action,
)
from engine.builder import position

from .helpers import F, M, R, refused

K = BuildingType.KEEP


def test_wrong_turn() -> None:
    s = position(3, hands={0: "mmrc", 1: "mmrc"})
    err = refused(s, 1, Construct(age=M, building=K, square="F4"), "R8")
    assert "not your turn" in err.message


def test_not_seated() -> None:
    s = position(2)
    refused(s, 7, EndTurn(), "R8")


def test_unaffordable_cards() -> None:
    s = position(2, hands={0: "mrcc"})
    err = refused(s, 0, Construct(age=M, building=K, square="F4"), "R15")
    assert "2 military" in err.message


def test_card_limit() -> None:
    s = position(2, hands={0: "cccm"}, adventurers={0: [M, R]})
    refused(s, 0, Construct(age=M, building=BuildingType.TOWN, square="F4"), "R14")


def test_occupied_square() -> None:
    s = position(2, might="Town F4", hands={0: "mmrc"})
    err = refused(s, 0, Construct(age=M, building=K, square="G5"), "R15")
    assert "G5" in err.message and "Town" in err.message


def test_out_of_grid() -> None:
    s = position(2, hands={0: "mmrc"})
    refused(s, 0, Construct(age=M, building=K, square="T16"), "R15")
    with pytest.raises(MalformedAction) as info:
        apply(s, 0, Construct(age=M, building=K, square="Z99"))
    assert "not a square" in info.value.message


def test_river() -> None:
    s = position(2, hands={0: "mmrc"})
    refused(s, 0, Construct(age=M, building=K, square="J1"), "R18")


def test_dominion() -> None:
    s = position(2, might="Watchtower F4 1; Chapel I4 1", hands={0: "mmrc"})
    err = refused(s, 0, Construct(age=M, building=K, square="G4"), "R20")
    assert err.message.startswith("R20 Dominion: A Keep at G4 would join two domains")


def test_hierarchy() -> None:
    s = position(2, might="Keep F4 1", hands={0: "mmrc"})
    refused(s, 0, Construct(age=M, building=K, square="H4"), "R21")


def test_no_tile_in_stock() -> None:
    s = position(2, hands={0: "mmrc"}, stock={K: 0})
    err = refused(s, 0, Construct(age=M, building=K, square="F4"), "R15")
    assert "no Keep tile" in err.message


def test_action_on_the_wrong_board() -> None:
    s = position(2, reason="Town F4", hands={0: "mmcc"})
    refused(s, 0, Construct(age=F, building=K, square="F4"), "R14")  # no adventurer there
    refused(s, 0, Populate(square="F4"), "R14")
    r = position(2, hands={0: "mmcc"}, adventurers={0: [R, R]})
    refused(r, 0, Construct(age=R, building=K, square="F4"), "R40")
    refused(r, 0, Demolish(age=R, square="F4"), "R22")
    refused(r, 0, Upgrade(age=R, square="F4", to=BuildingType.CASTLE), "R40")


def test_no_building_there() -> None:
    s = position(2, hands={0: "mmcc"})
    refused(s, 0, Demolish(age=M, square="F4"), "R1")


def test_game_over() -> None:
    s = position(2, round=7)
    s, _ = apply(s, 0, EndTurn())
    s, _ = apply(s, 1, EndTurn())
    assert s.over
    refused(s, 0, Travel(to=F), "R50")


def test_malformed_actions_are_rejected_before_the_engine() -> None:
    with pytest.raises(ValidationError):
        parse_action({"kind": "construct", "age": 0, "building": "palace", "square": "C4"})
    with pytest.raises(ValidationError):
        parse_action({"kind": "teleport"})
    with pytest.raises(ValidationError):
        parse_action({"kind": "travel", "to": 1, "adventurer": 3})
    ok = parse_action('{"kind": "travel", "to": 2}')
    assert ok == Travel(to=R)
