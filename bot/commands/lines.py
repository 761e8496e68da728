"""Typed command lines (the terminal's, and what a Confirm button carries) and running a
command of the table.

In the terminal a command is typed like the slash command it mirrors::

    /build keep C4 might            /upgrade C4 castle might at B3      /travel 1 faith
    /populate L12 2                 /renovate C4                        /demolish H2 might
    /exchange mmr                   /holdem take cc give mr             /end discard m
    /choose 2                       /undo  /hand  /status  /history  /board  /help

The words may come in any order where they cannot be confused (``/build might keep C4``,
``/travel faith 1``): each word goes to the first parameter still free that can read it, a
parameter of a definite kind (a square, an age, a building, cards...) before one that takes
any word (a user's name); two words of one kind (the squares of ``/upgrade C4 castle might
B3``) fill their parameters in the table's order. Optional parameters may be skipped, and any
may be named (``at B3``, ``pay mr``, ``age:might``). Cards are letters: m military, r
religious, c civil. The commands that Discord shows in a group (``/game pause``) may be typed
with or without the group's word. Command, option, building and age names may be typed in
English, French or German (``/construire donjon C4 puissance``), accents optional.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engine import (
    Action,
    Choose,
    Construct,
    Demolish,
    EndTurn,
    Exchange,
    HoldemSwap,
    MalformedAction,
    Populate,
    Renovate,
    Travel,
    Upgrade,
)

from .. import i18n
from ..service import GameService, Outcome
from . import words
from .handlers import Context
from .helptext import localize_line
from .params import OutOfRange, Param, convert, excerpt, format_value
from .spec import CommandSpec
from .table import ALIASES, COMMANDS, GROUPS, command_label

CATCH_ALL = ("user", "seat", "topic")  # kinds that read any word: the last to be offered one


@dataclass(frozen=True)
class Parsed:
    name: str
    args: dict[str, Any]


class MissingArgs(MalformedAction):
    """A command typed without some required parameters: ``command``, the ``missing``
    parameters' names and the arguments read so far, ``given`` (a front end may list what
    fits)."""

    def __init__(self, message: str, command: str, missing: list[str],
                 args: dict[str, Any]) -> None:
        super().__init__(message)
        self.command, self.missing, self.given = command, missing, args


def command_words() -> dict[str, str]:
    """Every typed name of a command (English, aliases, French, German; normalized) → its
    name in the table."""
    return words.name_index("commands", tuple(COMMANDS), tuple(ALIASES.items()))


def group_words() -> dict[str, str]:
    """Every typed name of a Discord group (``game``, ``partie``, ``spiel``) → the group."""
    return words.name_index("groups", tuple(GROUPS))


def command_of(word: str) -> str | None:
    """The table's command that a typed word names (``/construire`` → ``build``), or None."""
    return command_words().get(words.normalize(word.lstrip("/!")))


def local_name(name: str, locale: str | None) -> str:
    """A command's name as the reader types it (``construire``; English by default)."""
    return i18n.lookup(f"commands.{name}.name", locale) or name


def parse_line(line: str) -> Parsed:
    """``"/build keep C4 might"`` -> Parsed("build", {...}). Raises MalformedAction."""
    try:
        tokens = shlex.split(line.strip())
    except ValueError as exc:
        raise MalformedAction(i18n.private("parse.unreadable", error=exc)) from None
    if not tokens:
        raise MalformedAction(i18n.private("parse.empty"))
    group = group_words().get(words.normalize(tokens[0].lstrip("/!")))
    if group is not None:  # "/game pause": the Discord spelling, also fine in the terminal
        members = [s.name for s in COMMANDS.values() if s.parent == group]
        member = command_of(tokens[1]) if len(tokens) > 1 else None
        if member not in members:
            names = ", ".join(local_name(m, i18n.reader()) for m in members)
            raise MalformedAction(i18n.private("parse.group", group=tokens[0].lstrip("/!"),
                                               names=names))
        tokens = tokens[1:]
    name = command_of(tokens[0])
    if name is None:
        raise MalformedAction(i18n.private("parse.unknown",
                                           name=excerpt(tokens[0].lstrip("/!"))[1:-1]))
    spec = COMMANDS[name]
    return Parsed(spec.name, parse_args(spec, tokens[1:]))


def _usage(spec: CommandSpec) -> str:
    """" Usage: /build keep C4 might", in the reader's words."""
    if not spec.usage:
        return ""
    return i18n.private("parse.usage", usage=localize_line(spec.usage, i18n.reader()))


def _read_tokens(spec: CommandSpec,
                 tokens: list[str]) -> Iterator[tuple[str, str | None, str | None]]:
    """Each typed word as (word, parameter, text): a named option (``age:might``) or a keyword
    and the word after it (``pay mr``) give their parameter and its text (a keyword with no
    word after it: None); any other word gives no parameter and its own text."""
    by_name = {p.name: p for p in spec.params}
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        key, sep, value = tok.partition(":") if ":" in tok else tok.partition("=")
        named = words.read_option(key, by_name) if sep else None
        keyword = words.read_option(tok, spec.keywords) if not sep else None
        if named is not None:
            yield tok, named, value
        elif keyword is not None:
            yield tok, keyword, tokens[i + 1] if i + 1 < len(tokens) else None
            i += 1
        else:
            yield tok, None, tok
        i += 1


def _named(spec: CommandSpec, tokens: list[str]) -> tuple[dict[str, Any], list[str]]:
    """The parameters named in ``tokens`` (``age:might``, ``pay mr``, ``payer:mr``), converted,
    and the other tokens in order. Raises ValueError with a sentence."""
    by_name = {p.name: p for p in spec.params}
    args: dict[str, Any] = {}
    positional: list[str] = []
    for tok, name, value in _read_tokens(spec, tokens):
        if name is None:
            positional.append(tok)
        elif value is None:
            raise ValueError(i18n.private("parse.after", value=excerpt(tok)))
        else:
            args[name] = convert(by_name[name], value)
    return args, positional


def _place(tok: str, free: list[Param], args: dict[str, Any]) -> None:
    """Give ``tok`` to the first free parameter that reads it (a definite kind before a
    catch-all one). A value of the right kind but out of range is refused, never read as
    another parameter (``/create 6`` is not "reminder 6 h"); a word no parameter reads is
    refused with the first free parameter's reason."""
    first_error: ValueError | None = None
    for catch_all in (False, True):
        for p in free:
            if (p.kind in CATCH_ALL) != catch_all:
                continue
            try:
                args[p.name] = convert(p, tok)
            except OutOfRange:
                raise
            except ValueError as exc:
                first_error = first_error or exc
                continue
            free.remove(p)
            return
    if first_error is not None:
        raise first_error
    raise ValueError(i18n.private("parse.too_many", value=excerpt(tok)))


def parse_args(spec: CommandSpec, tokens: list[str]) -> dict[str, Any]:
    """The converted arguments of ``spec`` from typed ``tokens`` (see the module's text).
    Raises MalformedAction, or MissingArgs when required parameters are left out."""
    try:
        args, positional = _named(spec, tokens)
        free = [p for p in spec.params if p.name not in args]
        for tok in positional:
            if not free:
                raise ValueError(i18n.private("parse.too_many", value=excerpt(tok)))
            _place(tok, free, args)
    except ValueError as exc:
        raise MalformedAction(i18n.private("parse.refused", command=command_label(
            spec, i18n.reader())[1:], error=exc) + _usage(spec)) from None
    missing = [p.name for p in spec.params if p.required and p.name not in args]
    if missing:
        shown = ", ".join(words.option_word(m, i18n.reader()) for m in missing)
        raise MissingArgs(i18n.private("parse.missing", command=command_label(
            spec, i18n.reader())[1:], names=shown) + _usage(spec), spec.name, missing, args)
    return args


def read_partial(spec: CommandSpec, tokens: list[str]) -> dict[str, Any]:
    """The arguments ``tokens`` give so far, leaving out the words that cannot be read (what
    Tab completion needs to know of a line still being typed)."""
    by_name = {p.name: p for p in spec.params}
    free = list(spec.params)
    args: dict[str, Any] = {}
    for tok, name, value in _read_tokens(spec, tokens):
        taken = name if value is not None else None  # a keyword still waiting for its word
        try:
            if name is not None and value is not None:
                args[name] = convert(by_name[name], value)
            elif name is None and free:
                _place(tok, free, args)
        except ValueError:
            pass
        free = [p for p in free if p.name not in args and p.name != taken]
    return args


def completion_order(spec: CommandSpec) -> list[Param]:
    """The order in which Tab offers a command's parameters: the required ones, squares last
    (a square depends on the building and the age), then the optional ones."""
    required = [p for p in spec.params if p.required]
    return ([p for p in required if p.kind != "square"] + [p for p in required
                                                             if p.kind == "square"]
            + [p for p in spec.params if not p.required])


def format_line(name: str, args: dict[str, Any]) -> str:
    """The typed line of a command with these converted ``args``: ``parse_line`` reads it back
    as the same arguments (a Confirm button carries it)."""
    spec = COMMANDS[name]
    parts = [f"/{name}"] + [f"{p.name}:{format_value(p, args[p.name])}" for p in spec.params
                            if args.get(p.name) is not None]
    return " ".join(parts)


def _letters(cards: tuple[Any, ...] | None) -> str:
    return format_value(Param("cards", "cards", ""), tuple(cards or ()))


def action_line(action: Action, locale: str | None = None) -> str:
    """The line a player types for an engine action, in the reader's words
    (``/build keep C4 might pay c``, ``/construire donjon C4 puissance payer c``)."""
    def w(kind: str, value: Any) -> str:
        return words.local_word(kind, value.value if kind == "building" else
                                value.label.lower(), locale)

    def opt(name: str) -> str:
        return words.option_word(name, locale)

    match action:
        case Construct():
            parts = ["build", w("building", action.building), action.square,
                     w("age", action.age)]
            if action.surcharge:
                parts += [opt("pay"), _letters(action.surcharge)]
        case Upgrade():
            parts = ["upgrade", action.square, w("building", action.to), w("age", action.age)]
            if action.at:
                parts += [opt("at"), action.at]
            if action.surcharge:
                parts += [opt("pay"), _letters(action.surcharge)]
        case Travel():
            adventurer = [] if action.adventurer is None else [str(action.adventurer + 1)]
            parts = ["travel", *adventurer, w("age", action.to)]
        case Demolish():
            parts = ["demolish", action.square, w("age", action.age)]
        case Populate():
            parts = ["populate", action.square, str(action.count)]
        case Renovate():
            parts = ["renovate", action.square, *([str(action.cards)] if action.cards else [])]
        case Exchange():
            parts = ["exchange", _letters(action.discard)]
        case HoldemSwap():
            parts = ["holdem", opt("take"), _letters(action.take), opt("give"),
                     _letters(action.give)]
        case EndTurn():
            parts = ["end", *([opt("discard"), _letters(action.discard)] if action.discard
                              else [])]
        case Choose():
            parts = ["choose", str(action.option + 1)]
        case _:
            raise MalformedAction(i18n.private("parse.not_a_move", name=action.kind))
    return "/" + " ".join([local_name(parts[0], locale), *parts[1:]])


def to_action(name: str, args: dict[str, Any]) -> Action:
    """The engine action for a turn command's arguments."""
    spec = COMMANDS.get(name)
    if spec is None or spec.action is None:
        raise MalformedAction(i18n.private("parse.not_a_move", name=name))
    return spec.action(args)


async def execute(service: GameService, ctx: Context, name: str, args: dict[str, Any]) -> Outcome:
    """Run command ``name`` with converted ``args`` (see ``COMMANDS``) for ``ctx``'s user; what
    is said to him alone (the reply, a refusal) is in his language (``ctx.locale``)."""
    spec = COMMANDS.get(name)
    with i18n.reading(ctx.locale):
        if spec is None:
            raise MalformedAction(i18n.private("parse.unknown", name=name))
        return await spec.handler(service, ctx, args)


async def run_line(service: GameService, ctx: Context, line: str) -> Outcome:
    """Parse and run one typed command line (a refusal in ``ctx.locale``'s language)."""
    with i18n.reading(ctx.locale):
        parsed = parse_line(line)
    return await execute(service, ctx, parsed.name, parsed.args)
