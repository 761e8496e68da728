"""The map (R1-R3): terrain, printed hamlets, square names and footprint geometry.

Squares are numbered ``index = row * COLS + col`` (0-based); players name them ``C7``.
The map is loaded from ``data/map.txt`` and validated when this module is imported.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources

from .constants import COL_LETTERS, COLS, ROWS, Terrain

_SQUARE_RE = re.compile(r"^\s*([A-Ta-t])\s*(\d{1,2})\s*$")
_TERRAIN_CHARS = {
    ".": Terrain.PLAIN,
    "f": Terrain.FOREST,
    "m": Terrain.MOUNTAIN,
    "~": Terrain.RIVER,
}


class MapError(ValueError):
    """The map data file breaks R1-R3."""


def _name(index: int) -> str:
    row, col = divmod(index, COLS)
    return f"{COL_LETTERS[col]}{row + 1}"


# Every square's name and back, read by the searches of the computer players thousands of
# times per move; anything else (other spellings, errors) goes through the slow path.
_NAMES = tuple(_name(i) for i in range(COLS * ROWS))
_INDEX_OF = {name: i for i, name in enumerate(_NAMES)}


def square_name(index: int) -> str:
    """``0`` -> ``"A1"``."""
    if 0 <= index < COLS * ROWS:
        return _NAMES[index]
    return _name(index)


def parse_square(text: str) -> int:
    """``"C7"`` -> index. Raises ValueError for anything that is not a square of the grid."""
    found = _INDEX_OF.get(text)
    if found is not None:
        return found
    match = _SQUARE_RE.match(text)
    if not match:
        raise ValueError(
            f"{text!r} is not a square: use a column letter A-T and a row 1-16, like C7"
        )
    col = COL_LETTERS.index(match.group(1).upper())
    row = int(match.group(2)) - 1
    if not 0 <= row < ROWS:
        raise ValueError(f"{text!r} is outside the board: rows run from 1 to 16")
    return row * COLS + col


@dataclass(frozen=True)
class GameMap:
    terrain: tuple[Terrain, ...]  # one per square index
    hamlets: tuple[int, ...]  # printed hamlet squares, in reading order

    def count(self, terrain: Terrain) -> int:
        return sum(1 for t in self.terrain if t is terrain)


def parse_map(text: str) -> GameMap:
    """Read the map format of ``data/map.txt``; raises MapError on any malformed line."""
    rows: list[str] = []
    hamlets: list[int] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line or line.lstrip().startswith("#"):
            continue
        if line.startswith("hamlets:"):
            try:
                hamlets = [parse_square(tok) for tok in line.split(":", 1)[1].split()]
            except ValueError as exc:
                raise MapError(str(exc)) from exc
            continue
        parts = line.split()
        if len(parts) != 2 or not parts[0].isdigit():
            raise MapError(f"bad map line: {raw!r}")
        if int(parts[0]) != len(rows) + 1:
            raise MapError(f"row {parts[0]} out of order")
        rows.append(parts[1])
    if len(rows) != ROWS or any(len(r) != COLS for r in rows):
        raise MapError(f"the map must be {COLS} columns x {ROWS} rows")
    terrain: list[Terrain] = []
    for r in rows:
        for ch in r:
            if ch not in _TERRAIN_CHARS:
                raise MapError(f"unknown terrain character {ch!r}")
            terrain.append(_TERRAIN_CHARS[ch])
    return GameMap(tuple(terrain), tuple(sorted(hamlets)))


def neighbours(index: int) -> list[int]:
    """Orthogonal neighbours of a square inside the grid."""
    row, col = divmod(index, COLS)
    out = []
    if row > 0:
        out.append(index - COLS)
    if col > 0:
        out.append(index - 1)
    if col < COLS - 1:
        out.append(index + 1)
    if row < ROWS - 1:
        out.append(index + COLS)
    return out


def map_problems(game_map: GameMap) -> list[str]:
    """Every way the map breaks R3 (empty list when it is valid)."""
    problems: list[str] = []
    total = COLS * ROWS
    river = [i for i, t in enumerate(game_map.terrain) if t is Terrain.RIVER]
    if not 22 <= len(river) <= 30:
        problems.append(f"{len(river)} river squares, R3 wants 22-30")
    # One river, connected, crossing the whole map (edge to opposite edge).
    if river:
        seen = {river[0]}
        stack = [river[0]]
        while stack:
            for n in neighbours(stack.pop()):
                if n not in seen and game_map.terrain[n] is Terrain.RIVER:
                    seen.add(n)
                    stack.append(n)
        if len(seen) != len(river):
            problems.append("the river is not one connected stream")
        rows = {i // COLS for i in river}
        cols = {i % COLS for i in river}
        if not ({0, ROWS - 1} <= rows or {0, COLS - 1} <= cols):
            problems.append("the river does not cross the whole map")
        for r in range(ROWS):
            width = sum(1 for i in river if i // COLS == r)
            if width > 2:
                problems.append(f"the river is {width} wide on row {r + 1}")
    forest = game_map.count(Terrain.FOREST) / total
    mountain = game_map.count(Terrain.MOUNTAIN) / total
    if not 0.20 <= forest <= 0.25:
        problems.append(f"forest covers {forest:.0%}, R3 wants 20-25%")
    if not 0.12 <= mountain <= 0.18:
        problems.append(f"mountain covers {mountain:.0%}, R3 wants 12-18%")
    problems += _region_problems(game_map, Terrain.FOREST, (2, 3), "forest regions")
    problems += _region_problems(game_map, Terrain.MOUNTAIN, (2, 2), "mountain ranges")
    hamlets = game_map.hamlets
    if len(hamlets) != 10 or len(set(hamlets)) != 10:
        problems.append(f"{len(set(hamlets))} distinct printed hamlets, R3 wants 10")
    for h in hamlets:
        if game_map.terrain[h] not in (Terrain.PLAIN, Terrain.FOREST):
            problems.append(f"printed hamlet {square_name(h)} is on {game_map.terrain[h]}")
        if any(n in hamlets for n in neighbours(h)):
            problems.append(f"printed hamlet {square_name(h)} touches another")
    quarters = [0, 0, 0, 0]
    for h in hamlets:
        row, col = divmod(h, COLS)
        quarters[(row >= ROWS // 2) * 2 + (col >= COLS // 2)] += 1
    if min(quarters) < 2:
        problems.append(f"hamlets per quarter {quarters}, R3 wants at least 2 in each")
    return problems


def _region_problems(
    game_map: GameMap, terrain: Terrain, allowed: tuple[int, int], what: str
) -> list[str]:
    squares = {i for i, t in enumerate(game_map.terrain) if t is terrain}
    regions = 0
    while squares:
        regions += 1
        stack = [squares.pop()]
        while stack:
            for n in neighbours(stack.pop()):
                if n in squares:
                    squares.remove(n)
                    stack.append(n)
    if not allowed[0] <= regions <= allowed[1]:
        return [f"{regions} {what}, R3 wants {allowed[0]}-{allowed[1]}"]
    return []


def load_map() -> GameMap:
    text = resources.files(__package__).joinpath("data/map.txt").read_text(encoding="utf-8")
    game_map = parse_map(text)
    problems = map_problems(game_map)
    if problems:
        raise MapError("; ".join(problems))
    return game_map


MAP = load_map()
TERRAIN = MAP.terrain
PRINTED_HAMLETS = MAP.hamlets


@dataclass(frozen=True)
class Footprint:
    """A footprint of a size at a top-left square, with what lies under and around it."""

    top_left: int
    size: int
    cells: tuple[int, ...]
    border: tuple[int, ...]  # orthogonal neighbours outside the footprint
    forest: bool
    mountain: bool
    river: bool


def _make_footprint(top_left: int, size: int) -> Footprint | None:
    row, col = divmod(top_left, COLS)
    if row + size > ROWS or col + size > COLS:
        return None
    cells = tuple((row + dr) * COLS + col + dc for dr in range(size) for dc in range(size))
    cell_set = set(cells)
    border = sorted({n for c in cells for n in neighbours(c) if n not in cell_set})
    terr = [TERRAIN[c] for c in cells]
    return Footprint(
        top_left,
        size,
        cells,
        tuple(border),
        Terrain.FOREST in terr,
        Terrain.MOUNTAIN in terr,
        Terrain.RIVER in terr,
    )


# FOOTPRINTS[size][top_left] -> Footprint, or None where it would leave the grid.
FOOTPRINTS: dict[int, tuple[Footprint | None, ...]] = {
    size: tuple(_make_footprint(i, size) for i in range(COLS * ROWS)) for size in (1, 2, 3)
}


@functools.lru_cache(maxsize=4096)
def inner_positions(top_left: int, size: int, new_size: int) -> tuple[int, ...]:
    """Top-left squares where a ``new_size`` tile fits inside a ``size`` footprint (R33)."""
    row, col = divmod(top_left, COLS)
    span = size - new_size + 1
    return tuple((row + dr) * COLS + col + dc for dr in range(span) for dc in range(span))


@functools.lru_cache(maxsize=4096)
def outer_positions(top_left: int, size: int, new_size: int) -> tuple[int, ...]:
    """Top-left squares of ``new_size`` footprints inside the grid that cover a footprint (R16)."""
    row, col = divmod(top_left, COLS)
    span = new_size - size
    out = []
    for dr in range(-span, 1):
        for dc in range(-span, 1):
            r, c = row + dr, col + dc
            if r >= 0 and c >= 0 and r + new_size <= ROWS and c + new_size <= COLS:
                out.append(r * COLS + c)
    return tuple(out)
