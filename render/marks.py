"""The candidates of a pending choice, numbered on the board (R32, R33, R36, R37).

A choice (``view.pending``) asks its chooser either which building is downsized
(``downsize_which``: each option is a tile) or where the smaller tile sits inside the old
footprint (``place_downsized``: each option is a top-left square). The images number each
option on its board with the number of its button (1, 2, ...), so the chooser sees which
building or which squares each option means.

Where a number goes is computed apart from the painting (``choice_marks``), for the tests and
for the table image's window, which must hold every candidate.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine import BUILDINGS, Age, PublicView
from engine.constants import COLS, ROWS
from engine.state import Tile

from .style import BOLD, INK, WHITE, put_text


@dataclass(frozen=True)
class ChoiceMark:
    """Option ``number`` (1-based, as its button) of the pending choice: the squares it means,
    and where its number is drawn: centred on the point ``at`` (column, row, in squares,
    fractional) moved by its radius in the directions ``inward`` (-1, 0 or 1 on each axis)."""

    number: int
    squares: frozenset[int]
    at: tuple[float, float]
    inward: tuple[int, int] = (0, 0)


def _footprint(at: int, size: int) -> frozenset[int]:
    row, col = divmod(at, COLS)
    return frozenset((row + dr) * COLS + col + dc for dr in range(size) for dc in range(size)
                     if row + dr < ROWS and col + dc < COLS)


def _tile_marks(tiles: list[Tile | None]) -> list[ChoiceMark]:
    """``downsize_which``: each option a whole building; its number centred on the tile's
    top-left corner, where it hides no name, owner or cube of the tile."""
    out = []
    for number, tile in enumerate(tiles, 1):
        if tile is None:
            continue
        row, col = divmod(tile.at, COLS)
        squares = _footprint(tile.at, BUILDINGS[tile.type].size)
        out.append(ChoiceMark(number, squares, (float(col), float(row))))
    return out


def _place_marks(old: Tile, positions: list[int]) -> list[ChoiceMark]:
    """``place_downsized``: each option a footprint one size smaller inside the old one; its
    number in the corner of the old footprint that only this footprint covers, clear of the
    tile's name and owner in the middle."""
    size = max(1, BUILDINGS[old.type].size - 1)
    prints = [_footprint(at, size) for at in positions]
    cover: dict[int, int] = {}
    for squares in prints:
        for sq in squares:
            cover[sq] = cover.get(sq, 0) + 1
    old_row, old_col = divmod(old.at, COLS)
    middle = (old_col + BUILDINGS[old.type].size / 2, old_row + BUILDINGS[old.type].size / 2)
    out = []
    for number, squares in enumerate(prints, 1):
        def rank(sq: int) -> tuple[int, float]:
            row, col = divmod(sq, COLS)
            far = (col + 0.5 - middle[0]) ** 2 + (row + 0.5 - middle[1]) ** 2
            return (cover[sq], -far)

        row, col = divmod(min(squares, key=rank), COLS)
        sx = _side(col + 0.5 - middle[0])
        sy = _side(row + 0.5 - middle[1])
        at = (col + 0.5 + sx * 0.5, row + 0.5 + sy * 0.5)
        out.append(ChoiceMark(number, squares, at, (-sx, -sy)))
    return out


def _side(offset: float) -> int:
    return 0 if abs(offset) < 1e-9 else (1 if offset > 0 else -1)


def choice_marks(view: PublicView, age: Age) -> list[ChoiceMark]:
    """The numbered options of the pending choice on ``age`` (none when nothing is pending,
    the game is over, or the choice is on another board)."""
    pending = view.pending
    if pending is None or view.over or Age(pending.age) is not age:
        return []
    board = view.boards[age]
    by_id = {t.id: t for t in board.tiles}
    if pending.kind == "downsize_which":
        return _tile_marks([by_id.get(o.tile_id) if o.tile_id is not None else None
                            for o in pending.options])
    positions = [o.at for o in pending.options if o.at is not None]
    if not positions or len(positions) != len(pending.options):
        return []
    holders = [t for t in board.tiles if BUILDINGS[t.type].size > 1
               and all(p in _footprint(t.at, BUILDINGS[t.type].size) for p in positions)]
    return _place_marks(holders[0], positions) if holders else []


def mark_squares(marks: list[ChoiceMark]) -> set[int]:
    """Every square the options mean."""
    return {sq for m in marks for sq in m.squares}


def badge_radius(cell: float) -> float:
    """The radius of an option's number at ``cell`` pixels per square."""
    return max(6.0, cell * 0.3)


def badge_centre(mark: ChoiceMark, gx: float, gy: float, cell: float) -> tuple[float, float]:
    """The badge's centre in image pixels, on a map whose square A1 starts at (gx, gy); a
    corner on the map's edge moves it inwards, so that the whole disc is on the map."""
    r = badge_radius(cell)
    inset = r + max(2.0, cell / 14)  # clear of the tile's outline
    cx = gx + mark.at[0] * cell + mark.inward[0] * inset
    cy = gy + mark.at[1] * cell + mark.inward[1] * inset
    return (min(max(cx, gx + r), gx + COLS * cell - r), min(max(cy, gy + r), gy + ROWS * cell - r))


def draw_marks(img: Image.Image, marks: list[ChoiceMark], gx: float, gy: float,
               cell: float) -> None:
    """Each option's number on a white disc ringed in ink."""
    draw = ImageDraw.Draw(img)
    r = badge_radius(cell)
    ring = max(2, round(r / 5))
    px = max(9, round(r * 1.3))
    for mark in marks:
        cx, cy = badge_centre(mark, gx, gy, cell)
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=INK)
        inner = r - ring
        draw.ellipse((cx - inner, cy - inner, cx + inner, cy + inner), fill=WHITE)
        put_text(img, (cx, cy), str(mark.number), px, BOLD, INK, "mm")
