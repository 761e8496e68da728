"""The panel of the boards image: round track, turn, players, stock and a legend.

Nothing is cut short: a long banner wraps (the panel grows), a long name wraps inside its row.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine import Age, Family, PublicView, Terrain, describe_prompt, format_text
from engine.constants import CARDS_PER_ADVENTURER, INCOME_ROUNDS, LADDER, ROUNDS
from engine.views import PublicPlayer

from .board import HIGHLIGHT_INNER, HIGHLIGHT_OUTER, _draw_terrain_cell, _hatch
from .strings import (
    age_name,
    building_name,
    current_language,
    family_letter,
    joined,
    say,
    say_n,
    terrain_name,
)
from .style import (
    BANNER,
    BOLD,
    CONDENSED,
    FAMILY_COLOUR,
    FAMILY_TEXT,
    INK,
    MUTED,
    PAPER,
    REGULAR,
    RULE,
    WHITE,
    draw_cube,
    fit_lines,
    fit_size,
    line_height,
    player_look,
    player_tint,
    put_text,
    ruin_colours,
    text_length,
)

ROW = 34  # player table row height (room for a name on two lines)
TOP = 52  # round track line
TABLE_HEAD = 24
LEGEND_ROW = 30
PAD = 12
BANNER_PX = 15


def seat_name(names: list[str], seat: int) -> str:
    name = names[seat].strip() if seat < len(names) else ""
    return name or say("seat", number=seat + 1)


def status_line(view: PublicView, names: list[str]) -> str:
    """Whose turn it is, or who won."""
    if view.over:
        best = max((p.ecus for p in view.players), default=0)
        who = joined([seat_name(names, s) for s in view.winners])
        return say_n("status.over", len(view.winners), names=who,
                     ecus=say_n("ecus", best))
    return say("status.turn", name=seat_name(names, view.turn))


def banner_text(view: PublicView, names: list[str]) -> str | None:
    """The yellow banner under the round track: who won, or who must choose and what."""
    if view.over:
        return status_line(view, names) + "."
    if view.pending is not None:
        seat_names = [seat_name(names, p.seat) for p in view.players]
        return say("status.waiting", name=seat_name(names, view.pending.seat),
                   prompt=format_text(describe_prompt(view.pending, current_language()),
                                      seat_names, current_language()))
    return None


def adventurers_text(adventurers: list[Age]) -> str:
    where = Counter(adventurers)
    return ", ".join(
        age_name(a) + (" " + say("times", count=2) if where[a] == 2 else "")
        for a in Age if where[a]
    )


def allowance_items(player: PublicPlayer, sep: str = " \u00b7 ") -> str | None:
    """What the player may still pay this turn on each board where an adventurer stands (R14),
    in adventurer order: "Might: 2 cards left · Faith: 1 card left" (both adventurers on one
    board: that board once, with what the two may still pay there together), then "at most N in
    all" when the boards together may take fewer than their sum (cards already played where
    both stood). None without the figures."""
    if not player.adventurers or len(player.left) != len(player.adventurers):
        return None
    total = max(CARDS_PER_ADVENTURER * len(player.adventurers) - sum(player.used)
                - player.shared, 0)
    per_board: dict[Age, int] = {}
    for age, n in zip(player.adventurers, player.left, strict=True):
        per_board[age] = total if age in per_board else n  # both there: they pay together
    items = [say_n("allowance.item", n, age=age_name(age)) for age, n in per_board.items()]
    if sum(per_board.values()) > total:
        items.append(say("allowance.total", n=total))
    return sep.join(items)


def allowance_text(view: PublicView, sep: str = " \u00b7 ") -> str | None:
    """"Cards left this turn: ..." for the player to move; None when the game is over. The
    alt text separates the items with commas, which a screen reader reads as pauses."""
    if view.over:
        return None
    items = allowance_items(view.players[view.turn], sep)
    return None if items is None else say("allowance.line", items=items)


ALLOWANCE_PX = 14


def _allowance_lines(view: PublicView, table_w: float) -> tuple[int, list[str]]:
    """The allowance line(s) drawn under the name of the player to move, and their size."""
    text = allowance_text(view)
    if text is None:
        return ALLOWANCE_PX, []
    return fit_lines(text, BOLD, ALLOWANCE_PX, 10, table_w - 34 - 6, 2)


def _allowance_height(view: PublicView, table_w: float) -> int:
    px, lines = _allowance_lines(view, table_w)
    return len(lines) * line_height(px) + (4 if lines else 0)


def _table_width(width: int) -> int:
    return round((width - 2 * PAD) * 0.64)


@dataclass(frozen=True)
class _Banner:
    px: int
    lines: list[str]

    @property
    def height(self) -> int:
        return len(self.lines) * line_height(self.px) + 12


def _banner(view: PublicView, names: list[str], width: int) -> _Banner | None:
    text = banner_text(view, names)
    if text is None:
        return None
    name = BOLD if view.over else REGULAR
    px, lines = fit_lines(text, name, BANNER_PX + (1 if view.over else 0), 12, width - 2 * PAD - 16,
                          3)
    return _Banner(px, lines)


def _table_height(view: PublicView, width: int) -> int:
    """The players' rows (the row of the player to move holds his allowance too) or the
    stock's rows beside them, whichever is taller."""
    players = len(view.players) * ROW + _allowance_height(view, _table_width(width))
    return max(players, (4 if view.options.holdem else 3) * ROW)


def _legend_items() -> list[str]:
    terrains = [terrain_name(t) for t in (Terrain.PLAIN, Terrain.FOREST, Terrain.MOUNTAIN,
                                           Terrain.RIVER)]
    return [*terrains, say("legend.printed_hamlet"), say("legend.ruin"), say("legend.owner"),
            say("legend.room"), say("legend.last_move")]


_SWATCH = 20
_LEGEND_FONT = 13


def _legend_rows(width: int) -> list[list[int]]:
    """Indexes of the legend's items per row, flowed into ``width``."""
    rows: list[list[int]] = [[]]
    x = 0.0
    for i, text in enumerate(_legend_items()):
        w = _SWATCH + 6 + text_length(text, _LEGEND_FONT) + 12
        if rows[-1] and x + w > width:
            rows.append([])
            x = 0.0
        rows[-1].append(i)
        x += w
    return rows


def panel_height(view: PublicView, names: list[str] | None = None, width: int = 840) -> int:
    """Height of the panel for ``view`` at ``width`` pixels."""
    banner = _banner(view, names or [], width)
    legend = len(_legend_rows(width - 2 * PAD)) * LEGEND_ROW + 8
    return (PAD + TOP + (banner.height + 6 if banner else 0) + TABLE_HEAD
            + _table_height(view, width) + 8 + legend + PAD)


def _round_track(img: Image.Image, view: PublicView, x: int, y: int) -> float:
    draw = ImageDraw.Draw(img)
    label = say("panel.round")
    put_text(img, (x, y + 16), label, 22, BOLD, INK, "lm")
    bx = x + text_length(label, 22, BOLD) + 10
    box = 30
    for r in range(1, ROUNDS + 1):
        left = bx + (r - 1) * (box + 4)
        rect = (left, y + 1, left + box, y + 1 + box)
        current = r == view.round and not view.over
        past = r < view.round or view.over
        fill = INK if current else (RULE if past else WHITE)
        width = 3 if r in INCOME_ROUNDS else 1
        draw.rectangle(rect, fill=fill, outline=INK, width=width)
        put_text(img, (left + box / 2, y + 1 + box / 2), str(r), 17, BOLD,
                 WHITE if current else INK, "mm")
        if r in INCOME_ROUNDS:
            put_text(img, (left + box / 2, y + box + 9), say("panel.income"), 10, CONDENSED, INK,
                     "mm")
    return bx + ROUNDS * (box + 4)


def draw_lines(
    img: Image.Image, x: float, mid: float, lines: list[str], px: int, name: str,
    fill: tuple[int, int, int], anchor: str = "lm",
) -> None:
    """Lines of text centred as a block on ``mid`` (vertically), aligned by ``anchor``."""
    lh = line_height(px)
    first = mid - lh * (len(lines) - 1) / 2
    for i, line in enumerate(lines):
        put_text(img, (x, first + i * lh), line, px, name, fill, anchor)


def _player_table(
    img: Image.Image, view: PublicView, names: list[str], x: int, y: int, width: int
) -> None:
    draw = ImageDraw.Draw(img)
    cols = {"ecus": 0.47, "cards": 0.59, "cubes": 0.71, "adv": 0.83}
    head_y = y + TABLE_HEAD / 2
    put_text(img, (x + 6, head_y), say("panel.player"), 12, BOLD, MUTED, "lm")
    for key, label in (("ecus", "panel.ecus"), ("cards", "panel.cards"), ("cubes", "panel.cubes")):
        put_text(img, (x + width * cols[key], head_y), say(label), 12, BOLD, MUTED, "mm")
    put_text(img, (x + width * cols["adv"] - 26, head_y), say("panel.adventurers_on"), 12, BOLD,
             MUTED, "lm")
    y += TABLE_HEAD
    for p in view.players:
        top = y
        mid = top + ROW / 2
        winner = view.over and p.seat in view.winners
        moving = p.seat == view.turn and not view.over
        active = moving or winner
        extra = _allowance_height(view, width) if moving else 0
        if active:
            draw.rectangle((x, top + 1, x + width, top + ROW + extra - 1),
                           fill=player_tint(p.seat), outline=INK)
        if extra:
            apx, alines = _allowance_lines(view, width)
            draw_lines(img, x + 34, top + ROW - 2 + len(alines) * line_height(apx) / 2, alines,
                       apx, BOLD, INK)
        draw_cube(draw, p.seat, x + 18, mid, 9)
        mark = ""
        if winner:
            mark = say("panel.winner")
        elif p.seat == view.turn and not view.over:
            mark = say("panel.turn")
        room = width * cols["ecus"] - 34 - 22
        text = seat_name(names, p.seat) + (f"  {mark}" if mark else "")
        one = fit_size(text, BOLD, 16, 13, room)
        # two lines at 13 px at most, so that they stay inside the row (and clear of the
        # allowance under them)
        px, lines = (one, [text]) if one is not None else fit_lines(text, BOLD, 13, 10, room, 2)
        draw_lines(img, x + 34, mid, lines, px, BOLD, INK)
        for key, value in (("ecus", p.ecus), ("cards", p.hand_count), ("cubes", p.cubes)):
            put_text(img, (x + width * cols[key], mid), str(value), 16, BOLD, INK, "mm")
        adv = adventurers_text(p.adventurers)
        adv_room = width * (1 - cols["adv"]) + 26 - 4
        px, lines = fit_lines(adv, REGULAR, 14, 10, adv_room, 2)
        draw_lines(img, x + width * cols["adv"] - 26, mid, lines, px, REGULAR, INK)
        y += ROW + extra
        draw.line((x, y, x + width, y), fill=RULE)


def _stock(img: Image.Image, view: PublicView, x: int, y: int, width: int) -> int:
    draw = ImageDraw.Draw(img)
    put_text(img, (x, y + TABLE_HEAD / 2), say("panel.stock"), 12, BOLD, MUTED, "lm")
    y += TABLE_HEAD
    for fam in (Family.MILITARY, Family.RELIGIOUS, Family.CIVIL):
        mid = y + ROW / 2
        draw.rectangle((x, mid - 9, x + 18, mid + 9), fill=FAMILY_COLOUR[fam], outline=INK)
        put_text(img, (x + 9, mid), family_letter(fam), 12, BOLD, FAMILY_TEXT[fam], "mm")
        text = "  ".join(say("panel.stock_item", building=building_name(t),
                             count=view.stock.get(t, 0)) for t in LADDER[fam])
        px, lines = fit_lines(text, CONDENSED, 14, 10, width - 26, 2)
        draw_lines(img, x + 26, mid, lines, px, CONDENSED, INK)
        y += ROW
    return y


def draw_reserve(
    img: Image.Image, cards: list[Family], x: float, y: float, w: float, h: float
) -> float:
    """Small face-up cards in a row; returns the x after the last one."""
    draw = ImageDraw.Draw(img)
    for fam in cards:
        draw.rounded_rectangle((x, y, x + w, y + h), radius=3, fill=FAMILY_COLOUR[fam],
                               outline=INK)
        put_text(img, (x + w / 2, y + h / 2), family_letter(fam), round(h * 0.6), BOLD,
                 FAMILY_TEXT[fam], "mm")
        x += w + 4
    return x


def _legend_swatch(draw: ImageDraw.ImageDraw, i: int, x: float, mid: float) -> None:
    s = _SWATCH
    box = (round(x), round(mid - s / 2), round(x + s), round(mid + s / 2))
    if i < 4:
        terrain = (Terrain.PLAIN, Terrain.FOREST, Terrain.MOUNTAIN, Terrain.RIVER)[i]
        _draw_terrain_cell(draw, terrain, box[0], box[1], s)
        draw.rectangle((box[0], box[1], box[0] + s - 1, box[1] + s - 1), outline=MUTED)
    elif i == 4:  # printed hamlet
        hx = x + s / 2
        draw.polygon([(hx, mid - 9), (hx + 7, mid - 3), (hx + 7, mid + 8), (hx - 7, mid + 8),
                      (hx - 7, mid - 3)], fill=FAMILY_COLOUR[Family.CIVIL], outline=INK)
    elif i == 5:  # ruin
        fill, hatch, _ = ruin_colours(Family.MILITARY)
        draw.rectangle(box, fill=fill)
        _hatch(draw, box, hatch, 6, 1)
        draw.rectangle(box, outline=MUTED)
    elif i == 6:  # owner's frame
        draw.rectangle(box, fill=FAMILY_COLOUR[Family.MILITARY], outline=INK, width=1)
        draw.rectangle((box[0] + 1, box[1] + 1, box[2] - 1, box[3] - 1),
                       outline=player_look(0).colour, width=4)
        draw.rectangle((box[0] + 5, box[1] + 5, box[2] - 5, box[3] - 5), outline=INK, width=1)
    elif i == 7:  # empty place for a population cube
        draw.rounded_rectangle((x + 5, mid - 5, x + 15, mid + 5), radius=2, fill=WHITE,
                               outline=MUTED)
    else:  # the last move's outline
        draw.rectangle(box, outline=HIGHLIGHT_OUTER, width=5)
        draw.rectangle((box[0] + 1, box[1] + 1, box[2] - 1, box[3] - 1),
                       outline=HIGHLIGHT_INNER, width=2)


def _legend(img: Image.Image, x: int, y: int, width: int) -> None:
    draw = ImageDraw.Draw(img)
    items = _legend_items()
    for r, row in enumerate(_legend_rows(width)):
        mid = y + 4 + r * LEGEND_ROW + LEGEND_ROW / 2
        cx = float(x)
        for i in row:
            _legend_swatch(draw, i, cx, mid)
            put_text(img, (cx + _SWATCH + 6, mid), items[i], _LEGEND_FONT, REGULAR, INK, "lm")
            cx += _SWATCH + 6 + text_length(items[i], _LEGEND_FONT) + 12


def draw_panel(
    img: Image.Image, view: PublicView, names: list[str], x: int, y: int, width: int
) -> None:
    """Paint the panel (``panel_height(view, names, width)`` tall) at (x, y)."""
    draw = ImageDraw.Draw(img)
    draw.rectangle((x, y, x + width - 1, y + panel_height(view, names, width) - 1), fill=PAPER)
    y += PAD
    inner_x, inner_w = x + PAD, width - 2 * PAD
    after = _round_track(img, view, inner_x, y)
    room = inner_x + inner_w - after - 20
    if view.over:
        text, left = say("panel.final_scores"), after + 20
    else:
        draw_cube(draw, view.turn, after + 24, y + 16, 10)
        text, left = status_line(view, names), after + 40
        room -= 20
    px = fit_size(text, BOLD, 20, 12, room)
    if px is not None:
        put_text(img, (left, y + 16), text, px, BOLD, INK, "lm")
    else:
        px, lines = fit_lines(text, BOLD, 13, 10, room, 2)
        draw_lines(img, left, y + 16, lines, px, BOLD, INK)
    y += TOP
    banner = _banner(view, names, width)
    if banner is not None:
        draw.rectangle((inner_x, y, inner_x + inner_w, y + banner.height),
                       fill=BANNER, outline=INK)
        name = BOLD if view.over else REGULAR
        draw_lines(img, inner_x + 8, y + banner.height / 2, banner.lines, banner.px, name, INK)
        y += banner.height + 6
    table_w = _table_width(width)
    _player_table(img, view, names, inner_x, y, table_w)
    sx = inner_x + table_w + 18
    sy = _stock(img, view, sx, y, inner_x + inner_w - sx)
    if view.options.holdem:
        mid = sy + ROW / 2
        face_up = say("panel.face_up")
        put_text(img, (sx, mid), face_up, 14, CONDENSED, INK, "lm")
        draw_reserve(img, list(view.reserve), sx + text_length(face_up, 14, CONDENSED) + 8,
                     mid - 11, 18, 22)
    y += TABLE_HEAD + _table_height(view, width) + 8
    draw.line((inner_x, y, inner_x + inner_w, y), fill=RULE)
    _legend(img, inner_x, y, inner_w)


