"""The images the bot posts: the move, all three boards, one age large, before and after, a hand.

Every function is pure: a view (and the players' display names) in, PNG bytes out.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine import Age, Event, Family, PlayerView, PublicView, describe_prompt, format_text
from engine.constants import COLS, LADDER, ROUNDS

from .board import BoardGeometry, draw_board
from .panel import (
    adventurers_text,
    allowance_items,
    allowance_text,
    draw_lines,
    draw_panel,
    draw_reserve,
    panel_height,
    seat_name,
    status_line,
)
from .png import encode
from .strings import (
    building_name,
    current_language,
    family_letter,
    family_name,
    say,
    say_n,
    speaking,
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
    breaks_a_word,
    draw_cube,
    fit_lines,
    line_height,
    put_text,
    text_length,
    wrap_text,
)
from .text import Sentence, highlights_from_events, ranked_sentences

BOARDS_CELL = 40  # pixels per square on the boards image
AGE_CELL = 64  # pixels per square on the single-age image
MOVE_CELL = 40  # the age a move was played on, in the move image
THUMB_CELL = 16  # the two other ages, small, under it
GAP = 14  # vertical space between board blocks


def _png(img: Image.Image) -> bytes:
    return encode(img)


# --- all three boards (/board) ---------------------------------------------------------------


def boards_image(
    view: PublicView, names: list[str], highlights: dict[Age, set[int]] | None = None
) -> Image.Image:
    """The panel on top, then Might, Faith and Reason stacked (one phone-width column)."""
    geo = BoardGeometry(BOARDS_CELL)
    top = panel_height(view, names, geo.width)
    height = top + len(Age) * (geo.height + GAP)
    img = Image.new("RGB", (geo.width, height), PAPER)
    draw_panel(img, view, names, 0, 0, geo.width)
    draw = ImageDraw.Draw(img)
    y = top
    for age in Age:
        draw.line((0, y + GAP // 2, geo.width, y + GAP // 2), fill=RULE, width=2)
        draw_board(img, view, age, names, 0, y + GAP, geo, (highlights or {}).get(age))
        y += geo.height + GAP
    return img


def boards_png(
    view: PublicView, names: list[str], highlights: dict[Age, set[int]] | None = None,
    lang: str = "en",
) -> bytes:
    """PNG of all three boards with the panel; ``highlights`` outlines squares per age.
    ``lang`` (here and in every image function): ``"en"``, ``"fr"`` or ``"de"``."""
    with speaking(lang):
        return _png(boards_image(view, names, highlights))


# --- the image after a move (item 5) ---------------------------------------------------------


def focus_age(highlights: dict[Age, set[int]], events: list[Event] | None = None,
              view: PublicView | None = None) -> Age:
    """The age to show large: the age of a pending choice in ``view`` (its options are
    numbered there), else the age a move was played on: the earliest age it changed
    (effects only ripple forward in time), else the age its first event names, else Might."""
    if view is not None and view.pending is not None and not view.over:
        return Age(view.pending.age)
    changed = [a for a, squares in highlights.items() if squares]
    if changed:
        return min(changed)
    for e in events or []:
        if e.age is not None:
            return Age(e.age)
    return Age.MIGHT


@dataclass(frozen=True)
class _Caption:
    status_px: int
    status: list[str]
    action_px: int
    action: list[str]
    prompt_px: int = 0
    prompt: tuple[str, ...] = ()  # a pending choice's question, on a yellow ground

    @property
    def prompt_height(self) -> int:
        return len(self.prompt) * line_height(self.prompt_px) + 12 if self.prompt else 0

    @property
    def height(self) -> int:
        h = 12 + len(self.status) * line_height(self.status_px)
        if self.prompt:
            h += 6 + self.prompt_height
        if self.action:
            h += 6 + len(self.action) * line_height(self.action_px)
        return h + 10


MOVE_STATUS_PX = 28
MOVE_PROMPT_PX = 20
MOVE_ACTION_PX = 23
MOVE_ACTION_LINES = 3
MOVE_KEY_PX = 21


def _move_caption(view: PublicView, names: list[str], events: list[Event], width: int,
                  chip: float) -> _Caption:
    """Whose turn it is (or who must choose, and the question; or who won), then what the
    move did: all its sentences when they fit in three lines, else the first and a count."""
    prompt: tuple[str, ...] = ()
    ppx = 0
    if view.pending is not None and not view.over:
        status = say("status.choosing", name=seat_name(names, view.pending.seat))
        seat_names = [seat_name(names, p.seat) for p in view.players]
        question = format_text(describe_prompt(view.pending, current_language()), seat_names,
                               current_language())
        ppx, plines = fit_lines(question, REGULAR, MOVE_PROMPT_PX, 16, width - 16, 3)
        prompt = tuple(plines)
    else:
        status = status_line(view, names)
    spx, slines = fit_lines(status, BOLD, MOVE_STATUS_PX, 20, width - chip, 2)
    apx, alines = _action_lines(ranked_sentences(events, names), width)
    return _Caption(spx, slines, apx, alines, ppx, prompt)


def _action_lines(ranked: list[Sentence], width: int) -> tuple[int, list[str]]:
    """What the move did, in at most three lines when it can: every sentence when they fit,
    else the first (what the player did) and every building lost (a paradox, a downsizing:
    ``text.is_loss``) whatever room they take, then as many of the others, in order, as still
    fit, and "(+N more changes, outlined on the boards.)"."""
    def lines(kept: list[Sentence]) -> tuple[int, list[str]]:
        text = " ".join(sentence.text for sentence in sorted(kept))
        if len(kept) < len(ranked):
            text += " " + say_n("move.more", len(ranked) - len(kept))
        return fit_lines(text, REGULAR, MOVE_ACTION_PX, 19, width, MOVE_ACTION_LINES)

    if not ranked:
        return MOVE_ACTION_PX, []
    whole = lines(ranked)
    if len(whole[1]) <= MOVE_ACTION_LINES:
        return whole
    kept = [s for s in ranked if s.position == 0 or s.loss]
    for extra in ranked[len(kept):]:
        if len(lines([*kept, extra])[1]) > MOVE_ACTION_LINES:
            break
        kept.append(extra)
    return lines(kept)


def _round_chip(img: Image.Image, view: PublicView, x: float, mid: float) -> float:
    """A dark box "Round 5/7"; returns its width."""
    text = say("move.round", round=view.round, rounds=ROUNDS)
    w = text_length(text, MOVE_STATUS_PX - 6, BOLD) + 16
    h = MOVE_STATUS_PX + 6
    ImageDraw.Draw(img).rounded_rectangle((x, mid - h / 2, x + w, mid + h / 2), radius=5,
                                          fill=INK)
    put_text(img, (x + w / 2, mid), text, MOVE_STATUS_PX - 6, BOLD, WHITE, "mm")
    return w


@dataclass(frozen=True)
class _KeyEntry:
    seat: int
    marked: bool
    px: int
    lines: list[str]
    ecus: list[str]  # "12 Ecus", and for a winner the star, wrapped

    @property
    def height(self) -> int:
        return (len(self.lines) * line_height(self.px)
                + len(self.ecus) * line_height(_ecus_px(self.px)) + 10)


def _ecus_px(px: int) -> int:
    return max(13, px - 3)


KEY_TOKEN = 11


def _key_entries(view: PublicView, names: list[str], width: float,
                 height: float) -> list[_KeyEntry]:
    """Who is who, at the largest size (down to 13 px) at which every name fits, whole, in
    ``height``; at 13 px it takes the height it takes."""
    room = width - 2 * KEY_TOKEN - 14
    entries: list[_KeyEntry] = []
    for whole_words in (True, False):
        for px in range(MOVE_KEY_PX, 12, -1):
            if whole_words and any(breaks_a_word(n, px, BOLD, room) for n in names):
                continue
            entries = []
            acting = view.pending.seat if view.pending is not None else view.turn
            left = allowance_items(view.players[view.turn]) if not view.over else None
            for p in view.players:
                marked = (view.over and p.seat in view.winners) or (
                    not view.over and p.seat == acting)
                ecus = say_n("ecus", p.ecus)
                if view.over and marked:
                    ecus += " " + say("panel.winner")
                lines = wrap_text(seat_name(names, p.seat), px, BOLD, room)
                ecus_lines = wrap_text(ecus, _ecus_px(px), REGULAR, room)
                if left is not None and p.seat == view.turn:  # R14: what he may still play
                    ecus_lines += wrap_text(say("allowance.line", items=left), _ecus_px(px),
                                            REGULAR, room)
                entries.append(_KeyEntry(p.seat, marked, px, lines, ecus_lines))
            if sum(e.height for e in entries) <= height:
                return entries
    return entries


def _draw_key(img: Image.Image, entries: list[_KeyEntry], x: float, y: float,
              width: float) -> None:
    """Each player's shape and colour, name and Ecus; the player whose turn it is (or the
    winners) on a yellow ground."""
    draw = ImageDraw.Draw(img)
    for entry in entries:
        top = y
        y += entry.height
        if entry.marked:
            draw.rectangle((x - 4, top + 2, x + width, y - 2), fill=BANNER, outline=INK)
        mid = (top + y) / 2
        draw_cube(draw, entry.seat, x + KEY_TOKEN + 2, mid, KEY_TOKEN)
        text_x = x + 2 * KEY_TOKEN + 10
        nh = len(entry.lines) * line_height(entry.px)
        epx = _ecus_px(entry.px)
        eh = len(entry.ecus) * line_height(epx)
        first = mid - (nh + eh) / 2
        draw_lines(img, text_x, first + nh / 2, entry.lines, entry.px, BOLD, INK)
        draw_lines(img, text_x, first + nh + eh / 2, entry.ecus, epx, REGULAR, INK)


@dataclass(frozen=True)
class MoveLayout:
    """Where the parts of the move image go: ``boards[age]`` is the top-left corner of each
    age's block (header, then the map) and ``geometry[age]`` its sizes."""

    width: int
    height: int
    focus: Age
    caption: _Caption
    boards: dict[Age, tuple[int, int]]
    geometry: dict[Age, BoardGeometry]
    key: list[_KeyEntry]
    key_at: tuple[int, int, int]  # x, y, width

    def square_box(self, age: Age, square: int) -> tuple[int, int, int, int]:
        """The pixels of ``square`` of ``age`` in the image."""
        x, y = self.boards[age]
        geo = self.geometry[age]
        row, col = divmod(square, COLS)
        left, top = x + geo.band + col * geo.cell, y + geo.header + geo.band + row * geo.cell
        return (left, top, left + geo.cell, top + geo.cell)


MOVE_MARGIN = 12


def move_layout(
    view: PublicView,
    names: list[str],
    events: list[Event] | None = None,
    highlights: dict[Age, set[int]] | None = None,
    focus: Age | None = None,
) -> MoveLayout:
    """The layout of ``move_image`` for these arguments."""
    events = list(events or [])
    marks = highlights if highlights is not None else highlights_from_events(events)
    age = focus if focus is not None else focus_age(marks, events, view)
    geo = BoardGeometry(MOVE_CELL)
    thumb = BoardGeometry(THUMB_CELL, labels=False)
    width, margin = geo.width, MOVE_MARGIN
    chip = text_length(say("move.round", round=view.round, rounds=ROUNDS), MOVE_STATUS_PX - 6,
                       BOLD) + 16 + 12
    caption = _move_caption(view, names, events, width - 2 * margin, chip)
    key_x = margin // 2 + 2 * (thumb.width + 10) + 4
    key_w = width - key_x - margin // 2
    key = _key_entries(view, names, key_w, thumb.height)
    bottom_h = max(thumb.height, sum(e.height for e in key)) + 10
    top = caption.height
    boards = {age: (0, top)}
    geometry = {age: geo}
    y = top + geo.height + 6
    x = margin // 2
    for other in (a for a in Age if a is not age):
        boards[other] = (x, y + 4)
        geometry[other] = thumb
        x += thumb.width + 10
    return MoveLayout(width, top + geo.height + bottom_h + 6, age, caption, boards, geometry,
                      key, (key_x, y + 6, key_w))


def move_image(
    view: PublicView,
    names: list[str],
    events: list[Event] | None = None,
    highlights: dict[Age, set[int]] | None = None,
    focus: Age | None = None,
) -> Image.Image:
    """The age the move was played on, large, with the changed squares outlined; the two
    other ages small under it (their changes outlined too) beside a key of the players; and
    on top what happened and whose turn it is."""
    events = list(events or [])
    marks = highlights if highlights is not None else highlights_from_events(events)
    lay = move_layout(view, names, events, marks, focus)
    img = Image.new("RGB", (lay.width, lay.height), PAPER)
    draw = ImageDraw.Draw(img)
    caption, margin = lay.caption, MOVE_MARGIN
    # what happened, whose turn
    y = 12.0
    slh = line_height(caption.status_px)
    chip = _round_chip(img, view, margin, y + slh / 2)
    draw_lines(img, margin + chip + 12, y + slh * len(caption.status) / 2, caption.status,
               caption.status_px, BOLD, INK)
    y += slh * len(caption.status) + 6
    if caption.prompt:
        draw.rectangle((margin, y, lay.width - margin, y + caption.prompt_height), fill=BANNER,
                       outline=INK)
        draw_lines(img, margin + 8, y + caption.prompt_height / 2, list(caption.prompt),
                   caption.prompt_px, REGULAR, INK)
        y += caption.prompt_height + 6
    if caption.action:
        alh = line_height(caption.action_px)
        draw_lines(img, margin, y + alh * len(caption.action) / 2, caption.action,
                   caption.action_px, REGULAR, INK)
    top = lay.boards[lay.focus][1]
    draw.line((0, top - 4, lay.width, top - 4), fill=RULE, width=2)
    bottom = top + lay.geometry[lay.focus].height + 6
    draw.line((0, bottom, lay.width, bottom), fill=RULE, width=2)
    for age, (x, y0) in lay.boards.items():
        draw_board(img, view, age, names, x, y0, lay.geometry[age], marks.get(age))
    _draw_key(img, lay.key, *lay.key_at)
    return img


def move_png(
    view: PublicView,
    names: list[str],
    events: list[Event] | None = None,
    highlights: dict[Age, set[int]] | None = None,
    focus: Age | None = None,
    lang: str = "en",
) -> bytes:
    """PNG to post after a move: readable at Discord's inline preview size. ``events`` are the
    move's events (their squares are outlined and their sentences head the image);
    ``highlights`` overrides the outlined squares, ``focus`` the age shown large."""
    with speaking(lang):
        return _png(move_image(view, names, events, highlights, focus))


# --- one age large (/board age) ---------------------------------------------------------------


def _key_strip(
    img: Image.Image | None, view: PublicView, names: list[str], x: int, y: int, width: int,
) -> int:
    """Round, turn and every player's shape with the name and Ecus, flowed on as many lines as
    it takes; returns the height used (``img`` None: measure only)."""
    draw = ImageDraw.Draw(img) if img is not None else None
    text = status_line(view, names) if view.over else (
        f"{say('status.round', round=view.round, rounds=ROUNDS)} \u00b7 {status_line(view, names)}")
    h = 34
    items: list[tuple[int | None, str, int, str]] = [(None, text, 18, BOLD)]
    items += [(p.seat, say("key.player", name=seat_name(names, p.seat),
                           ecus=say_n("ecus", p.ecus)), 17, REGULAR) for p in view.players]
    cx, row = float(x), 0
    r = 8
    for seat, label, px, name in items:
        w = text_length(label, px, name) + (2.6 * r if seat is not None else 0) + 22
        if cx > x and cx + w > x + width:
            cx, row = float(x), row + 1
        mid = y + row * h + h / 2
        if img is not None and draw is not None:
            if seat is not None:
                draw_cube(draw, seat, cx + r, mid, r)
                put_text(img, (cx + 2.6 * r, mid), label, px, name, INK, "lm")
            else:
                put_text(img, (cx, mid), label, px, name, INK, "lm")
        cx += w
    return (row + 1) * h


def age_image(
    view: PublicView, age: Age, names: list[str], highlights: dict[Age, set[int]] | None = None
) -> Image.Image:
    geo = BoardGeometry(AGE_CELL)
    strip = _key_strip(None, view, names, geo.band, 4, geo.width - 2 * geo.band) + 8
    img = Image.new("RGB", (geo.width, strip + geo.height + 8), PAPER)
    draw = ImageDraw.Draw(img)
    _key_strip(img, view, names, geo.band, 4, geo.width - 2 * geo.band)
    draw.line((0, strip, geo.width, strip), fill=RULE, width=2)
    draw_board(img, view, age, names, 0, strip + 4, geo, (highlights or {}).get(age))
    return img


def age_png(
    view: PublicView, age: Age, names: list[str], highlights: dict[Age, set[int]] | None = None,
    lang: str = "en",
) -> bytes:
    """PNG of one age at a large scale, with a key of the players."""
    with speaking(lang):
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
    gap, head = 24, 34
    width = 2 * geo.width + gap
    px, lines = fit_lines(title, BOLD, 22, 16, width - 2 * geo.band, 4) if title else (22, [])
    top = 8 + len(lines) * line_height(px) + (8 if lines else 0)
    img = Image.new("RGB", (width, top + len(ages) * (head + geo.height + 12)), PAPER)
    if lines:
        draw_lines(img, geo.band, 8 + len(lines) * line_height(px) / 2, lines, px, BOLD, INK)
    y = top
    for age in ages:
        for col, (label, view) in enumerate((("compare.before", before), ("compare.after", after))):
            x = col * (geo.width + gap)
            put_text(img, (x + geo.band, y + 4), say(label), 20, BOLD, INK if col else MUTED)
            draw_board(img, view, age, names, x, y + head, geo, marks.get(age))
        y += head + geo.height + 12
    return img


def before_after_png(
    before: PublicView,
    after: PublicView,
    names: list[str],
    highlights: dict[Age, set[int]] | None = None,
    title: str = "",
    lang: str = "en",
) -> bytes:
    """PNG of ``before_after_image`` (``title`` is drawn as given)."""
    with speaking(lang):
        return _png(before_after_image(before, after, names, highlights, title))


# --- the hand (a DM to one player) -----------------------------------------------------------

CARD_W, CARD_H = 120, 168


def _card(img: Image.Image, fam: Family, x: float, y: float, w: float, h: float) -> None:
    draw = ImageDraw.Draw(img)
    draw.rounded_rectangle((x, y, x + w, y + h), radius=w / 10, fill=FAMILY_COLOUR[fam],
                           outline=INK, width=2)
    ink = FAMILY_TEXT[fam]
    put_text(img, (x + w / 2, y + h * 0.36), family_letter(fam), round(h * 0.36), BOLD, ink,
             "mm")
    px, lines = fit_lines(family_name(fam), BOLD, round(h * 0.11), 8, w - 8, 2)
    draw_lines(img, x + w / 2, y + h * 0.64, lines, px, BOLD, ink, anchor="mm")
    small = max(8, round(h * 0.075))
    for i, t in enumerate(LADDER[fam]):
        spx, slines = fit_lines(building_name(t), CONDENSED, small, 7, w - 6, 1)
        draw_lines(img, x + w / 2, y + h * (0.77 + 0.075 * i), slines, spx, CONDENSED, ink,
                   anchor="mm")


def hand_image(view: PlayerView, names: list[str]) -> Image.Image:
    seat = view.seat
    hand = list(view.hand)
    n = max(4, len(hand))
    margin = 20
    width = margin * 2 + n * CARD_W + (n - 1) * 12
    reserve = view.options.holdem
    title = say_n("hand.title", len(hand), name=seat_name(names, seat))
    tpx, tlines = fit_lines(title, BOLD, 22, 16, width - 2 * margin - 30, 3)
    me = view.players[seat]
    counts = Counter(hand)
    summary = ", ".join(
        say("hand.count", n=counts[f], family=say(f"hand.family.{f.value}"))
        for f in Family if counts[f]
    ) or say("hand.none")
    line = say("hand.line", round=view.round, rounds=ROUNDS, ecus=say_n("ecus", me.ecus),
               cubes=me.cubes, adventurers=adventurers_text(me.adventurers))
    if view.turn == seat and not view.over:
        line += " \u00b7 " + say("hand.your_turn")
    sub_lines = fit_lines(line, REGULAR, 14, 12, width - 2 * margin, 3)[1]
    sum_lines = fit_lines(summary, REGULAR, 14, 12, width - 2 * margin, 2)[1]
    left = allowance_text(view) if view.turn == seat else None  # R14, for the player to move
    left_lines = fit_lines(left, BOLD, 14, 12, width - 2 * margin, 2)[1] if left else []
    head = 14 + len(tlines) * line_height(tpx) + 6
    sub_h = (len(sub_lines) + len(left_lines) + len(sum_lines)) * line_height(14)
    y = head + sub_h + 8
    height = y + CARD_H + margin + ((CARD_H * 2 // 3 + 50) if reserve else 0)
    img = Image.new("RGB", (width, height), PAPER)
    draw = ImageDraw.Draw(img)
    draw_cube(draw, seat, margin + 11, 14 + line_height(tpx) / 2, 11)
    draw_lines(img, margin + 30, 14 + len(tlines) * line_height(tpx) / 2, tlines, tpx, BOLD, INK)
    sy = head
    draw_lines(img, margin, sy + len(sub_lines) * line_height(14) / 2, sub_lines, 14, REGULAR,
               MUTED)
    sy += len(sub_lines) * line_height(14)
    if left_lines:
        draw_lines(img, margin, sy + len(left_lines) * line_height(14) / 2, left_lines, 14, BOLD,
                   INK)
        sy += len(left_lines) * line_height(14)
    draw_lines(img, margin, sy + len(sum_lines) * line_height(14) / 2, sum_lines, 14, REGULAR,
               INK)
    if not hand:
        put_text(img, (width / 2, y + CARD_H / 2), say("hand.empty"), 18, REGULAR, MUTED, "mm")
    for i, fam in enumerate(hand):
        _card(img, fam, margin + i * (CARD_W + 12), y, CARD_W, CARD_H)
    if reserve:
        y += CARD_H + 14
        draw.line((margin, y, width - margin, y), fill=RULE, width=2)
        put_text(img, (margin, y + 20), say("hand.face_up"), 14, BOLD, INK, "lm")
        w, h = CARD_W * 2 // 3, CARD_H * 2 // 3
        if view.reserve:
            for i, fam in enumerate(view.reserve):
                _card(img, fam, margin + i * (w + 10), y + 36, w, h)
        else:
            draw_reserve(img, [], margin, y + 36, w, h)
    return img


def hand_png(view: PlayerView, names: list[str], lang: str = "en") -> bytes:
    """PNG of ``view.seat``'s cards (and the Hold'em face-up cards when that option is on)."""
    with speaking(lang):
        return _png(hand_image(view, names))
