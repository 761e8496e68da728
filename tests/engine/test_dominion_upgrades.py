"""R20 Dominion for upgrades and for the Faith copies of upgrades (R27), with the one count of
RULES.md's decision: the domains, as they stand before the upgrade, of the *other* buildings
that share a side with the new footprint; two or more is illegal. The check, the legal actions
and the autocomplete use the same count."""

from __future__ import annotations

from engine import (
    BuildingType,
    Construct,
    GameState,
    Upgrade,
    check,
    legal_actions,
    upgrade_options,
)
from engine.builder import position, tile_at

from .helpers import F, M, R, kind_at, play, refused, texts

KEEP, CASTLE = BuildingType.KEEP, BuildingType.CASTLE
MONASTERY = BuildingType.MONASTERY


def _offered(state: GameState, age: int, square: str, to: BuildingType, at: str) -> bool:
    """Whether the upgrade is both among the legal actions and offered by the autocomplete."""
    listed = any(
        isinstance(a, Upgrade) and a.age == age and a.square == square and a.to is to
        and a.at == at
        for a in legal_actions(state, 0)
    )
    offered = (square, to, at) in {
        (sq, t, o.square) for sq, t, o in upgrade_options(state, 0, M if age == M else F)
    }
    assert listed == offered
    return listed


def test_r20_a_lone_watchtower_grows_into_a_keep_touching_one_domain() -> None:
    # The printed hamlet at D9 is a domain of its own; the Keep at E8 touches it (E9-D9).
    s = position(2, might="Watchtower F8 0", hands={0: "mmrc"})
    new_keep = position(2, hands={0: "mmrc"})
    check(new_keep, 0, Construct(age=M, building=KEEP, square="E8"))  # as a new Keep could
    assert _offered(s, M, "F8", KEEP, "E8")
    s, events = play(s, 0, Upgrade(age=M, square="F8", to=KEEP, at="E8"))
    assert kind_at(s, M, "E8") is KEEP and kind_at(s, M, "F9") is KEEP
    assert "Watchtower at F8" in texts(events)


def test_r20_a_lone_chapel_grows_into_a_monastery_next_to_a_keep_on_faith() -> None:
    s = position(
        2, faith="Chapel G5 0; Keep I5 1", hands={0: "rrmc"}, adventurers={0: [F, F]}
    )
    assert _offered(s, F, "G5", MONASTERY, "G5")
    s, _ = play(s, 0, Upgrade(age=F, square="G5", to=MONASTERY, at="G5"))
    assert kind_at(s, F, "H6") is MONASTERY and kind_at(s, R, "H6") is MONASTERY


def test_r20_a_lone_watchtower_grows_into_a_castle_next_to_a_chapel() -> None:
    s = position(2, might="Watchtower G5 0; Chapel J6 1", hands={0: "mmrc"})
    assert _offered(s, M, "G5", CASTLE, "G5")
    s, _ = play(s, 0, Upgrade(age=M, square="G5", to=CASTLE, at="G5"))
    assert kind_at(s, M, "I7") is CASTLE and kind_at(s, F, "I7") is CASTLE


def test_r20_a_watchtower_in_a_domain_may_not_grow_to_touch_a_second() -> None:
    # The Hamlet F5 and the Watchtower are one domain; the Chapel at J6 is another.
    s = position(2, might="Watchtower G5 0; Hamlet F5; Chapel J6 1", hands={0: "mmrc"})
    err = refused(s, 0, Upgrade(age=M, square="G5", to=CASTLE, at="G5"), "R20")
    assert "would join two domains" in err.message
    assert not _offered(s, M, "G5", CASTLE, "G5")


def test_r20_a_building_bridging_two_parts_of_its_own_domain_may_grow() -> None:
    # F5 and G4 touch each other only through the Watchtower: one domain before the upgrade.
    s = position(2, might="Watchtower G5 0; Hamlet F5; Hamlet G4", hands={0: "mmrc"})
    assert _offered(s, M, "G5", KEEP, "G5")
    play(s, 0, Upgrade(age=M, square="G5", to=KEEP, at="G5"))


def test_r21_a_lone_building_growing_into_a_domain_meets_its_hierarchy() -> None:
    # The lone Watchtower may touch the Keep's domain (R20), but not equal its Keep (R21).
    s = position(2, might="Watchtower G5 0; Keep I5 1", hands={0: "mmrc"})
    refused(s, 0, Upgrade(age=M, square="G5", to=KEEP, at="G5"), "R21")
    assert not _offered(s, M, "G5", KEEP, "G5")


def test_r20_a_lone_keep_on_faith_grows_into_a_castle_next_to_a_chapel_as_its_copy_does() -> None:
    # The engine agrees with itself: the Faith upgrade is legal, and the Faith copy of the
    # same upgrade on Might is placed (R27 uses the same count).
    faith = "Keep G5 0 copy; Chapel J5 1"
    s = position(2, might="Keep G5 0", faith=faith, hands={0: "mmmc"}, adventurers={0: [M, F]})
    assert _offered(s, F, "G5", CASTLE, "G5")
    on_faith, _ = play(s, 0, Upgrade(age=F, square="G5", to=CASTLE, at="G5"))
    assert kind_at(on_faith, F, "I7") is CASTLE
    from_might, events = play(s, 0, Upgrade(age=M, square="G5", to=CASTLE, at="G5"))
    assert kind_at(from_might, F, "I7") is CASTLE, texts(events)


def test_r27_a_copy_replacing_a_faith_keep_that_bridges_its_domain_is_placed() -> None:
    # On Faith the Keep copy joins the Hamlet F5 and the Chapel H4 into one domain. The Castle
    # copy touches both: one domain as they stand before, so it is placed (R20 decision).
    faith = "Keep G5 0 copy; Hamlet F5; Chapel H4 1"
    s = position(2, might="Keep G5 0", faith=faith, hands={0: "mmmc"})
    s, events = play(s, 0, Upgrade(age=M, square="G5", to=CASTLE, at="G5"))
    faith_castle = tile_at(s, F, "I7")
    assert faith_castle is not None and faith_castle.type is CASTLE, texts(events)
    assert faith_castle.owner == 0 and kind_at(s, R, "I7") is CASTLE
    assert "(R27)" not in texts(events)


def test_r27_a_copy_still_blocked_when_it_would_touch_a_second_domain() -> None:
    # The Faith Keep is in the Hamlet F5's domain; its Castle copy would also touch the
    # Chapel at J6, a second domain: blocked, and nothing reaches Reason.
    faith = "Keep G5 0 copy; Hamlet F5; Chapel J6 1"
    s = position(2, might="Keep G5 0", faith=faith, reason="Keep G5 ruin copy", hands={0: "mmmc"})
    s, events = play(s, 0, Upgrade(age=M, square="G5", to=CASTLE, at="G5"))
    assert "(R27)" in texts(events) and "R20" in texts(events)
    assert kind_at(s, F, "G5") is KEEP and kind_at(s, R, "G5") is KEEP
