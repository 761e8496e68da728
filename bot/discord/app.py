"""The Discord adapter (discord.py 2.x): thin slash commands over the game service (style 10).

Every command acknowledges at once (a private "thinking" defer), then parses its options with
the same vocabulary as the terminal (``textcommands``) and calls the service, which commits
the move together with what it must say (the outbox). ``DiscordTransport`` then delivers the
game's outbox rows in order: the public post with the move image (which pings nobody), a new
message that mentions only the next player, hands and choices by DM, and last the reply, with
fallbacks when Discord refuses. Buttons carry their state (or a preview's key) in their
``custom_id`` (``DynamicItem``), so they keep working after a restart. Engine refusals become
private replies; anything else is logged with a short apology.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import logging
import re
import signal
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import aiohttp
import discord
from discord import app_commands
from discord.ext import commands

from ai.pool import ThinkPool
from engine import EngineError

from .. import i18n
from ..commands import (
    Context,
    parse_line,
    to_action,
)
from ..health import Heartbeat, heartbeat_path
from ..images import Renderer
from ..service import (
    DamagedGame,
    DecisionInfo,
    GameService,
    Image,
    Outcome,
    events_text,
    when,
)
from ..service.dispatcher import TimerDispatcher
from ..service.outbox import Deliverer, Delivery, RetryLater, Undeliverable, reply_delivery
from ..settings import Settings
from ..storage import Storage, open_storage
from .slash import CatalogueTranslator, register_commands

log = logging.getLogger("khronos.discord")

APOLOGY = i18n.text("app.apology")  # in English; i18n.text("app.apology", locale)
PREVIEW_KINDS = {"rippled", "not_rippled", "removed", "junction", "junction_power", "downsized",
                 "decision", "hamlet_cube", "copy_kept"}
RESTARTING = i18n.text("app.restarting")
NO_PINGS = discord.AllowedMentions.none()
STOP_GRACE = 8.0  # seconds to finish deliveries on SIGTERM (docker stop waits 10)


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


async def to_file(image: Image, renderer: Renderer | None = None) -> discord.File:
    png, name, alt = await (renderer or _THREADS).render(image)
    return discord.File(io.BytesIO(png), filename=name, description=alt[:1024])


_THREADS = Renderer()


def only(user_id: int) -> discord.AllowedMentions:
    """Allowed mentions of a message that may ping ``user_id`` and nobody else (never
    @everyone, @here or a role, whatever a display name or a prompt says)."""
    return discord.AllowedMentions(users=[discord.Object(id=user_id)], everyone=False,
                                   roles=False, replied_user=False)


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
                    template=r"kh:ok:(?P<key>[A-Za-z0-9_-]{16})"):
    """Confirm a previewed move: ``kh:ok:<key>``, the move itself is kept by the service
    (``hold_preview``), so the id stays short whatever the move."""

    def __init__(self, key: str, locale: str | None = None) -> None:
        super().__init__(discord.ui.Button(
            label=i18n.text("app.confirm", locale), style=discord.ButtonStyle.success,
            custom_id=f"kh:ok:{key}"))
        self.key = key

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> ConfirmButton:
        return cls(match["key"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = interaction.client
        assert isinstance(bot, KhronosBot)
        await bot.run_interaction(
            interaction, lambda ctx: bot.service.confirm_preview(self.key, ctx.user_id))


class CancelButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
                   template=r"kh:no:(?P<key>[A-Za-z0-9_-]{16})"):
    """Cancel a previewed move; if it was already confirmed, say that it was played."""

    def __init__(self, key: str, locale: str | None = None) -> None:
        super().__init__(discord.ui.Button(label=i18n.text("app.cancel", locale),
                                           style=discord.ButtonStyle.secondary,
                                           custom_id=f"kh:no:{key}"))
        self.key = key

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> CancelButton:
        return cls(match["key"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = interaction.client
        assert isinstance(bot, KhronosBot)
        try:
            with i18n.reading(interaction.locale.value):
                text = await bot.service.cancel_preview(self.key, interaction.user.id)
        except EngineError as exc:
            text = exc.message
        await interaction.response.edit_message(content=text, view=None, attachments=[],
                                                allowed_mentions=NO_PINGS)


class ExpiredButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
                    template=r"kh:(?:ok:\d+:\d+:.*|no)"):
    """Confirm and Cancel buttons of the earlier form (the move in the id): they answer that
    the preview has expired instead of failing silently."""

    def __init__(self) -> None:
        super().__init__(discord.ui.Button(label="Expired", custom_id="kh:no"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> ExpiredButton:
        return cls()

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.edit_message(
            content=i18n.text("app.expired", interaction.locale.value),
            view=None, attachments=[], allowed_mentions=NO_PINGS)


class HandButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
                 template=r"kh:hand:(?P<channel>\d+)"):
    """Shown when a player's DMs are closed: his hand, privately, in the channel."""

    def __init__(self, channel_id: int, lang: str | None = None) -> None:
        super().__init__(discord.ui.Button(label=i18n.text("app.show_hand", lang),
                                           style=discord.ButtonStyle.primary,
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


class DiscordTransport:
    """Sends outbox rows to Discord, with the fallbacks of a permanent refusal:

    - a post whose image may not be attached (403 / 50013, no Attach Files): the text with the
      image's alt text, and the channel is told once per game which permission is missing;
    - a DM to closed DMs (403 / 50007): the channel is told once per game and player (stored),
      with a "Show my hand" button; a choice goes to the channel, mentioning only the chooser;
      a reminder or warning posts its ``fallback`` sentence, mentioning only him;
    - a server error, a rate limit or a network failure: ``RetryLater`` (the deliverer backs
      off); anything else refused: ``Undeliverable``.
    Every message carries explicit allowed mentions and the row's nonce (``enforce_nonce``)."""

    def __init__(self, bot: KhronosBot) -> None:
        self.bot = bot

    async def send(self, item: Delivery) -> str:
        try:
            if item.kind == "post":
                return await self._post(item)
            if item.kind == "ping":
                assert item.user_id is not None
                channel = await self._channel(item.channel_id)
                await channel.send(f"<@{item.user_id}> {item.text}"[:2000],
                                   allowed_mentions=only(item.user_id), nonce=item.nonce)
                return "sent"
            if item.kind == "direct":
                return await self._direct(item)
        except (discord.DiscordServerError, discord.RateLimited, aiohttp.ClientError,
                TimeoutError, ConnectionError) as exc:
            raise RetryLater(f"{type(exc).__name__}: {exc}") from exc
        except discord.HTTPException as exc:
            if exc.status == 429 or exc.status >= 500:
                raise RetryLater(f"HTTP {exc.status}") from exc
            raise Undeliverable(f"HTTP {exc.status} code {exc.code}: {exc.text}") from exc
        raise Undeliverable(f"unknown row kind {item.kind!r}")

    async def _channel(self, channel_id: int) -> discord.abc.Messageable:
        channel = self.bot.get_channel(channel_id) or await self.bot.fetch_channel(channel_id)
        if not isinstance(channel, discord.abc.Messageable):
            raise Undeliverable(f"channel {channel_id} cannot receive messages")
        return channel

    async def _once(self, game_id: int, user_id: int, kind: str) -> bool:
        async with self.bot.service.storage.write() as tx:
            return await tx.notice_once(game_id, user_id, kind, self.bot.service.clock())

    async def _post(self, item: Delivery) -> str:
        channel = await self._channel(item.channel_id)
        text = item.text
        if item.late:
            text = i18n.text("app.delayed", item.lang, when=when(item.created_at)) + "\n" + text
        parts = chunks(text)
        for i, part in enumerate(parts[:-1]):
            await channel.send(part, allowed_mentions=NO_PINGS, nonce=f"{item.nonce}p{i}")
        if item.image is None:
            await channel.send(parts[-1], allowed_mentions=NO_PINGS, nonce=item.nonce)
            return "sent"
        file = await to_file(item.image, self.bot.renderer)
        try:
            await channel.send(parts[-1], file=file, allowed_mentions=NO_PINGS, nonce=item.nonce)
            return "sent"
        except discord.Forbidden as exc:
            if exc.code != 50013:
                raise
        # no Attach Files here: the same words, and the picture described
        described = parts[-1] + "\n" + i18n.text(
            "app.image", item.lang,
            alt=file.description or i18n.text("app.image_boards", item.lang))
        for i, part in enumerate(chunks(described)):
            await channel.send(part, allowed_mentions=NO_PINGS, nonce=f"{item.nonce}t{i}")
        if await self._once(item.game_id, 0, "missing_attach_files"):
            await channel.send(i18n.text("app.no_attach", item.lang), allowed_mentions=NO_PINGS)
        return "text-only"

    async def _direct(self, item: Delivery) -> str:
        assert item.user_id is not None
        user = self.bot.get_user(item.user_id) or await self.bot.fetch_user(item.user_id)
        kwargs: dict[str, Any] = {"allowed_mentions": NO_PINGS, "nonce": item.nonce}
        if item.image is not None:
            kwargs["file"] = await to_file(item.image, self.bot.renderer)
        if item.decision is not None:
            kwargs["view"] = decision_view(item.decision)
        text = item.text
        if str(item.channel_id) not in text:
            text = text + "\n" + i18n.text("app.game_in", item.lang,
                                            channel=f"<#{item.channel_id}>")
        try:
            await user.send(text[:2000], **kwargs)
            return "sent"
        except discord.Forbidden as exc:
            if exc.code not in (50007, 50278):  # cannot send messages to this user
                raise
        return await self._dm_closed(item)

    async def _dm_closed(self, item: Delivery) -> str:
        assert item.user_id is not None
        channel = await self._channel(item.channel_id)
        uid = item.user_id
        if item.direct_kind in ("reminder", "deadline_warning"):
            # the service sets ``fallback`` on the turn's first reminder only: once a turn
            if item.fallback is not None:
                await channel.send(f"<@{uid}> {item.fallback}"[:2000],
                                   allowed_mentions=only(uid), nonce=f"{item.nonce}f")
            return "dm-closed"
        if item.decision is not None:
            # the game waits for him: the choice goes to the channel, usable by him alone
            await channel.send(f"<@{uid}> {item.decision.prompt}"[:2000],
                               view=decision_view(item.decision), allowed_mentions=only(uid),
                               nonce=f"{item.nonce}f")
        if await self._once(item.game_id, uid, "dm_closed"):
            view = discord.ui.View(timeout=None)
            view.add_item(HandButton(item.channel_id, item.lang))
            name = item.name or i18n.text("app.a_player", item.lang)
            await channel.send(i18n.text("app.dm_closed", item.lang, name=name),
                               view=view, allowed_mentions=NO_PINGS)
        return "dm-closed"


class KhronosBot(commands.AutoShardedBot):
    def __init__(self, settings: Settings, *, service: GameService | None = None,
                 **options: Any) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        options.setdefault("allowed_mentions", NO_PINGS)  # a message mentions only whom it says
        self.handle_sigterm = bool(options.pop("handle_sigterm", False))
        # images render in worker threads; worker processes on request (docs/discord.md)
        self.renderer = Renderer(int(options.pop("render_processes", 0)))
        super().__init__(command_prefix=commands.when_mentioned, intents=intents,
                         help_command=None, **options)
        self.settings = settings
        self._service = service
        self._own_storage: Storage | None = None
        self.dispatcher: TimerDispatcher | None = None
        self._deliverer: Deliverer | None = None
        self.stopping = False  # after SIGTERM: no new commands; deliveries finish
        self._tasks: set[asyncio.Task[None]] = set()
        self.ai_pool: ThinkPool | None = None  # the computers' worker processes, if any
        self.heartbeat = Heartbeat(self, heartbeat_path(settings.data_dir))

    @property
    def service(self) -> GameService:
        assert self._service is not None, "the service is opened in setup_hook"
        return self._service

    @property
    def deliverer(self) -> Deliverer:
        assert self._deliverer is not None, "the deliverer is made in setup_hook"
        return self._deliverer

    async def setup_hook(self) -> None:
        if self._service is None:
            self.settings.data_dir.mkdir(parents=True, exist_ok=True)  # also the heartbeat's
            # the SQLite file in the data folder, or PostgreSQL if KHRONOS_DATABASE_URL is set
            self._own_storage = await open_storage(self.settings)
            self._service = GameService(self._own_storage)
        self._deliverer = Deliverer(self.service.storage, DiscordTransport(self),
                                    clock=self.service.clock)
        # one task serves the durable timers (reminders, deadlines), one the outbox (what a
        # crash left unsent, retries); both start once the gateway is ready
        self.dispatcher = TimerDispatcher(self.service, self.deliver,
                                          ready=self.wait_until_ready)
        self.dispatcher.start()
        self.service.computer_delay = self.settings.computer_delay
        self.service.computer_budget = self.settings.computer_budget
        if self.service.ai_executor is None and self.settings.ai_workers > 0:
            # the computers think in worker processes (KHRONOS_AI_WORKERS), started on the
            # first decision and stopped by close(); 0 keeps the loop's default threads
            self.ai_pool = ThinkPool(self.settings.ai_workers)
            self.service.ai_executor = self.ai_pool
        self.add_dynamic_items(ChoiceButton, ConfirmButton, CancelButton, ExpiredButton,
                               HandButton)
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
        self._spawn(self._start_outbox())
        if self.handle_sigterm:
            self.install_signal_handlers()

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _start_outbox(self) -> None:
        await self.wait_until_ready()
        self.deliverer.start()

    def install_signal_handlers(self) -> None:
        """SIGTERM (``docker stop``): stop taking commands, finish deliveries, close."""
        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal.SIGTERM, self.request_stop)

    def request_stop(self) -> None:
        if not self.stopping:
            log.info("SIGTERM: finishing deliveries, then closing")
            self.stopping = True
            self._spawn(self.close())

    async def close(self) -> None:
        self.stopping = True
        await self.heartbeat.stop()
        if self.dispatcher is not None:
            await self.dispatcher.stop()
        if self._deliverer is not None:
            await self._deliverer.stop()
            if not self.is_closed():
                try:  # what is committed goes out before the gateway closes, within reason
                    await asyncio.wait_for(self._deliverer.drain(), STOP_GRACE)
                except Exception:
                    log.exception("deliveries left for the next start")
        await super().close()
        self.renderer.close()
        pool, self.ai_pool = self.ai_pool, None
        if pool is not None:  # the dispatcher is stopped: no new decision; no orphan process
            if self._service is not None and self._service.ai_executor is pool:
                self._service.ai_executor = None
            await asyncio.to_thread(pool.close)
        # taken before awaiting: a second close() running meanwhile (SIGTERM's, then the
        # caller's) must not close the connections again (aiosqlite then waits forever)
        storage, self._own_storage = self._own_storage, None
        if storage is not None:
            await storage.close()

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
            locale=interaction.locale.value,
        )

    async def run_interaction(
        self,
        interaction: discord.Interaction[Any],
        call: Callable[[Context], Awaitable[Outcome]],
        *,
        preview_line: str | None = None,
    ) -> None:
        """Acknowledge, run the service call, then deliver; refusals are private replies.
        The apology ("nothing was changed") is said only when the call did not commit: once
        the service returns, what it stored is delivered from the outbox whatever happens."""
        if not interaction.response.is_done():
            await interaction.response.defer(ephemeral=True, thinking=True)
        ctx = self.context(interaction)
        with i18n.reading(ctx.locale):  # his reply and refusals in his client's language
            await self._run(interaction, ctx, call, preview_line)

    async def _run(self, interaction: discord.Interaction[Any], ctx: Context,
                   call: Callable[[Context], Awaitable[Outcome]],
                   preview_line: str | None) -> None:
        if self.stopping:
            await interaction.followup.send(i18n.text("app.restarting", ctx.locale),
                                            ephemeral=True, allowed_mentions=NO_PINGS)
            return
        try:
            if preview_line is not None and await self._preview(interaction, ctx, preview_line):
                return
            outcome = await call(ctx)
        except EngineError as exc:
            for part in chunks(exc.message):
                await interaction.followup.send(part, ephemeral=True, allowed_mentions=NO_PINGS)
            if isinstance(exc, DamagedGame) and exc.game_id is not None:
                await self._tell_damaged(exc.game_id, ctx.channel_id)
            return
        except Exception:
            log.exception("command failed: user=%s channel=%s command=%s", ctx.user_id,
                          ctx.channel_id, getattr(interaction.command, "name", None))
            await interaction.followup.send(i18n.text("app.apology", ctx.locale), ephemeral=True,
                                            allowed_mentions=NO_PINGS)
            return
        await self.deliver(outcome, interaction=interaction)

    async def _tell_damaged(self, game_id: int, channel_id: int) -> None:
        """Say in the channel, once until it is rebuilt, that the game's saved data is damaged
        (the players need to know why the game stopped; the notice is stored)."""
        try:
            async with self.service.storage.write() as tx:
                first = await tx.notice_once(game_id, 0, "damaged", self.service.clock())
            if first:
                lang = await self.service.game_language(game_id)
                channel = await DiscordTransport(self)._channel(channel_id)
                await channel.send(i18n.text("notice.damaged", lang), allowed_mentions=NO_PINGS)
        except Exception:
            log.exception("could not tell channel %s that game %s is damaged", channel_id,
                          game_id)

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
        key = await self.service.hold_preview(info.game_id, info.version, ctx.user_id, action)
        words = events_text(events, names, ctx.locale)
        # a private answer: the picture too in the reader's language
        image = Image(kind="move", view=view, names=names, events=tuple(events),
                      lang=i18n.language(ctx.locale))
        buttons = discord.ui.View(timeout=None)
        buttons.add_item(ConfirmButton(key, ctx.locale))
        buttons.add_item(CancelButton(key, ctx.locale))
        await interaction.followup.send(
            (i18n.text("app.preview", ctx.locale) + "\n" + words)[:2000],
            file=await to_file(image, self.renderer), view=buttons, ephemeral=True,
            allowed_mentions=NO_PINGS)
        return True

    async def deliver(self, outcome: Outcome, *,
                      interaction: discord.Interaction[Any] | None = None) -> None:
        """Send what the service committed: the game's outbox rows in order (public posts,
        the turn ping, DMs), and last the reply to ``interaction``. A delivery failure is
        logged and retried by the outbox; it never tells the player that nothing happened.
        Then wake the timer dispatcher: the command may have created an earlier timer."""
        try:
            game = outcome.game
            if game is not None and outcome.outbox:
                if outcome.reply_row is not None and interaction is not None:
                    self.deliverer.expect_reply(
                        outcome.reply_row, functools.partial(self._reply, interaction))
                try:
                    await self.deliverer.flush(game.game_id)
                except Exception:
                    log.exception("delivery of game %s failed; the outbox will retry",
                                  game.game_id)
                if outcome.reply_row is not None:
                    await self.deliverer.reply_now(outcome.reply_row)
                elif interaction is not None:  # nothing to say to him but that it is done
                    await self._reply(interaction, reply_delivery(outcome))
            elif interaction is not None:
                await self._reply(interaction, reply_delivery(outcome))
        finally:
            if self.dispatcher is not None and interaction is not None:
                self.dispatcher.wake()

    async def _reply(self, interaction: discord.Interaction[Any], item: Delivery) -> None:
        """The answer to the command's author, after everything else of his command."""
        text = item.text or i18n.text("app.done", item.lang)
        kwargs: dict[str, Any] = {"ephemeral": item.ephemeral, "allowed_mentions": NO_PINGS}
        if item.image is not None:
            kwargs["file"] = await to_file(item.image, self.renderer)
        decision = item.decision
        if decision is not None and decision.user_id == interaction.user.id:
            kwargs["view"] = decision_view(decision)
            text = f"{text}\n{decision.prompt}" if item.text else decision.prompt
        *first, last = chunks(text)
        for part in first:
            await interaction.followup.send(part, ephemeral=item.ephemeral,
                                            allowed_mentions=NO_PINGS)
        await interaction.followup.send(last, **kwargs)

    async def on_tree_error(self, interaction: discord.Interaction[Any],
                            error: app_commands.AppCommandError) -> None:
        original = getattr(error, "original", error)
        locale = interaction.locale.value
        if isinstance(original, EngineError):
            message = original.message
        elif isinstance(error, app_commands.TransformerError | app_commands.CommandSignatureMismatch
                        ):
            message = i18n.text("app.option", locale, error=error)
        else:
            log.error("unexpected error in a command", exc_info=original)
            message = i18n.text("app.apology", locale)
        if interaction.response.is_done():
            await interaction.followup.send(message, ephemeral=True, allowed_mentions=NO_PINGS)
        else:
            await interaction.response.send_message(message, ephemeral=True,
                                                    allowed_mentions=NO_PINGS)


def create_bot(settings: Settings, *, service: GameService | None = None,
               **options: Any) -> KhronosBot:
    """The bot, built but not connected (``await bot.start(token)`` connects it)."""
    return KhronosBot(settings, service=service, **options)


__all__ = ["KhronosBot", "create_bot"]
