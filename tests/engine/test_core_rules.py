"""One or more tests per rule R1-R22 and R40-R50 (turn, cards, construction, Reason, income)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine import (
    BUILDINGS,
    Action,
    BuildingType,
    Construct,
    Demolish,
    EndTurn,
    Exchange,
    Family,
    HoldemSwap,
    Options,
    Populate,
    Renovate,
    Terrain,
    Travel,
    Upgrade,
    apply,
    canonical_action,
    income,
    invariant_problems,
    legal_actions,
    new_game,
    parse_square,
    square_name,
)
from engine.board import MAP, TERRAIN, map_problems, parse_map
from engine.builder import position, tile_at
from engine.words import word

from .helpers import F, M, R, kind_at, play, refused, texts, tile

MIL, REL, CIV = Family.MILITARY, Family.RELIGIOUS, Family.CIVIL


# --- R1-R3: boards, terrain, map ----------------------------------------------------------


def test_r1_squares_are_named_a1_to_t16() -> None:
    assert parse_square("A1") == 0
    assert parse_square("t16") == 319
    assert square_name(parse_square("C7")) == "C7"
    for bad in ("U1", "A0", "A17", "C", "7C", ""):
        with pytest.raises(ValueError):
            parse_square(bad)


def test_r1_a_building_is_named_by_its_top_left_square() -> None:
    s = position(2, hands={0: "mmrc"})
    s, events = play(s, 0, Construct(age=M, building=BuildingType.KEEP, square="F4"))
    for sq in ("F4", "G4", "F5", "G5"):
        assert tile(s, M, sq).at == parse_square("F4")
    assert tile_at(s, M, "H4") is None
    assert "Keep at F4" in texts(events)


def test_r1_any_square_of_a_building_names_it_and_its_one_name_is_its_top_left() -> None:
    s = position(
        2,
        might="Town F4",
        reason="Town I6; Keep O7 ruin",
        hands={0: "ccmr"},
        adventurers={0: [M, R]},
    )
    pairs: list[tuple[Action, Action]] = [
        (Populate(square="J7"), Populate(square="I6")),
        (Renovate(square="p8", cards=1), Renovate(square="O7", cards=1)),
        (Upgrade(age=M, square="G5", to=BuildingType.CITY, at="f4", surcharge=()),
         Upgrade(age=M, square="F4", to=BuildingType.CITY, at="F4", surcharge=())),
        (Construct(age=M, building=BuildingType.HAMLET, square=" h7", surcharge=()),
         Construct(age=M, building=BuildingType.HAMLET, square="H7", surcharge=())),
    ]
    legal = legal_actions(s, 0)
    for other, top_left in pairs:
        assert canonical_action(s, other) == top_left
        assert canonical_action(s, top_left) == top_left
        assert other not in legal and any(a == top_left for a in legal), top_left
        by_other, said_other = play(s, 0, other)
        by_top_left, said = play(s, 0, top_left)
        assert by_other == by_top_left and texts(said_other) == texts(said)
    # nothing to name: returned as it is (check refuses it)
    for nothing in (Populate(square="A1"), Demolish(age=M, square="Z9"), EndTurn()):
        assert canonical_action(s, nothing) is nothing


def test_r2_terrain_is_the_same_on_every_board() -> None:
    # The river at K1 refuses a Keep on Might and on Faith alike; a Town may cover it.
    assert TERRAIN[parse_square("K1")] is Terrain.RIVER
    s = position(2, hands={0: "mmcc"}, adventurers={0: [M, F]})
    refused(s, 0, Construct(age=M, building=BuildingType.KEEP, square="J1"), "R18")
    refused(s, 0, Construct(age=F, building=BuildingType.KEEP, square="J1"), "R18")


def test_r3_the_shipped_map_obeys_every_constraint() -> None:
    assert map_problems(MAP) == []
    assert len(MAP.hamlets) == 10
    assert 22 <= MAP.count(Terrain.RIVER) <= 30


def test_r3_the_map_checker_catches_broken_maps() -> None:
    from importlib import resources

    text = resources.files("engine").joinpath("data/map.txt").read_text()
    broken = text.replace("hamlets: H2 C7", "hamlets: H2 H3")  # two touching hamlets
    assert any("touches" in p for p in map_problems(parse_map(broken)))
    no_river = text.replace("~", ".")
    assert any("river" in p for p in map_problems(parse_map(no_river)))


# --- R4-R8: components and set-up -------------------------------------------------------------


def test_r4_building_table() -> None:
    assert [BUILDINGS[t].value for t in BuildingType] == [1, 2, 3, 1, 2, 3, 1, 3, 5]
    assert [BUILDINGS[t].stock for t in BuildingType] == [20, 24, 9, 20, 20, 9, 20, 24, 9]
    assert BUILDINGS[BuildingType.CASTLE].ruin_value == 2
    assert BUILDINGS[BuildingType.MONASTERY].ruin_value == 1


def test_r4_a_town_costs_three_civil_cards() -> None:
    s = position(2, hands={0: "cccm"})
    s, _ = play(s, 0, Construct(age=M, building=BuildingType.TOWN, square="F4"))
    assert s.players[0].hand == [MIL]
    s = position(2, hands={0: "ccmm"})
    refused(s, 0, Construct(age=M, building=BuildingType.TOWN, square="F4"), "R15")


def test_r5_demolished_tile_returns_to_stock_and_cube_to_owner() -> None:
    s = position(2, might="Watchtower F4 1", hands={0: "mrcc"})
    stock, cubes = s.stock[BuildingType.WATCHTOWER], s.players[1].cubes
    s, _ = play(s, 0, Demolish(age=M, square="F4"))
    assert s.stock[BuildingType.WATCHTOWER] == stock + 1
    assert s.players[1].cubes == cubes + 1


def test_r6_players_start_with_their_material() -> None:
    s = new_game(Options(players=4), 3)
    for p in s.players:
        assert p.adventurers == [M, M] and p.cubes == 25 and p.ecus == 4 and len(p.hand) == 4


def test_r7_deck_and_reshuffle_of_the_discard_pile() -> None:
    s = new_game(Options(players=2), 1)
    all_cards = s.draw_pile + [c for p in s.players for c in p.hand]
    assert all_cards.count(MIL) == 18 and all_cards.count(REL) == 18 and all_cards.count(CIV) == 19
    # Empty the draw pile into the discard pile: ending the turn reshuffles it.
    s.discard, s.draw_pile = s.draw_pile, []
    seat = s.turn
    s, _ = play(s, seat, EndTurn(discard=tuple(s.players[seat].hand[:2])))
    assert len(s.players[seat].hand) == 4 and len(s.discard) == 0


def test_r7_the_discard_pile_is_reshuffled_only_when_a_card_must_be_drawn() -> None:
    s = position(2, hands={0: "mmrc"})
    s.discard, s.draw_pile = s.draw_pile[:-2], s.draw_pile[-2:]
    discard = list(s.discard)
    # Seat 0 draws the last 2 cards: the draw pile runs out, but no card is owed yet.
    s, _ = play(s, 0, EndTurn(discard=(MIL, MIL)))
    assert s.draw_pile == [] and s.discard == [*discard, MIL, MIL]
    # Seat 1 draws nothing: still no reshuffle (and the random state is left alone).
    rng = s.rng
    s, _ = play(s, 1, EndTurn())
    assert s.draw_pile == [] and s.discard == [*discard, MIL, MIL] and s.rng == rng
    # A card must be drawn now: the discard pile (with the card just exchanged) is shuffled.
    s, _ = play(s, 0, Exchange(discard=(s.players[0].hand[0],)))
    assert s.discard == [] and len(s.draw_pile) == len(discard) + 2
    assert len(s.players[0].hand) == 4 and s.rng != rng


def test_r8_first_player_is_random_and_rounds_advance() -> None:
    firsts = {new_game(Options(players=5), seed).first_seat for seed in range(40)}
    assert len(firsts) > 1
    with pytest.raises(ValidationError):
        Options(players=1)
    with pytest.raises(ValidationError):
        Options(players=6)
    s = new_game(Options(players=3), 7)
    first = s.turn
    for i in range(3):
        assert s.round == 1
        assert s.turn == (first + i) % 3
        s, _ = play(s, s.turn, EndTurn())
    assert s.round == 2 and s.turn == first


# --- R9-R12: the turn --------------------------------------------------------------------------


def test_r9_exchange_costs_two_and_refills_once_before_actions() -> None:
    s = position(2, hands={0: "mmmm"})
    s, _ = play(s, 0, Exchange(discard=(MIL, MIL)))
    assert s.players[0].ecus == 2 and len(s.players[0].hand) == 4
    refused(s, 0, Exchange(discard=(s.players[0].hand[0],)), "R9")
    t = position(2, hands={0: "mmmm"})
    t, _ = play(t, 0, Travel(to=F))
    refused(t, 0, Exchange(discard=(MIL,)), "R9")
    poor = position(2, hands={0: "mmmm"}, ecus={0: 1})
    refused(poor, 0, Exchange(discard=(MIL,)), "R9")


def test_r9_an_exchange_must_discard_at_least_one_card() -> None:
    s = position(2, hands={0: "mmrc"})
    err = refused(s, 0, Exchange(discard=()), "R9")
    assert "at least one card" in err.message
    exchanges = [a for a in legal_actions(s, 0) if isinstance(a, Exchange)]
    assert exchanges and all(a.discard for a in exchanges)


def test_r10_holdem_reserve_and_swap() -> None:
    s = new_game(Options(players=3, holdem=True), 5)
    assert sorted(s.reserve) == sorted([MIL, REL, CIV])
    s = position(2, holdem=True, hands={0: "mmmm"})
    s.reserve = [CIV, CIV, REL]
    refused(s, 0, HoldemSwap(take=(CIV, REL), give=(MIL, MIL)), "R10")
    s2, _ = play(s, 0, HoldemSwap(take=(CIV, CIV), give=(MIL, MIL)))
    assert s2.players[0].hand == [MIL, MIL, CIV, CIV]
    assert sorted(s2.reserve) == sorted([MIL, MIL, REL])
    refused(s2, 0, HoldemSwap(take=(MIL,), give=(MIL,)), "R10")  # once per turn
    # Before or after the paid exchange, but before any action.
    s3, _ = play(s, 0, Exchange(discard=(MIL,)))
    s3, _ = play(s3, 0, HoldemSwap(take=(REL,), give=(s3.players[0].hand[0],)))
    s4, _ = play(s, 0, Travel(to=F))
    refused(s4, 0, HoldemSwap(take=(REL,), give=(MIL,)), "R10")
    off = position(2, hands={0: "mmmm"})
    refused(off, 0, HoldemSwap(take=(REL,), give=(MIL,)), "R10")


def test_r11_actions_in_any_order_and_any_number() -> None:
    s = position(2, hands={0: "mmrr"})
    s, _ = play(s, 0, Construct(age=M, building=BuildingType.WATCHTOWER, square="F4"))
    s, _ = play(s, 0, Travel(to=F, adventurer=0))
    s, _ = play(s, 0, Construct(age=F, building=BuildingType.CHAPEL, square="J4"))
    s, _ = play(s, 0, Construct(age=M, building=BuildingType.CHAPEL, square="J6"))
    # one card where both stood (shared), then one by each adventurer alone
    assert s.players[0].used == [1, 1] and s.players[0].shared == 1


def test_r12_end_of_turn_discard_then_draw_to_four_keeping_the_rest() -> None:
    s = position(2, hands={0: "mmrc"})
    s, _ = play(s, 0, Construct(age=M, building=BuildingType.WATCHTOWER, square="F4"))
    s, events = play(s, 0, EndTurn(discard=(REL,)))
    hand = s.players[0].hand
    assert len(hand) == 4 and MIL in hand and CIV in hand
    assert s.turn == 1
    refused(s, 1, EndTurn(discard=(MIL, MIL, MIL, MIL, MIL)), "R12")


# --- R13-R14: travel and card limits ---------------------------------------------------------


def test_r13_travel_costs_one_ecu_and_may_skip_an_age() -> None:
    s = position(2, hands={0: "mmrc"})
    s, _ = play(s, 0, Travel(to=R, adventurer=1))
    assert s.players[0].adventurers == [M, R] and s.players[0].ecus == 3
    broke = position(2, ecus={0: 0})
    refused(broke, 0, Travel(to=F), "R13")
    refused(s, 0, Travel(to=R, adventurer=1), "R13")


def test_r14_cards_only_where_an_adventurer_stands() -> None:
    s = position(2, hands={0: "mmrc"})
    refused(s, 0, Construct(age=F, building=BuildingType.WATCHTOWER, square="F4"), "R14")


def test_r14_two_cards_per_adventurer() -> None:
    s = position(2, hands={0: "cccm"}, adventurers={0: [M, F]})
    err = refused(s, 0, Construct(age=M, building=BuildingType.TOWN, square="F4"), "R14")
    assert "only 2 more" in err.message
    s = position(2, hands={0: "cccm"})  # both adventurers on Might: 3 cards is fine
    play(s, 0, Construct(age=M, building=BuildingType.TOWN, square="F4"))


def test_r14_play_travel_play_elsewhere() -> None:
    s = position(2, hands={0: "mmmm"}, adventurers={0: [M, F]})
    s, _ = play(s, 0, Construct(age=M, building=BuildingType.WATCHTOWER, square="F4"))
    s, _ = play(s, 0, Travel(to=F, adventurer=0))
    s, _ = play(s, 0, Construct(age=F, building=BuildingType.KEEP, square="H4"))
    # Both stand on Faith now: one more card there makes four in all.
    s, _ = play(s, 0, Construct(age=F, building=BuildingType.WATCHTOWER, square="J7"))
    assert s.players[0].used == [1, 0] and s.players[0].shared == 3


def test_r14_surcharge_cards_count_toward_the_limit() -> None:
    # Mountain (+2 with 2 players) makes a Watchtower cost 3 cards: one adventurer cannot.
    s = position(2, hands={0: "mrcc"}, adventurers={0: [M, R]})
    refused(s, 0, Construct(age=M, building=BuildingType.WATCHTOWER, square="P1"), "R14")


# --- R15-R18: construct, upgrade, bonus, geography ---------------------------------------------


def test_r15_construct_military_takes_a_cube_civil_takes_none() -> None:
    s = position(2, hands={0: "mrcc"})
    s, _ = play(s, 0, Construct(age=M, building=BuildingType.WATCHTOWER, square="F4"))
    assert tile(s, M, "F4").owner == 0 and s.players[0].cubes == 24
    s, _ = play(s, 0, Construct(age=M, building=BuildingType.HAMLET, square="J6"))
    assert tile(s, M, "J6").owner is None and s.players[0].cubes == 24


def test_r15_construct_needs_empty_squares_inside_the_grid_and_stock() -> None:
    s = position(2, might="Town F4", hands={0: "mmrc"})
    refused(s, 0, Construct(age=M, building=BuildingType.KEEP, square="G5"), "R15")
    refused(s, 0, Construct(age=M, building=BuildingType.WATCHTOWER, square="H2"), "R15")
    refused(s, 0, Construct(age=M, building=BuildingType.KEEP, square="T8"), "R15")
    empty = position(2, hands={0: "mmrc"}, stock={BuildingType.KEEP: 0})
    refused(empty, 0, Construct(age=M, building=BuildingType.KEEP, square="F4"), "R15")


def test_r15_r17_scenario_keep_costs_two_military_cards_and_pays_one_ecu_on_might() -> None:
    s = position(2, hands={0: "mmrc"})
    s, events = play(s, 0, Construct(age=M, building=BuildingType.KEEP, square="F4"))
    assert s.players[0].hand == [REL, CIV]
    assert s.players[0].ecus == 5
    assert "1 Ecu bonus" in texts(events)


def test_r16_scenario_upgrade_watchtower_to_keep_for_one_card() -> None:
    s = position(2, might="Watchtower F4 0", hands={0: "mrcc"})
    s, _ = play(s, 0, Upgrade(age=M, square="F4", to=BuildingType.KEEP, at="F4"))
    assert kind_at(s, M, "G5") is BuildingType.KEEP
    assert s.players[0].hand == [REL, CIV, CIV]
    assert tile(s, M, "F4").owner == 0


def test_r16_upgrade_rules() -> None:
    s = position(
        2,
        might="Watchtower F4 1; Chapel H4 0; Chapel I4 0; Hamlet J7",
        hands={0: "mrcc"},
    )
    refused(s, 0, Upgrade(age=M, square="F4", to=BuildingType.KEEP, at="F4"), "R16")  # not his
    # two Chapels cannot be merged into one Monastery
    refused(s, 0, Upgrade(age=M, square="H4", to=BuildingType.MONASTERY, at="H4"), "R16")
    refused(s, 0, Upgrade(age=M, square="H4", to=BuildingType.KEEP, at="H4"), "R16")  # family
    # any civil building, printed hamlets included; a printed hamlet stays underneath
    t = position(2, hands={0: "cccc"}, ecus={0: 4})
    t, _ = play(t, 0, Upgrade(age=M, square="H2", to=BuildingType.TOWN, at="G1"))
    assert kind_at(t, M, "H2") is BuildingType.TOWN


def test_r16_skipping_a_size_is_allowed_and_the_cube_stays() -> None:
    s = position(2, might="Watchtower G5 0", hands={0: "mm"})
    s, _ = play(s, 0, Upgrade(age=M, square="G5", to=BuildingType.CASTLE, at="F4"))
    castle = tile(s, M, "H6")
    assert castle.type is BuildingType.CASTLE and castle.owner == 0


def test_r16_upgrade_placement_defaults_to_the_only_legal_one() -> None:
    # M7 is river and the Town covers N9: of the four Keeps around N8 only N7 remains.
    s = position(2, might="Watchtower N8 0; Town N9", hands={0: "mrcc"})
    s2, _ = play(s, 0, Upgrade(age=M, square="N8", to=BuildingType.KEEP))
    assert tile(s2, M, "N8").at == parse_square("N7")
    t = position(2, might="Watchtower F5 0", hands={0: "mrcc"})
    err = refused(t, 0, Upgrade(age=M, square="F5", to=BuildingType.KEEP), "R16")
    assert "E4, F4, E5, F5" in err.message


def test_r17_bonus_for_size_two_and_three_only() -> None:
    s = position(2, hands={0: "mrrc"}, adventurers={0: [M, F]})
    s, _ = play(s, 0, Construct(age=M, building=BuildingType.WATCHTOWER, square="F4"))
    assert s.players[0].ecus == 4
    s, _ = play(s, 0, Construct(age=F, building=BuildingType.MONASTERY, square="H6"))
    assert s.players[0].ecus == 6  # +2 on Faith; its Reason copy pays nothing


def test_r18_river_only_towns_and_cities() -> None:
    s = position(2, hands={0: "ccmm"})
    refused(s, 0, Construct(age=M, building=BuildingType.HAMLET, square="K2"), "R18")
    refused(s, 0, Construct(age=M, building=BuildingType.WATCHTOWER, square="K2"), "R18")
    s = position(2, hands={0: "cccm"})
    s, _ = play(s, 0, Construct(age=M, building=BuildingType.TOWN, square="J2"))
    assert kind_at(s, M, "K2") is BuildingType.TOWN


@pytest.mark.parametrize(
    ("players", "forest", "mountain"), [(2, 1, 2), (3, 1, 2), (4, 0, 1), (5, 0, 0)]
)
def test_r18_forest_and_mountain_surcharges(players: int, forest: int, mountain: int) -> None:
    from engine import construct_options

    s = position(players, hands={0: "mmmm"})
    opts = {o.square: o for o in construct_options(s, 0, M, BuildingType.WATCHTOWER)}
    assert TERRAIN[parse_square("B2")] is Terrain.FOREST
    assert TERRAIN[parse_square("P2")] is Terrain.MOUNTAIN
    assert opts["F4"].cards == 1
    assert opts["B2"].cards == 1 + forest
    assert opts["P2"].cards == 1 + mountain
    # Both add up (the shipped map has no footprint with both, so a made-up one).
    from engine.board import Footprint
    from engine.rules import surcharge

    both = Footprint(0, 2, (0, 1, 20, 21), (), forest=True, mountain=True, river=False)
    assert surcharge(both, players) == forest + mountain


def test_r18_surcharge_payment_is_part_of_the_action() -> None:
    s = position(2, hands={0: "mrcc"})
    s2, _ = play(
        s, 0, Construct(age=M, building=BuildingType.WATCHTOWER, square="B2", surcharge=(REL,))
    )
    assert s2.players[0].hand == [CIV, CIV]
    s3, _ = play(s, 0, Construct(age=M, building=BuildingType.WATCHTOWER, square="B2"))
    assert sorted(s3.players[0].hand) == sorted([REL, CIV])  # the default pays with a civil card
    refused(
        s, 0, Construct(age=M, building=BuildingType.WATCHTOWER, square="B2", surcharge=()), "R18"
    )


# --- R19-R21: domains, dominion, hierarchy ---------------------------------------------------


def test_r19_domains_connect_by_sides_not_diagonals() -> None:
    from engine.domains import BoardIndex

    s = position(2, might="Watchtower F4 0; Chapel G5 1; Town H4; Hamlet J6")
    idx = BoardIndex(s.boards[M])
    f4, g5, h4 = (idx.at(parse_square(x)) for x in ("F4", "G5", "H4"))
    assert f4 is not None and g5 is not None and h4 is not None
    assert idx.label[f4.key] != idx.label[g5.key]  # diagonal only
    assert idx.label[g5.key] == idx.label[h4.key]  # G5 touches H5 (the Town)
    # a printed hamlet is a building: C7 alone is a domain
    c7 = idx.at(parse_square("C7"))
    assert c7 is not None and c7.printed


def test_r20_only_civil_buildings_join_domains() -> None:
    s = position(2, might="Watchtower F4 1; Chapel H4 1", hands={0: "mrcc"})
    err = refused(s, 0, Construct(age=M, building=BuildingType.WATCHTOWER, square="G4"), "R20")
    assert "join two domains" in err.message
    play(s, 0, Construct(age=M, building=BuildingType.HAMLET, square="G4"))


def test_r21_hierarchy_caption_keep_on_top() -> None:
    # With a Keep on top, a Watchtower or a Castle may join the domain, another Keep may not.
    s = position(2, might="Keep F4 1; Town H4", hands={0: "mmmc"})
    refused(s, 0, Construct(age=M, building=BuildingType.KEEP, square="J4"), "R21")
    play(s, 0, Construct(age=M, building=BuildingType.WATCHTOWER, square="J4"))
    s.players[0].hand = [MIL, MIL, MIL]
    s.draw_pile.append(CIV)
    s2, _ = play(s, 0, Construct(age=M, building=BuildingType.CASTLE, square="F6"))
    assert kind_at(s2, M, "H8") is BuildingType.CASTLE


def test_r21_hierarchy_for_religious_and_never_for_civil() -> None:
    s = position(2, might="Monastery F4 1; Town H4", hands={0: "rrcc"})
    refused(s, 0, Construct(age=M, building=BuildingType.MONASTERY, square="J4"), "R21")
    play(s, 0, Construct(age=M, building=BuildingType.HAMLET, square="J4"))


def test_r21_upgrade_to_an_equal_top_is_illegal() -> None:
    s = position(2, might="Castle F4 1; Watchtower I4 0", hands={0: "mmmc"})
    refused(s, 0, Upgrade(age=M, square="I4", to=BuildingType.CASTLE, at="I4"), "R21")
    play(s, 0, Upgrade(age=M, square="I4", to=BuildingType.KEEP, at="I4"))


# --- R22: demolish -----------------------------------------------------------------------------


def test_r22_scenario_demolish_a_chapel_for_one_religious_card_and_one_ecu() -> None:
    s = position(2, might="Chapel F4 1", hands={0: "rmcc"})
    s, _ = play(s, 0, Demolish(age=M, square="F4"))
    assert tile_at(s, M, "F4") is None
    assert s.players[0].ecus == 3 and REL not in s.players[0].hand


def test_r22_demolish_limits() -> None:
    s = position(
        2, might="Keep F4 1; Town H4", reason="Town H4", hands={0: "mrcc"}, adventurers={0: [M, R]}
    )
    refused(s, 0, Demolish(age=M, square="F4"), "R22")  # size 2
    refused(s, 0, Demolish(age=M, square="H2"), "R22")  # printed hamlet
    refused(s, 0, Demolish(age=R, square="H4"), "R22")  # not on Reason
    poor = position(2, might="Chapel F4 1", hands={0: "rmcc"}, ecus={0: 0})
    refused(poor, 0, Demolish(age=M, square="F4"), "R22")


# --- R40-R42: Reason ------------------------------------------------------------------------


def test_r40_no_construction_on_reason() -> None:
    s = position(2, hands={0: "mmrc"}, adventurers={0: [R, R]})
    refused(s, 0, Construct(age=R, building=BuildingType.WATCHTOWER, square="F4"), "R40")
    s = position(2, reason="Keep F4 ruin", hands={0: "mmrc"}, adventurers={0: [R, R]})
    refused(s, 0, Upgrade(age=R, square="F4", to=BuildingType.CASTLE, at="F4"), "R40")


def test_r41_scenario_populate_red_then_white_fill_a_town() -> None:
    s = position(
        3, reason="Town H4", hands={0: "ccmm", 1: "ccmm"}, adventurers={0: [R, R], 1: [R, R]}
    )
    s, _ = play(s, 0, Populate(square="H2"))  # the printed Hamlet
    s, _ = play(s, 0, Populate(square="H4"))
    s, _ = play(s, 0, EndTurn())
    s, _ = play(s, 1, Populate(square="H4", count=2))
    assert tile(s, R, "H4").cubes == [0, 1, 1]
    assert s.boards[R].hamlet_cubes[parse_square("H2")] == 0
    s, _ = play(s, 1, EndTurn())
    s, _ = play(s, 2, EndTurn())
    s.players[0].hand = [CIV, CIV, MIL, MIL]
    refused(s, 0, Populate(square="H4"), "R41")  # full: 3 cubes on a Town
    refused(s, 0, Populate(square="H2"), "R41")  # a hamlet holds 1


def test_r41_populate_needs_cubes_civil_buildings_and_reason() -> None:
    s = position(
        2, reason="Keep F4 ruin; Town H4", hands={0: "ccmm"}, adventurers={0: [R, R]}, cubes={0: 0}
    )
    refused(s, 0, Populate(square="H4"), "R41")
    s = position(2, reason="Keep F4 ruin; Town H4", hands={0: "ccmm"}, adventurers={0: [R, R]})
    refused(s, 0, Populate(square="F4"), "R41")


def test_r42_renovate_keep_ruin_for_one_card() -> None:
    s = position(2, reason="Keep F4 ruin", hands={0: "mrcc"}, adventurers={0: [R, M]})
    s, _ = play(s, 0, Renovate(square="F4"))
    assert tile(s, R, "F4").ruin is False and tile(s, R, "F4").owner is None


def test_r42_castle_ruin_paid_over_two_turns_by_two_players() -> None:
    s = position(
        2,
        reason="Castle F4 ruin; Abbey F8 ruin",
        hands={0: "mrcc", 1: "mrcc"},
        adventurers={0: [R, M], 1: [R, M]},
    )
    s, _ = play(s, 0, Renovate(square="F4", cards=1))
    castle = tile(s, R, "F4")
    assert castle.ruin and castle.marker == 0 and s.players[0].cubes == 24
    s, _ = play(s, 0, EndTurn())
    s, _ = play(s, 1, Renovate(square="G5"))
    castle = tile(s, R, "F4")
    assert not castle.ruin and castle.marker is None and s.players[0].cubes == 25
    refused(s, 1, Renovate(square="F8", cards=2), "R42")  # one religious card only


def test_r42_no_cube_left_cannot_pay_the_first_card_but_may_pay_the_completing_one() -> None:
    # An unmarked Castle ruin: no cube to mark a first card, so both cards at once or nothing.
    s = position(2, reason="Castle F4 ruin", hands={0: "mmcc"}, adventurers={0: [R, R]},
                 cubes={0: 0})
    err = refused(s, 0, Renovate(square="F4", cards=1), "R42")
    assert "none left" in err.message
    assert [a for a in legal_actions(s, 0) if isinstance(a, Renovate)] == [
        Renovate(square="F4", cards=2)
    ]
    done, _ = play(s, 0, Renovate(square="F4", cards=2))
    assert not tile(done, R, "F4").ruin and done.players[0].cubes == 0
    one_card = position(2, reason="Castle F4 ruin", hands={0: "mccc"}, adventurers={0: [R, R]},
                        cubes={0: 0})
    refused(one_card, 0, Renovate(square="F4"), "R42")  # both cards owed, one in hand
    # Marked by another player: the completing card needs no cube.
    marked = position(2, reason="Castle F4 ruin marker=1", hands={0: "mccc"},
                      adventurers={0: [R, R]}, cubes={0: 0})
    cubes_1 = marked.players[1].cubes
    done, _ = play(marked, 0, Renovate(square="F4", cards=1))
    castle = tile(done, R, "F4")
    assert not castle.ruin and castle.marker is None
    assert done.players[0].cubes == 0 and done.players[1].cubes == cubes_1 + 1


# --- R46-R50: income and the end ----------------------------------------------------------------


def test_r46_income_only_in_rounds_four_and_seven_where_adventurers_stand() -> None:
    board = "Keep F4 0; Town H4"
    s3 = position(2, might=board, round=3)
    s3, events = play(s3, 0, EndTurn())
    assert not any(e.kind == "income" for e in events)
    s4 = position(2, might=board, round=4)
    s4, events = play(s4, 0, EndTurn())
    assert [e.amount for e in events if e.kind == "income"] == [3]
    away = position(2, might=board, round=4, adventurers={0: [F, R]})
    away, events = play(away, 0, EndTurn())
    assert [e.amount for e in events if e.kind == "income"] == [0]


def test_r47_scenario_might_income_seven_and_four() -> None:
    # Red (0) has a Keep domain with civil power 7 and a Watchtower domain with civil power 4.
    s = position(
        3,
        might="Keep F4 0; Town H4; Town F6; Hamlet J4; Watchtower M7 0; Town N7; Hamlet P7",
        round=4,
    )
    total, phrases = income(s, 0)
    lines = [word("en", p["key"], p["params"]) for p in phrases]
    assert total == 11 and len(lines) == 2
    assert any("7 from" in line for line in lines) and any("4 from" in line for line in lines)


def test_r47_printed_hamlet_counts_one_and_only_the_top_pays() -> None:
    s = position(2, might="Keep F1 0; Watchtower I2 1", round=4)  # H2 printed hamlet joins them
    assert income(s, 0)[0] == 1
    assert income(s, 1)[0] == 0


def test_r48_scenario_faith_income_abbey_domain_six() -> None:
    s = position(2, faith="Abbey F4 1; Town I4; Town I6", adventurers={1: [F, F]})
    assert income(s, 1)[0] == 6


def test_r49_scenario_reason_income_five() -> None:
    # White's two cubes: 2 for a renovated Keep + 3 for an Abbey ruin and a Monastery ruin.
    s = position(
        3,
        reason="Keep F4; Town H4 cubes=1,1; Abbey J4 ruin; Monastery H6 ruin",
        adventurers={1: [R, M]},
    )
    assert income(s, 1)[0] == 5


def test_r49_tied_leaders_each_collect_and_no_cubes_no_income() -> None:
    s = position(
        3, reason="Keep F4 ruin; Town H4 cubes=0,1", adventurers={0: [R, R], 1: [R, R], 2: [R, R]}
    )
    assert income(s, 0)[0] == 1 and income(s, 1)[0] == 1 and income(s, 2)[0] == 0


def test_r50_game_ends_after_round_seven_and_the_richest_win() -> None:
    s = position(3, round=7, ecus={0: 9, 1: 12, 2: 12})
    s, _ = play(s, 0, EndTurn())
    s, _ = play(s, 1, EndTurn())
    assert not s.over
    s, events = play(s, 2, EndTurn())
    assert s.over and s.winners == [1, 2]
    assert "win with 12 Ecus" in texts(events)
    assert legal_actions(s, 0) == []
    refused(s, 0, EndTurn(), "R50")


def test_every_legal_action_passes_check_in_a_busy_position() -> None:
    s = position(
        2,
        might="Keep F4 0; Town H4; Watchtower N8 1; Chapel J7 0",
        faith="Keep F4 0 copy; Monastery N8 1",
        reason="Keep F4 ruin copy; Castle N12 ruin; Town H4 cubes=1",
        hands={0: "mrcc"},
        adventurers={0: [M, R]},
    )
    acts = legal_actions(s, 0)
    kinds = {a.kind for a in acts}
    assert {
        "construct",
        "upgrade",
        "travel",
        "populate",
        "renovate",
        "demolish",
        "end_turn",
    } <= kinds
    for a in acts:
        apply(s, 0, a)  # raises if the generator and the checks disagree
    assert invariant_problems(s) == []
