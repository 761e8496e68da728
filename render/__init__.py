"""Images of the game: pure functions from the engine's views to PNG bytes (docs/render.md).

- ``table_png``: the picture of the table message (one living message per turn), made for
  Discord's chat preview: the age where the move happened large around what changed, the two
  others small, a key of the players; ``table_alt_text`` says it in words.
- ``move_png``: after every move, the age played on large, the two others small, what happened
  and whose turn it is; made to be read at Discord's inline preview size.
- ``boards_png``: the panel (round, turn, players, stock, legend) above the three ages stacked,
  every age large (``/board``).
- ``age_png``: one age larger still (``/board age``).
- ``before_after_png``: the ages a move changed, before and after it (``/board move``).
- ``hand_png``: a player's cards (and the Hold'em face-up cards), for a DM.
- ``summary_png``: at the end of a game, the final scores explained and the Ecus round by
  round; its figures come from ``game_summary`` or ``summary_from_moves``.
- ``alt_text``, ``summary_alt_text``, ``table_alt_text``: the images in words, at most
  1,024 characters (whole sentences, the most important first).
- ``highlights_from_events``: the squares a move changed, per age, for ``highlights=``;
  ``turn_highlights``: those a whole turn changed and that still show it (the table image).

Fonts are shipped in ``render/fonts/`` (DejaVu, Bitstream Vera licence) and loaded only from
there, so an image is the same on every machine. Every word drawn comes from
``render/strings.py``; every image and alt-text function takes ``lang`` ("en", "fr", "de").
See docs/render.md for the layouts, the palette and the figures.
"""

from .images import age_png, before_after_png, boards_png, hand_png, move_png
from .summary import (
    GameSummary,
    PlayerScore,
    game_summary,
    summary_alt_text,
    summary_from_moves,
    summary_png,
)
from .table import table_alt_text, table_png
from .text import ALT_TEXT_LIMIT, alt_text, highlights_from_events, turn_highlights

__all__ = [
    "ALT_TEXT_LIMIT",
    "GameSummary",
    "PlayerScore",
    "age_png",
    "alt_text",
    "before_after_png",
    "boards_png",
    "game_summary",
    "hand_png",
    "highlights_from_events",
    "move_png",
    "summary_alt_text",
    "summary_from_moves",
    "summary_png",
    "table_alt_text",
    "table_png",
    "turn_highlights",
]
