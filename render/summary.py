"""The end-of-game summary: where each player's Ecus came from, and how they
grew over the seven rounds.

Two pure steps: ``game_summary`` builds the figures from a replayed game (the start state and,
for each move, the state after it and its events); ``summary_png`` draws them. The bot replays
the move log from the seed as it does for ``/rebuild`` (``summary_from_moves`` does that for
it from the seats and actions).

Every Ecu is accounted for: start (R6) + build bonuses (R17, per board) + income (R46-R49, per
board, rounds 4 and 7) - travel (R13) - exchanges (R9) - demolitions (R22) = final Ecus (R50).
A change no rule explains lands in ``other`` (0 in every game the engine plays; the tests
check it), so the picture never shows a sum that does not add up.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from engine import Action, Age, Event, GameState, Options, apply, income, new_game
from engine.constants import INCOME_ROUNDS, ROUNDS

from .panel import draw_lines, seat_name
from .png import encode
from .strings import age_name, joined, say, say_n, speaking
from .style import (
    BANNER,
    BOLD,
    INK,
    MUTED,
    PAPER,
    REGULAR,
    RULE,
    draw_cube,
    fit_lines,
    line_height,
    player_look,
    put_text,
    text_length,
)
from .text import ALT_TEXT_LIMIT

SPENDING = ("travel", "exchange", "demolish")


@dataclass
class PlayerScore:
    """One player's Ecus, explained. ``income[round][age]``: what he collected on that board at
    the end of his turn in that round; ``by_round[0]`` his Ecus at the start, ``by_round[r]``
    at the end of round r (as far as the game went)."""

    seat: int
    start: int
    final: int = 0
    bonus: dict[Age, int] = field(default_factory=lambda: dict.fromkeys(Age, 0))
    income: dict[int, dict[Age, int]] = field(
        default_factory=lambda: {r: dict.fromkeys(Age, 0) for r in INCOME_ROUNDS})
    spent: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SPENDING, 0))
    other: int = 0
    by_round: list[int] = field(default_factory=list)

    def income_total(self, rnd: int) -> int:
        return sum(self.income[rnd].values())

    @property
    def bonus_total(self) -> int:
        return sum(self.bonus.values())

    @property
    def spent_total(self) -> int:
        return sum(self.spent.values())

    @property
    def accounted(self) -> int:
        """Start + bonuses + income - spending + other: equal to ``final``."""
        return (self.start + self.bonus_total + sum(self.income_total(r) for r in INCOME_ROUNDS)
                - self.spent_total + self.other)


@dataclass
class GameSummary:
    players: list[PlayerScore]
    winners: list[int]
    over: bool
    round: int  # the last round reached

    def ranking(self) -> list[PlayerScore]:
        """Richest first (R50); equal fortunes in seat order."""
        return sorted(self.players, key=lambda p: (-p.final, p.seat))


def _income_by_board(before: GameState, seat: int) -> dict[Age, int]:
    """What ``seat`` collects on each board where he has an adventurer (R46-R49), asked of the
    engine one board at a time: both adventurers on that board collect exactly its share."""
    out: dict[Age, int] = {}
    for age in sorted(set(before.players[seat].adventurers)):
        probe = before.clone()
        probe.players[seat].adventurers = [age, age]
        out[Age(age)] = income(probe, seat)[0]
    return out


def _spending_kind(events: Sequence[Event]) -> str | None:
    kinds = {e.kind for e in events}
    if "exchange" in kinds:
        return "exchange"
    if "travel" in kinds:
        return "travel"
    if "removed" in kinds:  # a removal costs Ecus only when it is a demolition (R22)
        return "demolish"
    return None


def game_summary(
    start: GameState, steps: Iterable[tuple[GameState, Sequence[Event]]]
) -> GameSummary:
    """The summary of a game from its start state and, for every move in order, the state
    after it and the move's events. Works on an unfinished game too (the rounds played)."""
    players = [PlayerScore(seat=p.seat, start=p.ecus) for p in start.players]
    end_of_round: dict[int, list[int]] = {}
    before = start
    for after, events in steps:
        explained = [0] * len(players)
        for e in events:
            if e.seat is None or e.amount is None:
                continue
            score = players[e.seat]
            if e.kind == "income":
                rnd = before.round
                split = _income_by_board(before, e.seat)
                for age, amount in split.items():
                    score.income.setdefault(rnd, dict.fromkeys(Age, 0))[age] += amount
                explained[e.seat] += sum(split.values())
            elif e.kind in ("built", "upgraded") and e.age is not None:
                score.bonus[Age(e.age)] += e.amount
                explained[e.seat] += e.amount
        kind = _spending_kind(events)
        for p, score in zip(after.players, players, strict=True):
            rest = p.ecus - before.players[p.seat].ecus - explained[p.seat]
            if rest < 0 and kind is not None:
                score.spent[kind] -= rest
            else:
                score.other += rest
        end_of_round[before.round] = [p.ecus for p in after.players]
        before = after
    last = max(end_of_round, default=0)
    for score in players:
        score.final = before.players[score.seat].ecus
        value = score.start
        score.by_round = [value]
        for rnd in range(1, last + 1):  # rounds before the start state keep its value
            value = end_of_round[rnd][score.seat] if rnd in end_of_round else value
            score.by_round.append(value)
    return GameSummary(players, list(before.winners), before.over,
                       max(end_of_round, default=start.round))


def summary_from_moves(
    options: Options, seed: int, moves: Iterable[tuple[int, Action]]
) -> GameSummary:
    """``game_summary`` of the game replayed from its seed and its moves (seat, action), in
    order: what the bot has in its move log (without the undone moves)."""
    start = new_game(options, seed)

    def steps() -> Iterable[tuple[GameState, Sequence[Event]]]:
        state = start
        for seat, action in moves:
            state, events = apply(state, seat, action)
            yield state, events

    return game_summary(start, steps())


# --- the picture ----------------------------------------------------------------------------

WIDTH = 1200
MARGIN = 28
TITLE_PX = 40
SUB_PX = 28
HEAD_PX = 17
CELL_PX = 24
ROW_H = 54
CHART_H = 430


@dataclass(frozen=True)
class _Column:
    key: str
    x: float  # centre
    group: str = ""


def _columns(name_w: float) -> list[_Column]:
    x = MARGIN + name_w
    cols: list[_Column] = []

    def add(key: str, width: float, group: str = "") -> None:
        nonlocal x
        cols.append(_Column(key, x + width / 2, group))
        x += width

    add("final", 100)
    add("start", 80)
    for rnd in INCOME_ROUNDS:
        for age in Age:
            add(f"income{rnd}.{age.name}", 76, say("summary.income", round=rnd))
    for age in (Age.MIGHT, Age.FAITH):
        add(f"bonus.{age.name}", 76, say("summary.bonus"))
    add("spent", 90)
    return cols


def _cell(score: PlayerScore, key: str) -> int:
    if key == "final":
        return score.final
    if key == "start":
        return score.start
    if key == "spent":
        return -score.spent_total
    head, age = key.split(".")
    if head == "bonus":
        return score.bonus[Age[age]]
    return score.income[int(head.removeprefix("income"))][Age[age]]


def _signed(n: int, key: str) -> str:
    if key in ("final", "start"):
        return str(n)
    if n == 0:
        return "\u00b7"
    return f"+{n}" if n > 0 else f"\u2212{-n}"


def _title_lines(summary: GameSummary, names: list[str]) -> tuple[str, str]:
    title = say("summary.title") if summary.over else say("summary.unfinished",
                                                            round=summary.round)
    best = max((p.final for p in summary.players), default=0)
    leaders = summary.winners or [p.seat for p in summary.players if p.final == best]
    who = joined([seat_name(names, s) for s in leaders])
    return title, say_n("summary.winners", len(leaders), names=who,
                        ecus=say_n("ecus", best))


def _table(img: Image.Image, summary: GameSummary, names: list[str], y: float) -> float:
    draw = ImageDraw.Draw(img)
    name_w = WIDTH - 2 * MARGIN - (100 + 80 + 6 * 76 + 2 * 76 + 90)
    cols = _columns(name_w)
    # group headings over their columns, then one heading per column
    groups: dict[str, list[_Column]] = {}
    for col in cols:
        if col.group:
            groups.setdefault(col.group, []).append(col)
    for group, members in groups.items():
        left, right = members[0].x - 36, members[-1].x + 36
        draw.line((left, y + 30, right, y + 30), fill=MUTED, width=2)
        px, lines = fit_lines(group, BOLD, HEAD_PX, 12, right - left, 2)
        # the last line sits where a single one would, the first above it: clear of the rule
        mid = y + 14 - (len(lines) - 1) * line_height(px) / 2
        draw_lines(img, (left + right) / 2, mid, lines, px, BOLD, INK, anchor="mm")
    y += 36
    for col in cols:
        if "." in col.key:
            label = age_name(Age[col.key.split(".")[1]])
        else:
            label = say(f"summary.{col.key}")
        px, lines = fit_lines(label, BOLD, HEAD_PX, 11, 74, 2)
        draw_lines(img, col.x, y + 14, lines, px, BOLD, MUTED, anchor="mm")
    put_text(img, (MARGIN + 40, y + 14), say("panel.player"), HEAD_PX, BOLD, MUTED, "lm")
    y += 32
    winners = set(summary.winners) if summary.over else set()
    for score in summary.ranking():
        top = y
        mid = top + ROW_H / 2
        if score.seat in winners:
            draw.rectangle((MARGIN - 8, top + 2, WIDTH - MARGIN + 8, top + ROW_H - 2),
                           fill=BANNER, outline=INK)
        draw_cube(draw, score.seat, MARGIN + 14, mid, 13)
        name = seat_name(names, score.seat)
        px, lines = fit_lines(name, BOLD, CELL_PX, 14, name_w - 50, 2)
        draw_lines(img, MARGIN + 40, mid, lines, px, BOLD, INK)
        for col in cols:
            value = _cell(score, col.key)
            big = col.key == "final"
            put_text(img, (col.x, mid), _signed(value, col.key), CELL_PX + 8 if big else CELL_PX,
                     BOLD if big else REGULAR, INK if value or big else MUTED, "mm")
        y += ROW_H
        draw.line((MARGIN - 8, y, WIDTH - MARGIN + 8, y), fill=RULE, width=1)
    return y


def _nice_step(top: int) -> int:
    for step in (1, 2, 5, 10, 20, 25, 50, 100):
        if top / step <= 8:
            return step
    return 200


def _chart(img: Image.Image, summary: GameSummary, names: list[str], y: float) -> None:
    """Each player's Ecus at the start and at the end of every round: a line in his colour
    (edged in ink, so that pale colours show on the paper) with his shape on every point."""
    draw = ImageDraw.Draw(img)
    put_text(img, (MARGIN, y + 18), say("summary.chart"), SUB_PX - 4, BOLD, INK, "lm")
    top, bottom = y + 56, y + CHART_H - 46
    label_w = max((text_length(f"{seat_name(names, p.seat)} {p.final}", 18, BOLD)
                   for p in summary.players), default=0) + 40
    left, right = MARGIN + 48, WIDTH - MARGIN - min(label_w, 300)
    highest = max((v for p in summary.players for v in p.by_round), default=1)
    step = _nice_step(max(highest, 1))
    ymax = max(step, -(-highest // step) * step)
    xs = [left + (right - left) * i / ROUNDS for i in range(ROUNDS + 1)]

    def ypos(v: float) -> float:
        return bottom - (bottom - top) * v / ymax

    for rnd in INCOME_ROUNDS:  # the income rounds, shaded
        draw.rectangle((xs[rnd - 1] + 1, top, xs[rnd] - 1, bottom), fill=BANNER)
        put_text(img, ((xs[rnd - 1] + xs[rnd]) / 2, top + 12), say("summary.income_round"), 15,
                 REGULAR, INK, "mm")
    for v in range(0, ymax + 1, step):
        draw.line((left, ypos(v), right, ypos(v)), fill=RULE, width=1)
        put_text(img, (left - 10, ypos(v)), str(v), 16, REGULAR, MUTED, "rm")
    for i, x in enumerate(xs):
        label = say("summary.chart_start") if i == 0 else str(i)
        put_text(img, (x, bottom + 18), label, 17, BOLD if i in INCOME_ROUNDS else REGULAR, INK,
                 "mm")
    draw.line((left, bottom, right, bottom), fill=INK, width=2)
    for score in summary.players:
        pts = [(xs[i], ypos(v)) for i, v in enumerate(score.by_round)]
        if len(pts) > 1:
            draw.line(pts, fill=INK, width=8, joint="curve")
            draw.line(pts, fill=player_look(score.seat).colour, width=4, joint="curve")
    for score in summary.players:
        for i, v in enumerate(score.by_round):
            draw_cube(draw, score.seat, xs[i], ypos(v), 7)
    # names at the end of the lines, pushed apart where they would overlap
    room = WIDTH - MARGIN - (right + 22)
    labels = []
    for score in summary.players:
        if not score.by_round:
            continue
        px, lines = fit_lines(f"{seat_name(names, score.seat)} {score.final}", BOLD, 18, 12,
                              room, 3)
        labels.append((ypos(score.by_round[-1]), score, px, lines))
    labels.sort(key=lambda t: t[0])
    placed: list[float] = []
    bottom_edge = top - 12.0
    for want, _, px, lines in labels:
        half = len(lines) * line_height(px) / 2
        at = max(want, bottom_edge + half + 2)
        placed.append(at)
        bottom_edge = at + half
    overflow = bottom_edge - (bottom + 24)
    if overflow > 0:
        placed = [v - overflow for v in placed]
    for (want, score, px, lines), at in zip(labels, placed, strict=True):
        x_end = xs[len(score.by_round) - 1]
        lx = right + 22
        draw.line((x_end + 8, want, lx - 4, at), fill=MUTED, width=1)
        draw_lines(img, lx, at, lines, px, BOLD, INK)


def summary_image(summary: GameSummary, names: list[str]) -> Image.Image:
    title, winners = _title_lines(summary, names)
    wpx, wlines = fit_lines(winners, BOLD, SUB_PX, 18, WIDTH - 2 * MARGIN, 3)
    head = 20 + line_height(TITLE_PX) + len(wlines) * line_height(wpx) + 16
    table = 36 + 32 + len(summary.players) * ROW_H + 12
    # names in the table may take two lines: the rows are tall enough for that
    img = Image.new("RGB", (WIDTH, head + table + CHART_H), PAPER)
    put_text(img, (MARGIN, 20 + line_height(TITLE_PX) / 2), title, TITLE_PX, BOLD, INK, "lm")
    draw_lines(img, MARGIN, 20 + line_height(TITLE_PX) + len(wlines) * line_height(wpx) / 2,
               wlines, wpx, BOLD, INK)
    y = _table(img, summary, names, head)
    ImageDraw.Draw(img).line((0, y + 12, WIDTH, y + 12), fill=RULE, width=2)
    _chart(img, summary, names, y + 16)
    return img


def summary_png(summary: GameSummary, names: list[str], lang: str = "en") -> bytes:
    """PNG of the final scores: per player the Ecus from each board's income in rounds 4 and
    7, the build bonuses per board, the spending, and a chart of Ecus round by round."""
    with speaking(lang):
        return encode(summary_image(summary, names))


def summary_alt_text(summary: GameSummary, names: list[str], lang: str = "en") -> str:
    """The summary picture in words, at most 1,024 characters."""
    with speaking(lang):
        return _summary_alt_text(summary, names)


def _summary_alt_text(summary: GameSummary, names: list[str]) -> str:
    """The winners, then each player, richest first; whoever does not fit is left out whole,
    and a last sentence says how many were."""
    _, winners = _title_lines(summary, names)
    parts = [say("alt.summary_player", name=seat_name(names, p.seat),
                 final=say_n("ecus", p.final), start=p.start, income4=p.income_total(4),
                 income7=p.income_total(7), bonus=p.bonus_total, spent=p.spent_total)
             for p in summary.ranking()]
    for kept in range(len(parts), 0, -1):
        players = "; ".join(parts[:kept])
        if kept < len(parts):
            players += say_n("alt.summary_left_out", len(parts) - kept)
        text = say("alt.summary", winners=winners, players=players)
        if len(text) <= ALT_TEXT_LIMIT:
            return text
    return say("alt.summary", winners=winners, players=say_n("alt.summary_left_out",
                                                              len(parts)))
