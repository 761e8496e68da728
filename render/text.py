"""Words for the images: the alt text of the boards image and the highlights of a move."""

from __future__ import annotations

import re
from collections import Counter

from engine import PRINTED_HAMLETS, Age, Event, Family, PublicView, format_text
from engine.constants import INCOME_ROUNDS, ROUNDS

from .board import covered_squares
from .panel import seat_name, status_line
from .style import player_look

ALT_TEXT_LIMIT = 1024  # Discord's limit for an attachment's description
_LAST_MOVE_LIMIT = 360  # so that the players always fit after a long chain of events
_RULE_REF = re.compile(r" \(R\d+\)|, R\d+(?=\))")  # " (R17)", ", R29": not read aloud

# Events whose squares are not a change on the board: a copy that was *not* placed.
_NOT_A_CHANGE = frozenset({"not_rippled"})


def highlights_from_events(events: list[Event]) -> dict[Age, set[int]]:
    """The squares each age should highlight after these events (built, copied, removed,
    downsized, populated, renovated): every event's ``squares`` on its ``age``. Ages with
    nothing to show are left out."""
    out: dict[Age, set[int]] = {}
    for event in events:
        if event.age is None or not event.squares or event.kind in _NOT_A_CHANGE:
            continue
        out.setdefault(Age(event.age), set()).update(event.squares)
    return out


def event_sentences(events: list[Event], names: list[str]) -> list[str]:
    """The events' sentences with the players' names, without rule numbers (those are for
    refusals): what the move image and the alt text say happened."""
    seat_names = [seat_name(names, seat) for seat in range(max(len(names), _max_seat(events) + 1))]
    return [
        _RULE_REF.sub("", format_text(e.text, seat_names)).replace(" (paradox)", " by paradox")
        for e in events
        if e.kind not in _NOT_A_CHANGE
    ]


def _max_seat(events: list[Event]) -> int:
    seats = [int(m) for e in events for m in re.findall(r"\{P(\d+)\}", e.text)]
    return max(seats, default=-1)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _count(n: int, name: str) -> str:
    """``_count(2, "City")`` -> ``"2 Cities"``."""
    if n == 1:
        return f"1 {name}"
    if name.endswith("ty"):
        return f"{n} {name[:-1]}ies"
    return f"{n} {name}s"


def _board_summary(view: PublicView, age: Age, names: list[str]) -> str:
    board = view.boards[age]
    counts: Counter[str] = Counter()
    owners: Counter[int] = Counter()
    ruins = 0
    for t in board.tiles:
        if t.ruin:
            ruins += 1
            counts[f"{t.type.label} ruin"] += 1
        else:
            counts[t.type.label] += 1
        if t.owner is not None:
            owners[t.owner] += 1
    covered = covered_squares(board)
    hamlets = sum(1 for h in PRINTED_HAMLETS if h not in covered)
    if not board.tiles:
        text = f"{age.label}: no tiles, {hamlets} printed hamlets"
    else:
        kinds = ", ".join(
            _count(n, k) for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        )
        text = f"{age.label}: {kinds}; {hamlets} printed hamlets"
        if owners:
            text += "; controlled: " + ", ".join(
                f"{seat_name(names, s)} {n}" for s, n in sorted(owners.items())
            )
    if age is Age.REASON:
        pop: Counter[int] = Counter()
        for t in board.tiles:
            pop.update(t.cubes)
        pop.update(board.hamlet_cubes.values())
        if pop:
            text += "; population cubes: " + ", ".join(
                f"{seat_name(names, s)} {n}" for s, n in sorted(pop.items())
            )
    return text + "."


def alt_text(view: PublicView, names: list[str], events: list[Event] | None = None) -> str:
    """A description of the boards image for screen readers, at most 1,024 characters.

    Most important first (round and turn, the last move, the players, then each board), so
    that what has to be cut for length is the least important."""
    income = " (an income round)" if view.round in INCOME_ROUNDS else ""
    parts = [
        f"Khronos boards, round {view.round} of {ROUNDS}{income}. {status_line(view, names)}."
    ]
    if view.pending is not None and not view.over:
        parts.append(f"Waiting for {seat_name(names, view.pending.seat)} to choose.")
    if events:
        seat_names = [seat_name(names, p.seat) for p in view.players]
        moved = [
            _RULE_REF.sub("", format_text(e.text, seat_names)).replace(" (paradox)", " by paradox")
            for e in events
            if e.age is not None and e.kind not in _NOT_A_CHANGE and e.squares
        ]
        if moved:
            last = "Last move, outlined on the boards: " + " ".join(moved)
            if len(last) > _LAST_MOVE_LIMIT:
                last = last[: _LAST_MOVE_LIMIT - 1].rstrip() + "…"
            parts.append(last)
    players = []
    for p in view.players:
        look = player_look(p.seat)
        where = Counter(p.adventurers)
        adv = " and ".join(a.label for a in Age if where[a])
        adv = f"both adventurers on {adv}" if len(where) == 1 else f"adventurers on {adv}"
        players.append(
            f"{seat_name(names, p.seat)} ({look.colour_name} {look.shape}) {p.ecus} Ecus, "
            f"{_plural(p.hand_count, 'card')}, {_plural(p.cubes, 'cube')}, {adv}"
        )
    parts.append("Players: " + "; ".join(players) + ".")
    parts.extend(_board_summary(view, age, names) for age in Age)
    if view.options.holdem and view.reserve:
        parts.append(
            "Face-up cards: " + ", ".join(f.value for f in view.reserve if f in Family) + "."
        )
    text = ""
    for part in parts:
        candidate = f"{text} {part}".strip()
        if len(candidate) <= ALT_TEXT_LIMIT:
            text = candidate
            continue
        room = ALT_TEXT_LIMIT - len(text) - 2
        if room > 40:
            text = f"{text} {part[: room - 1].rstrip()}…"
        break
    return text
