"""Buildings and domains of one board (R19), computed on demand from a ``Board``.

A building is keyed by its tile id (> 0) or, for a visible printed hamlet, by ``-(i + 1)``
where ``i`` is the hamlet's index in ``PRINTED_HAMLETS``. A printed hamlet under a tile is
hidden (it stays underneath, R16/R29) and is not a building until the tile leaves.

``board_index`` shares one index between every board whose tiles read the same (see
``board_key``): an index holds no reference to a board or a tile, only what it read from
them, and is never changed once built, so no later change to any board can make it wrong.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from .board import FOOTPRINTS, PRINTED_HAMLETS, Footprint
from .constants import (
    BUILDINGS,
    COLS,
    PRINTED_HAMLET_VALUE,
    ROWS,
    BuildingType,
    Family,
)
from .masks import BORDERS, CELLS, HAMLET_SQUARES
from .state import Board

NCELLS = COLS * ROWS


class Building(NamedTuple):
    """What an index read from a tile (or a printed hamlet). It holds no ``Tile``: the index
    may be shared with other boards of the same tiles, so a tile is found by ``key`` on the
    caller's own board (``Board.tile``). Immutable (a named tuple: built four times faster
    than a frozen dataclass)."""

    key: int
    type: BuildingType
    at: int
    cells: tuple[int, ...]
    owner: int | None
    ruin: bool
    printed: bool

    @property
    def family(self) -> Family:
        return BUILDINGS[self.type].family

    @property
    def value(self) -> int:
        """Hierarchy and civil value: the type's value (a printed hamlet counts 1)."""
        return PRINTED_HAMLET_VALUE if self.printed else BUILDINGS[self.type].value

    @property
    def income_value(self) -> int:
        """R49: a ruin counts its ruin value, an intact building its full value."""
        spec = BUILDINGS[self.type]
        return spec.ruin_value if self.ruin else self.value


# Squares named, each with its surcharge (R18), in reading order.
Rows = tuple[tuple[str, int], ...]
# An upgrade to try: the building, its name, the new type, its family and base cost in cards.
Candidate = tuple[Building, str, BuildingType, Family, int]


def hamlet_key(index: int) -> int:
    return -(index + 1)


@dataclass(slots=True)
class DomainStats:
    members: list[int]
    top: dict[Family, tuple[int, int]] = field(default_factory=dict)  # family -> (value, count)


# The tiles of a board as an index reads them: id, type, top-left square, owner, ruin, in order.
BoardKey = tuple[tuple[int, BuildingType, int, int | None, bool], ...]


def board_key(board: Board) -> BoardKey:
    """Everything of ``board`` that its ``BoardIndex`` depends on (the printed hamlets and the
    footprints are fixed). Two boards with equal keys have equal indexes."""
    return tuple([(t.id, t.type, t.at, t.owner, t.ruin) for t in board.tiles])


# Indexes by board key, shared by every state (a clone, a child of the search, a preview).
# Only ever added to or cleared whole, so a lookup from another thread never fails.
_INDEXES: dict[BoardKey, BoardIndex] = {}
INDEX_CACHE_SIZE = 1024  # about 10-30 KB each: 10-30 MB at most


def board_index(board: Board) -> BoardIndex:
    """The index of ``board`` as its tiles stand now, computed once per distinct ``board_key``.

    The key is read afresh at every call, so a board mutated in place (a tile added, removed,
    moved, retyped, changing owner or turning a ruin) is looked up under its new key: a stale
    index can never be served. Callers must not change what an index returns."""
    key = board_key(board)
    idx = _INDEXES.get(key)
    if idx is None:
        idx = BoardIndex(board)
        if len(_INDEXES) >= INDEX_CACHE_SIZE:
            _INDEXES.clear()
        _INDEXES[key] = idx
    return idx


def clear_index_cache() -> None:
    """Forget every shared index (tests; memory)."""
    _INDEXES.clear()


class BoardIndex:
    """Grid, buildings and domain labels of a board. ``exclude`` hides tiles (R27 judging).

    Read-only once built: ``board_index`` shares it between boards. Domains are computed on
    first use. The other dicts are slots where ``engine.moves`` keeps what it derives from the
    board's tiles alone (per building type, size, seat or number of players: never the hand,
    the stock or the age), each filled on first use with an immutable value:
    ``construct_squares`` (per type), ``construct_masks`` (the same as bits, engine/masks.py,
    made of ``free_masks`` and ``touch_masks`` per size), ``construct_rows`` (named, with
    their surcharge) and ``construct_counts`` (squares per surcharge); ``upgrade_squares``
    (per building and new type), ``upgrade_candidates`` (per seat) and ``upgrade_rows``;
    ``first_tie`` (per age) for ``resolve.run_sweep``."""

    def __init__(self, board: Board, exclude: Iterable[int] = ()) -> None:
        excluded = set(exclude)
        grid = [0] * NCELLS
        buildings: dict[int, Building] = {}
        occupied = 0
        for t in board.tiles:
            if t.id in excluded:
                continue
            size = BUILDINGS[t.type].size
            fp = FOOTPRINTS[size][t.at]
            assert fp is not None
            for c in fp.cells:
                grid[c] = t.id
            occupied |= CELLS[size][t.at]
            buildings[t.id] = Building(t.id, t.type, t.at, fp.cells, t.owner, t.ruin, False)
        for i, sq in enumerate(PRINTED_HAMLETS):
            if grid[sq] == 0:
                key = hamlet_key(i)
                grid[sq] = key
                buildings[key] = Building(key, BuildingType.HAMLET, sq, (sq,), None, False, True)
        self.grid: tuple[int, ...] = tuple(grid)
        # the occupied squares as bits (engine/masks.py): a printed hamlet's square holds the
        # hamlet or the tile over it
        self.occupied = occupied | HAMLET_SQUARES
        self.buildings = buildings
        # label and domains, set together (one assignment: safe to share between threads)
        self._computed: tuple[dict[int, int], list[DomainStats]] | None = None
        self._cell_domain: tuple[int, ...] | None = None
        self._empty: dict[int, tuple[Footprint, ...]] = {}
        self.construct_squares: dict[BuildingType, tuple[int, ...]] = {}
        self.construct_masks: dict[BuildingType, int] = {}
        self.free_masks: dict[int, int] = {}
        self.touch_masks: dict[int, tuple[int, tuple[int, ...]]] = {}
        self.construct_rows: dict[tuple[BuildingType, int], Rows] = {}  # by (type, players)
        self.construct_counts: dict[tuple[BuildingType, int], tuple[int, ...]] = {}
        self.upgrade_squares: dict[tuple[int, BuildingType], tuple[int, ...]] = {}
        self.upgrade_candidates: dict[int, tuple[Candidate, ...]] = {}
        self.upgrade_rows: dict[tuple[int, BuildingType, int], Rows] = {}  # (key, type, players)
        self._in_order: tuple[Building, ...] | None = None
        # per board age: the first (domain, family) whose top is tied (R36), or None
        self.first_tie: dict[int, tuple[int, Family] | None] = {}

    # --- domains -----------------------------------------------------------------------

    def neighbour_keys(self, cells: Iterable[int], border: Iterable[int]) -> set[int]:
        """Keys of buildings on ``border`` squares that are not inside ``cells``."""
        inside = set(cells)
        grid = self.grid
        return {grid[c] for c in border if grid[c] != 0 and c not in inside}

    def building_neighbours(self, key: int) -> set[int]:
        b = self.buildings[key]
        fp = FOOTPRINTS[BUILDINGS[b.type].size][b.at]
        assert fp is not None
        grid = self.grid
        return {grid[c] for c in fp.border if grid[c] != 0 and grid[c] != key}

    def _compute(self) -> None:
        label: dict[int, int] = {}
        domains: list[DomainStats] = []
        buildings = self.buildings
        grid = self.grid
        occupied = self.occupied
        # Reading order of the top-left square makes domain numbering stable.
        for first in self.in_reading_order:
            key = first.key
            if key in label:
                continue
            idx = len(domains)
            members = [key]
            label[key] = idx
            stack = [key]
            while stack:
                own = stack.pop()
                b = buildings[own]
                size = BUILDINGS[b.type].size
                if not BORDERS[size][b.at] & occupied:
                    continue  # nothing shares a side with it
                fp = FOOTPRINTS[size][b.at]
                assert fp is not None
                # building_neighbours, inlined: the same set, hence the same members' order
                for n in {grid[c] for c in fp.border if grid[c] != 0 and grid[c] != own}:
                    if n not in label:
                        label[n] = idx
                        members.append(n)
                        stack.append(n)
            stats = DomainStats(members)
            for m in members:
                spec = BUILDINGS[buildings[m].type]
                fam = spec.family
                if fam is Family.CIVIL:
                    continue
                v = spec.value  # a military or religious building is never a printed hamlet
                cur = stats.top.get(fam)
                if cur is None or v > cur[0]:
                    stats.top[fam] = (v, 1)
                elif v == cur[0]:
                    stats.top[fam] = (v, cur[1] + 1)
            domains.append(stats)
        self._computed = (label, domains)

    @property
    def label(self) -> dict[int, int]:
        """Building key -> index of its domain in ``domains``."""
        if self._computed is None:
            self._compute()
        assert self._computed is not None
        return self._computed[0]

    @property
    def domains(self) -> list[DomainStats]:
        if self._computed is None:
            self._compute()
        assert self._computed is not None
        return self._computed[1]

    def empty_footprints(self, size: int) -> tuple[Footprint, ...]:
        """The footprints of ``size`` inside the grid that cover only empty squares (no tile,
        no visible printed hamlet), in reading order of their top-left squares."""
        found = self._empty.get(size)
        if found is None:
            blocked: set[int] = set()  # top-left squares whose footprint covers a building
            for c, key in enumerate(self.grid):
                if key:
                    row, col = divmod(c, COLS)
                    for dr in range(min(size, row + 1)):
                        for dc in range(min(size, col + 1)):
                            blocked.add(c - dr * COLS - dc)
            found = tuple(
                fp for fp in FOOTPRINTS[size] if fp is not None and fp.top_left not in blocked
            )
            self._empty[size] = found
        return found

    @property
    def cell_domain(self) -> tuple[int, ...]:
        """Per square, the index of the domain of the building on it, or -1 if it is empty."""
        if self._cell_domain is None:
            label = self.label
            self._cell_domain = tuple([label[k] if k else -1 for k in self.grid])
        return self._cell_domain

    def domain_of(self, key: int) -> DomainStats:
        return self.domains[self.label[key]]

    def top_buildings(self, members: Iterable[int], family: Family) -> list[Building]:
        """The buildings of ``family`` holding the highest value among ``members``."""
        fam = [self.buildings[m] for m in members if self.buildings[m].family is family]
        if not fam:
            return []
        top = max(b.value for b in fam)
        return sorted((b for b in fam if b.value == top), key=lambda b: b.at)

    @property
    def in_reading_order(self) -> tuple[Building, ...]:
        """The buildings by their top-left square (reading order)."""
        if self._in_order is None:
            self._in_order = tuple(sorted(self.buildings.values(), key=lambda b: b.at))
        return self._in_order

    def at(self, square: int) -> Building | None:
        key = self.grid[square]
        return self.buildings.get(key) if key else None
