"""Colours: the fixed PNG palette holds every image, and the players' colours stand out from
the tiles they own under the common colour-vision deficiencies."""

from __future__ import annotations

import io
import itertools
import math

import pytest
from PIL import Image, ImageChops, ImageStat

import render
from engine import Age, Family
from render.images import age_image, boards_image, hand_image, move_image
from render.png import encode, palette_colours, to_palette
from render.style import (
    FAMILY_COLOUR,
    GRID_LINE,
    INK,
    MUTED,
    PAPER,
    PLAYER_LOOK,
    RGB,
    RING,
    RUIN_GREY,
    TERRAIN_LOOK,
    WHITE,
    player_tint,
    ruin_colours,
)

from . import states

# Machado, Oliveira and Fernandes (2009), severity 1, on linear RGB.
SIMULATIONS = {
    "normal": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}


def _linear(v: int) -> float:
    c = v / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def lab(rgb: RGB, vision: str) -> tuple[float, float, float]:
    """CIE L*a*b* of ``rgb`` as seen with ``vision``."""
    lin = [_linear(v) for v in rgb]
    m = SIMULATIONS[vision]
    r, g, b = (max(0.0, min(1.0, sum(m[i][j] * lin[j] for j in range(3)))) for i in range(3))
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


OWNED = (FAMILY_COLOUR[Family.MILITARY], FAMILY_COLOUR[Family.RELIGIOUS])


@pytest.mark.parametrize("vision", list(SIMULATIONS))
def test_a_players_frame_stands_out_from_every_tile_he_can_own(vision: str) -> None:
    """Delta E of at least 25 (the colours used before: 17)."""
    for look, tile in itertools.product(PLAYER_LOOK, OWNED):
        gap = math.dist(lab(look.colour, vision), lab(tile, vision))
        assert gap >= 25, (look.colour_name, tile, vision, gap)


@pytest.mark.parametrize("vision", ["normal", "protanopia", "deuteranopia"])
def test_players_colours_differ_from_each_other_and_from_every_family(vision: str) -> None:
    for a, b in itertools.combinations(PLAYER_LOOK, 2):
        assert math.dist(lab(a.colour, vision), lab(b.colour, vision)) >= 20, (a, b, vision)
    for look, fam in itertools.product(PLAYER_LOOK, FAMILY_COLOUR.values()):
        assert math.dist(lab(look.colour, vision), lab(fam, vision)) >= 20, (look, fam, vision)
    assert len({look.shape for look in PLAYER_LOOK}) == len(PLAYER_LOOK)
    assert all(math.dist(lab(look.colour, vision), lab(INK, vision)) >= 20 for look in PLAYER_LOOK)


def board_colours() -> list[RGB]:
    """Every flat colour a board is drawn in: paper, ink, terrain and its patterns, the
    families with their ruins, the players and the tints behind their rows."""
    out = [PAPER, INK, MUTED, WHITE, GRID_LINE, RUIN_GREY]
    for fam in Family:
        out += [FAMILY_COLOUR[fam], *ruin_colours(fam)]
    for look in TERRAIN_LOOK.values():
        out += [look.fill, look.mark]
    out += [p.colour for p in PLAYER_LOOK] + [player_tint(s) for s in range(len(PLAYER_LOOK))]
    return out


@pytest.mark.parametrize("vision", list(SIMULATIONS))
def test_the_ring_of_a_change_on_a_small_age_differs_from_every_colour_of_a_board(
        vision: str) -> None:
    """Delta E of at least 25 (the players' bar): the ring reads as a change, never as an
    owner's band, a family or a terrain. Of all colours, the ring's violet is about the
    farthest from the nearest board colour (29.6, from the muted grey under tritanopia)."""
    for colour in board_colours():
        gap = math.dist(lab(RING, vision), lab(colour, vision))
        assert gap >= 25, (colour, vision, gap)


def _images() -> dict[str, Image.Image]:
    view, events, hand = states.mid_game()
    hl = render.highlights_from_events(events)
    return {
        "boards": boards_image(view, states.NAMES_4, hl),
        "move": move_image(view, states.NAMES_4, events),
        "age": age_image(view, Age.REASON, states.NAMES_4, hl),
        "hand": hand_image(hand, states.NAMES_4),
        "end": boards_image(states.end_game(), states.NAMES_5),
    }


def test_the_palette_keeps_every_flat_colour_exactly_and_text_edges_close() -> None:
    assert len(palette_colours()) <= 256
    for name, img in _images().items():
        back = to_palette(img).convert("RGB")
        hist = ImageChops.difference(img, back).convert("L").histogram()
        assert hist[0] / sum(hist) > 0.95, name  # all but the edges of letters are exact
        assert max(i for i, n in enumerate(hist) if n) <= 24, name  # within a shade
        assert sum(ImageStat.Stat(ImageChops.difference(img, back)).mean) / 3 < 0.2, name
    # every colour of the palette comes back as itself
    colours = palette_colours()
    strip = Image.new("RGB", (len(colours), 1))
    strip.putdata(colours)
    assert list(to_palette(strip).convert("RGB").get_flattened_data()) == colours


def test_images_are_stored_as_palette_pngs() -> None:
    view = states.empty()
    png = render.boards_png(view, states.NAMES_2)
    img = Image.open(io.BytesIO(png))
    assert img.mode == "P"
    assert png == encode(boards_image(view, states.NAMES_2))
