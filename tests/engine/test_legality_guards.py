"""Guards of "legality in one place", on positions from random games:

- ``check`` accepts an action exactly when ``legal_actions`` lists it, for candidates that are
  mostly illegal (every square x building x board on some positions, a sample on the others);
- each autocomplete query returns exactly the legal actions of its kind;
- ``clone()`` equals a deep copy, for a state where every field differs from its default.

KHRONOS_GUARD_POSITIONS=N checks N positions instead of the CI default.
"""

from __future__ import annotations

import itertools
import os
import random
from collections.abc import Callable, Iterator, Sequence
from typing import TypedDict

import pytest
from pydantic import BaseModel

from engine import (
    BUILDINGS,
    Age,
    BuildingType,
    Choose,
    Construct,
    Demolish,
    EndTurn,
    EngineError,
    Exchange,
    Family,
    GameState,
    HoldemSwap,
    Options,
    Populate,
    Renovate,
    Travel,
    Upgrade,
    apply,
    canonical_action,
    check,
    construct_options,
    current_seat,
    demolish_options,
    legal_action_list,
    legal_actions,
    new_game,
    parse_square,
    reason_options,
    square_name,
    upgrade_options,
)
from engine.actions import Action
from engine.board import FOOTPRINTS, outer_positions
from engine.builder import position
from engine.domains import BoardIndex, Building
from engine.rules import surcharge

from .helpers import decision

M, F = Age.MIGHT, Age.FAITH
POSITIONS = int(os.environ.get("KHRONOS_GUARD_POSITIONS", "2000"))
FULL_GRID_EVERY = 300  # every square x building x board on one position in this many
CHUNKS = 8  # the positions are checked in this many tests, which pytest-xdist spreads
FAMILIES = (Family.MILITARY, Family.RELIGIOUS, Family.CIVIL)
GRID = [(age, btype, sq) for age in Age for btype in BuildingType for sq in range(320)]


Key = tuple[object, ...]
Payments = Callable[[int], list[tuple[Family, ...]]]


def _key(action: Action) -> Key:
    """The action's fields, hashable (built or model_construct-ed alike)."""
    return tuple(sorted(action.__dict__.items()))


def _positions(count: int, first: int = 0) -> Iterator[tuple[GameState, list[Action]]]:
    """States met in random games of 2-5 players (Hold'em in half), decisions included, each
    with its legal actions (from which the game goes on): the ``first`` to the ``count``-th
    (those before are played through, picking from ``legal_action_list``: the same pick)."""
    seen = 0
    for seed in itertools.count(1000):
        chooser = random.Random(seed)
        state = new_game(Options(players=2 + seed % 4, holdem=seed % 2 == 0), seed)
        while not state.over:
            seat = current_seat(state)
            assert seat is not None
            legal: Sequence[Action]
            if seen >= first:
                legal = legal_actions(state, seat)
                yield state, legal
            else:
                legal = legal_action_list(state, seat)
            seen += 1
            if seen >= count:
                return
            state, _ = apply(state, seat, chooser.choice(legal))


def _multisets(cards: list[Family], size: int | None = None) -> list[tuple[Family, ...]]:
    out = {
        tuple(sorted(c, key=FAMILIES.index))
        for k in range(len(cards) + 1)
        for c in itertools.combinations(cards, k)
    }
    return sorted(t for t in out if size is None or len(t) == size)


def _another_name(cells: tuple[int, ...], rnd: random.Random) -> str:
    """A square of the building other than its top-left (if it has one), spelt as a player
    may type it (lower case, spaces)."""
    name = square_name(rnd.choice(cells[1:] or cells))
    return rnd.choice([name, name.lower(), f" {name} "])


def _upgrades(
    age: Age, b: Building, name: str, to: BuildingType, players: int, pays: Payments
) -> Iterator[list[Upgrade]]:
    """For each top-left square ``to`` could take around ``b`` (named ``name``), the upgrades
    there with each surcharge ``pays`` offers."""
    size, new_size = BUILDINGS[b.type].size, BUILDINGS[to].size
    spots = outer_positions(b.at, size, new_size) if new_size > size else (b.at,)
    for at in spots:
        fp = FOOTPRINTS[new_size][at]
        extra = 0 if fp is None else surcharge(fp, players)
        yield [
            Upgrade(age=age, square=name, to=to, at=square_name(at), surcharge=pay)
            for pay in pays(extra)
        ]


def _candidates(
    state: GameState, seat: int, legal: list[Action], full_grid: bool, rnd: random.Random
) -> Iterator[Action]:
    """Actions with every field given, legal or not (most are not): near misses of the legal
    ones (another surcharge, building, target or count) and samples of everything else."""
    player = state.players[seat]
    players = len(state.players)
    hand = list(player.hand)
    spare = [*hand, FAMILIES[rnd.randrange(3)]]  # one card the hand may not hold

    def pays(extra: int) -> list[tuple[Family, ...]]:
        return _multisets(spare, extra) if extra <= len(spare) else [(Family.CIVIL,) * extra]

    for i in range(len(state.pending.options) + 2 if state.pending else 2):
        yield Choose(option=i)
    for age in Age:
        for adv in (0, 1):
            yield Travel(to=age, adventurer=adv)
    subsets = _multisets(spare)
    for d in rnd.sample(subsets, min(6, len(subsets))):
        if d:
            yield Exchange(discard=d)
        yield EndTurn(discard=d)
    for fam in FAMILIES:
        k = rnd.randrange(1, 3)
        for give in _multisets(spare, k)[:2]:
            yield HoldemSwap(take=(fam,) * k, give=give)
    builds = [a for a in legal if isinstance(a, Construct)]
    for a in rnd.sample(builds, min(3, len(builds))):
        for btype in BuildingType:
            fp = FOOTPRINTS[BUILDINGS[btype].size][parse_square(a.square)]
            if fp is not None:
                for pay in pays(surcharge(fp, players)):
                    yield Construct(age=a.age, building=btype, square=a.square, surcharge=pay)
    for age, btype, sq in GRID if full_grid else rnd.sample(GRID, 25):
        fp = FOOTPRINTS[BUILDINGS[btype].size][sq]
        extra = rnd.randrange(3) if fp is None else surcharge(fp, players)
        yield Construct(age=age, building=btype, square=square_name(sq), surcharge=pays(extra)[0])
    for age in Age:
        idx = BoardIndex(state.boards[age])
        buildings = list(idx.buildings.values())
        for b in rnd.sample(buildings, min(2, len(buildings))):
            # by its top-left square, and by another of its squares (R1: any names it)
            for name in (square_name(b.at), _another_name(b.cells, rnd)):
                yield Demolish(age=age, square=name)
                yield Populate(square=name, count=rnd.randrange(1, 5))
                for cards in (1, 2):
                    yield Renovate(square=name, cards=cards)
                size = BUILDINGS[b.type].size
                ladder = [t for t in BuildingType if t.family is b.family and t.size > size]
                for to in [*ladder, rnd.choice(list(BuildingType))]:
                    for upgrade in _upgrades(age, b, name, to, players, pays):
                        yield rnd.choice(upgrade)
        empty = rnd.randrange(320)
        if idx.grid[empty] == 0:
            yield Demolish(age=age, square=square_name(empty))
            yield Populate(square=square_name(empty))


def _canonical(indexes: list[BoardIndex], action: Action) -> Action:
    """The action with its building named by its top-left square and its squares spelt as
    ``C7``, as ``legal_actions`` names it (``check`` also takes any square of the building,
    spelt as a player may)."""
    if isinstance(action, Upgrade) and action.at is not None:
        action = action.model_copy(update={"at": square_name(parse_square(action.at))})
    if not isinstance(action, Demolish | Populate | Renovate | Upgrade):
        return action
    age = Age.REASON if isinstance(action, Populate | Renovate) else action.age
    sq = parse_square(action.square)
    b = indexes[age].at(sq)
    return action.model_copy(update={"square": square_name(sq if b is None else b.at)})


def _agree(
    state: GameState,
    seat: int,
    action: Action,
    legal: dict[Key, Action],
    indexes: list[BoardIndex],
) -> None:
    """R1, legality in one place: ``check`` accepts ``action`` exactly when its one
    name (the engine's ``canonical_action``, which must equal this test's own reading) is a
    legal action."""
    named = _canonical(indexes, action)
    assert canonical_action(state, action) == named, (action, named)
    assert _accepted(state, seat, action) == (_key(named) in legal), (state.step, action)


def _accepted(state: GameState, seat: int, action: Action) -> bool:
    try:
        check(state, seat, action)
    except EngineError:
        return False
    return True


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_check_accepts_exactly_the_legal_actions_on_random_positions(chunk: int) -> None:
    """Style 4 guard: ``check`` and ``legal_actions`` agree on every candidate, for every
    action of R8-R42 (turn, cards, travel, construct, upgrade, demolish, Reason, choices), on
    this chunk's share of the positions (each position's candidates drawn from its own seed,
    so the chunks check what one run over every position would)."""
    checked = legal_total = 0
    first, last = chunk * POSITIONS // CHUNKS, (chunk + 1) * POSITIONS // CHUNKS
    for n, (state, actions) in enumerate(_positions(last, first), first):
        rnd = random.Random(11 * 1_000_003 + n)
        seat = current_seat(state)
        assert seat is not None
        legal = {_key(a): a for a in actions}
        for action in rnd.sample(list(legal.values()), min(15, len(legal))):
            assert _accepted(state, seat, action), (state.step, action)
        legal_total += len(legal)
        full_grid = n % FULL_GRID_EVERY == 0
        indexes = [BoardIndex(b) for b in state.boards]
        for action in _candidates(state, seat, list(legal.values()), full_grid, rnd):
            _agree(state, seat, action, legal, indexes)
            checked += 1
        other = (seat + 1) % len(state.players)
        assert legal_actions(state, other) == []
        assert not _accepted(state, other, EndTurn())
    print(f"\npositions {first}-{last - 1}: {legal_total} legal actions, {checked} candidates")


# R20: lone buildings that an upgrade brings next to one domain (Might and Faith, to each
# bigger size), a building bridging two parts of its own domain, one in a domain next to a
# second, an equal rival (R21), civil buildings beside them; the building is named by each of
# its squares.
class Crafted(TypedDict, total=False):
    """The keywords of ``position`` these positions give."""

    might: str
    faith: str
    hands: dict[int, str]
    adventurers: dict[int, list[Age]]


CRAFTED: list[Crafted] = [
    {"might": "Watchtower F8 0; Town I6", "hands": {0: "mmcc"}},
    {"faith": "Chapel G5 0; Keep I5 1", "hands": {0: "rrrm"}, "adventurers": {0: [F, F]}},
    {"might": "Watchtower G5 0; Chapel J6 1", "hands": {0: "mmmr"}},
    {"might": "Watchtower G5 0; Hamlet F5; Chapel J6 1", "hands": {0: "mmcc"}},
    {"might": "Watchtower G5 0; Hamlet F5; Hamlet G4", "hands": {0: "mmmc"}},
    {"might": "Watchtower G5 0; Keep I5 1; Chapel G8 0", "hands": {0: "mmrr"}},
    {
        "might": "Keep G5 0",
        "faith": "Keep G5 0 copy; Chapel J5 1; Monastery E7 0",
        "hands": {0: "mrrc"},
        "adventurers": {0: [M, F]},
    },
]


def test_check_accepts_exactly_the_legal_upgrades_of_buildings_next_to_one_domain() -> None:
    """R1, R16, R20, R21: every upgrade of every building of these positions, named by each
    of its squares, to every type and top-left square, with every surcharge: ``check``
    accepts exactly those whose one name ``legal_actions`` lists."""
    accepted = 0
    for spec in CRAFTED:
        state = position(2, **spec)
        legal = {_key(a): a for a in legal_actions(state, 0)}
        indexes = [BoardIndex(b) for b in state.boards]
        hand = [*state.players[0].hand, Family.CIVIL]

        def pays(extra: int, hand: list[Family] = hand) -> list[tuple[Family, ...]]:
            return _multisets(hand, extra)

        for age in (Age.MIGHT, Age.FAITH):
            for b in indexes[age].buildings.values():
                for cell in b.cells:
                    for to in BuildingType:
                        for spot in _upgrades(age, b, square_name(cell), to, 2, pays):
                            for action in spot:
                                _agree(state, 0, action, legal, indexes)
                                accepted += _accepted(state, 0, action)
    assert accepted >= 40, accepted  # refusals are not all it sees


def test_autocomplete_queries_return_exactly_the_legal_actions_of_their_kind() -> None:
    """Style 4 guard: the suggestions for construct, upgrade, demolish, populate and renovate
    are the legal actions of their kind (R14-R22, R41, R42)."""
    for state, legal in _positions(POSITIONS // 8):
        seat = current_seat(state)
        assert seat is not None
        for age in Age:
            for btype in BuildingType:
                offered = {o.square for o in construct_options(state, seat, age, btype)}
                wanted = {
                    a.square
                    for a in legal
                    if isinstance(a, Construct) and a.age is age and a.building is btype
                }
                assert offered == wanted, (state.step, age, btype)
            upgrades = {(sq, to, o.square) for sq, to, o in upgrade_options(state, seat, age)}
            wanted_up = {
                (a.square, a.to, a.at) for a in legal if isinstance(a, Upgrade) and a.age is age
            }
            assert upgrades == wanted_up, (state.step, age)
            demolitions = {a.square for a in legal if isinstance(a, Demolish) and a.age is age}
            assert set(demolish_options(state, seat, age)) == demolitions, (state.step, age)
        for kind, cls in (("populate", Populate), ("renovate", Renovate)):
            wanted_sq = {a.square for a in legal if isinstance(a, cls)}
            assert set(reason_options(state, seat, kind)) == wanted_sq, (state.step, kind)


def _non_default_fields(model: BaseModel, path: str) -> Iterator[str]:
    """The paths of fields still at their default value (recursing into nested models)."""
    for name, info in type(model).model_fields.items():
        value = getattr(model, name)
        if not info.is_required() and value == info.get_default(call_default_factory=True):
            yield f"{path}.{name}"
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, BaseModel):
                yield from _non_default_fields(item, f"{path}.{name}")


def test_clone_equals_a_deep_copy_for_every_field() -> None:
    """``clone`` (the fast copy ``apply`` works on) loses no field: every field of the sample
    state differs from its default, so a field the clone forgot would show."""
    sample = position(
        3,
        might="Keep F4 0; Watchtower F6 0; Keep I4 1",
        faith="Town B10",
        reason="Castle P10 ruin marker=1; Town B13 cubes=2",
        hands={0: "ccmr"},
        hamlet_cubes={"C7": 1},
        holdem=True,
    )
    sample, _ = apply(
        sample, 0, Construct(age=Age.MIGHT, building=BuildingType.HAMLET, square="H4")
    )
    assert sample.pending is not None and sample.discard and sample.agenda
    state = sample.model_copy(deep=True)
    state.over, state.winners = True, [0]
    state.schema_version += 1
    state.turn_state.exchanged = state.turn_state.holdem_used = state.turn_state.acted = True
    for p in state.players:
        p.shared, p.used = 1, [1, 1]
    for b in state.boards:
        b.hamlet_cubes = b.hamlet_cubes or {0: 0}
        for t in b.tiles:
            t.owner = 0 if t.owner is None else t.owner
            t.ruin, t.marker, t.cubes = True, 0, [0]
            t.origin = 0 if t.origin is None else t.origin
    state.provoker = 0 if state.provoker is None else state.provoker
    assert state.pending is not None
    for option in state.pending.options:
        option.tile_id = 1 if option.tile_id is None else option.tile_id
        option.at = 1 if option.at is None else option.at
        option.words = option.words or {"key": "phrase.none", "params": {}}
    lazy = [p for p in _non_default_fields(state, "state") if not p.startswith("state.agenda")]
    assert lazy == [], f"give these fields a non-default value in this test: {lazy}"
    clone = state.clone()
    assert clone == state.model_copy(deep=True)
    assert clone.model_dump() == state.model_dump()
    # nothing mutable is shared
    before = state.model_dump()
    clone.players[0].hand.append(Family.CIVIL)
    clone.players[0].used[0] += 1
    clone.boards[0].tiles[0].cubes.append(1)
    clone.boards[2].hamlet_cubes[999] = 1
    clone.stock[BuildingType.KEEP] += 1
    clone.turn_state.acted = False
    decision(clone).options[0].label = "changed"
    clone.agenda.clear()
    assert state.model_dump() == before
    # and no list, dict or model object at all, whatever the field (``options`` aside: the
    # game's settings, which nothing assigns to after ``new_game``)
    shared = _mutable_ids(state.clone()) & _mutable_ids(state)
    assert shared == set()
    assert state.clone().__pydantic_fields_set__ == state.__pydantic_fields_set__


def _mutable_ids(value: object, skip: str = "options") -> set[int]:
    """The ids of every list, dict and model object reachable from ``value``."""
    found: set[int] = set()
    if isinstance(value, BaseModel):
        found.add(id(value))
        for name in type(value).model_fields:
            if name != skip:
                found |= _mutable_ids(getattr(value, name))
    elif isinstance(value, list):
        found.add(id(value))
        for item in value:
            found |= _mutable_ids(item)
    elif isinstance(value, dict):
        found.add(id(value))
        for item in value.values():
            found |= _mutable_ids(item)
    return found
