"""Tab completion of a typed line, and the list a command missing its square prints: the same
candidates the Discord autocomplete offers (``bot/suggestions.py``: legal squares with their
cost, cards), plus buildings, ages, topics and numbers, in the reader's words.

A candidate is what is typed and what is shown: ``("C4", "C4 · Might: Keep, ...")``.
Completing a word offers the values of the parameters still free, in ``completion_order``:
the first parameter with a value that begins with what is typed wins, so ``/build keep C4 mi``
completes the age, and ``/build keep `` offers the ages, then the squares.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import engine
from engine import BuildingType, GameState

from .. import i18n
from ..commands import (
    COMMANDS,
    GROUPS,
    CommandSpec,
    Param,
    command_of,
    completion_order,
    format_value,
    local_name,
    read_partial,
    topic_choices,
)
from ..commands.lines import group_words
from ..commands.words import local_word, local_words, normalize, option_word, read_option
from ..service import format_names
from ..service.texts import choice_label
from ..suggestions import cards_suggestions, square_suggestions

Candidate = tuple[str, str]  # (what is typed, what is shown)

# the terminal's own words, in every language (the first is the English one)
LOCAL_WORDS = {"as": ("as", "comme", "als"), "random": ("random", "hasard", "zufall"),
               "quit": ("quit", "exit", "q", "sortir", "beenden")}
_LANG_INDEX = {"en": 0, "fr": 1, "de": 2}


def local_word_of(word: str) -> str | None:
    """Which of the terminal's own words (``as``, ``random``, ``quit``) ``word`` is."""
    key = normalize(word.lstrip("/"))
    return next((w for w, forms in LOCAL_WORDS.items() if key in forms), None)


def shown_local_word(word: str, locale: str | None) -> str:
    """The terminal's word ``word`` in the reader's language (``comme``, ``zufall``)."""
    forms = LOCAL_WORDS[word]
    if word == "quit":
        return {"fr": "sortir", "de": "beenden"}.get(i18n.language(locale), "quit")
    return forms[_LANG_INDEX[i18n.language(locale)]]


@dataclass(frozen=True)
class Table:
    """What completion knows of the moment: the game's state, the seat of whoever acts now,
    the players' names, and the reader's language."""

    state: GameState | None = None
    seat: int | None = None
    names: Mapping[int, str] = field(default_factory=dict)
    locale: str | None = None


def _begins(candidate: Candidate, typed: str) -> bool:
    return normalize(candidate[0]).startswith(normalize(typed))


def command_candidates(typed: str, locale: str | None) -> list[Candidate]:
    """The command words that begin with ``typed``: the reader's names and the English ones,
    the groups, and the terminal's own words; each shown with what it does."""
    out: dict[str, str] = {}
    for spec in COMMANDS.values():
        description = i18n.lookup(f"commands.{spec.name}.description", locale) or \
            spec.description
        for name in dict.fromkeys((local_name(spec.name, locale), spec.name)):
            out.setdefault(f"/{name}", f"/{name}: {description}")
    for group in GROUPS:
        local = i18n.lookup(f"groups.{group}.name", locale) or group
        out.setdefault(f"/{local}", f"/{local} …")
    for word in LOCAL_WORDS:
        for name in dict.fromkeys((shown_local_word(word, locale), word)):
            out.setdefault(f"/{name}", f"/{name}")
    found = [(v, label) for v, label in out.items() if _begins((v.lstrip("/"), ""),
                                                                typed.lstrip("/"))]
    return sorted(found)


def _raw(spec: CommandSpec, given: Mapping[str, Any]) -> dict[str, str]:
    """The arguments read so far as the suggestions want them: English words (``keep``)."""
    by_name = {p.name: p for p in spec.params}
    return {k: format_value(by_name[k], v) for k, v in given.items() if k in by_name}


def _buildings(spec: CommandSpec, param: Param, table: Table,
               given: Mapping[str, Any]) -> list[Candidate]:
    """The buildings, those with a legal square now first (a construct's, in its age)."""
    locale = table.locale
    fits: set[BuildingType] = set()
    if table.state is not None and table.seat is not None and spec.name == "build":
        ages = [given["age"]] if "age" in given else [engine.Age.MIGHT, engine.Age.FAITH]
        fits = {b for b in BuildingType for a in ages
                if engine.construct_options(table.state, table.seat, a, b)}
    out = []
    for btype in sorted(BuildingType, key=lambda b: b not in fits):
        spec_b = engine.BUILDINGS[btype]
        family = i18n.text(f"families.{spec_b.family.value}", locale)
        cost = i18n.text("suggest.cards", locale, family=family, count=spec_b.value)
        word = local_word("building", btype.value, locale)
        out.append((word, f"{word}: {cost}, {spec_b.size}\u00d7{spec_b.size}"))
    return out


def _numbers(spec: CommandSpec, param: Param, table: Table) -> list[Candidate]:
    state = table.state
    if spec.name == "choose" and state is not None and state.pending is not None:
        lang = table.locale
        return [(str(i), f"{i}: " + format_names(choice_label(o, lang), dict(table.names), lang))
                for i, o in enumerate(state.pending.options, 1)]
    low, high = param.minimum, param.maximum
    if low is None or high is None or high - low > 10:
        return []
    return [(str(n), str(n)) for n in range(low, high + 1)]


def values_of(spec: CommandSpec, param: Param, given: Mapping[str, Any],
              table: Table) -> list[Candidate]:
    """Every value parameter ``param`` of ``spec`` may take now, given the arguments read so
    far: legal squares and cards from the state, words in the reader's language."""
    locale, state, seat = table.locale, table.state, table.seat
    kind = param.kind
    if kind in ("square", "cards"):
        if state is None or seat is None:
            return []
        suggest = square_suggestions if kind == "square" else cards_suggestions
        return suggest(state, seat, spec.name, param.name, _raw(spec, given), locale)
    if kind == "building":
        return _buildings(spec, param, table, given)
    if kind in ("age", "level", "language"):
        shown = local_words(kind, locale, param.only or None)
        return [(w, w) for w in shown]
    if kind == "int":
        return _numbers(spec, param, table)
    if kind == "topic":
        return [(label, label) for _, label in topic_choices(COMMANDS, locale)]
    if kind == "flag":
        word = option_word(param.name, locale)
        return [(word, word)]
    if kind == "user":
        return [(name, name) for name in table.names.values()]
    return []


def argument_candidates(words: list[str], typed: str, table: Table) -> list[Candidate]:
    """The candidates for the word being typed (``typed``) after the complete ``words`` of
    the line (``words[0]`` the command, or a group's word then its member)."""
    name = command_of(words[0])
    rest = words[1:]
    if name is None:
        group = group_words().get(normalize(words[0].lstrip("/")))
        if group is None:
            return []
        if not rest:
            members = [local_name(s.name, table.locale) for s in COMMANDS.values()
                       if s.parent == group]
            return [(m, m) for m in members if _begins((m, ""), typed)]
        name, rest = command_of(rest[0]), rest[1:]
        if name is None:
            return []
    spec = COMMANDS[name]
    keyword = read_option(rest[-1], spec.keywords) if rest else None
    if keyword is not None:  # "pay " : the value of that option
        params = [p for p in spec.params if p.name == keyword]
        given = read_partial(spec, rest[:-1])
    else:
        given = read_partial(spec, rest)
        params = [p for p in completion_order(spec) if p.name not in given]
    for param in params:
        found = [c for c in values_of(spec, param, given, table) if _begins(c, typed)]
        if found:
            return found
    return []


def candidates(before: str, typed: str, table: Table) -> list[Candidate]:
    """The candidates for the word ``typed`` that ends the line, ``before`` being the line
    up to that word."""
    words = before.split()
    if not words:
        return command_candidates(typed, table.locale)
    return argument_candidates(words, typed, table)
