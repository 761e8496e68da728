"""Positions that random play rarely builds, each once wrong in the engine (and the
refusal numbers and renovation default): built on purpose, rule by rule."""

from __future__ import annotations

from engine import (
    BuildingType,
    Construct,
    Demolish,
    GameState,
    Populate,
    Renovate,
    Travel,
    legal_actions,
    player_view,
    public_view,
)
from engine.builder import position, tile_at
from engine.random_player import cascade_counts

from .helpers import F, M, R, kind_at, play, refused, texts, tile
from .test_time_rules import choose_label

K, W, CASTLE = BuildingType.KEEP, BuildingType.WATCHTOWER, BuildingType.CASTLE
CHAPEL, HAMLET = BuildingType.CHAPEL, BuildingType.HAMLET


# --- R14: cards are matched to adventurers, not charged to one at once ----------------------


def test_r14_shared_allowance_two_cards_on_might_then_one_on_faith_and_one_on_reason() -> None:
    """R14: both adventurers on Might pay a 2-card Watchtower there (forest); then each
    travels and plays one card elsewhere: 1+1 on Might, legal."""
    s = position(2, hands={0: "mrcc"}, ecus={0: 2})
    s, _ = play(s, 0, Construct(age=M, building=W, square="B1"))  # forest: +1 card
    view = public_view(s).players[0]
    assert view.room == [2, 0, 0] and view.left == [2, 2]
    s, _ = play(s, 0, Travel(to=F, adventurer=0))
    s, _ = play(s, 0, Construct(age=F, building=CHAPEL, square="F4"))
    assert public_view(s).players[0].room == [1, 1, 0]  # one more card in all, on either
    s, events = play(s, 0, Travel(to=R, adventurer=1))
    assert "with adventurer 2" in texts(events) and events[0].adventurer == 1
    assert Populate(square="C7") in legal_actions(s, 0)
    s, _ = play(s, 0, Populate(square="C7"))
    assert player_view(s, 0).players[0].room == [0, 0, 0]
    assert player_view(s, 0).players[0].left == [0, 0]


def test_r14_a_lone_adventurer_still_plays_at_most_two() -> None:
    """R14: after a 2-card play where both stood, one adventurer alone may still play two,
    but not three, and the four cards of the turn are never exceeded."""
    s = position(2, hands={0: "mmmm"}, ecus={0: 2})
    s, _ = play(s, 0, Construct(age=M, building=K, square="F4"))
    s, _ = play(s, 0, Travel(to=F, adventurer=0))
    assert public_view(s).players[0].room == [2, 2, 0]
    s, _ = play(s, 0, Construct(age=F, building=W, square="J4"))
    assert public_view(s).players[0].room == [1, 1, 0]
    s, _ = play(s, 0, Construct(age=M, building=W, square="J7"))
    assert public_view(s).players[0].room == [0, 0, 0]


def test_r14_travel_without_a_number_moves_the_freer_adventurer() -> None:
    """R14/R13: with one adventurer spent alone, an unnumbered travel moves the other."""
    s = position(2, hands={0: "mmrr"}, adventurers={0: [M, F]})
    s, _ = play(s, 0, Construct(age=M, building=K, square="F4"))
    s, events = play(s, 0, Travel(to=R))
    assert events[0].adventurer == 1 and s.players[0].adventurers == [M, R]


# --- R34 with R24-R30: the Keep that replaces a downsized Castle ripples as a construction ---


def _castle_junction(keep_stock: int | None = None) -> tuple[GameState, int, int, int]:
    """Red's Castle I13 (+ Watchtower) and White's Castle M13 on Might; Green's Hamlet L14 joins
    them and White's weaker Castle is downsized. White's Faith copy stands at N13 (downsized
    there once and upgraded back), Red has a Chapel at M14 on Faith, and the Reason ruin of the
    Faith copy carries Red's renovation marker."""
    red, white, green = 0, 1, 2
    s = position(
        3,
        might=f"Castle I13 {red}; Watchtower I16 {red}; Castle M13 {white}",
        faith=f"Castle N13 {white}; Chapel M14 {red}",
        reason=f"Castle N13 ruin marker={red} copy",
        hands={green: "ccmr"},
        turn=green,
        stock={K: keep_stock} if keep_stock is not None else None,
    )
    tile(s, F, "N13").origin = tile(s, M, "M13").id
    return s, red, white, green


def test_r34_downsized_castle_keep_ripples_as_a_construction_and_erases_what_it_covers() -> None:
    """R34, R29: the Keep replacing White's Castle is copied to Faith where it now stands
    (M13), erasing Red's Chapel there; the Castle copy at N13 and its Reason ruin are gone."""
    s, red, white, green = _castle_junction()
    red_cubes = s.players[red].cubes
    s, _ = play(s, green, Construct(age=M, building=HAMLET, square="L14"))
    assert s.pending is not None and s.pending.seat == white
    s, events = choose_label(s, "M13")
    keep_m = tile_at(s, M, "M13")
    keep_f = tile_at(s, F, "M13")
    assert keep_m is not None and keep_m.type is K
    assert keep_f is not None and keep_f.type is K and keep_f.owner == white
    assert keep_f.origin == keep_m.id and tile_at(s, F, "M14") is keep_f
    assert tile_at(s, F, "P15") is None  # the old Castle copy is gone
    keep_r = tile_at(s, R, "M13")
    assert keep_r is not None and keep_r.type is K and keep_r.ruin
    assert keep_r.origin == keep_f.id and tile_at(s, R, "P15") is None
    assert "paradox, R29" in texts(events)
    # Red's Chapel cube and his renovation marker both went home
    assert s.players[red].cubes == red_cubes + 2


def test_r34_castle_downsized_with_the_last_keep_leaves_no_castle_copy() -> None:
    """R34: the last Keep tile goes to the Might building; the identical Castle copies on Faith
    and Reason are destroyed, the marker goes home, and the Keep ripples nowhere (R26)."""
    s, red, white, green = _castle_junction(keep_stock=1)
    red_cubes = s.players[red].cubes
    s, _ = play(s, green, Construct(age=M, building=HAMLET, square="L14"))
    s, events = choose_label(s, "M13")
    assert kind_at(s, M, "M13") is K and s.stock[K] == 0
    assert tile_at(s, F, "N13") is None and tile_at(s, F, "M13") is None
    assert kind_at(s, F, "M14") is CHAPEL  # nothing rippled over Red's Chapel
    assert tile_at(s, R, "N13") is None
    assert s.players[red].cubes == red_cubes + 1  # the marker
    assert "no Keep tile is left" in texts(events)


# --- R36: a division on Might reaches Faith through a destroyed copy ------------------------


def test_r36_division_after_a_demolition_checks_faith_too() -> None:
    """R36: the Hamlet demolished on Might splits a domain; the demolisher's Keep is downsized
    and its Faith copy destroyed (R34), which leaves two Keeps without their Castle on Faith:
    Faith is checked and the demolisher chooses which Keep is downsized."""
    s = position(
        2,
        might="Keep F4 0; Keep F6 1; Hamlet H6; Castle I5 1",
        faith="Keep D4 1; Keep D6 1; Keep F4 0 copy; Castle H3 1",
        hands={0: "ccmr"},
    )
    s, _ = play(s, 0, Demolish(age=M, square="H6"))
    assert s.pending is not None and s.pending.kind == "place_downsized"
    s, _ = choose_label(s, "F4")
    assert kind_at(s, M, "F4") is W and tile_at(s, F, "F4") is None
    assert s.pending is not None and s.pending.seat == 0 and s.pending.kind == "downsize_which"
    assert s.pending.age is F
    assert sorted(o.label.split(" at ")[1] for o in s.pending.options) == ["D4", "D6"]
    s, _ = choose_label(s, "D6")
    s, _ = choose_label(s, "D7")  # the owner places his Watchtower
    assert kind_at(s, F, "D7") is W and kind_at(s, F, "D4") is K and s.pending is None


# --- refusals state the right numbers; a partial renovation by default --------------------


def test_r15_refusal_states_how_many_cards_are_missing() -> None:
    """R15: holding 1 military card and owing 2, the hand lacks 1 military, not 2."""
    s = position(2, hands={0: "mrcc"})
    err = refused(s, 0, Construct(age=M, building=K, square="F4"), "R15")
    assert "lacks 1 military" in err.message
    s = position(2, hands={0: "rrcc"})
    err = refused(s, 0, Construct(age=M, building=K, square="F4"), "R15")
    assert "lacks 2 military" in err.message


def test_r42_renovation_without_a_count_pays_what_the_player_can() -> None:
    """R42: a Castle ruin owes 2; with 1 military card the default pays 1 and marks it."""
    s = position(2, reason="Castle F4 ruin", hands={0: "mrcc"}, adventurers={0: [R, R]})
    assert Renovate(square="F4", cards=1) in legal_actions(s, 0)
    s, events = play(s, 0, Renovate(square="F4"))
    ruin = tile_at(s, R, "F4")
    assert ruin is not None and ruin.ruin and ruin.marker == 0
    assert "pays the first card" in texts(events)


def test_r42_renovation_default_pays_all_it_can_and_refuses_with_nothing() -> None:
    """R42: with both cards the default completes it; with none it is refused (R42)."""
    s = position(2, reason="Castle F4 ruin", hands={0: "mmrc"}, adventurers={0: [R, R]})
    s, _ = play(s, 0, Renovate(square="F4"))
    assert not tile(s, R, "F4").ruin
    s = position(2, reason="Castle F4 ruin", hands={0: "rrcc"}, adventurers={0: [R, R]})
    err = refused(s, 0, Renovate(square="F4"), "R42")
    assert "lacks 2 military" in err.message


def test_r34_on_reason_the_keep_ruin_lands_where_the_faith_keep_stands_and_erases() -> None:
    """R34 with R29-R30, same on Reason: White's Faith Castle is downsized in a junction on
    Faith; its Reason ruin stood elsewhere (N13), so it is destroyed and the Keep ruin is copied
    to M13, erasing the populated Town there, whose cubes go home."""
    red, white, green = 0, 1, 2
    s = position(
        3,
        faith=f"Castle I13 {red}; Watchtower I16 {red}; Castle M13 {white}",
        reason="Castle N13 ruin; Town L13 cubes=0,1",
        hands={green: "ccmr"},
        adventurers={green: [F, F]},
        turn=green,
    )
    tile(s, R, "N13").origin = tile(s, F, "M13").id
    cubes = [s.players[red].cubes, s.players[white].cubes]
    s, _ = play(s, green, Construct(age=F, building=HAMLET, square="L14"))
    assert s.pending is not None and s.pending.seat == white
    s, events = choose_label(s, "M13")
    keep_f, keep_r = tile_at(s, F, "M13"), tile_at(s, R, "M13")
    assert keep_f is not None and keep_f.type is K
    assert keep_r is not None and keep_r.type is K and keep_r.ruin
    assert keep_r.origin == keep_f.id
    assert tile_at(s, R, "P15") is None and tile_at(s, R, "L13") is None
    assert [s.players[red].cubes, s.players[white].cubes] == [cubes[0] + 1, cubes[1] + 1]
    assert "paradox, R29" in texts(events)


def test_r33_r36_r37_the_cascade_tally_names_what_happened() -> None:
    """The property test's tally (random_player.cascade_counts) sorts events rightly: in the
    R36 scenario above, the Keep downsized on Might (R33) is a choice by the mover (R37), and
    the Faith division (R36) follows; in the R32 junction, a Castle is downsized by power and
    its owner, another player, chooses where the Keep sits."""
    s = position(
        2,
        might="Keep F4 0; Keep F6 1; Hamlet H6; Castle I5 1",
        faith="Keep D4 1; Keep D6 1; Keep F4 0 copy; Castle H3 1",
        hands={0: "ccmr"},
    )
    s, events = play(s, 0, Demolish(age=M, square="H6"))
    first = cascade_counts(events, mover=0)
    assert first["division (R36)"] == 1 and first["choice by the mover (R37)"] == 1
    s, events = choose_label(s, "F4")
    then = cascade_counts(events, mover=0)
    assert then["downsized Keep (R33)"] == 1 and then["division (R36)"] == 1
    assert then["choice by the mover (R37)"] == 1
    s, red, white, green = _castle_junction()
    s, events = play(s, green, Construct(age=M, building=HAMLET, square="L14"))
    tally = cascade_counts(events, mover=green)
    assert tally["junction (R31)"] == 1 and tally["junction decided by power (R32)"] == 1
    assert tally["choice by another player (R37)"] == 1
    s, events = choose_label(s, "M13")
    tally = cascade_counts(events, mover=green)
    assert tally["downsized Castle (R33)"] == 1 and tally["paradox (R29)"] >= 1
    assert tally["ripple"] == 2  # the Keep to Faith and its ruin to Reason
