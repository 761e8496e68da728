"""R16 Upgrade, with R17 (bonus), R18 (geography), R20-R21 (domains) and R40 (not on Reason):
its check, its effect, its generator and its autocomplete query."""

from __future__ import annotations

from typing import Any

from ..actions import Upgrade
from ..board import FOOTPRINTS, Footprint, outer_positions, square_name
from ..constants import BONUS, BUILDINGS, LADDER, Age, BuildingType, Family
from ..domains import BoardIndex, Building, Candidate, Rows, board_index
from ..errors import IllegalAction, MalformedAction, refuse
from ..events import Event, event
from ..masks import BORDERS, CELLS, RIVER
from ..resolve import after_build, new_tile_id, touched_domains
from ..rules import (
    FAMILY_ORDER,
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
from ..state import GameState, Tile, writable_tile
from ..words import phrase
from .common import (
    Option,
    Plan,
    Spec,
    building_at,
    chosen_payment,
    hand_counts,
    pay,
    pay_table,
    square,
)


def upgrade_targets(btype: BuildingType) -> list[BuildingType]:
    """Bigger types of the same family (R16: skipping a size is allowed)."""
    return list(_TARGETS[btype])


_TARGETS = {
    btype: tuple(
        t for t in LADDER[BUILDINGS[btype].family] if BUILDINGS[t].size > BUILDINGS[btype].size
    )
    for btype in BuildingType
}


def _what(building: Building) -> dict[str, Any]:
    """The building being upgraded, as a phrase: "printed Hamlet", "Keep"."""
    if building.printed:
        return phrase("phrase.printed_hamlet")
    return phrase("phrase.building", type=str(building.type))


def _fixed_problem(
    seat: int, age: Age, building: Building, to: BuildingType
) -> IllegalAction | None:
    """The tests of ``upgrade_problem`` that do not depend on the square (R40, R16)."""
    if age is Age.REASON:
        return IllegalAction.say("refusal.upgrade_reason", "R40")
    old = building.type
    if BUILDINGS[to].family is not building.family or to not in upgrade_targets(old):
        targets: list[str] | dict[str, Any] = [str(t) for t in upgrade_targets(old)]
        return IllegalAction.say(
            "refusal.upgrade_family",
            "R16",
            what=_what(building),
            targets=targets or phrase("phrase.none"),
        )
    if building.family is not Family.CIVIL and building.owner != seat:
        return IllegalAction.say(
            "refusal.upgrade_not_yours", "R16", what=_what(building), at=square_name(building.at)
        )
    return None


def _cover_problem(
    idx: BoardIndex, building: Building, to: BuildingType, at: int, fp: Footprint
) -> IllegalAction | None:
    """R16 (the new footprint adds empty squares only) and R18 (river) for an upgrade."""
    inside = set(building.cells)
    for c in fp.cells:
        if c in inside:
            continue
        if idx.grid[c] != 0:
            return IllegalAction.say(
                "refusal.upgrade_merge", "R16", to=str(to), at=square_name(c)
            )
    if fp.river and to not in (BuildingType.TOWN, BuildingType.CITY):
        return IllegalAction.say("refusal.upgrade_river", "R18", to=str(to), at=square_name(at))
    return None


def _ranked_problem(
    idx: BoardIndex,
    age: Age,
    building: Building,
    to: BuildingType,
    fp: Footprint,
    explain: bool = True,
) -> IllegalAction | None:
    """R20 and R21 for an upgrade of a military or religious building (None for civil).
    With ``explain=False`` a refusal is the shared ``ILLEGAL`` (no sentence is built)."""
    if building.family is Family.CIVIL:
        return None

    def name() -> dict[str, Any]:
        where = square_name(building.at)
        return phrase("phrase.upgrading", what=_what(building), where=where, to=str(to))

    return hierarchy_problem(idx, age, to, fp, {building.key}, name, explain)


def upgrade_problem(
    ctx: Ctx, seat: int, age: Age, building: Building, to: BuildingType, at: int
) -> IllegalAction | None:
    """Board-side legality of an upgrade (no cards): R16, R18, R20, R21, R40."""
    problem = _fixed_problem(seat, age, building, to)
    if problem is not None:
        return problem
    old = building.type
    size = BUILDINGS[to].size
    fp = FOOTPRINTS[size][at]
    old_size = BUILDINGS[old].size
    if fp is None or at not in outer_positions(building.at, old_size, size):
        return IllegalAction.say(
            "refusal.upgrade_cover",
            "R16",
            to=str(to),
            at=square_name(at),
            what=_what(building),
            where=square_name(building.at),
        )
    idx = ctx.index(age)
    problem = _cover_problem(idx, building, to, at, fp)
    if problem is not None:
        return problem
    if ctx.state.stock[to] <= 0:
        return IllegalAction.say("refusal.upgrade_stock", "R16", to=str(to))
    return _ranked_problem(idx, age, building, to, fp)


def upgrade_placement(ctx: Ctx, building: Building, to: BuildingType, at: int) -> Placement:
    fp = FOOTPRINTS[BUILDINGS[to].size][at]
    assert fp is not None
    base = BUILDINGS[to].value - building.value
    return Placement(at, building.family, base, surcharge(fp, ctx.state.options.players))


def _board_upgrade_squares(
    idx: BoardIndex, age: Age, building: Building, to: BuildingType
) -> tuple[int, ...]:
    """The top-left squares (in ``outer_positions`` order, all inside the grid) where the tiles
    of ``idx``'s board let ``building`` become ``to``: ``_cover_problem`` and
    ``_ranked_problem`` find nothing. They depend on the board's tiles only (R20 and R21 read
    the same on Might and Faith; Reason is refused before), so they are kept on the index,
    which is shared by every board with the same tiles.

    The squares' tests read as bits (engine/masks.py): R16, the new footprint covers no
    square of another building; R18, the river; and R20/R21 (``_ranked_problem``) only where
    another building shares a side with the new footprint (none: no domain is joined)."""
    key = (building.key, to)
    found = idx.upgrade_squares.get(key)
    if found is None:
        size = BUILDINGS[to].size
        old_size = BUILDINGS[building.type].size
        others = idx.occupied & ~CELLS[old_size][building.at]
        river = 0 if to in (BuildingType.TOWN, BuildingType.CITY) else RIVER[size]
        ranked = building.family is not Family.CIVIL
        cells, borders = CELLS[size], BORDERS[size]
        out = []
        for at in outer_positions(building.at, old_size, size):
            if cells[at] & others or river >> at & 1:
                continue
            if ranked and borders[at] & others:
                fp = FOOTPRINTS[size][at]
                assert fp is not None
                if _ranked_problem(idx, age, building, to, fp, explain=False) is not None:
                    continue
            out.append(at)
        found = idx.upgrade_squares[key] = tuple(out)
    return found


def legal_upgrade_placements(
    ctx: Ctx, seat: int, age: Age, building: Building, to: BuildingType
) -> list[Placement]:
    """The placements where ``upgrade_problem`` finds nothing: its tests that do not depend on
    the square (and the stock) once, then the board's squares for this building."""
    if _fixed_problem(seat, age, building, to) is not None or ctx.state.stock[to] <= 0:
        return []
    return [
        upgrade_placement(ctx, building, to, at)
        for at in _board_upgrade_squares(ctx.index(age), age, building, to)
    ]


def _upgrade_at(ctx: Ctx, seat: int, action: Upgrade, building: Building) -> int:
    """Where the new tile's top-left goes: as named, or the only legal placement."""
    if action.at is not None:
        return square(action.at)
    if action.to not in upgrade_targets(building.type):
        return building.at  # upgrade_problem explains the family/size mistake
    legal = legal_upgrade_placements(ctx, seat, action.age, building, action.to)
    if len(legal) == 1:
        return legal[0].at
    if not legal:
        positions = outer_positions(
            building.at, BUILDINGS[building.type].size, BUILDINGS[action.to].size
        )
        return positions[0] if positions else building.at
    squares = ", ".join(square_name(p.at) for p in legal)
    raise MalformedAction.say(
        "refusal.upgrade_where", "R16", to=str(action.to), squares=squares
    )


def check_upgrade(state: GameState, seat: int, action: Upgrade) -> Plan:
    ctx = Ctx(state)
    if action.age is Age.REASON:
        raise IllegalAction.say("refusal.upgrade_reason", "R40")
    building = building_at(ctx, action.age, action.square)
    at = _upgrade_at(ctx, seat, action, building)
    refuse(upgrade_problem(ctx, seat, action.age, building, action.to, at))
    place = upgrade_placement(ctx, building, action.to, at)
    cards = chosen_payment(state, seat, place, action.surcharge)
    what = phrase("phrase.this_upgrade", to=str(action.to))
    refuse(payment_problem(state, seat, action.age, cards, what, rule="R16"))
    return Plan(action, seat, cards=cards, age=action.age, building=building, placement=place)


def apply_upgrade(state: GameState, plan: Plan, events: list[Event]) -> None:
    action = plan.action
    assert isinstance(action, Upgrade)
    assert plan.placement is not None and plan.building is not None
    seat, age, to, b = plan.seat, action.age, action.to, plan.building
    state.turn_state.acted = True
    pay(state, seat, age, plan.cards)
    fp = FOOTPRINTS[BUILDINGS[to].size][plan.placement.at]
    assert fp is not None
    originals = touched_domains(board_index(state.boards[age]), fp.cells, fp.border)
    old_at = b.at
    if b.printed:  # R16: a printed hamlet stays underneath the new tile
        tile = Tile(id=new_tile_id(state), type=to, at=plan.placement.at)
        state.boards[age].tiles.append(tile)
        old = phrase("phrase.printed_hamlet")
    else:
        found = state.boards[age].tile(b.key)
        assert found is not None
        tile = writable_tile(state, age, found)
        state.stock[tile.type] += 1
        old = phrase("phrase.building", type=str(tile.type))
        tile.type = to
        tile.at = plan.placement.at
    state.stock[to] -= 1
    bonus = BONUS[age]  # R17: an upgrade is always to size 2 or 3
    state.players[seat].ecus += bonus
    events.append(
        event(
            "upgraded",
            "event.upgraded",
            {
                "who": who(seat),
                "old": old,
                "from": square_name(old_at),
                "age": age_code(age),
                "to": str(to),
                "at": square_name(tile.at),
                "cards": codes(plan.cards),
                "bonus": bonus,
            },
            seat=seat,
            age=age,
            squares=list(fp.cells),
            amount=bonus,
        )
    )
    after_build(state, seat, age, tile, originals, events)


def _upgradable(ctx: Ctx, seat: int, age: Age) -> list[tuple[Building, BuildingType]]:
    """(building, bigger type) pairs ``seat`` may try on ``age``, in reading order (R16)."""
    return [(b, to) for b, _, to, _, _ in _candidates(ctx.index(age), seat)]


def _candidates(idx: BoardIndex, seat: int) -> tuple[Candidate, ...]:
    """The (building, bigger type) pairs of ``_upgradable`` on ``idx``'s board, with what the
    generator reads of them; they depend on the tiles and the seat only: kept on the index."""
    found = idx.upgrade_candidates.get(seat)
    if found is None:
        out: list[Candidate] = []
        for b in idx.in_reading_order:
            if b.owner == seat or BUILDINGS[b.type].family is Family.CIVIL:
                pairs = _PAIRS.get((b.type, b.at, b.printed))
                if pairs is None:
                    pairs = _PAIRS[(b.type, b.at, b.printed)] = _pairs(b)
                out += [(b, *pair) for pair in pairs]
        found = idx.upgrade_candidates[seat] = tuple(out)
    return found


def _pairs(b: Building) -> tuple[tuple[str, BuildingType, Family, int], ...]:
    """Per bigger type of ``b`` (R16): the building's name, the type, the family, the cards of
    the family it costs (the difference of values; a printed hamlet counts 1)."""
    name = square_name(b.at)
    return tuple((name, to, b.family, BUILDINGS[to].value - b.value) for to in _TARGETS[b.type])


# _pairs by (type, top-left square, printed): the same for every board.
_PAIRS: dict[tuple[BuildingType, int, bool], tuple[tuple[str, BuildingType, Family, int], ...]] = {}


def _upgrade_rows(
    idx: BoardIndex, age: Age, building: Building, to: BuildingType, players: int
) -> Rows:
    """``_board_upgrade_squares`` named, each with its surcharge at ``players`` players (R18);
    kept on the index like them."""
    key = (building.key, to, players)
    found = idx.upgrade_rows.get(key)
    if found is None:
        fps = FOOTPRINTS[BUILDINGS[to].size]
        rows = []
        for at in _board_upgrade_squares(idx, age, building, to):
            fp = fps[at]
            assert fp is not None
            rows.append((square_name(at), surcharge(fp, players)))
        found = idx.upgrade_rows[key] = tuple(rows)
    return found


def legal_upgrades(state: GameState, seat: int, ctx: Ctx, age: Age) -> list[Spec]:
    """The legal upgrades of ``seat`` on ``age``: the board's rows of each building and new
    type (``legal_upgrade_placements``, named) with the hand's payments per surcharge."""
    player = state.players[seat]
    room = allowance(player, age)
    if room == 0 or age is Age.REASON:
        return []
    counts = hand_counts(player.hand)
    stock = state.stock
    players = state.options.players
    idx = ctx.index(age)
    out: list[Spec] = []
    for b, name, to, fam, base in _candidates(idx, seat):
        if stock[to] <= 0 or base > room or counts[_FAMILY_INDEX[fam]] < base:
            continue  # out of stock, or the hand cannot pay it anywhere
        pays = pay_table(counts, fam, base, room)
        out += [
            (Upgrade, {"age": age, "square": name, "to": to, "at": at, "surcharge": extra})
            for at, e in _upgrade_rows(idx, age, b, to, players)
            for extra in pays[e]
        ]
    return out


_FAMILY_INDEX = {f: i for i, f in enumerate(FAMILY_ORDER)}


def upgrade_options(
    state: GameState, seat: int, age: Age
) -> list[tuple[str, BuildingType, Option]]:
    """Autocomplete: (building square, new type, placement) triples ``seat`` can pay now: the
    upgrades of ``legal_actions``."""
    if state.over or state.pending is not None or seat != state.turn or age is Age.REASON:
        return []
    player = state.players[seat]
    room = allowance(player, age)
    if room == 0:
        return []
    counts = hand_counts(player.hand)
    players = state.options.players
    idx = Ctx(state).index(age)
    out = []
    for b, name, to, fam, base in _candidates(idx, seat):
        if state.stock[to] <= 0 or base > room or counts[_FAMILY_INDEX[fam]] < base:
            continue
        pays = pay_table(counts, fam, base, room)
        for at, extra in _upgrade_rows(idx, age, b, to, players):
            if pays[extra]:
                more = f" + {extra} any" if extra else ""
                label = f"{b.type.label} {name} -> {to.label} at {at}: {base} {fam.value}{more}"
                out.append((name, to, Option(at, base + extra, extra, label)))
    return out
