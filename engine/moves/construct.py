"""R15 Construct, with R17 (bonus), R18 (geography), R20-R21 (domains) and R40 (not on Reason):
its check, its effect, its generator and its autocomplete query."""

from __future__ import annotations

from ..actions import Construct
from ..board import FOOTPRINTS, square_name
from ..constants import BONUS, BUILDINGS, Age, BuildingType, Family
from ..domains import BoardIndex
from ..errors import IllegalAction
from ..events import Event
from ..resolve import after_build, new_tile_id, touched_domains
from ..rules import (
    ILLEGAL,
    Ctx,
    Placement,
    allowance,
    article,
    describe_cards,
    hierarchy_problem,
    payment_problem,
    surcharge,
    who,
)
from ..state import GameState, Tile
from .common import Option, Plan, Specs, chosen_payment, pay, payments, square


def construct_problem(
    ctx: Ctx, age: Age, btype: BuildingType, at: int, explain: bool = True
) -> IllegalAction | None:
    """Board-side legality of a construction (no cards): R15, R18, R20, R21, R40.

    With ``explain=False`` a refusal is the shared ``ILLEGAL`` (no sentence is built)."""

    def name() -> str:
        return f"{article(btype).capitalize()} {btype.label} at {square_name(at)}"

    if age is Age.REASON:
        if not explain:
            return ILLEGAL
        return IllegalAction(
            "R40 Reason: nothing is constructed in the age of Reason; there you populate and "
            "renovate.",
            "R40",
        )
    spec = BUILDINGS[btype]
    fp = FOOTPRINTS[spec.size][at]
    if fp is None:
        if not explain:
            return ILLEGAL
        return IllegalAction(
            f"R15 Grid: {name()} would stick out of the board; a size-"
            f"{spec.size} building needs {spec.size}x{spec.size} squares inside A1-T16.",
            "R15",
        )
    idx = ctx.index(age)
    grid = idx.grid
    for c in fp.cells:
        if grid[c] != 0:
            if not explain:
                return ILLEGAL
            occupant = idx.buildings[grid[c]]
            kind = (
                "a printed Hamlet"
                if occupant.printed
                else f"{article(occupant.type)} {occupant.type.label}"
            )
            return IllegalAction(
                f"R15 Empty squares: {square_name(c)} on {age.label} already holds {kind}; "
                f"a building is constructed on empty squares only.",
                "R15",
            )
    if fp.river and btype not in (BuildingType.TOWN, BuildingType.CITY):
        if not explain:
            return ILLEGAL
        return IllegalAction(
            f"R18 River: {name()} would cover a river square; only a Town or City may stand "
            f"on the river.",
            "R18",
        )
    if ctx.state.stock[btype] <= 0:
        if not explain:
            return ILLEGAL
        return IllegalAction(f"R15 Stock: no {btype.label} tile is left in the stock.", "R15")
    if spec.family is not Family.CIVIL:
        return hierarchy_problem(idx, age, btype, fp, set(), name, explain)
    return None


def construct_placement(ctx: Ctx, age: Age, btype: BuildingType, at: int) -> Placement:
    spec = BUILDINGS[btype]
    fp = FOOTPRINTS[spec.size][at]
    assert fp is not None
    return Placement(at, spec.family, spec.value, surcharge(fp, ctx.state.options.players))


def legal_construct_squares(ctx: Ctx, age: Age, btype: BuildingType) -> list[Placement]:
    """Every top-left square where ``btype`` may stand on ``age`` (board rules only)."""
    out = []
    size = BUILDINGS[btype].size
    for at, fp in enumerate(FOOTPRINTS[size]):
        if fp is None:
            continue
        if construct_problem(ctx, age, btype, at, explain=False) is None:
            out.append(construct_placement(ctx, age, btype, at))
    return out


def check_construct(state: GameState, seat: int, action: Construct) -> Plan:
    at = square(action.square)
    ctx = Ctx(state)
    problem = construct_problem(ctx, action.age, action.building, at)
    if problem is not None:
        raise problem
    if BUILDINGS[action.building].family is not Family.CIVIL and state.players[seat].cubes <= 0:
        raise IllegalAction(
            "R15 Cubes: you have no control cube left to mark a new building.", "R15"
        )
    place = construct_placement(ctx, action.age, action.building, at)
    cards = chosen_payment(state, seat, place, action.surcharge)
    what = f"{article(action.building)} {action.building.label}"
    problem = payment_problem(state, seat, action.age, cards, what)
    if problem is not None:
        raise problem
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
    originals = touched_domains(BoardIndex(state.boards[age]), fp.cells, fp.border)
    owner = seat if spec.family is not Family.CIVIL else None
    tile = Tile(id=new_tile_id(state), type=btype, at=plan.placement.at, owner=owner)
    state.boards[age].tiles.append(tile)
    state.stock[btype] -= 1
    if owner is not None:
        player.cubes -= 1
    bonus = BONUS[age] if spec.size >= 2 else 0  # R17
    player.ecus += bonus
    events.append(
        Event(
            kind="built",
            text=f"{who(seat)} builds {article(btype)} {btype.label} at {square_name(tile.at)} "
            f"on {age.label} for {describe_cards(plan.cards)}"
            + (f" and collects a {bonus} Ecu bonus (R17)." if bonus else "."),
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


def legal_constructs(state: GameState, seat: int, ctx: Ctx, age: Age) -> Specs:
    player = state.players[seat]
    room = allowance(player, age)
    for btype in BuildingType:
        if not _affordable(state, seat, age, btype):
            continue
        for place in legal_construct_squares(ctx, age, btype):
            for extra in payments(player.hand, place, room):
                yield (
                    Construct,
                    {
                        "age": age,
                        "building": btype,
                        "square": square_name(place.at),
                        "surcharge": extra,
                    },
                )


def construct_options(state: GameState, seat: int, age: Age, btype: BuildingType) -> list[Option]:
    """Autocomplete: squares where ``seat`` can construct ``btype`` on ``age`` now, with the card
    cost (only those his hand and adventurers can pay): the squares of ``legal_actions``."""
    if state.over or state.pending is not None or seat != state.turn:
        return []
    if not _affordable(state, seat, age, btype):
        return []
    player = state.players[seat]
    room = allowance(player, age)
    fam = BUILDINGS[btype].family
    out = []
    for place in legal_construct_squares(Ctx(state), age, btype):
        if payments(player.hand, place, room):
            name = square_name(place.at)
            extra = f" + {place.extra} any" if place.extra else ""
            label = f"{name}: {place.base} {fam.value}{extra}"
            out.append(Option(name, place.total, place.extra, label))
    return out
