"""Palette, fonts and marker shapes shared by every image.

Colours come from the Okabe-Ito palette (safe for the common colour-vision deficiencies), and
every colour has a second cue: buildings carry their type's name or code, players have a shape.
Fonts are loaded only from ``render/fonts/`` so an image is the same on every machine.
"""

from __future__ import annotations

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


# Seats 0..4. None of them is a family colour, so a cube never vanishes on its building.
PLAYER_LOOK: tuple[PlayerLook, ...] = (
    PlayerLook(VERMILLION, Shape.CIRCLE, "vermillion"),
    PlayerLook(SKY_BLUE, Shape.SQUARE, "sky blue"),
    PlayerLook(YELLOW, Shape.TRIANGLE, "yellow"),
    PlayerLook(BLUISH_GREEN, Shape.DIAMOND, "green"),
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


@lru_cache(maxsize=128)
def font(size: int, name: str = REGULAR) -> ImageFont.FreeTypeFont:
    """A shipped font at ``size`` pixels."""
    import io

    return ImageFont.truetype(io.BytesIO(_font_bytes(name)), size)


def text_width(text: str, fnt: ImageFont.FreeTypeFont) -> float:
    return fnt.getlength(text)


def fit_text(text: str, fnt: ImageFont.FreeTypeFont, width: float) -> str:
    """``text`` shortened with an ellipsis so that it fits ``width`` pixels."""
    if fnt.getlength(text) <= width:
        return text
    while text and fnt.getlength(text + "…") > width:
        text = text[:-1]
    return text + "…"


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """``a`` moved a fraction ``t`` of the way to ``b``."""
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


@lru_cache(maxsize=512)
def _text_mask(text: str, size: int, name: str, anchor: str) -> tuple[Image.Image, int, int]:
    fnt = font(size, name)
    left, top, right, bottom = (round(v) for v in fnt.getbbox(text, anchor=anchor))
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=fnt, fill=255, anchor=anchor)
    return mask, left, top


def stamp_text(
    img: Image.Image, xy: tuple[float, float], text: str, size: int, name: str, fill: RGB,
    anchor: str = "mm",
) -> None:
    """``ImageDraw.text`` for labels drawn again and again (tile names): the glyphs are
    rendered once per text and size, then pasted through their mask."""
    mask, left, top = _text_mask(text, size, name, anchor)
    img.paste(fill, (round(xy[0]) + left, round(xy[1]) + top), mask)
