"""The Discord adapter (discord.py 2.x): thin slash commands over the game service (style 10).

Every command acknowledges at once (a private "thinking" defer), then parses its options with
the same vocabulary as the terminal (``textcommands``), calls the service, and delivers the
``Outcome`` only after the service has committed: one public post with the boards image (which
pings nobody), a new message that mentions only the next player, hands and choices by DM.
Buttons carry their state in their ``custom_id`` (``DynamicItem``), so they keep working after a
restart. Engine refusals become private replies; anything else is logged with a short apology.
"""

from __future__ import annotations

import asyncio
import io
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

import engine
import render
from engine import EngineError

from .dispatcher import TimerDispatcher
from .health import Heartbeat, heartbeat_path
from .service import DecisionInfo, Direct, GameInfo, GameService, Image, Outcome
from .settings import Settings
from .slash import CatalogueTranslator, register_commands
from .storage import Storage
from .textcommands import (
    Context,
    parse_line,
    to_action,
)

log = logging.getLogger("khronos.discord")

APOLOGY = "Sorry, something went wrong on our side; nothing was changed. Please try again."
PREVIEW_KINDS = {"rippled", "not_rippled", "removed", "junction", "junction_power", "downsized",
                 "decision", "hamlet_cube", "copy_kept"}
NO_PINGS = discord.AllowedMentions.none()


def chunks(text: str, limit: int = 2000) -> list[str]:
    """``text`` in pieces of at most ``limit`` characters (Discord's message limit), cut at line
    ends where possible; never an empty list."""
    out: list[str] = []
    current = ""
    for line in text.split("\n"):
        while len(line) > limit:
            if current:
                out.append(current)
                current = ""
            out.append(line[:limit])
            line = line[limit:]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > limit:
            out.append(current)
            current = line
        else:
            current = candidate
    out.append(current or "\u200b")
    return out


# --- rendering an outcome's images (off the event loop) -----------------------------------------


def _names_list(names: dict[int, str]) -> list[str]:
    return [names.get(i, f"Player {i + 1}") for i in range(max(names, default=-1) + 1)]


def _render(image: Image) -> tuple[bytes, str, str]:
    """PNG bytes, file name and alt text of an ``Image`` the service asked for."""
    names = _names_list(image.names)
    if image.kind == "hand":
        assert isinstance(image.view, engine.PlayerView)
        return render.hand_png(image.view, names), "hand.png", image.alt or "Your hand"
    highlights = render.highlights_from_events(list(image.events))
    if image.kind == "compare":
        assert isinstance(image.view, engine.PublicView)
        png = render.before_after_png(image.before_view, image.view, names, highlights,
                                      image.alt)
        return png, "before-after.png", f"The boards before and after. {image.alt}"[:1024]
    if image.age is not None:
        png = render.age_png(image.view, image.age, names, highlights)
        name = f"{image.age.label.lower()}.png"
    else:
        png = render.boards_png(image.view, names, highlights)
        name = "boards.png"
    alt = render.alt_text(image.view, names, list(image.events))[:1024]
    return png, name, alt


async def to_file(image: Image) -> discord.File:
    png, name, alt = await asyncio.to_thread(_render, image)
    return discord.File(io.BytesIO(png), filename=name, description=alt[:1024])


# --- buttons that survive restarts -----------------------------------------------------------


class ChoiceButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
                   template=r"kh:ch:(?P<game>\d+):(?P<version>\d+):(?P<option>\d+)"):
    """One option of a pending decision (R37): ``kh:ch:<game>:<version>:<option>``."""

    def __init__(self, game_id: int, version: int, option: int, label: str,
                 default: bool = False) -> None:
        super().__init__(discord.ui.Button(
            label=label[:80],
            style=discord.ButtonStyle.primary if default else discord.ButtonStyle.secondary,
            custom_id=f"kh:ch:{game_id}:{version}:{option}",
        ))
        self.game_id, self.version, self.option = game_id, version, option

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> ChoiceButton:
        return cls(int(match["game"]), int(match["version"]), int(match["option"]), "")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = interaction.client
        assert isinstance(bot, KhronosBot)
        await bot.run_interaction(
            interaction,
            lambda ctx: bot.service.choose_in_game(
                self.game_id, ctx.user_id, self.option, expect_version=self.version),
        )


class ConfirmButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
                    template=r"kh:ok:(?P<game>\d+):(?P<version>\d+):(?P<line>.+)"):
    """Confirm a previewed move: the command line itself travels in the ``custom_id``."""

    def __init__(self, game_id: int, version: int, line: str) -> None:
        super().__init__(discord.ui.Button(
            label="Confirm", style=discord.ButtonStyle.success,
            custom_id=f"kh:ok:{game_id}:{version}:{line}"[:100],
        ))
        self.game_id, self.version, self.line = game_id, version, line

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> ConfirmButton:
        return cls(int(match["game"]), int(match["version"]), match["line"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = interaction.client
        assert isinstance(bot, KhronosBot)
        parsed = parse_line(self.line)
        action = to_action(parsed.name, parsed.args)
        await bot.run_interaction(
            interaction,
            lambda ctx: bot.service.act_in_game(
                self.game_id, ctx.user_id, action, expect_version=self.version),
        )


class CancelButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
                   template=r"kh:no"):
    def __init__(self) -> None:
        super().__init__(discord.ui.Button(label="Cancel", style=discord.ButtonStyle.secondary,
                                           custom_id="kh:no"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> CancelButton:
        return cls()

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.edit_message(content="Cancelled: nothing was played.",
                                                view=None, attachments=[])


class HandButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
                 template=r"kh:hand:(?P<channel>\d+)"):
    """Shown when a player's DMs are closed: his hand, privately, in the channel."""

    def __init__(self, channel_id: int) -> None:
        super().__init__(discord.ui.Button(label="Show my hand", style=discord.ButtonStyle.primary,
                                           custom_id=f"kh:hand:{channel_id}"))
        self.channel_id = channel_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> HandButton:
        return cls(int(match["channel"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = interaction.client
        assert isinstance(bot, KhronosBot)
        await bot.run_interaction(
            interaction, lambda ctx: bot.service.hand(self.channel_id, ctx.user_id))


def decision_view(decision: DecisionInfo) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for i, label in enumerate(decision.options[:25]):
        view.add_item(ChoiceButton(decision.game_id, decision.version, i, f"{i + 1}. {label}",
                                   default=i == decision.default))
    return view


# --- the bot ---------------------------------------------------------------------------------


class KhronosBot(commands.AutoShardedBot):
    def __init__(self, settings: Settings, *, service: GameService | None = None,
                 **options: Any) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        super().__init__(command_prefix=commands.when_mentioned, intents=intents,
                         help_command=None, **options)
        self.settings = settings
        self._service = service
        self._own_storage: Storage | None = None
        self._dm_closed_told: set[tuple[int, int]] = set()
        self.dispatcher: TimerDispatcher | None = None
        self.heartbeat = Heartbeat(self, heartbeat_path(settings.data_dir))

    @property
    def service(self) -> GameService:
        assert self._service is not None, "the service is opened in setup_hook"
        return self._service

    async def setup_hook(self) -> None:
        if self._service is None:
            self.settings.data_dir.mkdir(parents=True, exist_ok=True)
            self._own_storage = await Storage.in_dir(self.settings.data_dir).open()
            self._service = GameService(self._own_storage)
        # one task serves the durable timers (reminders, deadlines); it starts firing once the
        # gateway is ready, so that channels and users can be found
        self.dispatcher = TimerDispatcher(self.service, self.deliver,
                                          ready=self.wait_until_ready)
        self.dispatcher.start()
        self.add_dynamic_items(ChoiceButton, ConfirmButton, CancelButton, HandButton)
        await self.tree.set_translator(CatalogueTranslator())
        register_commands(self)
        self.tree.error(self.on_tree_error)
        if self.settings.test_guild_id:
            guild = discord.Object(id=self.settings.test_guild_id)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
        else:
            await self.tree.sync()
        self.heartbeat.start()

    async def close(self) -> None:
        await self.heartbeat.stop()
        if self.dispatcher is not None:
            await self.dispatcher.stop()
        await super().close()
        if self._own_storage is not None:
            await self._own_storage.close()
            self._own_storage = None

    # --- the one path of every interaction ---------------------------------------------------

    def context(self, interaction: discord.Interaction[Any]) -> Context:
        user = interaction.user
        perms = getattr(user, "guild_permissions", None)
        is_admin = bool(perms and (perms.administrator or perms.manage_guild))
        return Context(
            channel_id=interaction.channel_id or 0,
            user_id=user.id,
            user_name=getattr(user, "display_name", None) or user.name,
            guild_id=interaction.guild_id,
            is_admin=is_admin,
        )

    async def run_interaction(
        self,
        interaction: discord.Interaction[Any],
        call: Callable[[Context], Awaitable[Outcome]],
        *,
        preview_line: str | None = None,
    ) -> None:
        """Acknowledge, run the service call, then deliver; refusals are private replies."""
        if not interaction.response.is_done():
            await interaction.response.defer(ephemeral=True, thinking=True)
        ctx = self.context(interaction)
        try:
            if preview_line is not None and await self._preview(interaction, ctx, preview_line):
                return
            outcome = await call(ctx)
        except EngineError as exc:
            await interaction.followup.send(exc.message, ephemeral=True)
            return
        except Exception:
            log.exception("command failed: user=%s channel=%s command=%s", ctx.user_id,
                          ctx.channel_id, getattr(interaction.command, "name", None))
            await interaction.followup.send(APOLOGY, ephemeral=True)
            return
        await self.deliver(outcome, interaction=interaction)

    async def _preview(self, interaction: discord.Interaction[Any], ctx: Context,
                       line: str) -> bool:
        """Show what a construct or upgrade will set off, with Confirm and Cancel (R23-R37).
        Returns False when the move has no consequence beyond its own squares."""
        parsed = parse_line(line)
        action = to_action(parsed.name, parsed.args)
        info, view, names, events = await self.service.preview(ctx.channel_id, ctx.user_id,
                                                               action)
        if not any(e.kind in PREVIEW_KINDS for e in events):
            return False
        words = "\n".join(engine.format_text(e.text, names) for e in events)
        image = Image(kind="boards", view=view, names=names, events=tuple(events))
        buttons = discord.ui.View(timeout=None)
        buttons.add_item(ConfirmButton(info.game_id, info.version, line))
        buttons.add_item(CancelButton())
        await interaction.followup.send(
            f"**Preview** (nothing is played until you confirm):\n{words}"[:2000],
            file=await to_file(image), view=buttons, ephemeral=True)
        return True

    async def deliver(self, outcome: Outcome, *,
                      interaction: discord.Interaction[Any] | None = None) -> None:
        """Send what the service said, after its commit: the public posts and pings, the DMs,
        and last the reply, so that when the player reads his answer everything is out.
        Then wake the timer dispatcher: the command may have created an earlier timer."""
        try:
            await self._deliver(outcome, interaction)
        finally:
            if self.dispatcher is not None and interaction is not None:
                self.dispatcher.wake()

    async def _deliver(self, outcome: Outcome,
                       interaction: discord.Interaction[Any] | None) -> None:
        game = outcome.game
        channel = None
        if game is not None:
            channel = self.get_channel(game.channel_id) or await self.fetch_channel(
                game.channel_id)
        if channel is not None and isinstance(channel, discord.abc.Messageable):
            for post in outcome.public:
                file = await to_file(post.image) if post.image is not None else None
                *first, last = chunks(post.text)
                for part in first:
                    await channel.send(part, allowed_mentions=NO_PINGS)
                await channel.send(last, file=file or discord.utils.MISSING,
                                   allowed_mentions=NO_PINGS)
            for ping in outcome.pings:
                await channel.send(f"<@{ping.user_id}> {ping.text}"[:2000],
                                   allowed_mentions=discord.AllowedMentions(
                                       users=[discord.Object(id=ping.user_id)], roles=False,
                                       everyone=False))
        for direct in outcome.direct:
            await self._send_direct(direct, game, channel)
        if interaction is not None:
            reply = outcome.reply
            text = reply.text if reply is not None else "Done."
            kwargs: dict[str, Any] = {"ephemeral": reply.ephemeral if reply else True}
            if reply is not None and reply.image is not None:
                kwargs["file"] = await to_file(reply.image)
            decision = outcome.decision
            if decision is not None and decision.user_id == interaction.user.id:
                kwargs["view"] = decision_view(decision)
                text = f"{text}\n{decision.prompt}" if reply else decision.prompt
            *first, last = chunks(text)
            for part in first:
                await interaction.followup.send(part, ephemeral=kwargs["ephemeral"])
            await interaction.followup.send(last, **kwargs)

    async def _send_direct(self, direct: Direct, game: GameInfo | None, channel: Any) -> None:
        try:
            user = self.get_user(direct.user_id) or await self.fetch_user(direct.user_id)
            kwargs: dict[str, Any] = {}
            if direct.image is not None:
                kwargs["file"] = await to_file(direct.image)
            if direct.decision is not None:
                kwargs["view"] = decision_view(direct.decision)
            text = direct.text
            if game is not None and str(game.channel_id) not in text:
                text = f"{text}\n(Game in <#{game.channel_id}>)"
            await user.send(text[:2000], **kwargs)
        except discord.Forbidden:
            if game is None or channel is None:
                return
            if direct.fallback is not None or direct.kind in ("reminder", "deadline_warning"):
                # a reminder that cannot reach him: mention him in the channel, once a turn
                # (the service sets ``fallback`` on the turn's first reminder only)
                if direct.fallback is not None:
                    await channel.send(
                        f"<@{direct.user_id}> {direct.fallback}"[:2000],
                        allowed_mentions=discord.AllowedMentions(
                            users=[discord.Object(id=direct.user_id)], roles=False,
                            everyone=False))
                return
            key = (game.game_id, direct.user_id)
            if direct.decision is not None:
                # the game waits for him: the choice goes to the channel, to him alone
                await channel.send(
                    f"<@{direct.user_id}> {direct.decision.prompt}"[:2000],
                    view=decision_view(direct.decision),
                    allowed_mentions=discord.AllowedMentions(
                        users=[discord.Object(id=direct.user_id)]))
            if key in self._dm_closed_told:
                return
            self._dm_closed_told.add(key)
            name = next((s.name for s in game.seats if s.user_id == direct.user_id), "A player")
            view = discord.ui.View(timeout=None)
            view.add_item(HandButton(game.channel_id))
            await channel.send(
                f"{name}'s direct messages are closed, so the bot cannot send the hand there. "
                f"Use /hand or this button to see it privately.",
                view=view, allowed_mentions=NO_PINGS)
        except discord.HTTPException:
            log.exception("could not send a direct message to %s", direct.user_id)

    async def on_tree_error(self, interaction: discord.Interaction[Any],
                            error: app_commands.AppCommandError) -> None:
        original = getattr(error, "original", error)
        if isinstance(original, EngineError):
            message = original.message
        elif isinstance(error, app_commands.TransformerError | app_commands.CommandSignatureMismatch
                        ):
            message = f"That option was not understood: {error}"
        else:
            log.error("unexpected error in a command", exc_info=original)
            message = APOLOGY
        if interaction.response.is_done():
            await interaction.followup.send(message, ephemeral=True)
        else:
            await interaction.response.send_message(message, ephemeral=True)


def create_bot(settings: Settings, *, service: GameService | None = None,
               **options: Any) -> KhronosBot:
    """The bot, built but not connected (``await bot.start(token)`` connects it)."""
    return KhronosBot(settings, service=service, **options)


__all__ = ["KhronosBot", "create_bot"]
