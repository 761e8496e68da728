"""The side panel of the boards image: round track, turn, players, stock and a legend."""

from __future__ import annotations

from collections import Counter

from PIL import Image, ImageDraw

from engine import Age, Family, PublicView, Terrain, format_text
from engine.constants import INCOME_ROUNDS, LADDER, ROUNDS

from .board import HIGHLIGHT_INNER, HIGHLIGHT_OUTER, RUIN_GREY, _draw_terrain_cell, _hatch
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
    WHITE,
    YELLOW,
    draw_cube,
    fit_text,
    font,
    mix,
    player_look,
)

ROW = 30  # player table row height
TOP = 52  # round track line
PENDING = 34
TABLE_HEAD = 24
LEGEND = 38
PAD = 12


def seat_name(names: list[str], seat: int) -> str:
    name = names[seat].strip() if seat < len(names) else ""
    return name or f"Seat {seat + 1}"


def panel_height(view: PublicView) -> int:
    rows = max(len(view.players), 4 if view.options.holdem else 3)
    pending = PENDING if view.pending is not None or view.over else 0
    return PAD + TOP + pending + TABLE_HEAD + rows * ROW + 8 + LEGEND + PAD


def status_line(view: PublicView, names: list[str]) -> str:
    """Whose turn it is, or who won."""
    if view.over:
        best = max((p.ecus for p in view.players), default=0)
        who = " and ".join(seat_name(names, s) for s in view.winners)
        verb = "wins" if len(view.winners) == 1 else "win"
        return f"Game over: {who} {verb} with {best} Ecus"
    return f"{seat_name(names, view.turn)}'s turn"


def _round_track(draw: ImageDraw.ImageDraw, view: PublicView, x: int, y: int) -> float:
    label_font = font(22, BOLD)
    draw.text((x, y + 16), "Round", font=label_font, fill=INK, anchor="lm")
    bx = x + label_font.getlength("Round") + 10
    box = 30
    num_font = font(17, BOLD)
    small = font(10, CONDENSED)
    for r in range(1, ROUNDS + 1):
        left = bx + (r - 1) * (box + 4)
        rect = (left, y + 1, left + box, y + 1 + box)
        current = r == view.round and not view.over
        past = r < view.round or view.over
        fill = INK if current else (RULE if past else WHITE)
        width = 3 if r in INCOME_ROUNDS else 1
        draw.rectangle(rect, fill=fill, outline=INK, width=width)
        draw.text((left + box / 2, y + 1 + box / 2), str(r), font=num_font,
                  fill=WHITE if current else INK, anchor="mm")
        if r in INCOME_ROUNDS:
            draw.text((left + box / 2, y + box + 9), "income", font=small, fill=INK, anchor="mm")
    return bx + ROUNDS * (box + 4)


def _player_table(
    draw: ImageDraw.ImageDraw, view: PublicView, names: list[str], x: int, y: int, width: int
) -> None:
    head = font(12, BOLD)
    cols = {"ecus": 0.47, "cards": 0.59, "cubes": 0.71, "adv": 0.83}
    draw.text((x + 6, y + TABLE_HEAD / 2), "Player", font=head, fill=MUTED, anchor="lm")
    for key, label in (("ecus", "Ecus"), ("cards", "Cards"), ("cubes", "Cubes")):
        draw.text((x + width * cols[key], y + TABLE_HEAD / 2), label, font=head, fill=MUTED,
                  anchor="mm")
    draw.text((x + width * cols["adv"] - 26, y + TABLE_HEAD / 2), "Adventurers on", font=head,
              fill=MUTED, anchor="lm")
    name_font = font(16, BOLD)
    num_font = font(16, BOLD)
    adv_font = font(14)
    y += TABLE_HEAD
    for p in view.players:
        top = y
        mid = top + ROW / 2
        active = (p.seat == view.turn and not view.over) or (view.over and p.seat in view.winners)
        if active:
            draw.rectangle((x, top + 1, x + width, top + ROW - 1),
                           fill=mix(player_look(p.seat).colour, WHITE, 0.72), outline=INK)
        draw_cube(draw, p.seat, x + 18, mid, 9)
        mark = ""
        if view.over and p.seat in view.winners:
            mark = "  ★ winner"
        elif p.seat == view.turn and not view.over:
            mark = "  ◀ turn"
        name_room = width * cols["ecus"] - 34 - 26 - name_font.getlength(mark)
        draw.text((x + 34, mid), fit_text(seat_name(names, p.seat), name_font, name_room) + mark,
                  font=name_font, fill=INK, anchor="lm")
        for key, value in (("ecus", p.ecus), ("cards", p.hand_count), ("cubes", p.cubes)):
            draw.text((x + width * cols[key], mid), str(value), font=num_font, fill=INK,
                      anchor="mm")
        where = Counter(p.adventurers)
        adv = ", ".join(
            a.label + (f" {TIMES}2" if where[a] == 2 else "") for a in Age if where[a]
        )
        draw.text((x + width * cols["adv"] - 26, mid), adv, font=adv_font, fill=INK, anchor="lm")
        y += ROW
        draw.line((x, y, x + width, y), fill=RULE)


def _stock(draw: ImageDraw.ImageDraw, view: PublicView, x: int, y: int, width: int) -> int:
    draw.text((x, y + TABLE_HEAD / 2), "Tiles in stock", font=font(12, BOLD), fill=MUTED,
              anchor="lm")
    y += TABLE_HEAD
    fnt = font(14, CONDENSED)
    for fam in (Family.MILITARY, Family.RELIGIOUS, Family.CIVIL):
        mid = y + ROW / 2
        draw.rectangle((x, mid - 9, x + 18, mid + 9), fill=FAMILY_COLOUR[fam], outline=INK)
        draw.text((x + 9, mid), FAMILY_LETTER[fam], font=font(12, BOLD), fill=FAMILY_TEXT[fam],
                  anchor="mm")
        parts = [f"{t.label} {view.stock.get(t, 0)}" for t in LADDER[fam]]
        draw.text((x + 26, mid), fit_text("  ".join(parts), fnt, width - 26), font=fnt,
                  fill=INK, anchor="lm")
        y += ROW
    return y


def draw_reserve(
    draw: ImageDraw.ImageDraw, cards: list[Family], x: float, y: float, w: float, h: float
) -> float:
    """Small face-up cards in a row; returns the x after the last one."""
    fnt = font(round(h * 0.6), BOLD)
    for fam in cards:
        draw.rounded_rectangle((x, y, x + w, y + h), radius=3, fill=FAMILY_COLOUR[fam],
                               outline=INK)
        draw.text((x + w / 2, y + h / 2), FAMILY_LETTER[fam], font=fnt, fill=FAMILY_TEXT[fam],
                  anchor="mm")
        x += w + 4
    return x


def _legend(draw: ImageDraw.ImageDraw, img: Image.Image, x: int, y: int, width: int) -> None:
    fnt = font(13)
    s = 20
    mid = y + LEGEND / 2
    cx = float(x)
    for terrain in (Terrain.PLAIN, Terrain.FOREST, Terrain.MOUNTAIN, Terrain.RIVER):
        _draw_terrain_cell(draw, terrain, round(cx), round(mid - s / 2), s)
        draw.rectangle((cx, mid - s / 2, cx + s - 1, mid + s / 2 - 1), outline=MUTED)
        draw.text((cx + s + 4, mid), terrain.value, font=fnt, fill=INK, anchor="lm")
        cx += s + 10 + fnt.getlength(terrain.value)
    # printed hamlet
    hx = cx + s / 2
    house = [(hx, mid - 9), (hx + 7, mid - 3), (hx + 7, mid + 8), (hx - 7, mid + 8),
             (hx - 7, mid - 3)]
    draw.polygon(house, fill=FAMILY_COLOUR[Family.CIVIL], outline=INK)
    draw.text((cx + s + 2, mid), "printed hamlet", font=fnt, fill=INK, anchor="lm")
    cx += s + 12 + fnt.getlength("printed hamlet")
    # ruin
    box = (round(cx), round(mid - s / 2), round(cx + s), round(mid + s / 2))
    draw.rectangle(box, fill=mix(FAMILY_COLOUR[Family.MILITARY], RUIN_GREY, 0.62))
    _hatch(draw, box, mix(FAMILY_COLOUR[Family.MILITARY], INK, 0.25), 6, 1)
    draw.rectangle(box, outline=MUTED)
    draw.text((cx + s + 4, mid), "ruin", font=fnt, fill=INK, anchor="lm")
    cx += s + 12 + fnt.getlength("ruin")
    # empty place for a population cube
    draw.rounded_rectangle((cx + 4, mid - 5, cx + 14, mid + 5), radius=2, fill=WHITE, outline=MUTED)
    draw.text((cx + 20, mid), "room for a cube", font=fnt, fill=INK, anchor="lm")
    cx += 28 + fnt.getlength("room for a cube")
    # highlight
    draw.rectangle((cx, mid - s / 2, cx + s, mid + s / 2), outline=HIGHLIGHT_OUTER, width=5)
    draw.rectangle((cx + 1, mid - s / 2 + 1, cx + s - 1, mid + s / 2 - 1), outline=HIGHLIGHT_INNER,
                   width=2)
    if cx + s + 4 + fnt.getlength("last move") <= x + width:
        draw.text((cx + s + 5, mid), "last move", font=fnt, fill=INK, anchor="lm")


def draw_panel(
    img: Image.Image, view: PublicView, names: list[str], x: int, y: int, width: int
) -> None:
    """Paint the panel (``panel_height(view)`` tall) at (x, y)."""
    draw = ImageDraw.Draw(img)
    draw.rectangle((x, y, x + width - 1, y + panel_height(view) - 1), fill=PAPER)
    y += PAD
    inner_x, inner_w = x + PAD, width - 2 * PAD
    after = _round_track(draw, view, inner_x, y)
    sfont = font(20, BOLD)
    room = inner_x + inner_w - after - 20
    if view.over:
        draw.text((after + 20, y + 16), "Final scores", font=sfont, fill=INK, anchor="lm")
    else:
        draw_cube(draw, view.turn, after + 24, y + 16, 10)
        draw.text((after + 40, y + 16), fit_text(status_line(view, names), sfont, room - 20),
                  font=sfont, fill=INK, anchor="lm")
    y += TOP
    banner = None
    if view.over:
        banner = status_line(view, names) + "."
    elif view.pending is not None:
        banner = (f"Waiting for {seat_name(names, view.pending.seat)} to choose: "
                  f"{format_text(view.pending.prompt, _names(view, names))}")
    if banner is not None:
        draw.rectangle((inner_x, y, inner_x + inner_w, y + PENDING - 6),
                       fill=mix(YELLOW, WHITE, 0.55), outline=INK)
        bfont = font(16, BOLD) if view.over else font(14, REGULAR)
        draw.text((inner_x + 8, y + (PENDING - 6) / 2), fit_text(banner, bfont, inner_w - 16),
                  font=bfont, fill=INK, anchor="lm")
        y += PENDING
    table_w = round(inner_w * 0.64)
    _player_table(draw, view, names, inner_x, y, table_w)
    sx = inner_x + table_w + 18
    sy = _stock(draw, view, sx, y, inner_x + inner_w - sx)
    if view.options.holdem:
        mid = sy + ROW / 2
        draw.text((sx, mid), "Face-up", font=font(14, CONDENSED), fill=INK, anchor="lm")
        draw_reserve(draw, list(view.reserve), sx + 60, mid - 11, 18, 22)
    rows = max(len(view.players), 4 if view.options.holdem else 3)
    y += TABLE_HEAD + rows * ROW + 8
    draw.line((inner_x, y, inner_x + inner_w, y), fill=RULE)
    _legend(draw, img, inner_x, y, inner_w)


def _names(view: PublicView, names: list[str]) -> list[str]:
    return [seat_name(names, p.seat) for p in view.players]
