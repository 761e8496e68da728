"""A refusal per kind of bad input: each names its rule, explains itself, changes nothing."""

from __future__ import annotations

import gc
import weakref

import pytest
from pydantic import ValidationError

from engine import (
    BuildingType,
    Construct,
    Demolish,
    EndTurn,
    EngineError,
    GameState,
    MalformedAction,
    Populate,
    Renovate,
    Travel,
    Upgrade,
    apply,
    explain,
    parse_action,
)
from engine.actions import Action
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


def test_r1_an_action_on_an_empty_square_names_its_rule_in_every_language() -> None:
    s = position(2, hands={0: "mmcc"}, adventurers={0: [M, R]})
    for action in (
        Demolish(age=M, square="F4"),
        Upgrade(age=M, square="A1", to=BuildingType.KEEP),
        Populate(square="F4"),
        Renovate(square="F4"),
    ):
        err = refused(s, 0, action, "R1")
        for lang in ("en", "fr", "de"):
            assert explain(err, lang).startswith("R1 "), (lang, explain(err, lang))
    err = refused(s, 0, Demolish(age=M, square="F4"), "R1")
    assert err.message == "R1 Board: there is no building on F4 in the age of Might."


def _short_of_cards(state: GameState, action: Action, rule: str) -> None:
    """Refused for missing cards (R15's sentence), naming the action's own rule everywhere."""
    err = refused(state, 0, action, rule)
    assert err.key == "refusal.cards_short", err.message
    for lang in ("en", "fr", "de"):
        text = explain(err, lang)
        assert text.startswith(f"{rule} ") and (rule == "R15" or "R15" not in text), (lang, text)


def test_r16_an_upgrade_short_of_cards_names_r16() -> None:
    s = position(2, might="Watchtower F4 0", hands={0: "rrcc"})
    _short_of_cards(s, Upgrade(age=M, square="F4", to=K, at="F4"), "R16")
    err = refused(s, 0, Upgrade(age=M, square="F4", to=K, at="F4"), "R16")
    assert err.message == (
        "R16 Cards: this upgrade to a Keep needs 1 military card, and your hand lacks "
        "1 military."
    )


def test_r22_a_demolition_short_of_cards_names_r22() -> None:
    s = position(2, might="Chapel F4 1", hands={0: "mmcc"})
    _short_of_cards(s, Demolish(age=M, square="F4"), "R22")


def test_r41_populating_short_of_cards_names_r41() -> None:
    s = position(2, reason="Town F4", hands={0: "cmmr"}, adventurers={0: [R, R]})
    _short_of_cards(s, Populate(square="F4", count=2), "R41")


def test_r42_a_renovation_short_of_cards_names_r42() -> None:
    s = position(2, reason="Keep F4 ruin", hands={0: "rrcc"}, adventurers={0: [R, R]})
    _short_of_cards(s, Renovate(square="F4"), "R42")


def test_r15_a_construction_short_of_cards_still_names_r15() -> None:
    s = position(2, hands={0: "mrcc"})
    _short_of_cards(s, Construct(age=M, building=K, square="F4"), "R15")


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


@pytest.mark.parametrize(
    ("state", "action", "rule"),
    [
        (position(2, might="Town F4", hands={0: "mmrc"}),
         Construct(age=M, building=K, square="G5"), "R15"),
        (position(2, hands={0: "mrcc"}), Construct(age=M, building=K, square="F4"), "R15"),
        (position(2, might="Keep F4 1", hands={0: "mmrc"}),
         Construct(age=M, building=K, square="H4"), "R21"),
        (position(2, might="Watchtower F4 0", hands={0: "mmrc"}),
         Upgrade(age=M, square="F4", to=K, at="A1"), "R16"),
        (position(2, might="Watchtower F4 0", hands={0: "rrcc"}),
         Upgrade(age=M, square="F4", to=K, at="F4"), "R16"),
        (position(2, might="Chapel F4 1", hands={0: "mmcc"}), Demolish(age=M, square="F4"), "R22"),
        (position(2, reason="Town F4", hands={0: "cmmr"}, adventurers={0: [R, R]}),
         Populate(square="F4", count=2), "R41"),
        (position(2, reason="Keep F4 ruin", hands={0: "rrcc"}, adventurers={0: [R, R]}),
         Renovate(square="F4"), "R42"),
    ],
)
def test_a_refusal_is_freed_by_reference_counting_alone(
    state: GameState, action: Action, rule: str
) -> None:
    """A refused action leaves no reference cycle behind (its exception, the frames of its
    traceback and the position they checked are freed as soon as the refusal is handled):
    the computers' searches check thousands of actions with the garbage collector paused
    (ai/work.py ``collector_paused``)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        try:
            apply(state, 0, action)
        except EngineError as err:
            assert err.rule == rule, err.message
            freed = weakref.ref(err)
        else:
            pytest.fail(f"{action} was not refused")
        assert freed() is None
    finally:
        if was_enabled:
            gc.enable()
