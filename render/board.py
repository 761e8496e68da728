"""One age's board: the 20x16 map with its edge labels, tiles, cubes, adventurers and highlights.

``draw_board`` paints onto an image at a given cell size, so every image (the boards, one age
large, the move post, before and after) shares every line of drawing code.

Speed: the terrain with its edge labels is drawn once per cell size
(``frame_layer``), and a board with its buildings once per content (``board_layer``, a small
cache keyed by the board's tiles and cubes), so an image after a move redraws only the ages the
move changed. The header and the highlight are drawn on the copy, never on a cached layer.

Where things go on a tile is computed apart from the painting (``tile_layout``), so the tests
can check that no label, marker or frame covers a cube.
"""

from __future__ import annotations

import math
import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass, field, replace

from PIL import Image, ImageDraw

from engine import BUILDINGS, PRINTED_HAMLETS, TERRAIN, Age, Family, PublicView, Terrain
from engine.constants import COL_LETTERS, COLS, ROWS, capacity
from engine.state import Board, Tile

from .marks import choice_marks, draw_marks
from .strings import age_name, building_code, building_name, current_language, say
from .style import (
    BOLD,
    CONDENSED,
    FAMILY_COLOUR,
    FAMILY_TEXT,
    GRID_LINE,
    INK,
    MUTED,
    PAPER,
    REGULAR,
    RGB,
    RING,
    TERRAIN_LOOK,
    WHITE,
    cube_extent,
    draw_cube,
    fit_size,
    font,
    player_look,
    put_text,
    ruin_colours,
    stamp_text,
    text_length,
)

HIGHLIGHT_OUTER: RGB = INK
HIGHLIGHT_INNER: RGB = WHITE
MIN_LABEL_PX = 9  # the smallest two-letter code
MIN_NAME_PX = 8  # below this a building's name gives way to its two-letter code
DETAIL_CELL = 24  # cells smaller than this (thumbnails) show codes only and no ruin plate
MIN_MARK_CELL = 12  # a choice's numbers are left off smaller maps
SMALL_CELL = 16  # the table image's small ages go below this (8-11 px a square)
RING_OUTSIDE = 5  # px the ring of a change on a small age reaches out of its squares

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class BoardGeometry:
    """Sizes of one board block at a given cell size (all in pixels). ``labels``: the column
    letters and row numbers around the map (thumbnails leave them out)."""

    cell: int
    labels: bool = True

    @property
    def band(self) -> int:
        """Width of the edge band holding column letters and row numbers."""
        if not self.labels:
            return max(3, self.cell // 6)
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


def highlight_widths(cell: int) -> tuple[int, int]:
    """(outer, inner) thickness of the last-move outline at ``cell`` pixels per square, from
    ``SMALL_CELL`` up (below it, the table image's small ages, a ring: ``ring_extent``)."""
    outer = max(6, round(cell / 5))
    return outer, max(2, outer // 2 - 1)


def tile_pad(cell: int) -> int:
    """The gap between a square's edge and the outline of the tile standing on it."""
    return max(2, cell // 14)


def ring_extent(cell: int) -> tuple[int, int]:
    """(inside, outside): how far the ring around a change on a small age (under
    ``SMALL_CELL`` px a square) reaches into the changed squares and out of them. Inside it
    fills the tile's pad only, so it hides nothing of the tile; outside it takes the room a
    preview needs (7 px: 3 at 400 px wide), over the edge of the neighbouring squares."""
    return tile_pad(cell), RING_OUTSIDE


def content_inset(cell: int) -> float:
    """How far inside its squares a cube or a label must stay, clear of the highlight."""
    if cell < SMALL_CELL:
        return ring_extent(cell)[0] + 1
    return highlight_widths(cell)[0] / 2 + 1


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


_LAYERS: OrderedDict[tuple[object, ...], Image.Image] = OrderedDict()
_LOCK = threading.Lock()  # the bot renders in worker threads (asyncio.to_thread)
# About 14 boards at 40 px a square (1.7 MB each), or 5 at 64: the ages of a few games in play.
LAYER_CACHE_BYTES = 24_000_000


def _cached(key: tuple[object, ...], build: object) -> Image.Image:
    """The image stored under ``key``, built by ``build()`` when missing; the least recently
    used images go first when the cache holds more than ``LAYER_CACHE_BYTES``. Callers paste
    the image and never draw on it."""
    budget = LAYER_CACHE_BYTES
    with _LOCK:
        img = _LAYERS.get(key)
        if img is not None:
            _LAYERS.move_to_end(key)
            return img
    assert callable(build)
    img = build()  # outside the lock: two threads may both draw it, the last one is kept
    assert isinstance(img, Image.Image)
    with _LOCK:
        _LAYERS[key] = img
        size = sum(i.width * i.height * len(i.getbands()) for i in _LAYERS.values())
        while size > budget and len(_LAYERS) > 1:
            _, old = _LAYERS.popitem(last=False)
            size -= old.width * old.height * len(old.getbands())
    return img


def clear_layer_cache() -> None:
    """Forget every cached layer (for the benchmark's cold figures and the tests)."""
    with _LOCK:
        _LAYERS.clear()
        _frame.clear()


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


_frame: dict[BoardGeometry, Image.Image] = {}


def frame_layer(geo: BoardGeometry) -> Image.Image:
    """The board without its header: terrain plus the column letters and row numbers. Drawn
    once per geometry (a handful of sizes) and kept."""
    with _LOCK:
        img = _frame.get(geo)
    if img is not None:
        return img
    cell, b = geo.cell, geo.band
    img = Image.new("RGB", (geo.width, ROWS * cell + 2 * b), PAPER)
    img.paste(terrain_layer(cell), (b, b))
    draw = ImageDraw.Draw(img)
    if geo.labels:
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
    with _LOCK:
        _frame[geo] = img
    return img


# --- where things go on a tile (pure geometry, checked by the tests) --------------------------


@dataclass(frozen=True)
class Label:
    text: str
    px: int
    font: str
    cx: float
    cy: float
    colour: RGB

    @property
    def box(self) -> Box:
        left, top, right, bottom = font(self.px, self.font).getbbox(self.text, anchor="mm")
        return (self.cx + left, self.cy + top, self.cx + right, self.cy + bottom)


@dataclass(frozen=True)
class Token:
    """A player's cube (or an empty place for one when ``seat`` is None) centred on (cx, cy)."""

    seat: int | None
    cx: float
    cy: float
    r: float

    @property
    def box(self) -> Box:
        e = cube_extent(self.r) if self.seat is not None else self.r * 0.62 + 1
        return (self.cx - e, self.cy - e, self.cx + e, self.cy + e)


@dataclass(frozen=True)
class TileLayout:
    """Where every part of a tile is drawn, in image pixels."""

    box: Box  # the tile's outline
    outline: int  # its width
    frame: int  # width of the owner's frame inside the outline (0: nobody owns it)
    name: Label | None  # None on thumbnails, too small to read
    ruin: Label | None = None  # the "RUIN" plate
    owner: Token | None = None  # the owner's shape, on the bottom of the frame
    marker: Token | None = None  # a renovation cube (R42)
    places: list[Token] = field(default_factory=list)  # population places on Reason (R41)

    def parts(self) -> list[tuple[str, Box]]:
        """Every drawn part that must not cover another, named."""
        out = [] if self.name is None else [("name", self.name.box)]
        if self.ruin is not None:
            out.append(("ruin", _plate(self.ruin)))
        if self.owner is not None:
            out.append(("owner", self.owner.box))
        if self.marker is not None:
            out.append(("marker", self.marker.box))
        out.extend((f"place {i}", p.box) for i, p in enumerate(self.places))
        return out


def _plate(label: Label) -> Box:
    x0, y0, x1, y1 = label.box
    return (x0 - 3, y0 - 2, x1 + 3, y1 + 2)


def radius_for(extent: float) -> float:
    """The largest cube radius whose ``cube_extent`` is at most ``extent``."""
    r = (extent - 3) / 1.12
    return r if r >= 7.5 else (extent - 2) / 1.12


MIN_CUBE = 1.5  # a cube smaller than this radius is left out (thumbnails): the frame remains
MIN_SPECK = 0.8  # a population cube or marker smaller than this is left out (the smallest maps)


READABLE_CUBE = 3.0  # radius under which a cube's shape cannot be told


def tile_layout(tile: Tile, age: Age, gx: float, gy: float, c: int) -> TileLayout:
    """The layout of ``tile`` on the map whose top-left square starts at (gx, gy): the name at
    the top, the "RUIN" plate under it, the cubes along the bottom, all inside the tile and
    clear of the last-move outline. Where the name leaves too little room for readable cubes
    (a Hamlet tile on Reason at a small scale), the cubes win: the tile's look says Hamlet."""
    lay = _tile_layout(tile, age, gx, gy, c, named=c >= DETAIL_CELL)
    if lay.name is not None and any(p.r < READABLE_CUBE for p in lay.places):
        lay = _tile_layout(tile, age, gx, gy, c, named=False)
    if any(p.r < MIN_SPECK for p in lay.places):  # the smallest maps: the Boards image has them
        lay = replace(lay, places=[])
    if lay.marker is not None and lay.marker.r < MIN_SPECK:
        lay = replace(lay, marker=None)
    return lay


def _tile_layout(tile: Tile, age: Age, gx: float, gy: float, c: int, named: bool) -> TileLayout:
    spec = BUILDINGS[tile.type]
    size = spec.size
    fam = spec.family
    row, col = divmod(tile.at, COLS)
    pad = tile_pad(c)
    sx0, sy0 = gx + col * c, gy + row * c  # the squares' region
    sx1, sy1 = sx0 + size * c, sy0 + size * c
    x0, y0, x1, y1 = sx0 + pad, sy0 + pad, sx1 - pad - 1, sy1 - pad - 1
    ow = max(2, c // 18)
    clear = content_inset(c)
    inset = max(ow, clear - pad)
    frame = max(3 if c >= SMALL_CELL else 2, round(c * (0.1 if size == 1 else 0.15))
                ) if tile.owner is not None else 0
    ix0, iy0 = x0 + inset + frame, y0 + inset + frame
    ix1, iy1 = x1 - inset - frame, y1 - inset - frame
    inner_w = ix1 - ix0 - 2
    text_colour = INK if tile.ruin else FAMILY_TEXT[fam]
    cx = (x0 + x1) / 2

    name = None
    if named:
        # The type: the full name on tiles of size 2-3 when it fits, else the two-letter code.
        px = None
        if size > 1:
            px = fit_size(building_name(tile.type), CONDENSED, round(c * (0.3 if size == 2
                          else 0.4)), MIN_NAME_PX, inner_w)
        if px is not None:
            text = building_name(tile.type)
        else:
            text = building_code(tile.type)
            px = fit_size(text, CONDENSED, round(c * (0.33 if size == 1 else 0.4)),
                          MIN_LABEL_PX, inner_w) or MIN_LABEL_PX
        top = iy0 + (1 if size == 1 else c * 0.06)
        name = Label(text, px, CONDENSED, cx, top, text_colour)
        name = Label(text, px, CONDENSED, cx, 2 * top - name.box[1], text_colour)
    free_top = name.box[3] + 1 if name is not None else iy0

    ruin = None
    if tile.ruin and c >= DETAIL_CELL:  # only Keeps, Castles, Monasteries, Abbeys (size 2-3)
        words = say("tile.ruin_half_paid" if tile.marker is not None else "tile.ruin")
        rpx = fit_size(words, CONDENSED, max(MIN_LABEL_PX, round(c * 0.26)), 7, inner_w - 6)
        if rpx is None:
            words, rpx = say("tile.ruin"), 7
        ruin = Label(words, rpx, CONDENSED, cx, 0, INK)
        plate_top = _plate(ruin)[1]
        ruin = Label(words, rpx, CONDENSED, cx, free_top + 3 - plate_top, INK)
        free_top = _plate(ruin)[3] + 1

    owner = None
    if tile.owner is not None:
        # Straddling the frame's bottom edge, so it takes little room from the name.
        bottom = sy1 - clear
        e = min(cube_extent(max(frame * 0.8, c * (0.16 if size == 1 else 0.19))),
                (bottom - free_top) / 2)
        if radius_for(e) >= MIN_CUBE:
            owner = Token(tile.owner, cx, bottom - e, radius_for(e))

    marker = None
    if tile.marker is not None:
        e = min(cube_extent(c * 0.17), (iy1 - free_top) / 2)
        marker = Token(tile.marker, ix1 - e, iy1 - e, radius_for(e))

    places: list[Token] = []
    if age is Age.REASON and fam is Family.CIVIL:
        cap = capacity(tile.type)
        span = ix1 - ix0
        e = min(cube_extent(c * 0.15), (iy1 - free_top) / 2, span / cap / 2 - 0.5)
        gap = min(span / cap, e * 2 + 2)
        seats: list[int | None] = [*tile.cubes]
        if c >= DETAIL_CELL:  # empty places only where they can be told apart
            seats += [None] * (cap - len(seats))
        first = cx - gap * (len(seats) - 1) / 2
        places = [Token(s, first + i * gap, iy1 - e, radius_for(e)) for i, s in enumerate(seats)]
    return TileLayout((x0, y0, x1, y1), ow, frame, name, ruin, owner, marker, places)


def hamlet_layout(square: int, age: Age, seat: int | None, gx: float, gy: float,
                  c: int) -> tuple[Box | None, Token | None]:
    """A printed hamlet: the box of its house, and on Reason the place for its one cube, the
    house above the place. On a thumbnail (too small for both) a cube replaces the house."""
    row, col = divmod(square, COLS)
    x, y = gx + col * c, gy + row * c
    inset = content_inset(c)
    w = c * 0.3
    if age is not Age.REASON:
        return (x + c / 2 - w, y + c * 0.16, x + c / 2 + w, y + c * 0.74), None
    if c < DETAIL_CELL:
        if seat is None or radius_for(c / 2 - inset) < MIN_SPECK:
            return (x + c / 2 - w, y + c * 0.16, x + c / 2 + w, y + c * 0.74), None
        return None, Token(seat, x + c / 2, y + c / 2, radius_for(c / 2 - inset))
    r = c * 0.13
    e = cube_extent(r)
    place = Token(seat, x + c / 2, y + c - inset - e, r)
    bottom = y + c - inset - 2 * e - max(1, c * 0.03)
    top = y + max(2, c * 0.06)  # the roof may meet the outline: it hides no cube
    w = min(w, (bottom - top) * 0.7)
    return (x + c / 2 - w, top, x + c / 2 + w, bottom), place


# --- painting ----------------------------------------------------------------------------------


def _hatch(draw: ImageDraw.ImageDraw, box: Box, colour: RGB, step: int, width: int) -> None:
    """Diagonal lines (bottom-left to top-right) clipped to ``box``."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    k = step
    while k < w + h:
        start = (x0 + max(0, k - h), y0 + min(k, h))
        end = (x0 + min(k, w), y0 + max(0, k - w))
        draw.line((start, end), fill=colour, width=width)
        k += step


def _paint_token(draw: ImageDraw.ImageDraw, token: Token) -> None:
    if token.seat is not None:
        draw_cube(draw, token.seat, token.cx, token.cy, token.r)
        return
    s = token.r * 0.62
    draw.rounded_rectangle(
        (token.cx - s, token.cy - s, token.cx + s, token.cy + s), radius=max(1, s / 3),
        fill=WHITE, outline=MUTED, width=1,
    )


def _paint_label(img: Image.Image, label: Label) -> None:
    stamp_text(img, (label.cx, label.cy), label.text, label.px, label.font, label.colour)


def _paint_tile(img: Image.Image, draw: ImageDraw.ImageDraw, tile: Tile, lay: TileLayout,
                c: int) -> None:
    colour = FAMILY_COLOUR[BUILDINGS[tile.type].family]
    box, ow = lay.box, lay.outline
    if tile.ruin:
        fill, hatch, line = ruin_colours(BUILDINGS[tile.type].family)
        draw.rectangle(box, fill=fill)
        _hatch(draw, box, hatch, max(6, c // 5), max(1, c // 28))
        draw.rectangle(box, outline=line, width=ow)
    else:
        draw.rectangle(box, fill=colour, outline=INK, width=ow)
    x0, y0, x1, y1 = box
    if lay.frame and tile.owner is not None and x0 + ow <= x1 - ow:
        # Ownership at a glance: a band of the owner's colour inside the outline, with a dark
        # hairline between it and the tile's colour (none on a 1x1 tile at 8 px a square,
        # where the outline fills it).
        band = (x0 + ow, y0 + ow, x1 - ow, y1 - ow)
        draw.rectangle(band, outline=player_look(tile.owner).colour, width=lay.frame)
        f = ow + lay.frame
        if x0 + f < x1 - f:  # not on the smallest 1x1 tiles: the frame fills them
            draw.rectangle((x0 + f, y0 + f, x1 - f, y1 - f), outline=INK, width=1)
    if lay.name is not None:
        _paint_label(img, lay.name)
    if lay.ruin is not None:
        draw.rectangle(_plate(lay.ruin), fill=WHITE)
        _paint_label(img, lay.ruin)
    for token in (lay.owner, lay.marker, *lay.places):
        if token is not None:
            _paint_token(draw, token)


def _paint_hamlet(draw: ImageDraw.ImageDraw, house: Box | None, place: Token | None,
                  c: int) -> None:
    if place is not None:
        _paint_token(draw, place)
    if house is None:
        return
    x0, y0, x1, y1 = house
    cx = (x0 + x1) / 2
    roof = y0 + (y1 - y0) * 0.42
    draw.polygon([(cx, y0), (x1, roof), (x1, y1), (x0, y1), (x0, roof)],
                 fill=FAMILY_COLOUR[Family.CIVIL], outline=WHITE, width=max(1, c // 20))
    door = (x1 - x0) * 0.22
    draw.rectangle((cx - door / 2, y1 - (y1 - y0) * 0.3, cx + door / 2, y1), fill=WHITE)


def covered_squares(board: Board) -> set[int]:
    """Squares under a tile (a printed hamlet there is hidden)."""
    cells: set[int] = set()
    for t in board.tiles:
        size = BUILDINGS[t.type].size
        row, col = divmod(t.at, COLS)
        cells.update((row + dr) * COLS + col + dc for dr in range(size) for dc in range(size))
    return cells


def _board_key(board: Board) -> tuple[object, ...]:
    tiles = tuple(
        sorted((t.at, t.type.value, t.owner, t.ruin, t.marker, tuple(t.cubes)) for t in board.tiles)
    )
    return (board.age, tiles, tuple(sorted(board.hamlet_cubes.items())))


def board_layer(board: Board, geo: BoardGeometry) -> Image.Image:
    """The map of ``board`` with its buildings, hamlets and cubes (no header, no highlight),
    drawn once per content and geometry and then taken from a small cache. Do not draw on it."""

    def build() -> Image.Image:
        img = frame_layer(geo).copy()
        draw = ImageDraw.Draw(img)
        c = geo.cell
        g = geo.band
        age = Age(board.age)
        covered = covered_squares(board)
        for sq in PRINTED_HAMLETS:
            if sq not in covered:
                house, place = hamlet_layout(sq, age, board.hamlet_cubes.get(sq), g, g, c)
                _paint_hamlet(draw, house, place, c)
        for tile in sorted(board.tiles, key=lambda t: t.at):
            _paint_tile(img, draw, tile, tile_layout(tile, age, g, g, c), c)
        return img

    return _cached(("board", geo, current_language(), *_board_key(board)), build)


def draw_highlight(draw: ImageDraw.ImageDraw, squares: set[int], gx: int, gy: int, c: int) -> None:
    """Outline the region made of ``squares``: a dark line with a white core, on its border;
    under ``SMALL_CELL`` px a square a violet ring edged in ink around it (``draw_ring``)."""
    if c < SMALL_CELL:
        draw_ring(draw, squares, gx, gy, c)
        return
    outer, inner = highlight_widths(c)
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


def _open(squares: set[int], sq: int, dcol: int, drow: int) -> bool:
    """Whether the square ``dcol``, ``drow`` away from ``sq`` is off the board or not in
    ``squares``."""
    row, col = divmod(sq, COLS)
    row, col = row + drow, col + dcol
    return not (0 <= row < ROWS and 0 <= col < COLS) or row * COLS + col not in squares


def _band_mask(squares: set[int], origin: tuple[int, int], size: tuple[int, int], c: int,
               inside: int, outside: int) -> Image.Image:
    """The pixels at most ``outside`` px out of the region of ``squares`` (Chebyshev distance:
    square corners) and at most ``inside`` px into it, as a mask of ``size`` whose (0, 0) is
    the map's pixel ``origin``. Rectangles only: a rank filter would take 10 ms a board."""
    mask = Image.new("1", size, 0)
    draw = ImageDraw.Draw(mask)
    ox, oy = origin
    corners = ((-1, -1), (1, -1), (-1, 1), (1, 1))
    for sq in squares:
        row, col = divmod(sq, COLS)
        x, y = col * c - ox, row * c - oy
        draw.rectangle((x - outside, y - outside, x + c - 1 + outside, y + c - 1 + outside),
                       fill=1)
    for sq in squares:  # the region's core, deeper than ``inside``, left out
        row, col = divmod(sq, COLS)
        x, y = col * c - ox, row * c - oy
        left, right = (inside if _open(squares, sq, d, 0) else 0 for d in (-1, 1))
        top, bottom = (inside if _open(squares, sq, 0, d) else 0 for d in (-1, 1))
        draw.rectangle((x + left, y + top, x + c - 1 - right, y + c - 1 - bottom), fill=0)
    for sq in squares:  # an inner corner: near the square diagonally out of the region
        row, col = divmod(sq, COLS)
        x, y = col * c - ox, row * c - oy
        for dx, dy in corners:
            if (not _open(squares, sq, dx, 0) and not _open(squares, sq, 0, dy)
                    and _open(squares, sq, dx, dy)):
                cx = x if dx < 0 else x + c - inside
                cy = y if dy < 0 else y + c - inside
                draw.rectangle((cx, cy, cx + inside - 1, cy + inside - 1), fill=1)
    return mask


def draw_ring(draw: ImageDraw.ImageDraw, squares: set[int], gx: int, gy: int, c: int) -> None:
    """A small age's change: a ring of ``RING`` violet, its outer pixel ink, from the tile's
    pad (``ring_extent``) to ``RING_OUTSIDE`` px out of the region made of ``squares``; the
    tiles inside are left as they are."""
    if not squares:
        return
    inside, outside = ring_extent(c)
    rows = [s // COLS for s in squares]
    cols = [s % COLS for s in squares]
    origin = (min(cols) * c - outside, min(rows) * c - outside)
    size = ((max(cols) + 1) * c + outside - origin[0], (max(rows) + 1) * c + outside - origin[1])
    at = (gx + origin[0], gy + origin[1])
    draw.bitmap(at, _band_mask(squares, origin, size, c, inside, outside), fill=INK)
    draw.bitmap(at, _band_mask(squares, origin, size, c, inside, outside - 1), fill=RING)


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


def age_title(age: Age) -> str:
    return say("age.title", numeral=AGE_NUMERAL[age], age=age_name(age).upper())


def _draw_header(
    img: Image.Image, view: PublicView, age: Age, names: list[str], x: int, y: int,
    geo: BoardGeometry,
) -> None:
    draw_age_header(img, view, age, names, (x, y, geo.width, geo.header), max(geo.band, 8))


def draw_age_header(img: Image.Image, view: PublicView, age: Age, names: list[str],
                    box: tuple[float, float, float, float], inset: float) -> None:
    """The age's title, then each adventurer's shape (and name when every name fits), in the
    strip ``box`` (x, y, width, height), ``inset`` pixels in from its sides."""
    x, y, width, h = box
    draw = ImageDraw.Draw(img)
    mid = y + h / 2
    title_px, label_px = round(h * 0.62), round(h * 0.45)
    title = age_title(age)
    left = x + inset
    put_text(img, (left, mid), title, title_px, BOLD, INK, "lm")
    tx = left + text_length(title, title_px, BOLD) + h * 0.5
    present = adventurers_in(view, age)
    right = x + width - inset
    label = say("board.adventurers")
    if not present:
        text = f"{label} {say('board.nobody')}"
        if tx + text_length(text, label_px) <= right:
            put_text(img, (tx, mid), text, label_px, REGULAR, MUTED, "lm")
        return
    r = h * 0.24
    counts = [say("times", count=n) if n > 1 else "" for _, n in present]
    named = [
        f"{_name(names, seat)} {count}".strip()
        for (seat, _), count in zip(present, counts, strict=True)
    ]
    with_label = text_length(label + " ", label_px) + 2

    def span(texts: list[str], shape: float) -> float:
        return sum(shape + text_length(t, label_px, BOLD) + h * 0.5 for t in texts)

    if tx + with_label + span(named, 3 * r) <= right:
        put_text(img, (tx, mid), label, label_px, REGULAR, MUTED, "lm")
        tx += with_label
        texts = named
    elif tx + span(counts, 2.6 * r) <= right:  # no room for the names: the shapes say who (the key)
        texts = counts
    else:  # a narrow small age: nothing rather than shapes cut at the edge
        return
    for (seat, _), text in zip(present, texts, strict=True):
        draw_cube(draw, seat, tx + r, mid, r)
        tx += 2.6 * r
        if text:
            put_text(img, (tx, mid), text, label_px, BOLD, INK, "lm")
            tx += text_length(text, label_px, BOLD)
        tx += h * 0.5


def _name(names: list[str], seat: int) -> str:
    name = names[seat].strip() if seat < len(names) else ""
    return name or say("seat", number=seat + 1)


def draw_board(
    img: Image.Image,
    view: PublicView,
    age: Age,
    names: list[str],
    x: int,
    y: int,
    geo: BoardGeometry | int,
    highlight: set[int] | None = None,
) -> None:
    """Paint the board block of ``age`` (header, labels, map, buildings) at (x, y), with the
    squares of ``highlight`` outlined and the options of a pending choice on it numbered."""
    if isinstance(geo, int):
        geo = BoardGeometry(geo)
    _draw_header(img, view, age, names, x, y, geo)
    top = y + geo.header
    img.paste(board_layer(view.boards[age], geo), (x, top))
    gx, gy = x + geo.band, top + geo.band
    if highlight:
        squares = {s for s in highlight if 0 <= s < COLS * ROWS}
        draw_highlight(ImageDraw.Draw(img), squares, gx, gy, geo.cell)
    marks = choice_marks(view, age)  # a pending choice: its options numbered (R37)
    if marks and geo.cell >= MIN_MARK_CELL:
        draw_marks(img, marks, gx, gy, geo.cell)
