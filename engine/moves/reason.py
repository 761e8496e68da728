"""R41 Populate and R42 Renovate, the card actions on Reason: their checks, effects, generators
and autocomplete queries. A building's free room and a ruin's cards owed are computed here."""

from __future__ import annotations

from ..actions import Populate, Renovate
from ..board import square_name
from ..constants import BUILDINGS, Age, Family, capacity
from ..domains import Building
from ..errors import IllegalAction, refuse
from ..events import Event, event
from ..resolve import cells_of, tile_words
from ..rules import Ctx, allowance, payment_problem, who
from ..state import GameState, Player, Tile, writable_tile
from ..words import phrase
from .common import Plan, Spec, building_at, pay


def _tile(state: GameState, b: Building) -> Tile:
    """The Reason tile of ``b`` in ``state`` (an index holds no tiles: it may be shared)."""
    tile = state.boards[Age.REASON].tile(b.key)
    assert tile is not None
    return tile


def room_for_cubes(state: GameState, b: Building) -> int:
    """R41: cubes a civil building on Reason still takes (Hamlet 1, Town 3, City 5)."""
    if b.printed:  # a printed hamlet holds its cube in the board's hamlet_cubes
        return 0 if b.at in state.boards[Age.REASON].hamlet_cubes else 1
    return capacity(b.type) - len(_tile(state, b).cubes)


def cards_owed(state: GameState, b: Building) -> int:
    """R42: cards still owed to renovate a ruin (its ruin value, less a marked first card)."""
    assert not b.printed
    return BUILDINGS[b.type].ruin_value - (1 if _tile(state, b).marker is not None else 0)


def _renovation_count(player: Player, b: Building, owed: int, asked: int | None) -> int:
    """The cards a renovation pays: as asked, or unsaid what can be paid now, all that is owed
    when it can (R42: a Castle or Abbey ruin may be paid over two turns)."""
    if asked is not None:
        return asked
    can = min(owed, player.hand.count(b.family), allowance(player, Age.REASON))
    return can if 0 < can < owed and player.cubes > 0 else owed


# --- R41 Populate ------------------------------------------------------------------------------


def check_populate(state: GameState, seat: int, action: Populate) -> Plan:
    player = state.players[seat]
    building = building_at(Ctx(state), Age.REASON, action.square)
    if building.family is not Family.CIVIL:
        raise IllegalAction.say(
            "refusal.populate_civil", "R41", tile=tile_words(building), family=str(building.family)
        )
    room = room_for_cubes(state, building)
    if action.count > room:
        raise IllegalAction.say(
            "refusal.populate_room", "R41", tile=tile_words(building), room=room
        )
    if player.cubes < action.count:
        raise IllegalAction.say("refusal.populate_supply", "R41", cubes=player.cubes)
    cards = (Family.CIVIL,) * action.count
    what = phrase("phrase.populating")
    refuse(payment_problem(state, seat, Age.REASON, cards, what, rule="R41"))
    return Plan(action, seat, cards=cards, age=Age.REASON, building=building, count=action.count)


def apply_populate(state: GameState, plan: Plan, events: list[Event]) -> None:
    assert plan.building is not None
    seat, b = plan.seat, plan.building
    state.turn_state.acted = True
    pay(state, seat, Age.REASON, plan.cards)
    state.players[seat].cubes -= plan.count
    board = state.boards[Age.REASON]
    if b.printed:
        board.hamlet_cubes[b.at] = seat
    else:
        tile = board.tile(b.key)
        assert tile is not None
        writable_tile(state, Age.REASON, tile).cubes.extend([seat] * plan.count)
    events.append(
        event(
            "populated",
            "event.populated",
            {"who": who(seat), "n": plan.count, "tile": tile_words(b)},
            seat=seat,
            age=Age.REASON,
            squares=list(b.cells),
        )
    )


# --- R42 Renovate ------------------------------------------------------------------------------


def check_renovate(state: GameState, seat: int, action: Renovate) -> Plan:
    player = state.players[seat]
    building = building_at(Ctx(state), Age.REASON, action.square)
    if not building.ruin:
        raise IllegalAction.say("refusal.renovate_not_ruin", "R42", tile=tile_words(building))
    owed = cards_owed(state, building)
    count = _renovation_count(player, building, owed, action.cards)
    if count > owed:
        raise IllegalAction.say(
            "refusal.renovate_too_many", "R42", tile=tile_words(building), owed=owed
        )
    if count < owed and player.cubes <= 0:
        raise IllegalAction.say("refusal.renovate_no_cube", "R42")
    cards = (building.family,) * count
    what = phrase("phrase.this_renovation")
    refuse(payment_problem(state, seat, Age.REASON, cards, what, rule="R42"))
    return Plan(action, seat, cards=cards, age=Age.REASON, building=building, count=count)


def apply_renovate(state: GameState, plan: Plan, events: list[Event]) -> None:
    assert plan.building is not None
    seat = plan.seat
    state.turn_state.acted = True
    owed = cards_owed(state, plan.building)
    pay(state, seat, Age.REASON, plan.cards)
    found = state.boards[Age.REASON].tile(plan.building.key)
    assert found is not None
    tile = writable_tile(state, Age.REASON, found)
    if plan.count < owed:
        tile.marker = seat
        state.players[seat].cubes -= 1
        key = "event.renovate_first"
    else:
        if tile.marker is not None:
            state.players[tile.marker].cubes += 1
            tile.marker = None
        tile.ruin = False
        key = "event.renovated"
    params = {"who": who(seat), "type": str(tile.type), "at": square_name(tile.at)}
    events.append(
        event(
            "renovated", key, params, seat=seat, age=Age.REASON, squares=list(cells_of(tile))
        )
    )


# --- generators and autocomplete ----------------------------------------------------------------


def legal_reason_actions(state: GameState, seat: int, ctx: Ctx) -> list[Spec]:
    """R41 and R42, building by building in reading order: each count of cubes a civil
    building takes, each count of cards towards a ruin."""
    player = state.players[seat]
    room = allowance(player, Age.REASON)
    if room == 0:
        return []
    hand = player.hand
    civil = min(hand.count(Family.CIVIL), room, player.cubes)  # cubes a population may take
    out: list[Spec] = []
    for b in ctx.index(Age.REASON).in_reading_order:
        if b.family is Family.CIVIL:
            if civil:
                top = min(room_for_cubes(state, b), civil)
                name = square_name(b.at)
                out += [(Populate, {"square": name, "count": k}) for k in range(1, top + 1)]
        elif b.ruin:
            owed = cards_owed(state, b)
            name = square_name(b.at)
            for k in range(1, min(owed, hand.count(b.family), room) + 1):
                if k == owed or player.cubes > 0:
                    out.append((Renovate, {"square": name, "cards": k}))
    return out


def reason_options(state: GameState, seat: int, kind: str) -> list[str]:
    """Autocomplete: the squares of Reason where ``seat`` can now play ``kind`` ("populate" or
    "renovate")."""
    if state.over or state.pending is not None or seat != state.turn:
        return []
    out: list[str] = []
    for cls, fields in legal_reason_actions(state, seat, Ctx(state)):
        if cls.model_fields["kind"].default == kind and fields["square"] not in out:
            out.append(fields["square"])
    return out
