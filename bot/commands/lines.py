"""Typed command lines (the terminal's, and what a Confirm button carries) and running a
command of the table.

In the terminal a command is typed like the slash command it mirrors::

    /build keep C4 might            /upgrade C4 castle might at B3      /travel 1 faith
    /populate L12 2                 /renovate C4                        /demolish H2 might
    /exchange mmr                   /holdem take cc give mr             /end discard m
    /choose 2                       /undo  /hand  /status  /history  /board  /help

Parameters are given in order; optional ones may be skipped, and any may be named
(``at B3``, ``pay mr``, ``age:might``). Cards are letters: m military, r religious, c civil.
The commands that Discord shows in a group (``/game pause``) may be typed with or without
the group's word.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

from engine import Action, MalformedAction

from .. import i18n
from ..service import GameService, Outcome
from .handlers import Context
from .params import OutOfRange, convert, excerpt, format_value
from .table import ALIASES, COMMANDS, GROUPS, CommandSpec, command_label


@dataclass(frozen=True)
class Parsed:
    name: str
    args: dict[str, Any]


def parse_line(line: str) -> Parsed:
    """``"/build keep C4 might"`` -> Parsed("build", {...}). Raises MalformedAction."""
    try:
        tokens = shlex.split(line.strip())
    except ValueError as exc:
        raise MalformedAction(i18n.private("parse.unreadable", error=exc)) from None
    if not tokens:
        raise MalformedAction(i18n.private("parse.empty"))
    word = tokens[0].lstrip("/!").lower()
    if word in GROUPS:  # "/game pause": the Discord spelling, also fine in the terminal
        members = [s.name for s in COMMANDS.values() if s.parent == word]
        if len(tokens) < 2 or tokens[1].lower() not in members:
            raise MalformedAction(i18n.private("parse.group", group=word,
                                               names=", ".join(members)))
        tokens = tokens[1:]
        word = tokens[0].lower()
    word = ALIASES.get(word, word)
    spec = COMMANDS.get(word)
    if spec is None:
        raise MalformedAction(i18n.private("parse.unknown", name=excerpt(word)[1:-1]))
    return Parsed(spec.name, parse_args(spec, tokens[1:]))


def parse_args(spec: CommandSpec, tokens: list[str]) -> dict[str, Any]:
    by_name = {p.name: p for p in spec.params}
    args: dict[str, Any] = {}
    positional: list[str] = []
    i = 0
    try:
        while i < len(tokens):
            tok = tokens[i]
            key, sep, value = tok.partition(":") if ":" in tok else tok.partition("=")
            if sep and key.lower() in by_name:
                args[key.lower()] = convert(by_name[key.lower()], value)
            elif tok.lower() in spec.keywords:
                if i + 1 >= len(tokens):
                    raise ValueError(i18n.private("parse.after", value=excerpt(tok)))
                args[tok.lower()] = convert(by_name[tok.lower()], tokens[i + 1])
                i += 1
            else:
                positional.append(tok)
            i += 1
        free = [p for p in spec.params if p.name not in args]
        for tok in positional:
            while free:
                p = free.pop(0)
                try:
                    args[p.name] = convert(p, tok)
                    break
                except OutOfRange:
                    raise  # a value of the right kind, out of range: never read as the next
                except ValueError:
                    if p.required or not free:
                        raise
            else:
                raise ValueError(i18n.private("parse.too_many", value=excerpt(tok)))
    except ValueError as exc:
        usage = i18n.private("parse.usage", usage=spec.usage) if spec.usage else ""
        raise MalformedAction(f"{command_label(spec)}: {exc}.{usage}") from None
    missing = [p.name for p in spec.params if p.required and p.name not in args]
    if missing:
        usage = i18n.private("parse.usage", usage=spec.usage) if spec.usage else ""
        raise MalformedAction(i18n.private("parse.missing", command=command_label(spec)[1:],
                                           names=", ".join(missing)) + usage)
    return args


def format_line(name: str, args: dict[str, Any]) -> str:
    """The typed line of a command with these converted ``args``: ``parse_line`` reads it back
    as the same arguments (a Confirm button carries it)."""
    spec = COMMANDS[name]
    words = [f"/{name}"] + [f"{p.name}:{format_value(p, args[p.name])}" for p in spec.params
                            if args.get(p.name) is not None]
    return " ".join(words)


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
