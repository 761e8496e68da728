"""Words for the images: the alt text of the boards image and the highlights of a move."""

from __future__ import annotations

import re
from collections import Counter

from engine import (
    PRINTED_HAMLETS,
    Age,
    BuildingType,
    Event,
    Family,
    PublicView,
    describe,
    format_text,
)
from engine.constants import INCOME_ROUNDS, ROUNDS

from .board import covered_squares
from .panel import allowance_text, seat_name, status_line
from .strings import (
    age_name,
    building_name,
    building_plural,
    current_language,
    joined,
    say,
    say_n,
    speaking,
)
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


def event_sentence(event: Event, seat_names: list[str]) -> str:
    """One event's sentence in the current language (the engine's catalogue, ``describe``),
    with the players' names and without rule numbers (those are for refusals)."""
    text = format_text(describe(event, current_language()), seat_names)
    return _RULE_REF.sub("", text).replace(" (paradox)", " by paradox")


def event_sentences(events: list[Event], names: list[str]) -> list[str]:
    """The events' sentences in the current language: what the move image and the alt text
    say happened."""
    seat_names = [seat_name(names, seat) for seat in range(max(len(names), _max_seat(events) + 1))]
    return [event_sentence(e, seat_names) for e in events if e.kind not in _NOT_A_CHANGE]


def _max_seat(events: list[Event]) -> int:
    seats = [int(m) for e in events for m in re.findall(r"\{P(\d+)\}", e.text)]
    return max(seats, default=-1)


def _board_summary(view: PublicView, age: Age, names: list[str]) -> str:
    board = view.boards[age]
    counts: Counter[tuple[bool, BuildingType]] = Counter()  # (ruin, type)
    owners: Counter[int] = Counter()
    for t in board.tiles:
        counts[(t.ruin, t.type)] += 1
        if t.owner is not None:
            owners[t.owner] += 1
    covered = covered_squares(board)
    hamlets = say_n("alt.hamlets", sum(1 for h in PRINTED_HAMLETS if h not in covered))
    if not board.tiles:
        return say("alt.board_empty", age=age_name(age), hamlets=hamlets)
    kinds = []
    for (ruin, btype), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][0],
                                                                   building_name(kv[0][1]))):
        if ruin:
            kinds.append(say_n("alt.ruins", n, building=building_name(btype)))
        else:
            kinds.append(say("alt.count", n=n, building=building_name(btype) if n == 1
                             else building_plural(btype)))
    controlled = population = ""
    if owners:
        controlled = say("alt.controlled", owners=_owners(owners, names))
    if age is Age.REASON:
        pop: Counter[int] = Counter()
        for t in board.tiles:
            pop.update(t.cubes)
        pop.update(board.hamlet_cubes.values())
        if pop:
            population = say("alt.population", owners=_owners(pop, names))
    return say("alt.board", age=age_name(age), tiles=", ".join(kinds), hamlets=hamlets,
               controlled=controlled, population=population)


def _owners(counts: Counter[int], names: list[str]) -> str:
    return ", ".join(say("alt.owner", name=seat_name(names, s), n=n)
                     for s, n in sorted(counts.items()))


def alt_text(
    view: PublicView, names: list[str], events: list[Event] | None = None, lang: str = "en"
) -> str:
    """A description of the boards image for screen readers, at most 1,024 characters, in
    ``lang`` (the engine's sentences of the move as the engine words them).

    Most important first (round and turn, the last move, the players, then each board), so
    that what has to be cut for length is the least important."""
    with speaking(lang):
        return _alt_text(view, names, events)


def _alt_text(view: PublicView, names: list[str], events: list[Event] | None) -> str:
    income = say("alt.income_round") if view.round in INCOME_ROUNDS else ""
    parts = [say("alt.boards", round=view.round, rounds=ROUNDS, income=income,
                 status=status_line(view, names))]
    if view.pending is not None and not view.over:
        parts.append(say("alt.waiting", name=seat_name(names, view.pending.seat)))
    left = allowance_text(view, ", ")  # R14: what the player to move may still play
    if left is not None:
        parts.append(left + ".")
    if events:
        seat_names = [seat_name(names, p.seat) for p in view.players]
        moved = [
            event_sentence(e, seat_names)
            for e in events
            if e.age is not None and e.kind not in _NOT_A_CHANGE and e.squares
        ]
        if moved:
            last = say("alt.last_move", sentences=" ".join(moved))
            if len(last) > _LAST_MOVE_LIMIT:
                last = last[: _LAST_MOVE_LIMIT - 1].rstrip() + "…"
            parts.append(last)
    players = []
    for p in view.players:
        look = player_look(p.seat)
        where = Counter(p.adventurers)
        if len(where) == 1:
            adv = say("alt.adventurers_both", age=age_name(p.adventurers[0]))
        else:
            adv = say("alt.adventurers", ages=joined([age_name(a) for a in Age if where[a]]))
        players.append(say(
            "alt.player", name=seat_name(names, p.seat),
            colour=say(f"colour.{look.colour_name.replace(' ', '_')}"),
            shape=say(f"shape.{look.shape}"), ecus=say_n("ecus", p.ecus),
            cards=say_n("alt.cards", p.hand_count), cubes=say_n("alt.cubes", p.cubes),
            adventurers=adv))
    parts.append(say("alt.players", players="; ".join(players)))
    parts.extend(_board_summary(view, age, names) for age in Age)
    if view.options.holdem and view.reserve:
        parts.append(say("alt.face_up", cards=", ".join(
            say(f"hand.family.{f.value}") for f in view.reserve if f in Family)))
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
