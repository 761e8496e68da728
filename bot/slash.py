"""The slash commands: each declared once over the command table of ``textcommands``.

Every callback turns its typed options into the table's parameters and runs them through
``KhronosBot.run_interaction``, the one path of every interaction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from engine import Age, BuildingType

from .service import Outcome
from .textcommands import COMMANDS, HELP_TOPICS, Context, UserRef, execute, parse_args

if TYPE_CHECKING:
    from .discord_app import KhronosBot

AGE_CHOICES = [app_commands.Choice(name=a.label, value=a.label.lower()) for a in Age]
BOARD_AGES = AGE_CHOICES[:2]
BUILDING_CHOICES = [app_commands.Choice(name=b.label, value=b.value) for b in BuildingType]


# --- slash commands --------------------------------------------------------------------------


def _tokens(values: dict[str, Any]) -> list[str]:
    return [f"{k}:{v}" for k, v in values.items() if v is not None and v is not False]


def _line(name: str, values: dict[str, Any]) -> str:
    return " ".join([f"/{name}", *_tokens(values)])


def _describe(name: str) -> Callable[[Any], Any]:
    spec = COMMANDS[name]
    return app_commands.describe(**{p.name: p.description[:100] for p in spec.params})


async def _run(bot: KhronosBot, interaction: discord.Interaction[Any], name: str,
               values: dict[str, Any], *, preview: bool = False) -> None:
    spec = COMMANDS[name]

    async def call(ctx: Context) -> Outcome:
        args = parse_args(spec, _tokens(values))
        return await execute(bot.service, ctx, name, args)

    line = _line(name, values) if preview else None
    await bot.run_interaction(interaction, call, preview_line=line)


def _ref(user: discord.abc.User) -> UserRef:
    """A user option (a Member in a server, else a User) as the service's id and name."""
    return UserRef(user.id, getattr(user, "display_name", None) or user.name)


async def _run_args(bot: KhronosBot, interaction: discord.Interaction[Any], name: str,
                    args: dict[str, Any]) -> None:
    """``_run`` for options that are already values (users), not text."""
    await bot.run_interaction(interaction, lambda ctx: execute(bot.service, ctx, name, args))


def suggestions(
    choices: Sequence[tuple[str, str]], current: str
) -> list[app_commands.Choice[str]]:
    cur = current.strip().lower()
    out = [app_commands.Choice(name=label[:100], value=value) for value, label in choices
           if cur in value.lower() or cur in label.lower()]
    return out[:25]


def register_commands(bot: KhronosBot) -> None:
    tree = bot.tree

    # --- lobby ---
    @tree.command(name="create", description=COMMANDS["create"].description)
    @_describe("create")
    async def create(interaction: discord.Interaction[Any],
                     players: app_commands.Range[int, 2, 5] | None = None,
                     holdem: bool = False,
                     reminder: app_commands.Range[float, 1, 720] | None = None,
                     deadline: app_commands.Range[float, 1, 720] | None = None) -> None:
        if reminder is None:  # the server's default (KHRONOS_REMINDER_HOURS)
            reminder = bot.settings.reminder_hours
        await _run(bot, interaction, "create", {"players": players, "holdem": holdem or None,
                                                 "reminder": reminder, "deadline": deadline})

    for simple in ("join", "leave", "start", "undo", "hand", "status", "abandon",
                   "rebuild", "mygames", "mute", "unmute", "back", "pause", "resume"):
        _simple_command(bot, simple)

    # --- reminders, absence, the game's keepers ---
    @tree.command(name="away", description=COMMANDS["away"].description)
    @_describe("away")
    async def away(interaction: discord.Interaction[Any],
                   hours: app_commands.Range[float, 1, 336]) -> None:
        await _run(bot, interaction, "away", {"hours": hours})

    @tree.command(name="settings", description=COMMANDS["settings"].description)
    @_describe("settings")
    async def settings(interaction: discord.Interaction[Any],
                       reminder: app_commands.Range[float, 1, 720] | None = None,
                       deadline: app_commands.Range[float, 0, 720] | None = None) -> None:
        await _run(bot, interaction, "settings", {"reminder": reminder, "deadline": deadline})

    @tree.command(name="replace", description=COMMANDS["replace"].description)
    @_describe("replace")
    async def replace_(interaction: discord.Interaction[Any], old: discord.User,
                       new: discord.User) -> None:
        await _run_args(bot, interaction, "replace", {"old": _ref(old), "new": _ref(new)})

    @tree.command(name="kick", description=COMMANDS["kick"].description)
    @_describe("kick")
    async def kick(interaction: discord.Interaction[Any], player: discord.User) -> None:
        await _run_args(bot, interaction, "kick", {"player": _ref(player)})

    # --- moves ---
    @tree.command(name="build", description=COMMANDS["build"].description)
    @_describe("build")
    @app_commands.choices(building=BUILDING_CHOICES, age=BOARD_AGES)
    async def build(interaction: discord.Interaction[Any], building: str, square: str, age: str,
                    pay: str | None = None) -> None:
        await _run(bot, interaction, "build", {"building": building, "square": square,
                                                "age": age, "pay": pay}, preview=True)

    @build.autocomplete("square")
    async def build_square(interaction: discord.Interaction[Any], current: str
                           ) -> list[app_commands.Choice[str]]:
        ns = interaction.namespace
        return await bot.autocomplete(interaction, current, "build", ns.building, ns.age)

    @tree.command(name="upgrade", description=COMMANDS["upgrade"].description)
    @_describe("upgrade")
    @app_commands.choices(to=BUILDING_CHOICES, age=BOARD_AGES)
    async def upgrade(interaction: discord.Interaction[Any], square: str, to: str, age: str,
                      at: str | None = None, pay: str | None = None) -> None:
        await _run(bot, interaction, "upgrade", {"square": square, "to": to, "age": age,
                                                  "at": at, "pay": pay}, preview=True)

    @upgrade.autocomplete("square")
    async def upgrade_square(interaction: discord.Interaction[Any], current: str
                             ) -> list[app_commands.Choice[str]]:
        ns = interaction.namespace
        return await bot.autocomplete(interaction, current, "upgrade", ns.to, ns.age)

    @upgrade.autocomplete("at")
    async def upgrade_at(interaction: discord.Interaction[Any], current: str
                         ) -> list[app_commands.Choice[str]]:
        ns = interaction.namespace
        return await bot.autocomplete(interaction, current, "upgrade_at", ns.to, ns.age,
                                      ns.square)

    @tree.command(name="demolish", description=COMMANDS["demolish"].description)
    @_describe("demolish")
    @app_commands.choices(age=BOARD_AGES)
    async def demolish(interaction: discord.Interaction[Any], square: str, age: str) -> None:
        await _run(bot, interaction, "demolish", {"square": square, "age": age})

    @demolish.autocomplete("square")
    async def demolish_square(interaction: discord.Interaction[Any], current: str
                              ) -> list[app_commands.Choice[str]]:
        return await bot.autocomplete(interaction, current, "demolish", None,
                                      interaction.namespace.age)

    @tree.command(name="populate", description=COMMANDS["populate"].description)
    @_describe("populate")
    async def populate(interaction: discord.Interaction[Any], square: str,
                       count: app_commands.Range[int, 1, 4] | None = None) -> None:
        await _run(bot, interaction, "populate", {"square": square, "count": count})

    @populate.autocomplete("square")
    async def populate_square(interaction: discord.Interaction[Any], current: str
                              ) -> list[app_commands.Choice[str]]:
        return await bot.autocomplete(interaction, current, "populate", None, "reason")

    @tree.command(name="renovate", description=COMMANDS["renovate"].description)
    @_describe("renovate")
    async def renovate(interaction: discord.Interaction[Any], square: str,
                       cards: app_commands.Range[int, 1, 2] | None = None) -> None:
        await _run(bot, interaction, "renovate", {"square": square, "cards": cards})

    @renovate.autocomplete("square")
    async def renovate_square(interaction: discord.Interaction[Any], current: str
                              ) -> list[app_commands.Choice[str]]:
        return await bot.autocomplete(interaction, current, "renovate", None, "reason")

    @tree.command(name="travel", description=COMMANDS["travel"].description)
    @_describe("travel")
    @app_commands.choices(age=AGE_CHOICES)
    async def travel(interaction: discord.Interaction[Any], age: str,
                     adventurer: app_commands.Range[int, 1, 2] | None = None) -> None:
        await _run(bot, interaction, "travel", {"age": age, "adventurer": adventurer})

    @tree.command(name="exchange", description=COMMANDS["exchange"].description)
    @_describe("exchange")
    async def exchange(interaction: discord.Interaction[Any], cards: str) -> None:
        await _run(bot, interaction, "exchange", {"cards": cards})

    @tree.command(name="holdem", description=COMMANDS["holdem"].description)
    @_describe("holdem")
    async def holdem(interaction: discord.Interaction[Any], take: str, give: str) -> None:
        await _run(bot, interaction, "holdem", {"take": take, "give": give})

    @tree.command(name="end", description=COMMANDS["end"].description)
    @_describe("end")
    async def end(interaction: discord.Interaction[Any], discard: str | None = None) -> None:
        await _run(bot, interaction, "end", {"discard": discard})

    @tree.command(name="choose", description=COMMANDS["choose"].description)
    @_describe("choose")
    async def choose(interaction: discord.Interaction[Any],
                     option: app_commands.Range[int, 1, 99]) -> None:
        await _run(bot, interaction, "choose", {"option": option})

    @tree.command(name="board", description=COMMANDS["board"].description)
    @_describe("board")
    @app_commands.choices(age=AGE_CHOICES)
    async def board(interaction: discord.Interaction[Any], age: str | None = None,
                    move: app_commands.Range[int, 1, 1_000_000] | None = None) -> None:
        await _run(bot, interaction, "board", {"age": age, "move": move})

    @tree.command(name="help", description=COMMANDS["help"].description)
    @_describe("help")
    @app_commands.choices(topic=[app_commands.Choice(name=t, value=t) for t in HELP_TOPICS])
    async def help_command(interaction: discord.Interaction[Any], topic: str | None = None
                           ) -> None:
        await _run(bot, interaction, "help", {"topic": topic})

    @tree.command(name="history", description=COMMANDS["history"].description)
    @_describe("history")
    async def history(interaction: discord.Interaction[Any],
                      count: app_commands.Range[int, 1, 100] | None = None) -> None:
        await _run(bot, interaction, "history", {"count": count})


def _simple_command(bot: KhronosBot, name: str) -> None:
    async def callback(interaction: discord.Interaction[Any]) -> None:
        await _run(bot, interaction, name, {})

    bot.tree.add_command(app_commands.Command(
        name=name, description=COMMANDS[name].description, callback=callback))
