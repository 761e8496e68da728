"""One age's board: the 20x16 map with its edge labels, tiles, cubes, adventurers and highlights.

``draw_board`` paints onto an image at a given cell size, so the boards image (small cells) and
the single-age image (large cells) share every line of drawing code.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from engine import BUILDINGS, PRINTED_HAMLETS, TERRAIN, Age, Family, PublicView, Terrain
from engine.constants import COL_LETTERS, COLS, ROWS, capacity
from engine.state import Board, Tile

from .style import (
    BOLD,
    CONDENSED,
    FAMILY_COLOUR,
    FAMILY_TEXT,
    GRID_LINE,
    INK,
    MUTED,
    PAPER,
    RGB,
    TERRAIN_LOOK,
    TIMES,
    TYPE_CODE,
    WHITE,
    draw_cube,
    fit_text,
    font,
    mix,
    stamp_text,
)

RUIN_GREY: RGB = (226, 224, 220)
HIGHLIGHT_OUTER: RGB = INK
HIGHLIGHT_INNER: RGB = WHITE


@dataclass(frozen=True)
class BoardGeometry:
    """Sizes of one board block at a given cell size (all in pixels)."""

    cell: int

    @property
    def band(self) -> int:
        """Width of the edge band holding column letters and row numbers."""
        return max(18, round(self.cell * 0.5))

    @property
    def header(self) -> int:
        """Height of the strip above the board naming the age and its adventurers."""
        return max(30, round(self.cell * 0.8))

    @property
    def width(self) -> int:
        return COLS * self.cell + 2 * self.band

    @property
    def height(self) -> int:
        return self.header + ROWS * self.cell + 2 * self.band


# --- terrain (the same on every board and every state: drawn once per cell size) -------------


def _draw_terrain_cell(draw: ImageDraw.ImageDraw, terrain: Terrain, x: int, y: int, c: int) -> None:
    look = TERRAIN_LOOK[terrain]
    draw.rectangle((x, y, x + c - 1, y + c - 1), fill=look.fill)
    w = max(1, round(c / 18))
    if terrain is Terrain.FOREST:
        for tx, ty, s in ((0.3, 0.2, 0.30), (0.68, 0.48, 0.30)):
            apex = (x + tx * c, y + ty * c)
            half = s * c / 2
            base_y = apex[1] + s * c * 1.05
            draw.polygon(
                [apex, (apex[0] + half, base_y), (apex[0] - half, base_y)], fill=look.mark
            )
            draw.line((apex[0], base_y, apex[0], base_y + s * c * 0.3), fill=look.mark, width=w)
    elif terrain is Terrain.MOUNTAIN:
        pts = [(0.1, 0.74), (0.38, 0.28), (0.55, 0.52), (0.7, 0.36), (0.92, 0.74)]
        draw.line([(x + px * c, y + py * c) for px, py in pts], fill=look.mark, width=w + 1)
        draw.line((x + 0.3 * c, y + 0.41 * c, x + 0.46 * c, y + 0.41 * c), fill=look.mark, width=w)
    elif terrain is Terrain.RIVER:
        for base in (0.36, 0.66):
            pts = [
                (x + c * i / 8, y + c * (base + 0.07 * math.sin(i * math.pi / 2)))
                for i in range(9)
            ]
            draw.line(pts, fill=look.mark, width=w)


@lru_cache(maxsize=4)
def terrain_layer(cell: int) -> Image.Image:
    """The bare map (terrain, patterns and grid lines) at ``cell`` pixels per square."""
    img = Image.new("RGB", (COLS * cell, ROWS * cell), PAPER)
    draw = ImageDraw.Draw(img)
    for i, terrain in enumerate(TERRAIN):
        row, col = divmod(i, COLS)
        _draw_terrain_cell(draw, terrain, col * cell, row * cell, cell)
    for col in range(COLS + 1):
        x = min(col * cell, COLS * cell - 1)
        draw.line((x, 0, x, ROWS * cell), fill=GRID_LINE, width=1)
    for row in range(ROWS + 1):
        y = min(row * cell, ROWS * cell - 1)
        draw.line((0, y, COLS * cell, y), fill=GRID_LINE, width=1)
    return img


@lru_cache(maxsize=4)
def frame_layer(cell: int) -> Image.Image:
    """The board without its header: terrain plus the column letters and row numbers."""
    geo = BoardGeometry(cell)
    b = geo.band
    img = Image.new("RGB", (geo.width, ROWS * cell + 2 * b), PAPER)
    img.paste(terrain_layer(cell), (b, b))
    draw = ImageDraw.Draw(img)
    fnt = font(max(11, round(b * 0.62)), BOLD)
    for col in range(COLS):
        cx = b + col * cell + cell / 2
        for cy in (b / 2, b + ROWS * cell + b / 2):
            draw.text((cx, cy), COL_LETTERS[col], font=fnt, fill=MUTED, anchor="mm")
    for row in range(ROWS):
        cy = b + row * cell + cell / 2
        for cx in (b / 2, b + COLS * cell + b / 2):
            draw.text((cx, cy), str(row + 1), font=fnt, fill=MUTED, anchor="mm")
    draw.rectangle((b - 1, b - 1, b + COLS * cell, b + ROWS * cell), outline=INK, width=1)
    return img


# --- buildings ------------------------------------------------------------------------------


def _hatch(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], colour: RGB, step: int,
           width: int) -> None:
    """Diagonal lines (bottom-left to top-right) clipped to ``box``."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    k = step
    while k < w + h:
        start = (x0 + max(0, k - h), y0 + min(k, h))
        end = (x0 + min(k, w), y0 + max(0, k - w))
        draw.line((start, end), fill=colour, width=width)
        k += step


def _slots(
    draw: ImageDraw.ImageDraw, seats: list[int], cap: int, cx: float, cy: float, span: float,
    r: float,
) -> None:
    """``cap`` cube places centred on (cx, cy) across ``span`` pixels, filled by ``seats``."""
    gap = min(span / max(cap, 1), r * 2.7)
    first = cx - gap * (cap - 1) / 2
    for i in range(cap):
        x = first + i * gap
        if i < len(seats):
            draw_cube(draw, seats[i], x, cy, r)
        else:
            s = r * 0.62
            draw.rounded_rectangle(
                (x - s, cy - s, x + s, cy + s), radius=max(1, s / 3), fill=WHITE, outline=MUTED,
                width=1,
            )


def _draw_tile(
    img: Image.Image, draw: ImageDraw.ImageDraw, tile: Tile, age: Age, gx: int, gy: int, c: int
) -> None:
    spec = BUILDINGS[tile.type]
    fam = spec.family
    size = spec.size
    row, col = divmod(tile.at, COLS)
    pad = max(2, c // 14)
    box = (gx + col * c + pad, gy + row * c + pad, gx + (col + size) * c - pad - 1,
           gy + (row + size) * c - pad - 1)
    colour = FAMILY_COLOUR[fam]
    ow = max(2, c // 18)
    if tile.ruin:
        draw.rectangle(box, fill=mix(colour, RUIN_GREY, 0.62))
        _hatch(draw, box, mix(colour, INK, 0.25), max(6, c // 5), max(1, c // 28))
        draw.rectangle(box, outline=mix(colour, INK, 0.45), width=ow)
        text_colour = INK
    else:
        draw.rectangle(box, fill=colour, outline=INK, width=ow)
        text_colour = FAMILY_TEXT[fam]
    x0, y0, x1, y1 = box
    cx = (x0 + x1) / 2
    inner = x1 - x0 - 2 * ow - 2
    # The type: a unique two-letter code on 1x1 tiles, the full name on bigger ones.
    if size == 1:
        stamp_text(img, (cx, y0 + c * 0.26), TYPE_CODE[tile.type], max(10, round(c * 0.33)),
                   CONDENSED, text_colour)
    else:
        px = max(10, round(c * (0.3 if size == 2 else 0.4)))
        name = fit_text(tile.type.label, font(px, CONDENSED), inner)
        stamp_text(img, (cx, y0 + c * 0.38), name, px, CONDENSED, text_colour)
    if tile.ruin:  # only Keeps, Castles, Monasteries and Abbeys (size 2-3) are ruins
        px = max(9, round(c * 0.26))
        label = fit_text("RUIN 1/2 paid" if tile.marker is not None else "RUIN",
                         font(px, CONDENSED), inner)
        ly = y0 + c * 0.74
        tw = font(px, CONDENSED).getlength(label)
        draw.rectangle((cx - tw / 2 - 3, ly - c * 0.15, cx + tw / 2 + 3, ly + c * 0.15), fill=WHITE)
        stamp_text(img, (cx, ly), label, px, CONDENSED, INK)
    # Cubes along the bottom: control cube, renovation marker, or population places.
    bottom = y1 - c * 0.27
    if tile.owner is not None:
        if size > 1:
            draw_cube(draw, tile.owner, cx, bottom, c * 0.19)
        else:
            draw_cube(draw, tile.owner, cx, y1 - c * 0.22, c * 0.16)
    if tile.marker is not None:
        draw_cube(draw, tile.marker, x1 - c * 0.3, bottom, c * 0.17)
    if age is Age.REASON and fam is Family.CIVIL:
        _slots(draw, tile.cubes, capacity(tile.type), cx, y1 - c * 0.24, x1 - x0 - 4, c * 0.15)


def _draw_printed_hamlet(
    draw: ImageDraw.ImageDraw, square: int, age: Age, board: Board, gx: int, gy: int, c: int
) -> None:
    """A printed hamlet: a small house on the terrain (a Hamlet *tile* is a full square)."""
    row, col = divmod(square, COLS)
    x, y = gx + col * c, gy + row * c
    cx = x + c / 2
    reason = age is Age.REASON
    top = y + c * (0.1 if reason else 0.16)
    w = c * 0.3
    body_top = top + c * 0.26
    body_bottom = body_top + c * (0.3 if reason else 0.42)
    house = [(cx, top), (cx + w, body_top), (cx + w, body_bottom), (cx - w, body_bottom),
             (cx - w, body_top)]
    draw.polygon(house, fill=FAMILY_COLOUR[Family.CIVIL], outline=WHITE, width=max(1, c // 20))
    door = c * 0.07
    draw.rectangle((cx - door, body_bottom - c * 0.16, cx + door, body_bottom), fill=WHITE)
    if reason:
        seat = board.hamlet_cubes.get(square)
        _slots(draw, [] if seat is None else [seat], 1, cx, y + c * 0.8, c, c * 0.15)


def covered_squares(board: Board) -> set[int]:
    """Squares under a tile (a printed hamlet there is hidden)."""
    cells: set[int] = set()
    for t in board.tiles:
        size = BUILDINGS[t.type].size
        row, col = divmod(t.at, COLS)
        cells.update((row + dr) * COLS + col + dc for dr in range(size) for dc in range(size))
    return cells


def _draw_highlight(
    draw: ImageDraw.ImageDraw, squares: set[int], gx: int, gy: int, c: int
) -> None:
    """Outline the region made of ``squares``: a dark line with a white core, on its border."""
    outer = max(7, round(c / 6))
    inner = max(3, outer // 2 - 1)
    edges: list[tuple[float, float, float, float]] = []
    for sq in squares:
        row, col = divmod(sq, COLS)
        x, y = gx + col * c, gy + row * c
        if row == 0 or sq - COLS not in squares:
            edges.append((x, y, x + c, y))
        if row == ROWS - 1 or sq + COLS not in squares:
            edges.append((x, y + c, x + c, y + c))
        if col == 0 or sq - 1 not in squares:
            edges.append((x, y, x, y + c))
        if col == COLS - 1 or sq + 1 not in squares:
            edges.append((x + c, y, x + c, y + c))
    half = outer / 2
    for x0, y0, x1, y1 in edges:
        draw.rectangle((x0 - half, y0 - half, x1 + half, y1 + half), fill=HIGHLIGHT_OUTER)
    ih = inner / 2
    for x0, y0, x1, y1 in edges:
        draw.rectangle((x0 - ih, y0 - ih, x1 + ih, y1 + ih), fill=HIGHLIGHT_INNER)


# --- the header strip: the age and who stands in it ----------------------------------------


def adventurers_in(view: PublicView, age: Age) -> list[tuple[int, int]]:
    """(seat, count) of the players with adventurers on ``age``, in seat order."""
    out = []
    for p in view.players:
        n = Counter(p.adventurers)[age]
        if n:
            out.append((p.seat, n))
    return out


AGE_NUMERAL = {Age.MIGHT: "I", Age.FAITH: "II", Age.REASON: "III"}


def _draw_header(
    draw: ImageDraw.ImageDraw, view: PublicView, age: Age, names: list[str], x: int, y: int,
    geo: BoardGeometry,
) -> None:
    h = geo.header
    title_font = font(round(h * 0.62), BOLD)
    title = f"{AGE_NUMERAL[age]}. {age.label.upper()}"
    draw.text((x + geo.band, y + h / 2), title, font=title_font, fill=INK, anchor="lm")
    tx = x + geo.band + title_font.getlength(title) + h * 0.6
    label_font = font(round(h * 0.45))
    draw.text((tx, y + h / 2), "adventurers:", font=label_font, fill=MUTED, anchor="lm")
    tx += label_font.getlength("adventurers: ") + 2
    present = adventurers_in(view, age)
    if not present:
        draw.text((tx, y + h / 2), "none", font=label_font, fill=MUTED, anchor="lm")
        return
    right = x + geo.width - geo.band
    room = (right - tx) / len(present)
    name_font = font(round(h * 0.45), BOLD)
    r = h * 0.24
    for seat, n in present:
        draw_cube(draw, seat, tx + r, y + h / 2, r)
        suffix = f" {TIMES}{n}" if n > 1 else ""
        name = names[seat] if seat < len(names) else f"Seat {seat + 1}"
        text = fit_text(name, name_font, room - 3 * r - name_font.getlength(suffix) - 6) + suffix
        draw.text((tx + 2.6 * r, y + h / 2), text, font=name_font, fill=INK, anchor="lm")
        tx += room


def draw_board(
    img: Image.Image,
    view: PublicView,
    age: Age,
    names: list[str],
    x: int,
    y: int,
    cell: int,
    highlight: set[int] | None = None,
) -> None:
    """Paint the board block of ``age`` (header, labels, map, buildings) at (x, y)."""
    geo = BoardGeometry(cell)
    draw = ImageDraw.Draw(img)
    _draw_header(draw, view, age, names, x, y, geo)
    top = y + geo.header
    img.paste(frame_layer(cell), (x, top))
    gx, gy = x + geo.band, top + geo.band
    board = view.boards[age]
    covered = covered_squares(board)
    for sq in PRINTED_HAMLETS:
        if sq not in covered:
            _draw_printed_hamlet(draw, sq, age, board, gx, gy, cell)
    for tile in sorted(board.tiles, key=lambda t: t.at):
        _draw_tile(img, draw, tile, age, gx, gy, cell)
    if highlight:
        _draw_highlight(draw, {s for s in highlight if 0 <= s < COLS * ROWS}, gx, gy, cell)
