"""R15 Construct, with R17 (bonus), R18 (geography), R20-R21 (domains) and R40 (not on Reason):
its check, its effect, its generator and its autocomplete query."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

from ..actions import Construct
from ..board import FOOTPRINTS, square_name
from ..constants import BONUS, BUILDINGS, Age, BuildingType, Family
from ..domains import BoardIndex, Rows, board_index
from ..errors import IllegalAction, refuse
from ..events import Event, event
from ..masks import RIVER, free_top_lefts, squares_of, surcharge_masks, touching
from ..resolve import after_build, new_tile_id, touched_domains
from ..rules import (
    FAMILY_ORDER,
    ILLEGAL,
    Ctx,
    Placement,
    age_code,
    allowance,
    codes,
    hierarchy_problem,
    payment_problem,
    surcharge,
    who,
)
from ..state import GameState, Tile
from ..words import phrase
from .common import (
    Block,
    Option,
    PayTable,
    Plan,
    Spec,
    Specs,
    chosen_payment,
    hand_counts,
    pay,
    pay_table,
    square,
)


def construct_problem(
    ctx: Ctx, age: Age, btype: BuildingType, at: int, explain: bool = True
) -> IllegalAction | None:
    """Board-side legality of a construction (no cards): R15, R18, R20, R21, R40.

    With ``explain=False`` a refusal is the shared ``ILLEGAL`` (no sentence is built)."""

    def name() -> dict[str, Any]:
        return phrase(
            "phrase.cap", text=phrase("phrase.a_building_at", type=str(btype), at=square_name(at))
        )

    if age is Age.REASON:
        if not explain:
            return ILLEGAL
        return IllegalAction.say("refusal.construct_reason", "R40")
    spec = BUILDINGS[btype]
    fp = FOOTPRINTS[spec.size][at]
    if fp is None:
        if not explain:
            return ILLEGAL
        return IllegalAction.say("refusal.grid", "R15", name=name(), size=spec.size)
    idx = ctx.index(age)
    grid = idx.grid
    for c in fp.cells:
        if grid[c] != 0:
            if not explain:
                return ILLEGAL
            occupant = idx.buildings[grid[c]]
            kind = (
                phrase("phrase.a_printed_hamlet")
                if occupant.printed
                else phrase("phrase.a_building", type=str(occupant.type))
            )
            return IllegalAction.say(
                "refusal.occupied", "R15", at=square_name(c), age=age_code(age), kind=kind
            )
    if fp.river and btype not in (BuildingType.TOWN, BuildingType.CITY):
        if not explain:
            return ILLEGAL
        return IllegalAction.say("refusal.river", "R18", name=name())
    if ctx.state.stock[btype] <= 0:
        if not explain:
            return ILLEGAL
        return IllegalAction.say("refusal.stock", "R15", type=str(btype))
    if spec.family is not Family.CIVIL:
        return hierarchy_problem(idx, age, btype, fp, set(), name, explain)
    return None


def construct_placement(ctx: Ctx, age: Age, btype: BuildingType, at: int) -> Placement:
    spec = BUILDINGS[btype]
    fp = FOOTPRINTS[spec.size][at]
    assert fp is not None
    return Placement(at, spec.family, spec.value, surcharge(fp, ctx.state.options.players))


@functools.lru_cache(maxsize=64)
def _placements(btype: BuildingType, players: int) -> tuple[Placement | None, ...]:
    """``construct_placement`` of ``btype`` at every square (None off the grid): it depends on
    the footprint and the number of players only."""
    spec = BUILDINGS[btype]
    return tuple(
        None
        if fp is None
        else Placement(fp.top_left, spec.family, spec.value, surcharge(fp, players))
        for fp in FOOTPRINTS[spec.size]
    )


@functools.lru_cache(maxsize=64)
def _options(btype: BuildingType, players: int) -> tuple[Option | None, ...]:
    """The autocomplete answer of ``construct_options`` for each of ``_placements``."""
    out: list[Option | None] = []
    for place in _placements(btype, players):
        if place is None:
            out.append(None)
            continue
        name = square_name(place.at)
        extra = f" + {place.extra} any" if place.extra else ""
        label = f"{name}: {place.base} {place.family.value}{extra}"
        out.append(Option(name, place.total, place.extra, label))
    return tuple(out)


def _board_squares(idx: BoardIndex, btype: BuildingType) -> tuple[int, ...]:
    """The top-left squares where the tiles of ``idx``'s board let ``btype`` stand: the squares
    ``construct_problem`` passes on Might or Faith with ``btype`` in stock (R15 inside the grid
    and on empty squares, R18 river, R20 Dominion, R21 Hierarchy), in reading order: the
    squares of ``_construct_mask``, kept on the index (shared by every board with the same
    tiles, ``board_index``)."""
    found = idx.construct_squares.get(btype)
    if found is None:
        found = idx.construct_squares[btype] = tuple(squares_of(_construct_mask(idx, btype)))
    return found


def _construct_mask(idx: BoardIndex, btype: BuildingType) -> int:
    """``_board_squares`` as a mask (engine/masks.py): the same tests as ``construct_problem``,
    made for every square at once. Empty squares (R15): the top-left squares whose footprint
    covers no occupied square (``free_top_lefts``); the river (R18); for a military or
    religious building, the squares whose footprint shares a side with two domains (R20) or
    with a domain whose top of the family has the building's value (R21), from the squares
    each domain's buildings touch (``touching``). It depends on the board's tiles only: kept
    on the index."""
    found = idx.construct_masks.get(btype)
    if found is None:
        spec = BUILDINGS[btype]
        found = _free_mask(idx, spec.size)
        if btype not in (BuildingType.TOWN, BuildingType.CITY):
            found &= ~RIVER[spec.size]
        if spec.family is not Family.CIVIL:
            two, touch = _touch_masks(idx, spec.size)
            found &= ~two
            for dom, near in zip(idx.domains, touch, strict=True):
                if dom.top.get(spec.family, (0, 0))[0] == spec.value:
                    found &= ~near
        idx.construct_masks[btype] = found
    return found


def _free_mask(idx: BoardIndex, size: int) -> int:
    """The top-left squares of the size-``size`` footprints on empty squares only (R15)."""
    found = idx.free_masks.get(size)
    if found is None:
        found = idx.free_masks[size] = free_top_lefts(idx.occupied, size)
    return found


def _touch_masks(idx: BoardIndex, size: int) -> tuple[int, tuple[int, ...]]:
    """Per domain (``idx.domains``' order), the top-left squares of the size-``size`` footprints
    that share a side with one of its buildings; and those that share one with two domains."""
    found = idx.touch_masks.get(size)
    if found is None:
        seen = two = 0
        touch = []
        buildings = idx.buildings
        for dom in idx.domains:
            near = 0
            for k in dom.members:
                b = buildings[k]
                near |= touching(size, _SIZE[b.type], b.at)
            two |= seen & near
            seen |= near
            touch.append(near)
        found = idx.touch_masks[size] = (two, tuple(touch))
    return found


_SIZE = {t: BUILDINGS[t].size for t in BuildingType}


def legal_construct_squares(ctx: Ctx, age: Age, btype: BuildingType) -> list[Placement]:
    """Every top-left square where ``btype`` may stand on ``age`` (board rules only): the
    squares where ``construct_problem`` finds nothing, with their placements."""
    if age is Age.REASON or ctx.state.stock[btype] <= 0:
        return []
    places = _placements(btype, ctx.state.options.players)
    out = []
    for at in _board_squares(ctx.index(age), btype):
        place = places[at]
        assert place is not None
        out.append(place)
    return out


def check_construct(state: GameState, seat: int, action: Construct) -> Plan:
    at = square(action.square)
    ctx = Ctx(state)
    refuse(construct_problem(ctx, action.age, action.building, at))
    if BUILDINGS[action.building].family is not Family.CIVIL and state.players[seat].cubes <= 0:
        raise IllegalAction.say("refusal.no_cube", "R15")
    place = construct_placement(ctx, action.age, action.building, at)
    cards = chosen_payment(state, seat, place, action.surcharge)
    what = phrase("phrase.a_building", type=str(action.building))
    refuse(payment_problem(state, seat, action.age, cards, what, rule="R15"))
    return Plan(action, seat, cards=cards, age=action.age, placement=place)


def apply_construct(state: GameState, plan: Plan, events: list[Event]) -> None:
    action = plan.action
    assert isinstance(action, Construct) and plan.placement is not None
    seat, age, btype = plan.seat, action.age, action.building
    player = state.players[seat]
    state.turn_state.acted = True
    pay(state, seat, age, plan.cards)
    spec = BUILDINGS[btype]
    fp = FOOTPRINTS[spec.size][plan.placement.at]
    assert fp is not None
    originals = touched_domains(board_index(state.boards[age]), fp.cells, fp.border)
    owner = seat if spec.family is not Family.CIVIL else None
    tile = Tile(id=new_tile_id(state), type=btype, at=plan.placement.at, owner=owner)
    state.boards[age].tiles.append(tile)
    state.stock[btype] -= 1
    if owner is not None:
        player.cubes -= 1
    bonus = BONUS[age] if spec.size >= 2 else 0  # R17
    player.ecus += bonus
    events.append(
        event(
            "built",
            "event.built_bonus" if bonus else "event.built",
            {
                "who": who(seat),
                "type": str(btype),
                "at": square_name(tile.at),
                "age": age_code(age),
                "cards": codes(plan.cards),
                "bonus": bonus,
            },
            seat=seat,
            age=age,
            squares=list(fp.cells),
            amount=bonus or None,
        )
    )
    after_build(state, seat, age, tile, originals, events)


def _affordable(state: GameState, seat: int, age: Age, btype: BuildingType) -> bool:
    """The cheap conditions that rule out every square at once (R14, R15)."""
    player = state.players[seat]
    fam = BUILDINGS[btype].family
    return (
        age is not Age.REASON
        and allowance(player, age) > 0
        and (fam is Family.CIVIL or player.cubes > 0)
        and player.hand.count(fam) >= BUILDINGS[btype].value
    )


def _construct_rows(idx: BoardIndex, btype: BuildingType, players: int) -> Rows:
    """``legal_construct_squares`` of ``btype`` on ``idx``'s board, named, with their
    surcharge at ``players`` players (R18). Kept on the index like ``_board_squares``: it depends
    on the board's tiles and the number of players only."""
    key = (btype, players)
    found = idx.construct_rows.get(key)
    if found is None:
        named = _named(BUILDINGS[btype].size, players)
        found = idx.construct_rows[key] = tuple([named[at] for at in _board_squares(idx, btype)])
    return found


@functools.lru_cache(maxsize=16)
def _named(size: int, players: int) -> tuple[tuple[str, int], ...]:
    """Per top-left square, its name and the surcharge of the size-``size`` footprint there
    (R18; nothing off the grid, where no construct square is)."""
    return tuple(
        ("", 0) if fp is None else (square_name(fp.top_left), surcharge(fp, players))
        for fp in FOOTPRINTS[size]
    )


def _construct_counts(idx: BoardIndex, btype: BuildingType, players: int) -> tuple[int, ...]:
    """How many of ``_construct_rows`` cost each surcharge 0, 1, 2 ... (kept on the index)."""
    key = (btype, players)
    found = idx.construct_counts.get(key)
    if found is None:
        squares = _construct_mask(idx, btype)
        found = idx.construct_counts[key] = tuple(
            (squares & m).bit_count() for m in surcharge_masks(BUILDINGS[btype].size, players)
        )
    return found


def _listed(
    idx: BoardIndex, age: Age, btype: BuildingType, players: int, pays: PayTable
) -> list[Spec]:
    return [
        (Construct, {"age": age, "building": btype, "square": name, "surcharge": extra})
        for name, e in _construct_rows(idx, btype, players)
        for extra in pays[e]
    ]


def _picked(
    idx: BoardIndex, age: Age, btype: BuildingType, players: int, pays: PayTable, i: int
) -> Spec:
    """The ``i``-th action of ``_listed``, without listing the others."""
    for name, e in _construct_rows(idx, btype, players):
        paid = pays[e]
        if i < len(paid):
            return Construct, {"age": age, "building": btype, "square": name, "surcharge": paid[i]}
        i -= len(paid)
    raise IndexError(i)


def construct_blocks(state: GameState, seat: int, ctx: Ctx, age: Age) -> Iterator[Block]:
    """The legal constructions of ``seat`` on ``age``, one block per building type: counted
    from the board's rows and the hand's payments per surcharge, listed only when asked."""
    player = state.players[seat]
    room = allowance(player, age)
    if age is Age.REASON or room == 0:
        return
    counts = hand_counts(player.hand)
    stock = state.stock
    players = state.options.players
    no_cube = player.cubes <= 0
    for btype, fam, value, i in _TYPES:
        if counts[i] < value or stock[btype] <= 0 or (no_cube and fam is not Family.CIVIL):
            continue
        pays = pay_table(counts, fam, value, room)
        if not any(pays):
            continue  # the hand cannot pay it anywhere: the board is not even looked at
        idx = ctx.index(age)
        hist = _construct_counts(idx, btype, players)
        n = sum([k * len(p) for k, p in zip(hist, pays, strict=False)])
        if n:
            args = (idx, age, btype, players, pays)
            yield Block(
                "construct", n, functools.partial(_listed, *args), functools.partial(_picked, *args)
            )


# Each building type with its family, cost and the family's place in FAMILY_ORDER.
_TYPES = tuple(
    (t, BUILDINGS[t].family, BUILDINGS[t].value, FAMILY_ORDER.index(BUILDINGS[t].family))
    for t in BuildingType
)


def legal_constructs(state: GameState, seat: int, ctx: Ctx, age: Age) -> Specs:
    for block in construct_blocks(state, seat, ctx, age):
        yield from block.specs()


def construct_options(state: GameState, seat: int, age: Age, btype: BuildingType) -> list[Option]:
    """Autocomplete: squares where ``seat`` can construct ``btype`` on ``age`` now, with the card
    cost (only those his hand and adventurers can pay): the squares of ``legal_actions``."""
    if state.over or state.pending is not None or seat != state.turn:
        return []
    if not _affordable(state, seat, age, btype) or state.stock[btype] <= 0:
        return []
    player = state.players[seat]
    spec = BUILDINGS[btype]
    players = state.options.players
    pays = pay_table(hand_counts(player.hand), spec.family, spec.value, allowance(player, age))
    # the squares of the surcharges the hand can pay: the rest of the cost is the same anywhere
    payable = 0
    for extra, squares in enumerate(surcharge_masks(spec.size, players)):
        if pays[extra]:
            payable |= squares
    options = _options(btype, players)
    out = []
    for at in squares_of(_construct_mask(Ctx(state).index(age), btype) & payable):
        option = options[at]
        assert option is not None
        out.append(option)
    return out
