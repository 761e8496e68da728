"""R23-R37: ripples, paradoxes, junctions, downsizing, division and choices, with the
rulebook's worked examples (seed 000, pages 5-7)."""

from __future__ import annotations

from engine import (
    BuildingType,
    Choose,
    Construct,
    Demolish,
    EndTurn,
    Event,
    GameState,
    NotYourTurn,
    Upgrade,
    apply,
    default_choice,
    legal_actions,
    parse_square,
    preview,
)
from engine.builder import position, tile_at

from .helpers import F, M, R, decision, kind_at, play, refused, texts, tile

K, W, CASTLE = BuildingType.KEEP, BuildingType.WATCHTOWER, BuildingType.CASTLE
MON, CHAPEL, ABBEY = BuildingType.MONASTERY, BuildingType.CHAPEL, BuildingType.ABBEY
HAMLET, TOWN, CITY = BuildingType.HAMLET, BuildingType.TOWN, BuildingType.CITY


def choose_label(state: GameState, label: str) -> tuple[GameState, list[Event]]:
    """Answer the pending decision by the option whose label contains ``label``."""
    assert state.pending is not None
    idx = next(i for i, o in enumerate(state.pending.options) if label in o.label)
    return play(state, state.pending.seat, Choose(option=idx))


# --- R23-R25: what ripples where ------------------------------------------------------------


def test_r25_scenario_keep_rippled_to_faith_with_a_new_cube_and_a_ruin_on_reason() -> None:
    s = position(2, hands={0: "mmrc"})
    s, events = play(s, 0, Construct(age=M, building=K, square="F4"))
    faith, reason = tile(s, F, "F4"), tile(s, R, "F4")
    assert faith.type is K and faith.owner == 0 and faith.origin == tile(s, M, "F4").id
    assert reason.type is K and reason.ruin and reason.owner is None
    assert s.players[0].cubes == 23  # the Might cube and the new Faith cube
    assert "ripples to Faith with a new cube" in texts(events)
    assert s.players[0].ecus == 5  # copies pay no bonus (R17)


def test_r23_scenario_chapel_not_rippled() -> None:
    s = position(2, hands={0: "rrmc"})
    s, _ = play(s, 0, Construct(age=M, building=CHAPEL, square="F4"))
    assert tile_at(s, F, "F4") is None and tile_at(s, R, "F4") is None


def test_r24_scenario_town_rippled_to_both_later_boards_without_cube() -> None:
    s = position(2, hands={0: "cccm"})
    s, _ = play(s, 0, Construct(age=M, building=TOWN, square="F4"))
    for age in (F, R):
        t = tile(s, age, "G5")
        assert t.type is TOWN and t.owner is None and not t.ruin


def test_r23_nothing_ripples_backwards_and_faith_buildings_reach_reason_only() -> None:
    s = position(2, hands={0: "rrmc"}, adventurers={0: [F, F]})
    s, _ = play(s, 0, Construct(age=F, building=MON, square="F4"))
    assert tile_at(s, M, "F4") is None
    assert tile(s, R, "F4").type is MON and tile(s, R, "F4").ruin


def test_r25_castle_upgrade_puts_a_castle_ruin_even_over_a_renovated_keep() -> None:
    s = position(
        2, might="Keep F4 0", faith="Keep F4 0 copy", reason="Keep F4 copy", hands={0: "mrcc"}
    )
    s, events = play(s, 0, Upgrade(age=M, square="F4", to=CASTLE, at="F4"))
    assert tile(s, F, "H6").type is CASTLE and tile(s, F, "H6").owner == 0
    reason = tile(s, R, "H6")
    assert reason.type is CASTLE and reason.ruin
    assert s.players[0].cubes == 23  # the Faith copy kept its cube: no new one
    assert "paradox" not in texts(events)  # its own earlier copy is replaced, not erased


# --- R26: stock limits ----------------------------------------------------------------------


def test_r26_ripple_stops_when_tiles_run_out() -> None:
    s = position(2, hands={0: "cccm"}, stock={TOWN: 2})
    s, events = play(s, 0, Construct(age=M, building=TOWN, square="F4"))
    assert tile_at(s, F, "F4") is not None and tile_at(s, R, "F4") is None
    assert "no Town tile is left" in texts(events)
    assert s.stock[TOWN] == 0


def test_r26_ripple_stops_without_a_cube_for_the_faith_copy() -> None:
    s = position(2, hands={0: "mmrc"}, cubes={0: 1})
    s, events = play(s, 0, Construct(age=M, building=K, square="F4"))
    assert tile(s, M, "F4").owner == 0
    assert tile_at(s, F, "F4") is None and tile_at(s, R, "F4") is None
    assert "no control cube left" in texts(events)


# --- R27: blocked ripples -----------------------------------------------------------------


def test_r27_scenario_monastery_not_rippled_because_of_dominion() -> None:
    s = position(3, faith="Hamlet E4; Hamlet H4", hands={2: "rrmc"}, turn=2)
    s, events = play(s, 2, Construct(age=M, building=MON, square="F4"))
    assert kind_at(s, M, "F4") is MON
    assert tile_at(s, F, "F4") is None and tile_at(s, R, "F4") is None
    assert "does not ripple to Faith (R27)" in texts(events)


def test_r27_scenario_monastery_not_rippled_because_of_hierarchy() -> None:
    s = position(3, faith="Monastery H4 1", hands={2: "rrmc"}, turn=2)
    s, events = play(s, 2, Construct(age=M, building=MON, square="F4"))
    assert tile_at(s, F, "F4") is None
    assert "Hierarchy" in texts(events)


def test_r27_r29_scenario_might_monastery_shadow_erases_the_faith_monastery() -> None:
    # Green's (1) Monastery was built on Faith; Blue (2) builds one on Might at the same place.
    s = position(
        3, faith="Monastery G5 1", reason="Monastery G5 ruin copy", hands={2: "rrmc"}, turn=2
    )
    green_cubes = s.players[1].cubes
    s, events = play(s, 2, Construct(age=M, building=MON, square="F4"))
    faith = tile(s, F, "F4")
    assert faith.type is MON and faith.owner == 2 and faith.at == parse_square("F4")
    assert tile_at(s, F, "H6") is None
    assert s.players[1].cubes == green_cubes + 1
    reason = tile(s, R, "F4")
    assert reason.ruin and reason.at == parse_square("F4") and tile_at(s, R, "H6") is None
    assert "paradox" in texts(events)


# --- R28, R31, R32: junctions --------------------------------------------------------------


def test_r28_civil_copy_junction_on_faith_is_provoked_by_the_builder() -> None:
    s = position(3, faith="Monastery F4 1; Chapel F6 1; Monastery J4 2", hands={0: "cccm"})
    s, events = play(s, 0, Construct(age=M, building=TOWN, square="H5"))
    # The Faith copy at H5 touches G5 (power 3) and J5 (power 2).
    assert "joins 2 domains on Faith" in texts(events)
    assert "religious power of the joined domains 3, 2" in texts(events)
    # the weaker Monastery is downsized: its owner places the Chapel
    assert s.pending is not None and s.pending.seat == 2
    assert [o.label for o in s.pending.options] == ["J4", "K4", "J5", "K5"]
    s, _ = play(s, 2, Choose(option=3))
    assert kind_at(s, F, "K5") is CHAPEL and kind_at(s, F, "F4") is MON


def test_r31_on_faith_religious_is_checked_before_military() -> None:
    s = position(
        4,
        faith="Keep F4 1; Monastery F6 1; Keep I4 2; Monastery I6 2",
        hands={0: "cccm"},
        adventurers={0: [F, F]},
    )
    s, _ = play(s, 0, Construct(age=F, building=HAMLET, square="H6"))
    assert s.pending is not None and s.pending.kind == "downsize_which"
    assert all("Monastery" in o.label for o in s.pending.options)
    t = position(4, might="Keep F4 1; Monastery F6 1; Keep I4 2; Monastery I6 2", hands={0: "cccm"})
    t, _ = play(t, 0, Construct(age=M, building=HAMLET, square="H6"))
    assert t.pending is not None and all("Keep" in o.label for o in t.pending.options)


def test_r32_scenario_hamlet_junction_power_three_beats_two() -> None:
    # Red (0): Keep F4 + Watchtower F6 (power 3); White (1): Keep I4 (power 2), copied forward.
    s = position(
        3,
        might="Keep F4 0; Watchtower F6 0; Keep I4 1",
        faith="Keep I4 1 copy",
        reason="Keep I4 ruin copy",
        hands={0: "ccmr"},
    )
    s, events = play(s, 0, Construct(age=M, building=HAMLET, square="H4"))
    assert "power of the joined domains 3, 2" in texts(events)
    assert s.pending is not None and s.pending.seat == 1 and s.pending.kind == "place_downsized"
    assert [o.label for o in s.pending.options] == ["I4", "J4", "I5", "J5"]
    refused(s, 0, Choose(option=0), "R8")  # not red's choice
    s, events = play(s, 1, Choose(option=0))
    assert kind_at(s, M, "I4") is W and tile_at(s, M, "J5") is None
    assert tile_at(s, F, "I4") is None and tile_at(s, R, "I4") is None  # R34
    assert kind_at(s, M, "F4") is K and s.pending is None


def test_r32_scenario_three_steps_green_chooses_red_keep_then_loses_his_chapel() -> None:
    red, blue, green = 0, 1, 2
    s = position(
        3,
        might=f"Keep F4 {red}; Chapel G6 {green}; Keep I4 {blue}; Chapel I6 {blue}",
        hands={green: "ccmr"},
        turn=green,
    )
    s, events = play(s, green, Construct(age=M, building=HAMLET, square="H5"))
    # 1. equal military power 2-2; green owns neither Keep: he chooses, the red one.
    assert decision(s).seat == green and decision(s).kind == "downsize_which"
    s, _ = choose_label(s, "Keep at F4")
    # 2. red places her Watchtower so that it stays attached (G5).
    assert decision(s).seat == red and decision(s).kind == "place_downsized"
    s, _ = choose_label(s, "G5")
    assert kind_at(s, M, "G5") is W
    # 3. two Chapels now tie; green owns one: his own is downsized first, and destroyed.
    assert s.pending is None
    assert tile_at(s, M, "G6") is None and kind_at(s, M, "I6") is CHAPEL
    assert s.players[green].cubes == 25


def test_r34_scenario_two_castles_downsized_castle_ripples_its_keep_and_marker_returns() -> None:
    red, white, green = 0, 1, 2
    s = position(
        3,
        might=f"Castle I13 {red}; Watchtower I16 {red}; Castle M13 {white}",
        faith=f"Castle M13 {white} copy",
        reason=f"Castle M13 ruin marker={red} copy",
        hands={green: "ccmr"},
        turn=green,
    )
    red_cubes = s.players[red].cubes
    s, events = play(s, green, Construct(age=M, building=HAMLET, square="L14"))
    assert "4, 3" in texts(events)
    assert decision(s).seat == white
    s, events = choose_label(s, "M14")
    for age in (M, F, R):
        t = tile(s, age, "M14")
        assert t.type is K and t.at == parse_square("M14")
        assert tile_at(s, age, "O13") is None
    assert tile(s, F, "M14").owner == white
    assert tile(s, R, "M14").ruin and tile(s, R, "M14").marker is None
    assert s.players[red].cubes == red_cubes + 1


def test_r36_scenario_keep_downsizing_divides_a_domain_provoker_chooses_a_monastery() -> None:
    red, white, blue, green = 0, 1, 2, 3
    s = position(
        4,
        might=(
            f"Keep E8 {red}; Watchtower G8 {red}; Abbey B4 {white}; Keep E5 {white}; "
            f"Monastery G5 {white}; Monastery I5 {blue}"
        ),
        hands={green: "ccmr"},
        turn=green,
    )
    s, events = play(s, green, Construct(age=M, building=HAMLET, square="E7"))
    assert decision(s).seat == white and decision(s).kind == "place_downsized"
    s, events = choose_label(s, "E5")  # the Watchtower stays by the Abbey: the domain divides
    assert s.pending is not None and s.pending.seat == green
    assert s.pending.kind == "downsize_which"
    assert sorted(o.label.split(" at ")[1] for o in s.pending.options) == ["G5", "I5"]
    assert "Divided domain" in s.pending.prompt
    s, _ = choose_label(s, "I5")
    s, _ = choose_label(s, "I6")  # blue places his Chapel
    assert kind_at(s, M, "I6") is CHAPEL and kind_at(s, M, "G5") is MON


def test_r36_demolition_divides_a_domain_and_the_demolishers_building_goes_first() -> None:
    # Keeps F4 (0) and F6 (1) hang on a Castle through the Hamlet tile at H4.
    s = position(2, might="Keep F4 0; Keep F6 1; Hamlet H6; Castle I5 1", hands={0: "ccmr"})
    s, events = play(s, 0, Demolish(age=M, square="H6"))
    assert s.pending is not None and s.pending.seat == 0 and s.pending.kind == "place_downsized"
    s, _ = play(s, 0, Choose(option=0))
    assert kind_at(s, M, "F4") is W and kind_at(s, M, "F6") is K


# --- R29-R30: paradoxes and cubes on Reason ------------------------------------------------


def _paradox_position(cubes: str, provoker: int) -> GameState:
    return position(
        5,
        faith="Town N5",
        reason=f"Town N5 copy cubes={cubes}",
        hands={provoker: "mmrc"},
        turn=provoker,
    )


def test_r30_scenario_paradox_over_populated_town_on_a_printed_hamlet() -> None:
    s = _paradox_position("0,1,1", provoker=2)
    s, events = play(s, 2, Construct(age=M, building=K, square="O6"))
    assert tile_at(s, F, "N5") is None  # the Faith Town is gone, the printed hamlet is back
    assert s.boards[R].hamlet_cubes == {parse_square("N5"): 1}
    assert s.players[0].cubes == 25 and s.players[1].cubes == 24
    assert tile(s, R, "O6").type is K and tile(s, R, "O6").ruin


def test_r30_paradox_tie_provoker_cubes_come_off_first() -> None:
    s = _paradox_position("0,1", provoker=0)
    s, _ = play(s, 0, Construct(age=M, building=K, square="O6"))
    assert s.boards[R].hamlet_cubes == {parse_square("N5"): 1}


def test_r30_paradox_tie_without_the_provoker_nobody_keeps_a_cube() -> None:
    s = _paradox_position("0,1", provoker=2)
    s, events = play(s, 2, Construct(age=M, building=K, square="O6"))
    assert s.boards[R].hamlet_cubes == {}
    assert "stays empty" in texts(events)


def test_r30_upgrading_a_hamlet_moves_its_reason_cube_onto_the_new_town() -> None:
    s = position(2, hamlet_cubes={"H2": 1}, hands={0: "ccmr"})
    s, _ = play(s, 0, Upgrade(age=M, square="H2", to=TOWN, at="G2"))
    assert tile(s, R, "H2").type is TOWN and tile(s, R, "H2").cubes == [1]
    assert s.boards[R].hamlet_cubes == {}


def test_r29_printed_hamlets_stay_underneath_and_reappear() -> None:
    s = position(2, faith="Town G1", reason="Town G1 copy", hands={0: "mmrc"})
    # The Faith Town at G1 covers the printed hamlet H2.
    s, _ = play(s, 0, Construct(age=M, building=K, square="F1"))
    assert tile_at(s, F, "H2") is None  # the Faith Town is erased ...
    from engine.domains import BoardIndex

    hamlet = BoardIndex(s.boards[F]).at(parse_square("H2"))
    assert hamlet is not None and hamlet.printed  # ... the hamlet is back


# --- R33-R35: downsizing details --------------------------------------------------------------


def test_r33_downsizing_skips_a_size_when_the_tile_is_out_of_stock() -> None:
    s = position(
        3,
        might="Castle A3 0; Watchtower A6 0; Castle E3 1",
        hands={2: "ccmr"},
        turn=2,
        stock={K: 0},
    )
    s, _ = play(s, 2, Construct(age=M, building=HAMLET, square="D4"))
    assert decision(s).kind == "place_downsized" and len(decision(s).options) == 9
    assert "Watchtower" in decision(s).prompt


def test_r35_a_copy_changed_on_faith_is_left_alone() -> None:
    s = position(
        3,
        might="Keep F4 0; Watchtower F6 0; Keep I4 1",
        faith="Castle I4 1",  # the Faith copy was upgraded there: no longer identical
        hands={0: "ccmr"},
    )
    s.boards[F].tiles[0].origin = tile(s, M, "I4").id
    s, events = play(s, 0, Construct(age=M, building=HAMLET, square="H4"))
    s, events = play(s, 1, Choose(option=0))
    assert tile(s, F, "I4").type is CASTLE
    assert "leaves it alone (R35)" in texts(events)


# --- R37: choices in the state ------------------------------------------------------------------


def test_r37_pending_choice_survives_json_and_only_the_chooser_may_answer() -> None:
    s = position(3, might="Keep F4 0; Watchtower F6 0; Keep I4 1", hands={0: "ccmr"})
    s, _ = play(s, 0, Construct(age=M, building=HAMLET, square="H4"))
    saved = GameState.model_validate_json(s.model_dump_json())
    assert saved == s
    assert [a.kind for a in legal_actions(saved, 1)] == ["choose"] * 4
    assert legal_actions(saved, 0) == []
    refused(saved, 0, EndTurn(), "R8")
    refused(saved, 1, EndTurn(), "R37")
    refused(saved, 1, Choose(option=9), "R37")
    a, _ = play(saved, 1, Choose(option=2))
    b, _ = play(s, 1, Choose(option=2))
    assert a == b


def test_r37_defaults_reading_order_and_largest_domain() -> None:
    s = position(3, might="Keep F4 0; Watchtower F6 0; Keep I4 1", hands={0: "ccmr"})
    s, _ = play(s, 0, Construct(age=M, building=HAMLET, square="H4"))
    # I4 keeps the Watchtower next to the new Hamlet (the largest domain).
    assert decision(s).options[default_choice(s)].label == "I4"
    t = position(
        3,
        might="Keep F4 1; Keep I4 2",
        hands={0: "ccmr"},
    )
    t, _ = play(t, 0, Construct(age=M, building=HAMLET, square="H4"))
    assert decision(t).kind == "downsize_which" and default_choice(t) == 0
    assert "F4" in decision(t).options[0].label


def test_preview_shows_consequences_without_committing() -> None:
    s = position(2, hands={0: "mmrc"})
    before = s.model_dump_json()
    new, events = preview(s, 0, Construct(age=M, building=K, square="F4"))
    assert s.model_dump_json() == before
    assert any(e.kind == "rippled" for e in events) and tile_at(new, F, "F4") is not None


def test_not_your_turn_while_another_player_chooses() -> None:
    s = position(3, might="Keep F4 0; Watchtower F6 0; Keep I4 1", hands={0: "ccmr"})
    s, _ = play(s, 0, Construct(age=M, building=HAMLET, square="H4"))
    try:
        apply(s, 2, EndTurn())
    except NotYourTurn as exc:
        assert "waiting for {P1}" in exc.message
    else:
        raise AssertionError("expected NotYourTurn")
