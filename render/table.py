"""The image of the table message: made for Discord's chat preview (about 550 x 350 px).

Landscape. On the left, the age where the move happened, cut down to the region around what
changed (a window of 12 x 9 squares when the changes fit in it, else 16 x 12, else the whole
board) so that its squares stay about 30 px wide at preview size; the changed squares
outlined, a pending choice's options numbered. On the right, the two other ages small (their
changes outlined too) and a key of the players. Nothing else: the round, whose turn it is and
the move in words are the message's text. See docs/render.md for the layouts compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine import Age, Event, PublicView
from engine.constants import COL_LETTERS, COLS, ROUNDS, ROWS

from .board import BoardGeometry, board_layer, draw_age_header, draw_board, draw_highlight
from .images import focus_age
from .marks import choice_marks, draw_marks, mark_squares
from .panel import draw_lines, seat_name, status_line
from .png import encode
from .strings import age_name, joined, say, say_n, speaking
from .style import (
    BANNER,
    BOLD,
    INK,
    MUTED,
    PAPER,
    RULE,
    draw_cube,
    fit_lines,
    line_height,
    put_text,
)
from .text import alt_units, fit_sentences, highlights_from_events, income_words

MARGIN = 10
GAP = 14  # between the large age and the right-hand column
MAP_W, MAP_H = 624, 468  # the large age's map: 12 x 9 squares of 52 px
EDGE = 26  # the bands of column letters and row numbers around it
HEADER = 40  # the age's title and adventurers above it
PANE_W, PANE_H = MAP_W + 2 * EDGE, HEADER + MAP_H + 2 * EDGE
WINDOWS = ((12, 9), (16, 12), (COLS, ROWS))  # the window's sizes, smallest first
THUMB_CELLS = (11, 10, 9, 8)  # the small ages, as large as the key leaves room for
RIGHT_W = COLS * THUMB_CELLS[0] + 6  # the right-hand column: the small ages and the key
KEY_PX = (18, 17, 16, 15, 14, 13)
KEY_TOKEN = 9
EDGE_PX = 17


@dataclass(frozen=True)
class Window:
    """The squares of the large age shown: ``cols`` x ``rows`` from (``col``, ``row``)."""

    col: int
    row: int
    cols: int
    rows: int

    @property
    def whole(self) -> bool:
        return self.cols == COLS and self.rows == ROWS

    def holds(self, square: int) -> bool:
        row, col = divmod(square, COLS)
        return self.col <= col < self.col + self.cols and self.row <= row < self.row + self.rows


def window_for(squares: set[int]) -> Window:
    """The smallest window of ``WINDOWS`` that holds ``squares`` with a square to spare on
    every side (where the board has one), centred on them; the whole board when there is
    nothing to show."""
    if not squares:
        return Window(0, 0, COLS, ROWS)
    rows = [s // COLS for s in squares]
    cols = [s % COLS for s in squares]
    for width, height in WINDOWS:
        if (max(cols) - min(cols) + 3 <= width and max(rows) - min(rows) + 3 <= height) or (
                width == COLS):
            col = round((min(cols) + max(cols) + 1 - width) / 2)
            row = round((min(rows) + max(rows) + 1 - height) / 2)
            return Window(min(max(col, 0), COLS - width), min(max(row, 0), ROWS - height),
                          width, height)
    raise AssertionError("the last window is the whole board")


@dataclass(frozen=True)
class KeyEntry:
    seat: int
    marked: bool  # the player to act (or to choose), or a winner: on a yellow ground
    px: int
    lines: list[str]

    @property
    def height(self) -> int:
        return len(self.lines) * line_height(self.px) + 8


def _key(view: PublicView, names: list[str], width: float, px: int) -> list[KeyEntry]:
    acting = view.pending.seat if view.pending is not None else view.turn
    out = []
    for p in view.players:
        marked = p.seat in view.winners if view.over else p.seat == acting
        text = say("key.player", name=seat_name(names, p.seat), ecus=say_n("ecus", p.ecus))
        if view.over and marked:
            text += " " + say("panel.winner")
        size, lines = fit_lines(text, BOLD, px, KEY_PX[-1], width - 2 * KEY_TOKEN - 12, 3)
        out.append(KeyEntry(p.seat, marked, size, lines))
    return out


@dataclass(frozen=True)
class TableLayout:
    """Where the parts of the table image go. The large age's map (``map_at``, ``cell`` px a
    square) shows ``window``; ``thumbs[age]`` is the top-left corner of each small age."""

    width: int
    height: int
    focus: Age
    window: Window
    cell: int
    map_at: tuple[int, int]
    thumbs: dict[Age, tuple[int, int]]
    thumb: BoardGeometry
    key: list[KeyEntry]
    key_at: tuple[int, int, int]  # x, y, width

    def square_box(self, age: Age, square: int) -> tuple[float, float, float, float] | None:
        """The pixels of ``square`` of ``age`` in the image (None: outside the window)."""
        row, col = divmod(square, COLS)
        if age is self.focus:
            if not self.window.holds(square):
                return None
            x = self.map_at[0] + (col - self.window.col) * self.cell
            y = self.map_at[1] + (row - self.window.row) * self.cell
            return (x, y, x + self.cell, y + self.cell)
        tx, ty = self.thumbs[age]
        c, band = self.thumb.cell, self.thumb.band
        x, y = tx + band + col * c, ty + self.thumb.header + band + row * c
        return (x, y, x + c, y + c)


def table_focus(view: PublicView, highlights: dict[Age, set[int]],
                events: Sequence[Event]) -> Age:
    """The age shown large: a pending choice's, else the one the move happened on
    (``images.focus_age`` of the move's own changes: outlines of the turn's earlier moves
    do not move it), else the earliest age outlined, else, at the start of a turn, the board
    where the player to move has his first adventurer."""
    if view.pending is None and not any(highlights.values()) and not any(
            e.age is not None for e in events) and not view.over:
        adventurers = view.players[view.turn].adventurers
        if adventurers:
            return Age(adventurers[0])
    moved = highlights_from_events(list(events))
    return focus_age(moved if any(moved.values()) else highlights, list(events), view)


def table_layout(view: PublicView, names: list[str], events: Sequence[Event] = (),
                 highlights: dict[Age, set[int]] | None = None,
                 focus: Age | None = None) -> TableLayout:
    """The layout of ``table_image`` for these arguments."""
    marks = highlights if highlights is not None else highlights_from_events(list(events))
    age = focus if focus is not None else table_focus(view, marks, events)
    shown = set(marks.get(age, set())) | mark_squares(choice_marks(view, age))
    window = window_for({s for s in shown if 0 <= s < COLS * ROWS})
    cell = min(MAP_W // window.cols, MAP_H // window.rows)
    map_w, map_h = cell * window.cols, cell * window.rows
    map_at = (MARGIN + EDGE + (MAP_W - map_w) // 2, MARGIN + HEADER + EDGE + (MAP_H - map_h) // 2)
    right = MARGIN + PANE_W + GAP
    key: list[KeyEntry] = []
    thumb = BoardGeometry(THUMB_CELLS[-1], labels=False)
    for cells in THUMB_CELLS:  # the largest small ages that leave the key room at a good size
        thumb = BoardGeometry(cells, labels=False)
        room = PANE_H - 2 * thumb.height - 2 * 8
        key = []
        for px in KEY_PX:
            key = _key(view, names, RIGHT_W, px)
            if sum(e.height for e in key) <= room:
                break
        if sum(e.height for e in key) <= room:
            break
    thumbs = {}
    y = MARGIN
    for other in (a for a in Age if a is not age):
        thumbs[other] = (right + (RIGHT_W - thumb.width) // 2, y)
        y += thumb.height + 8
    width = right + RIGHT_W + MARGIN
    height = max(MARGIN + PANE_H, y + sum(e.height for e in key)) + MARGIN
    return TableLayout(width, height, age, window, cell, map_at, thumbs, thumb, key,
                       (right, y, RIGHT_W))


def _draw_map(img: Image.Image, view: PublicView, lay: TableLayout,
              highlight: set[int]) -> None:
    """The window of the large age with its edge letters and numbers, the changed squares
    outlined and a pending choice's options numbered."""
    win, c = lay.window, lay.cell
    geo = BoardGeometry(c, labels=False)
    layer = board_layer(view.boards[lay.focus], geo)
    left, top = geo.band + win.col * c, geo.band + win.row * c
    part = layer.crop((left, top, left + win.cols * c, top + win.rows * c))
    gx, gy = -win.col * c, -win.row * c  # square A1, in the part's pixels
    if highlight:
        draw_highlight(ImageDraw.Draw(part), highlight, gx, gy, c)
    draw_marks(part, choice_marks(view, lay.focus), gx, gy, c)
    x, y = lay.map_at
    img.paste(part, (x, y))
    draw = ImageDraw.Draw(img)
    draw.rectangle((x - 1, y - 1, x + win.cols * c, y + win.rows * c), outline=INK)
    for i in range(win.cols):
        cx = x + i * c + c / 2
        for cy in (y - EDGE / 2, y + win.rows * c + EDGE / 2):
            put_text(img, (cx, cy), COL_LETTERS[win.col + i], EDGE_PX, BOLD, MUTED, "mm")
    for i in range(win.rows):
        cy = y + i * c + c / 2
        for cx in (x - EDGE / 2, x + win.cols * c + EDGE / 2):
            put_text(img, (cx, cy), str(win.row + i + 1), EDGE_PX, BOLD, MUTED, "mm")


def _draw_key(img: Image.Image, lay: TableLayout) -> None:
    draw = ImageDraw.Draw(img)
    x, y, width = lay.key_at
    for entry in lay.key:
        top, y = y, y + entry.height
        if entry.marked:
            draw.rectangle((x, top + 1, x + width - 1, y - 1), fill=BANNER, outline=INK)
        mid = (top + y) / 2
        draw_cube(draw, entry.seat, x + KEY_TOKEN + 5, mid, KEY_TOKEN)
        draw_lines(img, x + 2 * KEY_TOKEN + 12, mid, entry.lines, entry.px, BOLD, INK)


def table_image(view: PublicView, names: list[str], events: Sequence[Event] = (),
                highlights: dict[Age, set[int]] | None = None,
                focus: Age | None = None) -> Image.Image:
    marks = highlights if highlights is not None else highlights_from_events(list(events))
    lay = table_layout(view, names, events, marks, focus)
    img = Image.new("RGB", (lay.width, lay.height), PAPER)
    draw_age_header(img, view, lay.focus, names, (MARGIN, MARGIN, PANE_W, HEADER), 4)
    _draw_map(img, view, lay, {s for s in marks.get(lay.focus, set()) if 0 <= s < COLS * ROWS})
    line_x = MARGIN + PANE_W + GAP // 2
    ImageDraw.Draw(img).line((line_x, MARGIN, line_x, lay.height - MARGIN), fill=RULE, width=2)
    for age, (x, y) in lay.thumbs.items():
        draw_board(img, view, age, names, x, y, lay.thumb, marks.get(age))
    _draw_key(img, lay)
    return img


def table_png(view: PublicView, names: list[str], events: Sequence[Event] = (),
              highlights: dict[Age, set[int]] | None = None, focus: Age | None = None,
              lang: str = "en") -> bytes:
    """PNG of the table message's picture, made to be read at Discord's preview size: the
    age where the move happened large, around what changed (outlined; a pending choice's
    options numbered), the other two ages small, a key of the players. ``events``: the move's
    (none at the start of a turn: the board of the player to move, whole); ``highlights``
    overrides the outlined squares, ``focus`` the age shown large."""
    with speaking(lang):
        return encode(table_image(view, names, events, highlights, focus))


def table_alt_text(view: PublicView, names: list[str], events: Sequence[Event] = (),
                   highlights: dict[Age, set[int]] | None = None, focus: Age | None = None,
                   lang: str = "en") -> str:
    """The table image in words, at most 1,024 characters by construction: whose turn it is,
    a pending choice and its numbered options, what the move did (every building lost before
    the other changes), which age is large and which squares it shows, the players, each
    board; whole sentences are left out from the end, and counted, when it is too long."""
    with speaking(lang):
        lay = table_layout(view, names, events, highlights, focus)
        head = say("alt.table", round=view.round, rounds=ROUNDS, income=income_words(view),
                   status=status_line(view, names))
        win = lay.window
        shown = say("alt.whole_board") if win.whole else say(
            "alt.window", first=COL_LETTERS[win.col], last=COL_LETTERS[win.col + win.cols - 1],
            top=win.row + 1, bottom=win.row + win.rows)
        large = say("alt.table_focus", age=age_name(lay.focus), window=shown)
        return fit_sentences(alt_units(view, names, list(events), [head],
                                       [*_outlined_too(events, highlights), large]))


def _outlined_too(events: Sequence[Event],
                  highlights: dict[Age, set[int]] | None) -> list[str]:
    """The sentence naming the ages where ``highlights`` outline more than the move did (the
    turn's earlier changes), or none."""
    moved = highlights_from_events(list(events))
    ages = [a for a in Age if (highlights or {}).get(a, set()) - moved.get(a, set())]
    return [say("alt.turn_outlined", ages=joined([age_name(a) for a in ages]))] if ages else []
