"""Words for the images: the alt texts, the move's sentences in order of importance, and the
highlights of a move.

Alt texts are at most 1,024 characters by construction: they are lists of whole sentences,
most important first, and ``fit_sentences`` drops whole sentences from the least important
end and says how many it left out."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from engine import (
    PRINTED_HAMLETS,
    Age,
    BuildingType,
    Event,
    Family,
    PublicView,
    describe,
    describe_choice,
    format_text,
)
from engine.constants import INCOME_ROUNDS, ROUNDS

from .board import covered_squares
from .marks import choice_marks
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


# Events that put a tile on squares the turn found empty: R15 builds only on empty squares,
# and a ripple copy's paradox (R29) says its "removed" before the copy's "rippled".
_PLACES = frozenset({"built", "rippled"})


def turn_highlights(events: Sequence[Event], view: PublicView) -> dict[Age, set[int]]:
    """The squares a whole turn changed, for the table image: ``events`` are those of the
    turn's moves still in effect, in order, and ``view`` the state after them. Every square
    they changed (``highlights_from_events``), each once, less the squares the turn first
    filled and left empty again (a building it put there and then lost, or downsized off
    them): the image shows what is there now, and an outline around a square the turn found
    empty and leaves empty would mark a change that is not there. A square the turn found
    built on stays outlined, empty or not (a demolition, a building erased)."""
    first: dict[tuple[Age, int], str] = {}  # the kind of the first event that touched a square
    for event in events:
        if event.age is None or event.kind in _NOT_A_CHANGE:
            continue
        for square in event.squares:
            first.setdefault((Age(event.age), square), event.kind)
    taken = {age: covered_squares(view.boards[age]) | set(view.boards[age].hamlet_cubes)
             for age in Age}
    out: dict[Age, set[int]] = {}
    for (age, square), kind in first.items():
        if kind in _PLACES and square not in taken[age]:
            continue
        out.setdefault(age, set()).add(square)
    return out


def event_sentence(event: Event, seat_names: list[str]) -> str:
    """One event's sentence in the current language (the engine's catalogue, ``describe``),
    with the players' names and without rule numbers (those are for refusals)."""
    text = format_text(describe(event, current_language()), seat_names, current_language())
    return _RULE_REF.sub("", text).replace(" (paradox)", " by paradox")


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


def is_loss(event: Event) -> bool:
    """Whether ``event`` takes a building from someone as a consequence of the move: erased by
    paradox (R29), downsized (R33), destroyed with its original (R34). These are never hidden
    behind a count of "more changes" (a demolition is the move itself, its first sentence)."""
    if event.kind == "downsized":
        return True
    if event.kind != "removed":
        return False
    why = event.params.get("why")
    return not (isinstance(why, dict) and why.get("key") == "phrase.why_demolished")


class Sentence(NamedTuple):
    """One sentence of a move: its ``position`` among the move's sentences (the order they are
    read in), its text, and whether it tells of a building lost (``is_loss``)."""

    position: int
    text: str
    loss: bool = False


def ranked_sentences(events: list[Event], names: list[str],
                     on_board: bool = False) -> list[Sentence]:
    """The move's sentences, most important first: what the player did (the first), then
    every building lost (``is_loss``), then the rest, each group in the order it happened.
    ``on_board``: only the events that changed squares."""
    seat_names = [seat_name(names, seat) for seat in range(max(len(names), _max_seat(events) + 1))]
    shown = [e for e in events if e.kind not in _NOT_A_CHANGE
             and (not on_board or (e.age is not None and e.squares))]
    order = sorted(range(len(shown)), key=lambda i: (i > 0, not is_loss(shown[i]), i))
    return [Sentence(i, event_sentence(shown[i], seat_names), is_loss(shown[i])) for i in order]


def fit_sentences(ranked: list[Sentence], limit: int = ALT_TEXT_LIMIT) -> str:
    """The sentences, most important first, as many as fit in ``limit`` characters with a
    note of how many were left out: whole sentences are dropped from the least important
    end, never cut. The kept ones are read in the order of their ``position``."""
    for kept in range(len(ranked), -1, -1):
        parts = [s.text for s in sorted(ranked[:kept])]
        if kept < len(ranked):
            parts.append(say_n("alt.left_out", len(ranked) - kept))
        text = " ".join(p for p in parts if p)
        if len(text) <= limit:
            return text
    return ""  # unreachable: the note alone is short


def alt_text(
    view: PublicView, names: list[str], events: list[Event] | None = None, lang: str = "en"
) -> str:
    """A description of the boards image for screen readers, at most 1,024 characters, in
    ``lang`` (the engine's sentences of the move as the engine words them).

    Most important first (round and turn, a pending choice, the last move, the players, then
    each board); when that is too long, whole sentences go from the end and a last one says
    how many."""
    with speaking(lang):
        head = say("alt.boards", round=view.round, rounds=ROUNDS, income=income_words(view),
                   status=status_line(view, names))
        return fit_sentences(alt_units(view, names, events, [head]))


def income_words(view: PublicView) -> str:
    """" (an income round)" in rounds 4 and 7, else nothing."""
    return say("alt.income_round") if view.round in INCOME_ROUNDS else ""


def alt_units(view: PublicView, names: list[str], events: list[Event] | None,
              head: list[str], after_move: Sequence[str] = ()) -> list[Sentence]:
    """The sentences of an alt text in the order they are kept, each with its place in the
    text: ``head`` (what the image is, whose turn), a pending choice and its numbered options,
    the cards left, the last move (``ranked_sentences``), ``after_move``, each player, each
    board."""
    lead = [*head]
    if view.pending is not None and not view.over:
        lead.append(say("alt.waiting", name=seat_name(names, view.pending.seat)))
        lead.extend(_options_sentence(view, names))
    left = allowance_text(view, ", ")  # R14: what the player to move may still play
    if left is not None:
        lead.append(left + ".")
    units = [Sentence(i, text) for i, text in enumerate(lead)]
    base = len(units)
    moved = ranked_sentences(list(events or []), names, on_board=True)
    for s in moved:
        text = say("alt.last_move", sentences=s.text) if s.position == 0 else s.text
        units.append(Sentence(base + s.position, text, s.loss))
    base += len(moved)
    rest = [*after_move, *_players(view, names)]
    rest.extend(_board_summary(view, age, names) for age in Age)
    if view.options.holdem and view.reserve:
        rest.append(say("alt.face_up", cards=", ".join(
            say(f"hand.family.{f.value}") for f in view.reserve if f in Family)))
    units.extend(Sentence(base + i, text) for i, text in enumerate(rest))
    return units


def _options_sentence(view: PublicView, names: list[str]) -> list[str]:
    """"Numbered on Faith: 1, Ben's Keep at I4; 2, ..." for a pending choice whose options
    are numbered on the image (``marks.choice_marks``)."""
    assert view.pending is not None
    age = Age(view.pending.age)
    numbered = {m.number for m in choice_marks(view, age)}
    if not numbered:
        return []
    seat_names = [seat_name(names, p.seat) for p in view.players]
    labels = [say("alt.option", number=n, label=format_text(
        describe_choice(o, current_language()), seat_names, current_language()))
        for n, o in enumerate(view.pending.options, 1) if n in numbered]
    return [say("alt.options", age=age_name(age), options="; ".join(labels))]


def _players(view: PublicView, names: list[str]) -> list[str]:
    """One sentence per player: name, colour and shape, Ecus, cards, cubes, adventurers."""
    out: list[str] = []
    for p in view.players:
        look = player_look(p.seat)
        where = Counter(p.adventurers)
        if len(where) == 1:
            adv = say("alt.adventurers_both", age=age_name(p.adventurers[0]))
        else:
            adv = say("alt.adventurers", ages=joined([age_name(a) for a in Age if where[a]]))
        text = say(
            "alt.player", name=seat_name(names, p.seat),
            colour=say(f"colour.{look.colour_name.replace(' ', '_')}"),
            shape=say(f"shape.{look.shape}"), ecus=say_n("ecus", p.ecus),
            cards=say_n("alt.cards", p.hand_count), cubes=say_n("alt.cubes", p.cubes),
            adventurers=adv)
        out.append(say("alt.players", players=text) if not out else text + ".")
    return out
