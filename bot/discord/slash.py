"""The slash commands, built from the command table of ``bot/commands/`` alone.

Each ``CommandSpec`` becomes one slash command (or a subcommand of its group, ``/game pause``):
its options in the table's ``form`` order, each declared by a ``ParamTransformer`` that gives
Discord the option's type, range, choices and autocomplete, and turns the submitted value into
the table's argument (a ``BuildingType``, an ``Age``, cards, a square...). The callback passes
those arguments straight to ``commands.execute`` through ``Host.run_interaction``, the
one path of every interaction. Names, descriptions and choices carry their catalogue key, and
``CatalogueTranslator`` gives Discord their French and German (``bot/i18n.py``).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import discord
from discord import AppCommandOptionType, app_commands
from discord.app_commands import locale_str

import engine
from engine import Age, BuildingType, EngineError

from .. import i18n
from ..commands import (
    COMMANDS,
    GROUPS,
    PREVIEWED,
    CommandSpec,
    Param,
    ParamKind,
    UserRef,
    command_label,
    convert,
    execute,
    format_line,
    topic_choices,
)
from ..service import LANGUAGE_NAMES
from ..suggestions import cards_suggestions, square_suggestions
from .host import Host

OPTION_TYPES: dict[ParamKind, AppCommandOptionType] = {
    "building": AppCommandOptionType.string,
    "square": AppCommandOptionType.string,
    "age": AppCommandOptionType.string,
    "cards": AppCommandOptionType.string,
    "topic": AppCommandOptionType.string,
    "language": AppCommandOptionType.string,
    "int": AppCommandOptionType.integer,
    "number": AppCommandOptionType.number,
    "hours": AppCommandOptionType.number,
    "flag": AppCommandOptionType.boolean,
    "user": AppCommandOptionType.user,
    "level": AppCommandOptionType.string,
    "seat": AppCommandOptionType.string,
}


# --- catalogue keys of what Discord shows -----------------------------------------------------


def command_key(spec: CommandSpec, what: str) -> str:
    return f"commands.{spec.name}.{what}"


def option_name_key(param: Param) -> str:
    return f"options.{param.name}"


def option_description_key(spec: CommandSpec, param: Param) -> str:
    return f"commands.{spec.name}.options.{param.name}"


def choice_key(param: Param, value: str) -> str:
    return f"choices.{param.kind}.{value}"


def choice_label(param: Param, value: str) -> str:
    """The English name of a choice (its value is the table's spelling)."""
    if param.kind == "building":
        return BuildingType(value).label
    if param.kind == "age":
        return Age[value.upper()].label
    if param.kind == "language":
        return LANGUAGE_NAMES[value]
    return value


def english_strings() -> dict[str, str]:
    """Every string the slash commands show, by catalogue key, in English (from the table)."""
    out: dict[str, str] = {}
    for group, description in GROUPS.items():
        out[f"groups.{group}.name"] = group
        out[f"groups.{group}.description"] = description
    for spec in COMMANDS.values():
        out[command_key(spec, "name")] = spec.name
        out[command_key(spec, "description")] = spec.description
        for p in spec.params:
            out[option_name_key(p)] = p.name
            out[option_description_key(spec, p)] = p.description
            for value in Param(p.name, p.kind, p.description).choices:
                out[choice_key(p, value)] = choice_label(p, value)
    return out


class CatalogueTranslator(app_commands.Translator):
    """Gives Discord the French and German of every name, description and choice, from the
    catalogue key each ``locale_str`` carries; English stays the default."""

    async def translate(self, string: locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        key = string.extras.get("key")
        if key is None or i18n.language(locale.value) == i18n.DEFAULT:
            return None
        return i18n.lookup(key, locale.value)


# --- options ---------------------------------------------------------------------------------


class OptionRefused(app_commands.TransformerError):
    """A submitted value the table cannot read; its text is the sentence for the player."""

    def __init__(self, value: Any, transformer: ParamTransformer, message: str) -> None:
        super().__init__(value, transformer.type, transformer)
        self.args = (message,)


class ParamTransformer(app_commands.Transformer):
    """One parameter of the table as a Discord option: type, range and choices for the
    declaration, and the typed value turned into the table's argument."""

    def __init__(self, spec: CommandSpec, param: Param) -> None:
        self.spec, self.param = spec, param

    @property
    def type(self) -> AppCommandOptionType:
        return OPTION_TYPES[self.param.kind]

    @property
    def min_value(self) -> int | None:
        return self.param.minimum if self.param.kind in ("int", "number", "hours") else None

    @property
    def max_value(self) -> int | None:
        return self.param.maximum if self.param.kind in ("int", "number", "hours") else None

    @property
    def choices(self) -> list[app_commands.Choice[int | float | str]] | None:
        values = self.param.choices
        if not values:
            return None
        return [app_commands.Choice(
            name=locale_str(choice_label(self.param, v), key=choice_key(self.param, v)), value=v)
            for v in values]

    @property
    def _error_display_name(self) -> str:
        return self.param.name

    async def transform(self, interaction: discord.Interaction[Any], value: Any) -> Any:
        kind = self.param.kind
        if kind == "int":
            return int(value)
        if kind in ("number", "hours"):
            return float(value)
        if kind == "flag":
            return bool(value)
        if kind == "user":
            return UserRef(value.id, getattr(value, "display_name", None) or value.name)
        locale = interaction.locale.value
        try:
            with i18n.reading(locale):  # his refusal in his language
                return convert(self.param, str(value))
        except ValueError as exc:  # the command as his client shows it (/construire)
            raise OptionRefused(value, self,
                                f"{command_label(self.spec, locale)}: {exc}.") from None


Suggest = Callable[[engine.GameState, int, str, str, Mapping[str, str], str | None],
                   list[tuple[str, str]]]


class SuggestingTransformer(ParamTransformer):
    """An option with autocomplete: ``suggest`` gives (value, label) pairs for the player's
    seat and the options filled so far (``square_suggestions``, ``cards_suggestions``)."""

    def __init__(self, bot: Host, spec: CommandSpec, param: Param,
                 suggest: Suggest) -> None:
        super().__init__(spec, param)
        self.bot, self.suggest = bot, suggest

    async def autocomplete(  # type: ignore[override]
        self, interaction: discord.Interaction[Any], value: str
    ) -> list[app_commands.Choice[str]]:
        filled = {k: str(v) for k, v in interaction.namespace if v is not None}
        try:
            _, state, seat = await self.bot.service.seat_state(interaction.channel_id or 0,
                                                               interaction.user.id)
        except EngineError:
            return []
        if seat is None:
            return []
        # up to ~0.1 s with nothing filled yet (benchmarks/bench_autocomplete.py): off the loop
        pairs = await asyncio.to_thread(self.suggest, state, seat, self.spec.name,
                                        self.param.name, filled, interaction.locale.value)
        return suggestions(pairs, str(value))


class TopicTransformer(ParamTransformer):
    """/help's topic: the fixed topics and every command's name, offered in the reader's
    language (more than Discord's 25 fixed choices, so autocompleted)."""

    async def autocomplete(  # type: ignore[override]
        self, interaction: discord.Interaction[Any], value: str
    ) -> list[app_commands.Choice[str]]:
        return suggestions(topic_choices(COMMANDS, interaction.locale.value), str(value))


# --- suggestions -------------------------------------------------------------------------------


def suggestions(
    choices: Sequence[tuple[str, str]], current: str
) -> list[app_commands.Choice[str]]:
    """At most 25 autocomplete choices whose value or label contains what is typed."""
    cur = current.strip().lower()
    out = [app_commands.Choice(name=label[:100], value=value) for value, label in choices
           if cur in value.lower() or cur in label.lower()]
    return out[:25]


# --- the commands ------------------------------------------------------------------------------


def transformer(bot: Host, spec: CommandSpec, param: Param) -> ParamTransformer:
    if param.kind == "square":
        return SuggestingTransformer(bot, spec, param, square_suggestions)
    if param.kind == "cards":
        return SuggestingTransformer(bot, spec, param, cards_suggestions)
    if param.kind == "topic":
        return TopicTransformer(spec, param)
    return ParamTransformer(spec, param)


def slash_command(bot: Host, spec: CommandSpec,
                  parent: app_commands.Group | None = None) -> app_commands.Command[Any, Any, Any]:
    """The slash command of one table entry; its callback runs the table's ``execute``."""

    async def callback(interaction: discord.Interaction[Any], /, **values: Any) -> None:
        args = {k: v for k, v in values.items() if v is not None}
        if spec.name == "create" and "reminder" not in args:
            args["reminder"] = bot.settings.reminder_hours  # KHRONOS_REMINDER_HOURS
        line = format_line(spec.name, args) if spec.name in PREVIEWED else None
        locale = interaction.locale.value
        if args.get("public") is True:  # /stats, /leaderboard asked for the channel: the
            await interaction.response.defer(thinking=True)  # answer follows a public defer
        await bot.run_interaction(
            interaction,
            lambda ctx: execute(bot.service, replace(ctx, locale=locale), spec.name, args),
            preview_line=line)

    params = [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_ONLY)]
    params += [
        inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY,
                          annotation=transformer(bot, spec, p),
                          default=inspect.Parameter.empty if p.required else None)
        for p in spec.form_params
    ]
    callback.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    callback.__discord_app_commands_param_description__ = {  # type: ignore[attr-defined]
        p.name: locale_str(p.description, key=option_description_key(spec, p))
        for p in spec.params
    }
    callback.__discord_app_commands_param_rename__ = {  # type: ignore[attr-defined]
        p.name: locale_str(p.name, key=option_name_key(p)) for p in spec.params
    }
    command: app_commands.Command[Any, Any, Any] = app_commands.Command(
        name=locale_str(spec.name, key=command_key(spec, "name")),
        description=locale_str(spec.description, key=command_key(spec, "description")),
        callback=callback, parent=parent)
    if parent is None and spec.guild_only:
        app_commands.guild_only(command)
    return command


def register_commands(bot: Host) -> None:
    """Every command of the table on ``bot.tree``: top-level ones, and groups (guild only)."""
    groups: dict[str, app_commands.Group] = {}
    for name, description in GROUPS.items():
        groups[name] = app_commands.guild_only(app_commands.Group(
            name=locale_str(name, key=f"groups.{name}.name"),
            description=locale_str(description, key=f"groups.{name}.description")))
    for spec in COMMANDS.values():
        if spec.parent is None:
            bot.tree.add_command(slash_command(bot, spec))
        else:
            group = groups[spec.parent]
            group.add_command(slash_command(bot, spec, group))
    for group in groups.values():
        bot.tree.add_command(group)
