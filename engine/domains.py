"""Buildings and domains of one board (R19), computed on demand from a ``Board``.

A building is keyed by its tile id (> 0) or, for a visible printed hamlet, by ``-(i + 1)``
where ``i`` is the hamlet's index in ``PRINTED_HAMLETS``. A printed hamlet under a tile is
hidden (it stays underneath, R16/R29) and is not a building until the tile leaves.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .board import FOOTPRINTS, PRINTED_HAMLETS
from .constants import (
    BUILDINGS,
    COLS,
    PRINTED_HAMLET_VALUE,
    ROWS,
    BuildingType,
    Family,
)
from .state import Board, Tile

NCELLS = COLS * ROWS


@dataclass(slots=True)
class Building:
    key: int
    type: BuildingType
    at: int
    cells: tuple[int, ...]
    owner: int | None
    ruin: bool
    tile: Tile | None  # None for a printed hamlet

    @property
    def family(self) -> Family:
        return BUILDINGS[self.type].family

    @property
    def value(self) -> int:
        """Hierarchy and civil value: the type's value (a printed hamlet counts 1)."""
        return PRINTED_HAMLET_VALUE if self.tile is None else BUILDINGS[self.type].value

    @property
    def income_value(self) -> int:
        """R49: a ruin counts its ruin value, an intact building its full value."""
        spec = BUILDINGS[self.type]
        return spec.ruin_value if self.ruin else self.value

    @property
    def printed(self) -> bool:
        return self.tile is None


def hamlet_key(index: int) -> int:
    return -(index + 1)


@dataclass(slots=True)
class DomainStats:
    members: list[int]
    top: dict[Family, tuple[int, int]] = field(default_factory=dict)  # family -> (value, count)


class BoardIndex:
    """Grid, buildings and domain labels of a board. ``exclude`` hides tiles (R27 judging)."""

    def __init__(self, board: Board, exclude: Iterable[int] = ()) -> None:
        excluded = set(exclude)
        grid = [0] * NCELLS
        buildings: dict[int, Building] = {}
        for t in board.tiles:
            if t.id in excluded:
                continue
            fp = FOOTPRINTS[BUILDINGS[t.type].size][t.at]
            assert fp is not None
            for c in fp.cells:
                grid[c] = t.id
            buildings[t.id] = Building(t.id, t.type, t.at, fp.cells, t.owner, t.ruin, t)
        for i, sq in enumerate(PRINTED_HAMLETS):
            if grid[sq] == 0:
                key = hamlet_key(i)
                grid[sq] = key
                buildings[key] = Building(key, BuildingType.HAMLET, sq, (sq,), None, False, None)
        self.board = board
        self.grid = grid
        self.buildings = buildings
        self._label: dict[int, int] | None = None
        self._domains: list[DomainStats] | None = None

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
        # Reading order of the top-left square makes domain numbering stable.
        for key in sorted(self.buildings, key=lambda k: self.buildings[k].at):
            if key in label:
                continue
            idx = len(domains)
            members = [key]
            label[key] = idx
            stack = [key]
            while stack:
                for n in self.building_neighbours(stack.pop()):
                    if n not in label:
                        label[n] = idx
                        members.append(n)
                        stack.append(n)
            stats = DomainStats(members)
            for m in members:
                b = self.buildings[m]
                fam = b.family
                if fam is Family.CIVIL:
                    continue
                v = b.value
                cur = stats.top.get(fam)
                if cur is None or v > cur[0]:
                    stats.top[fam] = (v, 1)
                elif v == cur[0]:
                    stats.top[fam] = (v, cur[1] + 1)
            domains.append(stats)
        self._label = label
        self._domains = domains

    @property
    def label(self) -> dict[int, int]:
        if self._label is None:
            self._compute()
        assert self._label is not None
        return self._label

    @property
    def domains(self) -> list[DomainStats]:
        if self._domains is None:
            self._compute()
        assert self._domains is not None
        return self._domains

    def domain_of(self, key: int) -> DomainStats:
        return self.domains[self.label[key]]

    def top_buildings(self, members: Iterable[int], family: Family) -> list[Building]:
        """The buildings of ``family`` holding the highest value among ``members``."""
        fam = [self.buildings[m] for m in members if self.buildings[m].family is family]
        if not fam:
            return []
        top = max(b.value for b in fam)
        return sorted((b for b in fam if b.value == top), key=lambda b: b.at)

    def at(self, square: int) -> Building | None:
        key = self.grid[square]
        return self.buildings.get(key) if key else None
