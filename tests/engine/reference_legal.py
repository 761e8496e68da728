"""The legal actions as the engine listed them before they were generated per kind from
cached tables (docs/engine.md, "Legal actions per kind"): kept here, slow and plain, as the
reference the fast generators must equal, action for action and in the same order.

It reads only the check's own rule functions (``construct_problem`` on every square,
``upgrade_problem`` on every placement around a building, ``surcharge_options``,
``allowance``, ``room_for_cubes``, ``cards_owed``) and board indexes computed afresh, never the
shared index cache or the tables the fast generators keep."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from engine.actions import (
    Action,
    Choose,
    Construct,
    Demolish,
    EndTurn,
    Exchange,
    HoldemSwap,
    Populate,
    Renovate,
    Travel,
    Upgrade,
)
from engine.board import FOOTPRINTS, outer_positions, square_name
from engine.constants import (
    ADVENTURERS,
    BUILDINGS,
    DEMOLISH_ECUS,
    EXCHANGE_COST,
    LADDER,
    TRAVEL_COST,
    Age,
    BuildingType,
    Family,
)
from engine.domains import BoardIndex, Building
from engine.moves.common import Option
from engine.moves.construct import construct_placement, construct_problem
from engine.moves.reason import cards_owed, room_for_cubes
from engine.moves.upgrade import upgrade_placement, upgrade_problem
from engine.rules import FAMILY_ORDER, Ctx, Placement, allowance, surcharge_options
from engine.state import GameState

Spec = tuple[type[Action], dict[str, Any]]
NCELLS = 320


class FreshCtx(Ctx):
    """A ``Ctx`` whose indexes are computed afresh (not the shared cache)."""

    def index(self, age: Age) -> BoardIndex:
        idx = self._idx.get(age)
        if idx is None:
            idx = self._idx[age] = BoardIndex(self.state.boards[age])
        return idx


def submultisets(cards: Sequence[Family], min_size: int = 0) -> list[tuple[Family, ...]]:
    c = Counter(cards)
    out: list[tuple[Family, ...]] = [()]
    for f in (f for f in FAMILY_ORDER if c[f]):
        out = [prev + (f,) * k for prev in out for k in range(c[f] + 1)]
    return [o for o in out if len(o) >= min_size]


def _payments(hand: Sequence[Family], place: Placement, room: int) -> list[tuple[Family, ...]]:
    if place.total > room or hand.count(place.family) < place.base:
        return []
    return surcharge_options(hand, (place.family,) * place.base, place.extra)


def reference_specs(state: GameState, seat: int) -> Iterator[Spec]:
    """Every legal action of ``seat``, in the order ``legal_actions`` gives them."""
    if state.over:
        return
    if state.pending is not None:
        if seat == state.pending.seat:
            yield from ((Choose, {"option": i}) for i in range(len(state.pending.options)))
        return
    if seat != state.turn:
        return
    ctx = FreshCtx(state)
    yield from _card_swaps(state, seat)
    yield from _travels(state, seat)
    for age in (Age.MIGHT, Age.FAITH):
        yield from _constructs(state, seat, ctx, age)
        yield from _upgrades(state, seat, ctx, age)
        yield from _demolitions(state, seat, ctx, age)
    yield from _reason(state, seat, ctx)
    yield from ((EndTurn, {"discard": d}) for d in submultisets(state.players[seat].hand))


def _card_swaps(state: GameState, seat: int) -> Iterator[Spec]:
    player, ts = state.players[seat], state.turn_state
    if ts.acted:
        return
    hand = player.hand
    if not ts.exchanged and player.ecus >= EXCHANGE_COST:
        yield from ((Exchange, {"discard": d}) for d in submultisets(hand, 1))
    if state.options.holdem and not ts.holdem_used:
        for fam in sorted(set(state.reserve), key=FAMILY_ORDER.index):
            for k in range(1, state.reserve.count(fam) + 1):
                for give in submultisets(hand, k):
                    if len(give) == k:
                        yield HoldemSwap, {"take": (fam,) * k, "give": give}


def _travels(state: GameState, seat: int) -> Iterator[Spec]:
    player = state.players[seat]
    if player.ecus < TRAVEL_COST:
        return
    for i in range(ADVENTURERS):
        for dest in Age:
            if dest is not player.adventurers[i]:
                yield Travel, {"to": dest, "adventurer": i}


def _constructs(state: GameState, seat: int, ctx: Ctx, age: Age) -> Iterator[Spec]:
    player = state.players[seat]
    room = allowance(player, age)
    for btype in BuildingType:
        spec = BUILDINGS[btype]
        if (
            room == 0
            or (spec.family is not Family.CIVIL and player.cubes <= 0)
            or player.hand.count(spec.family) < spec.value
        ):
            continue
        for at in range(NCELLS):
            if FOOTPRINTS[spec.size][at] is None:
                continue
            if construct_problem(ctx, age, btype, at, explain=False) is not None:
                continue
            place = construct_placement(ctx, age, btype, at)
            for extra in _payments(player.hand, place, room):
                fields = {"age": age, "building": btype, "square": square_name(at)}
                yield Construct, {**fields, "surcharge": extra}


def _targets(btype: BuildingType) -> list[BuildingType]:
    size = BUILDINGS[btype].size
    return [t for t in LADDER[BUILDINGS[btype].family] if BUILDINGS[t].size > size]


def _by_square(ctx: Ctx, age: Age) -> list[Building]:
    return sorted(ctx.index(age).buildings.values(), key=lambda b: b.at)


def _upgrades(state: GameState, seat: int, ctx: Ctx, age: Age) -> Iterator[Spec]:
    hand = state.players[seat].hand
    room = allowance(state.players[seat], age)
    if room == 0:
        return
    for b in _by_square(ctx, age):
        if b.family is not Family.CIVIL and b.owner != seat:
            continue
        for to in _targets(b.type):
            size = BUILDINGS[to].size
            for at in outer_positions(b.at, BUILDINGS[b.type].size, size):
                if upgrade_problem(ctx, seat, age, b, to, at) is not None:
                    continue
                place = upgrade_placement(ctx, b, to, at)
                for extra in _payments(hand, place, room):
                    fields = {"age": age, "square": square_name(b.at), "to": to}
                    yield Upgrade, {**fields, "at": square_name(at), "surcharge": extra}


def _demolitions(state: GameState, seat: int, ctx: Ctx, age: Age) -> Iterator[Spec]:
    player = state.players[seat]
    if player.ecus < DEMOLISH_ECUS or allowance(player, age) == 0:
        return
    for b in _by_square(ctx, age):
        if not b.printed and BUILDINGS[b.type].size == 1 and b.family in player.hand:
            yield Demolish, {"age": age, "square": square_name(b.at)}


def _reason(state: GameState, seat: int, ctx: Ctx) -> Iterator[Spec]:
    player = state.players[seat]
    room = allowance(player, Age.REASON)
    if room == 0:
        return
    hand = player.hand
    for b in _by_square(ctx, Age.REASON):
        if b.family is Family.CIVIL:
            top = min(room_for_cubes(state, b), hand.count(Family.CIVIL), room, player.cubes)
            for k in range(1, top + 1):
                yield Populate, {"square": square_name(b.at), "count": k}
        elif b.ruin:
            owed = cards_owed(state, b)
            for k in range(1, min(owed, hand.count(b.family), room) + 1):
                if k == owed or player.cubes > 0:
                    yield Renovate, {"square": square_name(b.at), "cards": k}


# --- the autocomplete queries as they were ----------------------------------------------------


def reference_construct_options(
    state: GameState, seat: int, age: Age, btype: BuildingType
) -> list[Option]:
    """Squares where ``seat`` can construct ``btype`` on ``age`` now, with their cost."""
    if state.over or state.pending is not None or seat != state.turn or age is Age.REASON:
        return []
    player = state.players[seat]
    spec = BUILDINGS[btype]
    room = allowance(player, age)
    if (
        room == 0
        or (spec.family is not Family.CIVIL and player.cubes <= 0)
        or player.hand.count(spec.family) < spec.value
    ):
        return []
    ctx = FreshCtx(state)
    out = []
    for at in range(NCELLS):
        if FOOTPRINTS[spec.size][at] is None:
            continue
        if construct_problem(ctx, age, btype, at, explain=False) is not None:
            continue
        place = construct_placement(ctx, age, btype, at)
        if _payments(player.hand, place, room):
            name = square_name(at)
            extra = f" + {place.extra} any" if place.extra else ""
            label = f"{name}: {place.base} {place.family.value}{extra}"
            out.append(Option(name, place.total, place.extra, label))
    return out


def reference_upgrade_options(
    state: GameState, seat: int, age: Age
) -> list[tuple[str, BuildingType, Option]]:
    """(building square, new type, placement) triples ``seat`` can pay now."""
    if state.over or state.pending is not None or seat != state.turn or age is Age.REASON:
        return []
    player = state.players[seat]
    room = allowance(player, age)
    if room == 0:
        return []
    ctx = FreshCtx(state)
    out = []
    for b in _by_square(ctx, age):
        if b.family is not Family.CIVIL and b.owner != seat:
            continue
        for to in _targets(b.type):
            size = BUILDINGS[to].size
            for at in outer_positions(b.at, BUILDINGS[b.type].size, size):
                if upgrade_problem(ctx, seat, age, b, to, at) is not None:
                    continue
                place = upgrade_placement(ctx, b, to, at)
                if _payments(player.hand, place, room):
                    name = square_name(at)
                    extra = f" + {place.extra} any" if place.extra else ""
                    label = (
                        f"{b.type.label} {square_name(b.at)} -> {to.label} at {name}: "
                        f"{place.base} {b.family.value}{extra}"
                    )
                    option = Option(name, place.total, place.extra, label)
                    out.append((square_name(b.at), to, option))
    return out
