"""Palette, fonts and marker shapes shared by every image.

Colours come from the Okabe-Ito palette (safe for the common colour-vision deficiencies), and
every colour has a second cue: buildings carry their type's name or code, players have a shape.
Fonts are loaded only from ``render/fonts/`` so an image is the same on every machine.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

from PIL import Image, ImageDraw, ImageFont

from engine import BuildingType, Family, Terrain

RGB = tuple[int, int, int]
TIMES = "\u00d7"  # "x2": both adventurers

# --- Okabe-Ito ------------------------------------------------------------------------------
ORANGE: RGB = (230, 159, 0)
SKY_BLUE: RGB = (86, 180, 233)
BLUISH_GREEN: RGB = (0, 158, 115)
YELLOW: RGB = (240, 228, 66)
BLUE: RGB = (0, 114, 178)
VERMILLION: RGB = (213, 94, 0)
REDDISH_PURPLE: RGB = (204, 121, 167)
BLACK: RGB = (0, 0, 0)
WHITE: RGB = (255, 255, 255)

INK: RGB = (28, 28, 30)  # text and outlines
MUTED: RGB = (95, 95, 100)  # secondary text
PAPER: RGB = (250, 248, 242)  # background
RULE: RGB = (205, 200, 190)  # thin separators

# R4: the card colours of the game (military orange, religious fuchsia, civil blue).
FAMILY_COLOUR: dict[Family, RGB] = {
    Family.MILITARY: ORANGE,
    Family.RELIGIOUS: REDDISH_PURPLE,
    Family.CIVIL: BLUE,
}
# Text drawn on a family colour (contrast >= 4.5:1).
FAMILY_TEXT: dict[Family, RGB] = {
    Family.MILITARY: BLACK,
    Family.RELIGIOUS: BLACK,
    Family.CIVIL: WHITE,
}
FAMILY_LETTER: dict[Family, str] = {
    Family.MILITARY: "M",
    Family.RELIGIOUS: "R",
    Family.CIVIL: "C",
}

# Short codes for size-1 tiles and legends; each is unique, so the code alone names the type.
TYPE_CODE: dict[BuildingType, str] = {
    BuildingType.WATCHTOWER: "Wt",
    BuildingType.KEEP: "Ke",
    BuildingType.CASTLE: "Ca",
    BuildingType.CHAPEL: "Ch",
    BuildingType.MONASTERY: "Mo",
    BuildingType.ABBEY: "Ab",
    BuildingType.HAMLET: "Ha",
    BuildingType.TOWN: "To",
    BuildingType.CITY: "Ci",
}


@dataclass(frozen=True)
class TerrainLook:
    fill: RGB
    mark: RGB  # colour of the pattern drawn on it (trees, peaks, waves)


TERRAIN_LOOK: dict[Terrain, TerrainLook] = {
    Terrain.PLAIN: TerrainLook((244, 238, 214), (244, 238, 214)),
    Terrain.FOREST: TerrainLook((160, 204, 146), (46, 110, 52)),
    Terrain.MOUNTAIN: TerrainLook((184, 174, 166), (88, 72, 62)),
    Terrain.RIVER: TerrainLook((120, 182, 232), (238, 248, 255)),
}
GRID_LINE: RGB = (190, 182, 160)
RUIN_GREY: RGB = (226, 224, 220)
# The ring around a change on the table image's small ages: an electric violet, the colour
# farthest from every colour of a board (terrain, families, ruins, players, ink, paper) under
# normal vision and the three simulated deficiencies (delta E >= 29; test_palette.py), so that
# it reads as "changed" and never as an owner's band or a terrain.
RING: RGB = (136, 0, 255)


# --- players: a colour and a shape each (two cues) ------------------------------------------
class Shape:
    CIRCLE = "circle"
    SQUARE = "square"
    TRIANGLE = "triangle"
    DIAMOND = "diamond"
    STAR = "star"


@dataclass(frozen=True)
class PlayerLook:
    colour: RGB
    shape: str
    colour_name: str


# Players: colours from Paul Tol's colour-blind-safe schemes (muted and
# light) rather than Okabe-Ito's, whose free colours sit too close to the families' (a
# vermillion frame on an orange Keep). Each is far from both colours a player can own
# (military orange, religious purple) under normal vision and simulated protanopia,
# deuteranopia and tritanopia (delta E >= 25; tests/render/test_palette.py): the dark ones by
# lightness, the light ones by lightness and on the blue-yellow axis. Every seat has a shape too.
INDIGO: RGB = (51, 34, 136)
PALE_YELLOW: RGB = (255, 238, 153)  # Tol's light yellow #EEDD88, lightened against orange
WINE: RGB = (136, 34, 85)
LIGHT_CYAN: RGB = (153, 221, 255)

# Seats 0..4, darkest and lightest alternating, so that two- and three-player games get the
# most distinct pairs.
PLAYER_LOOK: tuple[PlayerLook, ...] = (
    PlayerLook(INDIGO, Shape.CIRCLE, "indigo"),
    PlayerLook(PALE_YELLOW, Shape.SQUARE, "pale yellow"),
    PlayerLook(WINE, Shape.TRIANGLE, "wine"),
    PlayerLook(LIGHT_CYAN, Shape.DIAMOND, "light cyan"),
    PlayerLook(WHITE, Shape.STAR, "white"),
)


def player_look(seat: int) -> PlayerLook:
    return PLAYER_LOOK[seat % len(PLAYER_LOOK)]


def shape_points(shape: str, cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    """Polygon of a player's shape centred on (cx, cy) with outer radius r (not for circles)."""
    if shape == Shape.SQUARE:
        s = r * 0.86
        return [(cx - s, cy - s), (cx + s, cy - s), (cx + s, cy + s), (cx - s, cy + s)]
    if shape == Shape.TRIANGLE:
        return [(cx, cy - r), (cx + r * 1.02, cy + r * 0.8), (cx - r * 1.02, cy + r * 0.8)]
    if shape == Shape.DIAMOND:
        return [(cx, cy - r * 1.1), (cx + r, cy), (cx, cy + r * 1.1), (cx - r, cy)]
    # star: five points
    pts = []
    for i in range(10):
        rad = r * 1.12 if i % 2 == 0 else r * 0.5
        ang = -math.pi / 2 + i * math.pi / 5
        pts.append((cx + rad * math.cos(ang), cy + rad * math.sin(ang)))
    return pts


def cube_extent(r: float) -> float:
    """Half the side of the square that holds a cube of radius ``r``, its outline and halo."""
    width = max(1, round(r / 5))
    return r * 1.12 + width + 1


def draw_cube(draw: ImageDraw.ImageDraw, seat: int, cx: float, cy: float, r: float) -> None:
    """A player's cube: their colour in their shape, outlined in ink on a white halo."""
    look = player_look(seat)
    width = max(1, round(r / 5))
    if look.shape == Shape.CIRCLE:
        halo = r + width + 1
        draw.ellipse((cx - halo, cy - halo, cx + halo, cy + halo), fill=WHITE)
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=look.colour, outline=INK, width=width)
        return
    pts = shape_points(look.shape, cx, cy, r)
    draw.polygon(shape_points(look.shape, cx, cy, r + width + 1), fill=WHITE)
    draw.polygon(pts, fill=look.colour, outline=INK, width=width)


# --- fonts ----------------------------------------------------------------------------------
REGULAR = "DejaVuSans.ttf"
BOLD = "DejaVuSans-Bold.ttf"
CONDENSED = "DejaVuSansCondensed-Bold.ttf"


@cache
def _font_bytes(name: str) -> bytes:
    return resources.files(__package__).joinpath("fonts", name).read_bytes()


@lru_cache(maxsize=256)
def font(size: int, name: str = REGULAR) -> ImageFont.FreeTypeFont:
    """A shipped font at ``size`` pixels."""
    return ImageFont.truetype(io.BytesIO(_font_bytes(name)), size)


def wrap_text(text: str, size: int, name: str, width: float) -> list[str]:
    """``text`` broken into lines no wider than ``width`` pixels in the font ``name`` at
    ``size``, at spaces where possible; a single word wider than the line is broken between
    letters. Nothing is left out."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if text_length(candidate, size, name) <= width:
                line = candidate
                continue
            if line:
                lines.append(line)
            line = ""
            while text_length(word, size, name) > width and len(word) > 1:
                cut = len(word) - 1
                while cut > 1 and text_length(word[:cut], size, name) > width:
                    cut -= 1
                lines.append(word[:cut])
                word = word[cut:]
            line = word
        lines.append(line)
    return lines


def fit_size(text: str, name: str, size: int, min_size: int, width: float) -> int | None:
    """The largest font size from ``size`` down to ``min_size`` at which ``text`` fits on one
    line of ``width`` pixels, or None."""
    for px in range(size, min_size - 1, -1):
        if text_length(text, px, name) <= width:
            return px
    return None


def breaks_a_word(text: str, size: int, name: str, width: float) -> bool:
    """Whether a word of ``text`` is wider than ``width`` (wrapping would have to cut it)."""
    return any(text_length(word, size, name) > width for word in text.split())


def fit_lines(
    text: str, name: str, size: int, min_size: int, width: float, max_lines: int
) -> tuple[int, list[str]]:
    """A font size and the lines of ``text`` wrapped to ``width``: the largest size from
    ``size`` down to ``min_size`` that needs at most ``max_lines`` lines without breaking a
    word (then, allowing broken words), else ``min_size`` with as many lines as it takes (the
    caller makes room: nothing is cut)."""
    for whole_words in (True, False):
        for px in range(size, min_size - 1, -1):
            if whole_words and breaks_a_word(text, px, name, width):
                continue
            lines = wrap_text(text, px, name, width)
            if len(lines) <= max_lines:
                return px, lines
    return min_size, wrap_text(text, min_size, name, width)


def line_height(px: int) -> int:
    """Distance between the baselines of two wrapped lines of a ``px`` font."""
    return round(px * 1.22)


def ruin_colours(fam: Family) -> tuple[RGB, RGB, RGB]:
    """(fill, hatching, outline) of a ruin of family ``fam``: pale, with darker lines."""
    colour = FAMILY_COLOUR[fam]
    return mix(colour, RUIN_GREY, 0.62), mix(colour, INK, 0.25), mix(colour, INK, 0.45)


def player_tint(seat: int) -> RGB:
    """A player's colour mixed with white: behind his row when it is his turn."""
    return mix(player_look(seat).colour, WHITE, 0.72)


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """``a`` moved a fraction ``t`` of the way to ``b``."""
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


@lru_cache(maxsize=4096)
def text_length(text: str, size: int, name: str = REGULAR) -> float:
    """Width of ``text`` in the shipped font ``name`` at ``size`` pixels (cached)."""
    return font(size, name).getlength(text)


@lru_cache(maxsize=2048)
def _text_mask(text: str, size: int, name: str, anchor: str) -> tuple[Image.Image, int, int]:
    fnt = font(size, name)
    left, top, right, bottom = (round(v) for v in fnt.getbbox(text, anchor=anchor))
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=fnt, fill=255, anchor=anchor)
    return mask, left, top


def put_text(
    img: Image.Image, xy: tuple[float, float], text: str, size: int, name: str, fill: RGB,
    anchor: str = "la",
) -> None:
    """``ImageDraw.text`` with the shipped font ``name`` at ``size`` pixels. Most words come
    back on the next image (names, labels, numbers), so the glyphs of a text are rendered once
    and then pasted through their mask."""
    if not text:
        return
    mask, left, top = _text_mask(text, size, name, anchor)
    img.paste(fill, (round(xy[0]) + left, round(xy[1]) + top), mask)


def stamp_text(
    img: Image.Image, xy: tuple[float, float], text: str, size: int, name: str, fill: RGB,
    anchor: str = "mm",
) -> None:
    """``put_text`` centred on ``xy`` by default (tile names)."""
    put_text(img, xy, text, size, name, fill, anchor)


BANNER: RGB = mix(YELLOW, WHITE, 0.55)  # behind a pending choice, the winners, the mover
