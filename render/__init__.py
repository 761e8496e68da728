"""Images of the game: pure functions from the engine's views to PNG bytes (style 12).

- ``boards_png``: the panel (round, turn, players, stock, legend) above the three ages stacked.
- ``age_png``: one age large, for a closer look.
- ``before_after_png``: the ages a move changed, before and after it, side by side.
- ``hand_png``: a player's cards (and the Hold'em face-up cards), for a DM.
- ``alt_text``: the boards image in words, at most 1,024 characters (Discord's limit).
- ``highlights_from_events``: the squares a move changed, per age, for ``highlights=``.

Fonts are shipped in ``render/fonts/`` (DejaVu, Bitstream Vera licence) and loaded only from
there, so an image is the same on every machine. See docs/render.md for the layout and palette.
"""

from .images import age_png, before_after_png, boards_png, hand_png
from .text import ALT_TEXT_LIMIT, alt_text, highlights_from_events

__all__ = [
    "ALT_TEXT_LIMIT",
    "age_png",
    "alt_text",
    "before_after_png",
    "boards_png",
    "hand_png",
    "highlights_from_events",
]
