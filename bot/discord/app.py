"""The Discord front end's bot (discord.py 2.x): thin slash commands over the game service.

``KhronosBot`` opens the storage and the service, registers the slash commands (``slash.py``)
and the buttons that survive restarts (``buttons.py``), and runs the two background tasks: the
timer dispatcher and the outbox deliverer, which sends what the service committed through
``DiscordTransport`` (``transport.py``). Every interaction takes the one path of
``interactions.py``; this class only holds the parts together and stops them cleanly.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import discord
from discord.ext import commands

from ai.pool import ThinkPool

from ..commands import Context
from ..health import Heartbeat, heartbeat_path
from ..images import Renderer
from ..service import GameService, Outcome
from ..service.dispatcher import TimerDispatcher
from ..service.outbox import Deliverer
from ..settings import Settings
from ..storage import Storage, open_storage
from . import interactions
from .buttons import ALL_BUTTONS
from .messages import NO_PINGS
from .slash import CatalogueTranslator, register_commands
from .transport import DiscordTransport

log = logging.getLogger("khronos.discord")

STOP_GRACE = 8.0  # seconds to finish deliveries on SIGTERM (docker stop waits 10)


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
        self.add_dynamic_items(*ALL_BUTTONS)
        await self.tree.set_translator(CatalogueTranslator())
        register_commands(self)
        self.tree.error(interactions.on_tree_error)
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

    # --- the one path of every interaction (interactions.py) ---------------------------------

    async def run_interaction(
        self,
        interaction: discord.Interaction[Any],
        call: Callable[[Context], Awaitable[Outcome]],
        *,
        preview_line: str | None = None,
    ) -> None:
        """Acknowledge, run the service call, deliver (``interactions.run``)."""
        await interactions.run(self, interaction, call, preview_line=preview_line)

    async def deliver(self, outcome: Outcome, *,
                      interaction: discord.Interaction[Any] | None = None) -> None:
        """Send what the service committed (``interactions.deliver``)."""
        await interactions.deliver(self, outcome, interaction=interaction)


def create_bot(settings: Settings, *, service: GameService | None = None,
               **options: Any) -> KhronosBot:
    """The bot, built but not connected (``await bot.start(token)`` connects it)."""
    return KhronosBot(settings, service=service, **options)


__all__ = ["KhronosBot", "create_bot"]
