"""Sets of squares as the bits of one integer (bit ``c`` stands for square ``c``), for finding
the construct squares of a board with a few operations per building rather than tests per
square (``moves.construct``; docs/engine.md, "Legal actions per kind").

Everything here depends on the map only and is computed once: for each footprint size, the
top-left squares inside the grid, those whose footprint crosses the river, those of each
surcharge (R18) per number of players, and, per building footprint, the top-left squares of
the footprints that share a side with it."""

from __future__ import annotations

import functools
from collections.abc import Iterable

from .board import FOOTPRINTS, PRINTED_HAMLETS
from .constants import COLS, ROWS, forest_surcharge, mountain_surcharge

NCELLS = COLS * ROWS
SIZES = (1, 2, 3)


def mask(squares: Iterable[int]) -> int:
    out = 0
    for c in squares:
        out |= 1 << c
    return out


# For each byte value, the positions of its set bits (for ``squares_of``).
_BITS = tuple(tuple(i for i in range(8) if v >> i & 1) for v in range(256))
_BYTES = (NCELLS + 7) // 8


def squares_of(bits: int) -> list[int]:
    """The squares of a mask, in increasing order (reading order)."""
    out: list[int] = []
    for i, byte in enumerate(bits.to_bytes(_BYTES, "little")):
        if byte:
            base = i * 8
            out += [base + b for b in _BITS[byte]]
    return out


# Per size and top-left square: the footprint's squares (0 where it would leave the grid).
CELLS = {s: tuple(0 if fp is None else mask(fp.cells) for fp in FOOTPRINTS[s]) for s in SIZES}
# ... and the squares sharing a side with it, outside it (its border).
BORDERS = {s: tuple(0 if fp is None else mask(fp.border) for fp in FOOTPRINTS[s]) for s in SIZES}
# The printed hamlets' squares (R1).
HAMLET_SQUARES = mask(PRINTED_HAMLETS)
# Per size: the top-left squares whose footprint lies inside the grid, and those of them
# whose footprint crosses the river.
ON_GRID = {s: mask(fp.top_left for fp in FOOTPRINTS[s] if fp is not None) for s in SIZES}
RIVER = {s: mask(fp.top_left for fp in FOOTPRINTS[s] if fp is not None and fp.river) for s in SIZES}


def free_top_lefts(occupied: int, size: int) -> int:
    """The top-left squares of the size-``size`` footprints inside the grid that cover none of
    the ``occupied`` squares: a footprint at ``t`` holds ``t + dr * COLS + dc``, so ``t`` is
    ruled out by each occupied square shifted back by each such offset (inside the grid no
    offset wraps around a row end, since ``t``'s column is at most ``COLS - size``)."""
    blocked = 0
    for dr in range(size):
        for dc in range(size):
            blocked |= occupied >> (dr * COLS + dc)
    return ON_GRID[size] & ~blocked


@functools.cache
def surcharge_masks(size: int, players: int) -> tuple[int, ...]:
    """Per surcharge 0, 1, 2 ... (R18, at ``players`` players), the top-left squares of the
    size-``size`` footprints that cost it."""
    by_extra: dict[int, list[int]] = {}
    for fp in FOOTPRINTS[size]:
        if fp is not None:
            extra = (forest_surcharge(players) if fp.forest else 0) + (
                mountain_surcharge(players) if fp.mountain else 0
            )
            by_extra.setdefault(extra, []).append(fp.top_left)
    return tuple(mask(by_extra.get(e, ())) for e in range(max(by_extra) + 1))


def _around(size: int, cells: Iterable[int], reach: int) -> set[int]:
    """Top-left squares of size-``size`` footprints inside the grid that hold a square within
    ``reach`` rows or columns of one of ``cells`` (a superset of what the callers test)."""
    out = set()
    for c in cells:
        row, col = divmod(c, COLS)
        for r in range(max(0, row - size - reach + 1), min(ROWS, row + reach + 1)):
            for k in range(max(0, col - size - reach + 1), min(COLS, col + reach + 1)):
                if FOOTPRINTS[size][r * COLS + k] is not None:
                    out.add(r * COLS + k)
    return out


def touching(size: int, b_size: int, b_at: int) -> int:
    """The top-left squares of the size-``size`` footprints whose border (the squares that
    share a side with it, outside it) holds a square of the footprint of size ``b_size`` at
    ``b_at``: a building there is a neighbour of a building placed at them (R19, R20)."""
    table = _TOUCHING[size][b_size]
    found = table[b_at]
    if found is None:
        fp = FOOTPRINTS[b_size][b_at]
        assert fp is not None
        cells = set(fp.cells)
        found = table[b_at] = mask(
            t
            for t in _around(size, fp.cells, 1)
            if cells.intersection(FOOTPRINTS[size][t].border)  # type: ignore[union-attr]
        )
    return found


# touching(size, b_size, b_at), filled on first use (a list per size pair: read at every
# building of every new board, faster than a cache keyed by the three numbers).
_TOUCHING: dict[int, dict[int, list[int | None]]] = {
    s: {b: [None] * NCELLS for b in SIZES} for s in SIZES
}
