"""The help both front ends show, in the reader's language: ``/help`` (every command, made
from the table), ``/help rules`` (the rules in short), ``/help buildings`` (every building:
size, cost, where it ripples; terrain surcharges; printed hamlets) and ``/help <command>``
(its options, described, and an example). The table passes itself in (``commands``), so
that this module needs no import of it.
"""

from __future__ import annotations

from collections.abc import Mapping

import engine
from engine import BuildingType, Family, MalformedAction

from .. import i18n
from . import words
from .params import excerpt
from .spec import CommandSpec

HELP_GROUPS = ("lobby", "turn", "info", "self", "admin")
TOPICS = words.TOPICS  # commands, rules, buildings; and every command's name
TIMES = "\u00d7"  # the multiplication sign of "2 by 2"
_LETTER = {Family.MILITARY: "m", Family.RELIGIOUS: "r", Family.CIVIL: "c"}


def rules_text(locale: str | None = None) -> str:
    """/help rules: the rules in short, in the language of ``locale`` (English by default)."""
    return i18n.text("help.rules", locale)


def _counted(key: str, count: int, locale: str | None, **params: object) -> str:
    one = count in (0, 1) if i18n.language(locale) == "fr" else count == 1
    return i18n.text(f"{key}.{'one' if one else 'other'}", locale, count=count, **params)


def localize_line(line: str, locale: str | None) -> str:
    """A typed example of the table (``/build keep C4 might``) in the reader's words
    (``/construire donjon C4 puissance``): command, group, option, building, age, level and
    topic names; squares, numbers, cards and users stay as they are."""
    if i18n.language(locale) == i18n.DEFAULT:
        return line
    out: list[str] = []
    command_next = False  # the word after a group's word is its member command
    for tok in line.split(" "):
        key, sep, value = tok.partition(":")
        if tok.startswith("/") or command_next:
            name = tok.lstrip("/")
            group = i18n.lookup(f"groups.{name}.name", locale) if tok.startswith("/") else None
            local = group or i18n.lookup(f"commands.{name}.name", locale) or name
            out.append(("/" if tok.startswith("/") else "") + local)
            command_next = group is not None
        elif sep and value:
            out.append(f"{words.option_word(key, locale)}:{_local_value(value, locale)}")
        else:
            out.append(_local_value(tok, locale))
    return " ".join(out)


def _local_value(tok: str, locale: str | None) -> str:
    for kind in ("building", "age", "level", "topic"):
        forms = words.spellings(kind)
        if words.normalize(tok) in forms and tok.isalpha():
            return words.local_word(kind, forms[words.normalize(tok)], locale)
    if tok in ("pay", "at", "take", "give", "discard"):
        return words.option_word(tok, locale)
    return tok


def help_text(commands: Mapping[str, CommandSpec], locale: str | None = None) -> str:
    """The command reference, in the language of ``locale`` (a Discord locale; English by
    default): each command's typed example in the reader's words, and its description."""
    lines = [i18n.text("help.intro", locale)]
    for group in HELP_GROUPS:
        lines.append(i18n.text(f"help.groups.{group}", locale))
        for spec in commands.values():
            if spec.group != group:
                continue
            usage = spec.usage or f"/{spec.path}"
            left = localize_line(usage, locale)
            description = i18n.lookup(f"commands.{spec.name}.description",
                                      locale) or spec.description
            lines.append(f"  {left:34} {description}")
    lines.append(i18n.text("help.topics", locale))
    lines.append(i18n.text("help.languages", locale))
    lines.append(i18n.text("help.cards", locale))
    return "\n".join(lines)


def _ripple(btype: BuildingType, locale: str | None) -> str:
    spec = engine.BUILDINGS[btype]
    if spec.size == 1:
        return i18n.text("help.buildings.ripple_none", locale)
    if spec.family is Family.CIVIL:
        return i18n.text("help.buildings.ripple_civil", locale)
    return i18n.text("help.buildings.ripple_owned", locale)


def buildings_text(locale: str | None = None) -> str:
    """/help buildings: each building's family, size, cost and ripple, then the terrain
    surcharges (R18), the bonus (R17), printed hamlets and Reason, in the reader's words."""
    names = {b: i18n.lookup(f"choices.building.{b.value}", locale) or b.label
             for b in BuildingType}
    width = max(len(n) for n in names.values()) + 2
    lines = [i18n.text("help.buildings.intro", locale)]
    for family in Family:
        label = i18n.text(f"help.buildings.{family.value}", locale, letter=_LETTER[family])
        lines.append(label)
        for btype, spec in engine.BUILDINGS.items():
            if spec.family is not family:
                continue
            cost = _counted("help.buildings.cost", spec.value, locale)
            lines.append(f"  {names[btype]:{width}}{spec.size}{TIMES}{spec.size}  {cost:10} "
                         f"{_ripple(btype, locale)}")
    for key in ("square", "bonus", "terrain", "pay", "printed", "reason", "where"):
        lines.append(i18n.text(f"help.buildings.{key}", locale))
    return "\n".join(lines)


def command_help(spec: CommandSpec, locale: str | None = None) -> str:
    """/help <command>: its typed form, description, each option described, an example."""
    name = i18n.lookup(f"commands.{spec.name}.name", locale) or spec.name
    group = (i18n.lookup(f"groups.{spec.parent}.name", locale) or spec.parent
             if spec.parent else None)
    parts = [f"/{group} {name}" if group else f"/{name}"]
    for p in spec.params:
        word = words.option_word(p.name, locale)
        parts.append(word if p.required else f"[{word}]")
    lines = [" ".join(parts),
             i18n.lookup(f"commands.{spec.name}.description", locale) or spec.description]
    optional = " " + i18n.text("help.optional", locale)
    for p in spec.params:
        described = (i18n.lookup(f"commands.{spec.name}.options.{p.name}", locale)
                     or p.description)
        if p.kind in ("building", "level", "language"):
            described += " (" + ", ".join(words.local_words(p.kind, locale)) + ")"
        name = words.option_word(p.name, locale) + ("" if p.required else optional)
        lines.append("  " + i18n.text("help.option", locale, name=name, description=described))
        if p.kind == "building":
            lines.append("    " + i18n.text("help.see_buildings", locale))
    if spec.usage:
        lines.append(i18n.text("help.example", locale, usage=localize_line(spec.usage, locale)))
    if len(spec.params) > 1:
        lines.append(i18n.text("help.any_order", locale))
    return "\n".join(lines)


def topic_text(topic: str | None, commands: Mapping[str, CommandSpec],
               aliases: Mapping[str, str], locale: str | None = None) -> str:
    """The help on ``topic`` (None: every command). Raises MalformedAction naming the
    topics when ``topic`` is none of them."""
    if topic is None:
        return help_text(commands, locale)
    fixed = words.read_word("topic", topic, prefix=False)
    if fixed == "rules":
        return rules_text(locale)
    if fixed == "buildings":
        return buildings_text(locale)
    if fixed == "commands":
        return help_text(commands, locale)
    index = words.name_index("commands", tuple(commands), tuple(aliases.items()))
    name = index.get(words.normalize(topic.lstrip("/")))
    if name is None:
        names = ", ".join(words.local_words("topic", locale))
        raise MalformedAction(i18n.private("parse.topic", value=excerpt(topic), names=names))
    return command_help(commands[name], locale)


def topic_choices(commands: Mapping[str, CommandSpec],
                  locale: str | None = None) -> list[tuple[str, str]]:
    """(value, label) of every help topic in the reader's words: the fixed topics, then each
    command (for Discord's autocomplete and the terminal's Tab)."""
    out = [(t, words.local_word("topic", t, locale)) for t in TOPICS]
    for spec in commands.values():
        local = i18n.lookup(f"commands.{spec.name}.name", locale) or spec.name
        out.append((spec.name, local))
    return out
