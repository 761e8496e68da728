"""The images the bot posts: all three boards with the panel, one age large, a player's hand.

Every function is pure: a view (and the players' display names) in, PNG bytes out.
"""

from __future__ import annotations

import io
from collections import Counter

from PIL import Image, ImageDraw

from engine import Age, Family, PlayerView, PublicView
from engine.constants import LADDER, ROUNDS

from .board import BoardGeometry, draw_board
from .panel import draw_panel, draw_reserve, panel_height, seat_name, status_line
from .style import (
    BOLD,
    CONDENSED,
    FAMILY_COLOUR,
    FAMILY_LETTER,
    FAMILY_TEXT,
    INK,
    MUTED,
    PAPER,
    REGULAR,
    RULE,
    TIMES,
    draw_cube,
    fit_text,
    font,
)

BOARDS_CELL = 40  # pixels per square on the boards image
AGE_CELL = 64  # pixels per square on the single-age image
GAP = 14  # vertical space between board blocks
PNG_LEVEL = 3  # zlib level: level 6+ costs twice the time for a few percent fewer bytes


def _png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG", compress_level=PNG_LEVEL)
    return buf.getvalue()


def boards_image(
    view: PublicView, names: list[str], highlights: dict[Age, set[int]] | None = None
) -> Image.Image:
    """The panel on top, then Might, Faith and Reason stacked (one phone-width column)."""
    geo = BoardGeometry(BOARDS_CELL)
    top = panel_height(view)
    height = top + len(Age) * (geo.height + GAP)
    img = Image.new("RGB", (geo.width, height), PAPER)
    draw_panel(img, view, names, 0, 0, geo.width)
    draw = ImageDraw.Draw(img)
    y = top
    for age in Age:
        draw.line((0, y + GAP // 2, geo.width, y + GAP // 2), fill=RULE, width=2)
        draw_board(img, view, age, names, 0, y + GAP, BOARDS_CELL, (highlights or {}).get(age))
        y += geo.height + GAP
    return img


def boards_png(
    view: PublicView, names: list[str], highlights: dict[Age, set[int]] | None = None
) -> bytes:
    """PNG of all three boards with the side panel; ``highlights`` outlines squares per age."""
    return _png(boards_image(view, names, highlights))


def _key_strip(
    draw: ImageDraw.ImageDraw, view: PublicView, names: list[str], x: int, y: int, width: int,
    h: int,
) -> None:
    """One line: round, turn and every player's cube shape with the name."""
    fnt = font(round(h * 0.42), BOLD)
    text = f"Round {view.round}/{ROUNDS} · {status_line(view, names)}"
    if view.over:
        text = status_line(view, names)
    text = fit_text(text, fnt, width * 0.45)
    draw.text((x, y + h / 2), text, font=fnt, fill=INK, anchor="lm")
    cx = x + fnt.getlength(text) + h * 0.8
    name_font = font(round(h * 0.4))
    room = (x + width - cx) / max(1, len(view.players))
    r = h * 0.2
    for p in view.players:
        draw_cube(draw, p.seat, cx + r, y + h / 2, r)
        ecus = f" · {p.ecus} Ecus"
        label = fit_text(seat_name(names, p.seat), name_font,
                         room - 3 * r - 8 - name_font.getlength(ecus)) + ecus
        draw.text((cx + 2.6 * r, y + h / 2), label, font=name_font, fill=INK, anchor="lm")
        cx += room


def age_image(
    view: PublicView, age: Age, names: list[str], highlights: dict[Age, set[int]] | None = None
) -> Image.Image:
    geo = BoardGeometry(AGE_CELL)
    strip = 44
    img = Image.new("RGB", (geo.width, strip + geo.height + 8), PAPER)
    draw = ImageDraw.Draw(img)
    _key_strip(draw, view, names, geo.band, 4, geo.width - 2 * geo.band, strip)
    draw.line((0, strip + 4, geo.width, strip + 4), fill=RULE, width=2)
    draw_board(img, view, age, names, 0, strip + 8, AGE_CELL, (highlights or {}).get(age))
    return img


def age_png(
    view: PublicView, age: Age, names: list[str], highlights: dict[Age, set[int]] | None = None
) -> bytes:
    """PNG of one age at a large scale, with a one-line key of the players."""
    return _png(age_image(view, age, names, highlights))


# --- a move's before and after (on request) --------------------------------------------------

COMPARE_CELL = 30  # pixels per square: two boards side by side stay about 1,300 px wide
def before_after_image(
    before: PublicView,
    after: PublicView,
    names: list[str],
    highlights: dict[Age, set[int]] | None = None,
    title: str = "",
) -> Image.Image:
    """Each age the move changed, as it was before (left) and after it (right), the changed
    squares outlined on both sides. With no highlight at all, the three ages are shown."""
    marks = {a: sq for a, sq in (highlights or {}).items() if sq}
    ages = sorted(marks) or list(Age)
    geo = BoardGeometry(COMPARE_CELL)
    gap, head, top = 24, 34, 44 if title else 8
    width = 2 * geo.width + gap
    img = Image.new("RGB", (width, top + len(ages) * (head + geo.height + 12)), PAPER)
    draw = ImageDraw.Draw(img)
    if title:
        draw.text((geo.band, 8), fit_text(title, font(22, BOLD), width - 2 * geo.band),
                  font=font(22, BOLD), fill=INK)
    y = top
    for age in ages:
        for col, (label, view) in enumerate((("Before", before), ("After", after))):
            x = col * (geo.width + gap)
            draw.text((x + geo.band, y + 4), f"{label} the move", font=font(20, BOLD),
                      fill=INK if col else MUTED)
            draw_board(img, view, age, names, x, y + head, COMPARE_CELL, marks.get(age))
        y += head + geo.height + 12
    return img


def before_after_png(
    before: PublicView,
    after: PublicView,
    names: list[str],
    highlights: dict[Age, set[int]] | None = None,
    title: str = "",
) -> bytes:
    """PNG of ``before_after_image``."""
    return _png(before_after_image(before, after, names, highlights, title))


# --- the hand (a DM to one player) -----------------------------------------------------------

CARD_W, CARD_H = 120, 168


def _card(draw: ImageDraw.ImageDraw, fam: Family, x: float, y: float, w: float, h: float) -> None:
    draw.rounded_rectangle((x, y, x + w, y + h), radius=w / 10, fill=FAMILY_COLOUR[fam],
                           outline=INK, width=2)
    ink = FAMILY_TEXT[fam]
    draw.text((x + w / 2, y + h * 0.36), FAMILY_LETTER[fam], font=font(round(h * 0.36), BOLD),
              fill=ink, anchor="mm")
    draw.text((x + w / 2, y + h * 0.64), fam.value.capitalize(), font=font(round(h * 0.11), BOLD),
              fill=ink, anchor="mm")
    small = font(max(9, round(h * 0.075)), CONDENSED)
    for i, t in enumerate(LADDER[fam]):
        draw.text((x + w / 2, y + h * (0.77 + 0.075 * i)), t.label, font=small, fill=ink,
                  anchor="mm")


def hand_image(view: PlayerView, names: list[str]) -> Image.Image:
    seat = view.seat
    hand = list(view.hand)
    n = max(4, len(hand))
    margin = 20
    width = margin * 2 + n * CARD_W + (n - 1) * 12
    reserve = view.options.holdem
    height = 96 + CARD_H + margin + ((CARD_H * 2 // 3 + 50) if reserve else 0)
    img = Image.new("RGB", (width, height), PAPER)
    draw = ImageDraw.Draw(img)
    draw_cube(draw, seat, margin + 11, 30, 11)
    plural = "s" if len(hand) != 1 else ""
    title = f"{seat_name(names, seat)}: your hand ({len(hand)} card{plural})"
    title_font = font(22, BOLD)
    draw.text((margin + 30, 30), fit_text(title, title_font, width - 2 * margin - 30),
              font=title_font, fill=INK, anchor="lm")
    me = view.players[seat]
    where = Counter(me.adventurers)
    adv = ", ".join(a.label + (f" {TIMES}2" if where[a] == 2 else "") for a in Age if where[a])
    counts = Counter(hand)
    summary = ", ".join(f"{counts[f]} {f.value}" for f in Family if counts[f]) or "no cards"
    line = f"Round {view.round}/{ROUNDS} · {me.ecus} Ecus · {me.cubes} cubes · adventurers on {adv}"
    if view.turn == seat and not view.over:
        line += " · your turn"
    sub = font(14, REGULAR)
    draw.text((margin, 58), fit_text(line, sub, width - 2 * margin), font=sub, fill=MUTED,
              anchor="lm")
    draw.text((margin, 78), fit_text(summary, sub, width - 2 * margin), font=sub, fill=INK,
              anchor="lm")
    y = 96
    if not hand:
        draw.text((width / 2, y + CARD_H / 2), "No cards in hand", font=font(18), fill=MUTED,
                  anchor="mm")
    for i, fam in enumerate(hand):
        _card(draw, fam, margin + i * (CARD_W + 12), y, CARD_W, CARD_H)
    if reserve:
        y += CARD_H + 14
        draw.line((margin, y, width - margin, y), fill=RULE, width=2)
        draw.text((margin, y + 20), "Hold'em face-up cards (shared)", font=font(14, BOLD),
                  fill=INK, anchor="lm")
        w, h = CARD_W * 2 // 3, CARD_H * 2 // 3
        if view.reserve:
            for i, fam in enumerate(view.reserve):
                _card(draw, fam, margin + i * (w + 10), y + 36, w, h)
        else:
            draw_reserve(draw, [], margin, y + 36, w, h)
    return img


def hand_png(view: PlayerView, names: list[str]) -> bytes:
    """PNG of ``view.seat``'s cards (and the Hold'em face-up cards when that option is on)."""
    return _png(hand_image(view, names))
