"""PNG encoding: a fixed palette of the colours the images use, then zlib (docs/render.md).

Everything is drawn in RGB with flat colours (Pillow draws shapes without anti-aliasing), and
only text adds in-between shades, on a known set of backgrounds. So a fixed palette of every
colour of ``style`` plus a few steps between each text colour and the backgrounds it is drawn
on holds every image: mapping to it is exact on flat colours and within a step on the edges of
letters. A palette image stores one byte per pixel instead of three: Pillow's mapping through
a fixed palette and the encoding take a fraction of the time that encoding RGB takes, and the
file is about half as large. See docs/render.md for the figures.
"""

from __future__ import annotations

import io
from functools import cache

from PIL import Image

from engine import Family

from .style import (
    BANNER,
    BLACK,
    FAMILY_COLOUR,
    FAMILY_TEXT,
    GRID_LINE,
    INK,
    MUTED,
    PAPER,
    PLAYER_LOOK,
    RGB,
    RING,
    RUIN_GREY,
    RULE,
    TERRAIN_LOOK,
    WHITE,
    YELLOW,
    mix,
    player_tint,
    ruin_colours,
)

# zlib level 3: on the boards image about 8 ms and 104 kB; level 6 takes twice the time for
# 78 kB, level 1 saves 2 ms for 129 kB (docs/render.md).
PNG_LEVEL = 3
STEPS = 6  # shades between a text colour and its background


def palette_colours() -> list[RGB]:
    """The fixed palette: every flat colour first, then the shades of text edges."""
    flat: list[RGB] = [PAPER, INK, MUTED, RULE, WHITE, BLACK, GRID_LINE, RUIN_GREY, BANNER,
                       YELLOW, RING]
    for fam in Family:
        flat += [FAMILY_COLOUR[fam], FAMILY_TEXT[fam], *ruin_colours(fam)]
    for look in TERRAIN_LOOK.values():
        flat += [look.fill, look.mark]
    tints = [player_tint(seat) for seat in range(len(PLAYER_LOOK))]
    flat += [p.colour for p in PLAYER_LOOK] + tints
    pairs: list[tuple[RGB, RGB]] = [(INK, bg) for bg in (PAPER, WHITE, BANNER, *tints)]
    pairs += [(INK, ruin_colours(f)[0]) for f in Family]
    pairs += [(MUTED, PAPER), (MUTED, WHITE), (WHITE, INK)]
    pairs += [(FAMILY_TEXT[f], FAMILY_COLOUR[f]) for f in Family]
    shades = [mix(bg, fg, i / (STEPS + 1)) for fg, bg in pairs for i in range(1, STEPS + 1)]
    out: list[RGB] = []
    for colour in flat:
        if colour not in out:
            out.append(colour)
    for colour in shades:
        if all(_keeps_apart(colour, seen) for seen in out):
            out.append(colour)
    assert len(out) <= 256, len(out)
    return out


def _slot(c: RGB) -> RGB:
    """The point Pillow's palette cache measures from for colour ``c`` (6 bits a channel)."""
    return (c[0] & ~3, c[1] & ~3, c[2] & ~3)


def _dist(a: RGB, b: RGB) -> int:
    return sum((x - y) ** 2 for x, y in zip(a, b, strict=True))


def _keeps_apart(new: RGB, old: RGB) -> bool:
    """Whether ``new`` can join a palette holding ``old`` without either being mapped to the
    other: each stays the nearest entry to its own cache slot."""
    return (_dist(old, _slot(old)) < _dist(new, _slot(old))
            and _dist(new, _slot(new)) < _dist(old, _slot(new)))


@cache
def _palette_image() -> Image.Image:
    colours = palette_colours()
    img = Image.new("P", (1, 1))
    flat = [v for c in colours for v in c]
    img.putpalette(flat + flat[:3] * (256 - len(colours)))
    return img


def to_palette(img: Image.Image) -> Image.Image:
    """``img`` (RGB) mapped to the fixed palette, each pixel to its nearest colour."""
    return img.quantize(palette=_palette_image(), dither=Image.Dither.NONE)


def encode(img: Image.Image) -> bytes:
    """PNG bytes of ``img`` (RGB), stored as a palette image."""
    buf = io.BytesIO()
    to_palette(img).save(buf, format="PNG", compress_level=PNG_LEVEL)
    return buf.getvalue()
