"""The Discord front end's bot (discord.py 2.x): thin slash commands over the game service.

``KhronosBot`` opens the storage and the service, registers the slash commands (``slash.py``)
and the buttons that survive restarts (``buttons.py``), and runs the two background tasks: the
timer dispatcher and the outbox deliverer, which sends what the service committed through
``DiscordTransport`` (``transport.py``). Every interaction takes the one path of
``interactions.py``; this class only holds the parts together and stops them cleanly.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import discord
from discord.ext import commands

from ai.pool import ThinkPool
from ai.work import STOP

from ..commands import Context
from ..health import Heartbeat, heartbeat_path
from ..images import Renderer
from ..service import GameService, Outcome
from ..service.dispatcher import TimerDispatcher
from ..service.outbox import Deliverer, unsent_count
from ..settings import Settings
from ..storage import Storage, open_storage
from . import interactions, signals
from .buttons import ALL_BUTTONS
from .messages import NO_PINGS
from .slash import CatalogueTranslator, register_commands
from .table import TableButton
from .transport import DiscordTransport

log = logging.getLogger("khronos.discord")
READY = "connected to Discord"  # the log line a process supervisor (or a test) may wait for

# a stop (SIGTERM: docker stop, which kills 10 s later): what is committed is delivered for
# up to STOP_GRACE seconds from the stop's start; then the gateway, the workers and the
# database connections close, each within STOP_CLOSE seconds, and all of them by
# STOP_CLOSED_BY seconds from the stop's start (a step that finds that time passed still has
# CLOSE_FLOOR seconds): so the stop ends before signals.HARD_STOP, the last resort
# (signals.py), whatever hangs (tests/discord/test_stop_bounds.py sums the worst case)
STOP_GRACE = 6.5
STOP_CLOSE = 2.0
STOP_CLOSED_BY = 8.5
CLOSE_FLOOR = 0.2


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
        self._commands: set[asyncio.Task[Any]] = set()  # interactions being handled
        self._deliveries: set[asyncio.Task[None]] = set()  # what the timers said, being sent
        self._stop_task: asyncio.Task[None] | None = None
        # python -m bot: the task of the run while the bot does not serve yet (the login, the
        # database, the commands' sync, the gateway): a stop then ends the start where it waits
        self._starting: asyncio.Task[Any] | None = None
        self.left_open: list[str] = []  # what the stop did not wait to close (python -m bot
        # then exits without waiting for its threads: signals.exit_now)
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
        self.dispatcher = TimerDispatcher(self.service, self.deliver_later,
                                          ready=self.wait_until_ready)
        self.dispatcher.start()
        self.service.computer_delay = self.settings.computer_delay
        self.service.computer_budget = self.settings.computer_budget
        if self.service.ai_executor is None and self.settings.ai_workers > 0:
            # the computers think in worker processes (KHRONOS_AI_WORKERS), started on the
            # first decision and stopped by close(); 0 keeps the loop's default threads
            self.ai_pool = ThinkPool(self.settings.ai_workers)
            self.service.ai_executor = self.ai_pool
        self.add_dynamic_items(*ALL_BUTTONS, TableButton)
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

    async def __aenter__(self) -> KhronosBot:
        # python -m bot: the signals are the bot's from the start (a docker stop during the
        # login is a stop like any other), before discord.py connects
        if self.handle_sigterm:
            self._starting = asyncio.current_task()
            signals.install(self)
        await super().__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        # discord.py's own __aexit__ waits only for the gateway's close; the stop goes on
        # after it (workers, database connections), and the process must not end before
        await self.close()

    def _spawn(self, coro: Coroutine[Any, Any, None],
               into: set[asyncio.Task[None]] | None = None) -> None:
        tasks = self._tasks if into is None else into
        task = asyncio.get_running_loop().create_task(coro)
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    async def _start_outbox(self) -> None:
        await self.wait_until_ready()
        self._starting = None  # serving: a stop now delivers what is committed first
        log.info("%s: ready; the outbox and the timers are served", READY)
        self.deliverer.start()

    def install_signal_handlers(self) -> None:
        """SIGTERM and SIGINT stop the bot (``signals.py``); a second one exits at once."""
        signals.install(self)

    def request_stop(self) -> None:
        """Stop taking commands, finish deliveries, close everything (``close``)."""
        if not self.stopping:
            self.stopping = True
            starting, self._starting = self._starting, None
            if starting is not None and not starting.done():
                # nothing is served yet (no command, no timer, no delivery): the start is
                # cancelled where it waits (a database or Discord that does not answer), and
                # the run's own exit closes what it opened
                log.info("stopping during the start: closing")
                starting.cancel()
                return
            log.info("stopping: finishing deliveries, then closing")
            self._spawn(self.close())

    async def close(self) -> None:
        """Stop the bot; every call waits for the one stop (``_stop``), which a cancelled
        caller does not interrupt: a connection left half closed keeps the process alive."""
        self.stopping = True
        if self._stop_task is None:
            self._stop_task = asyncio.get_running_loop().create_task(
                self._stop(), name="khronos-stop")
        await asyncio.shield(self._stop_task)

    async def _stop(self) -> None:
        """In order: no new commands or timers; the computers' workers stop meanwhile; what is
        committed is delivered (commands being handled finish first), for ``STOP_GRACE``
        seconds at most; then the gateway and the image workers close, what is still running
        is cancelled (and a search still running in the loop's threads, with
        ``KHRONOS_AI_WORKERS=0``, gives up: ``ai.work.STOP``, left set: the process ends, and
        the loop's close waits for its threads), and the database closes."""
        threads = self._service is not None and self._service.ai_executor is None
        started = time.monotonic()
        deadline, closed_by = started + STOP_GRACE, started + STOP_CLOSED_BY
        await self.heartbeat.stop()
        if self.dispatcher is not None:
            await self.dispatcher.stop()
        workers = self._stop_workers()
        if self._deliverer is not None:
            if not self.is_closed():
                await self._finish_deliveries(deadline)
            await self._deliverer.stop()
        await self._close_step("the gateway", asyncio.shield(super().close()), closed_by)
        self.renderer.close()
        if workers is not None:
            await workers
        if threads:  # KHRONOS_AI_WORKERS=0: a search still running in a thread (its command
            STOP.set()  # is cut below) gives up now, not at its own stop seconds later
        await self._cancel_abandoned(closed_by)
        await self._say_what_is_left(closed_by)
        # taken before awaiting, so that nothing closes the connections twice
        storage, self._own_storage = self._own_storage, None
        if storage is not None:
            await self._close_step("the database connections", storage.close(), closed_by)

    async def _close_step(self, what: str, closing: Awaitable[object],
                          closed_by: float) -> None:
        """Await one close of the stop for ``close_within(closed_by)`` seconds at most. Its
        running over is said in one line (a connection that does not answer: nothing to
        trace) and ``what`` is noted in ``left_open``; any other failure with its traceback."""
        bound = close_within(closed_by)
        try:
            await asyncio.wait_for(closing, bound)
        except TimeoutError:
            log.warning("stopping: %s did not close within %.1f s; not waiting for them",
                        what, bound)
            self.left_open.append(what)
        except Exception:
            log.exception("stopping: %s did not close cleanly", what)

    def _stop_workers(self) -> asyncio.Task[None] | None:
        """Stop the computers' worker processes in a thread (the timers are stopped: no new
        decision); returns the task to await."""
        pool, self.ai_pool = self.ai_pool, None
        if pool is None:
            return None
        if self._service is not None and self._service.ai_executor is pool:
            self._service.ai_executor = None
        return asyncio.get_running_loop().create_task(asyncio.to_thread(pool.close))

    async def _finish_deliveries(self, deadline: float) -> None:
        """Let the deliveries under way finish (the commands being handled, the timers'
        deliveries, the outbox task's pass: a request cut halfway leaves a message Discord
        may have taken unmarked), then deliver what is still unsent, until ``deadline``
        (``time.monotonic``). What is still running then is abandoned (docs/discord.md)."""
        running = self._commands | self._deliveries
        left = max(deadline - time.monotonic(), 0.0)
        outbox = asyncio.ensure_future(self.deliverer.stop(grace=left))
        if running:
            await asyncio.wait(running, timeout=left)
        await outbox
        try:
            while time.monotonic() < deadline:
                left = deadline - time.monotonic()
                # held table edits (their spacing) go out too
                if not await asyncio.wait_for(self.deliverer.drain(settle=True), left):
                    break
        except TimeoutError:  # what is left is counted once the connection is closed
            pass
        except Exception:
            log.exception("stopping: the last delivery pass failed")

    async def _cancel_abandoned(self, closed_by: float) -> None:
        """Cancel the commands and the timers' deliveries the grace abandoned, and let them
        end, before the database closes: left running, they met its closed connections (an
        error logged in the middle of the stop; a row being read taken for an unreadable
        one). Nothing of theirs could go out any more (the connection to Discord is closed);
        what they committed stays in the outbox for the next start. A command cut so may have
        been cut in its transaction (nothing of it happened) and its author gets no answer
        (the connection is closed): said once, as a warning, since nobody else will say it."""
        commands = sum(1 for task in self._commands if not task.done())
        left = [task for task in self._commands | self._deliveries if not task.done()]
        for task in left:
            task.cancel()
        if left:
            await asyncio.wait(left, timeout=close_within(closed_by))
        if commands:
            log.warning("stopping: %d command%s still running at the end of the grace cut "
                        "(what was not committed did not happen; no answer went out)",
                        commands, "" if commands == 1 else "s")

    async def _say_what_is_left(self, closed_by: float) -> None:
        """Log once how many outbox rows the stop leaves for the next start (which sends them
        at once): counted after the connection to Discord is closed, when nothing more can
        go out."""
        if self._deliverer is None:
            return
        try:
            left = await asyncio.wait_for(unsent_count(self.service.storage),
                                          close_within(closed_by))
        except Exception:
            log.exception("stopping: could not count the outbox rows left")
            return
        if left:
            log.warning("stopping: %d outbox row%s left for the next start", left,
                        "" if left == 1 else "s")
        else:
            log.info("stopping: every outbox row delivered")

    # --- the one path of every interaction (interactions.py) ---------------------------------

    async def run_interaction(
        self,
        interaction: discord.Interaction[Any],
        call: Callable[[Context], Awaitable[Outcome]],
        *,
        preview_line: str | None = None,
    ) -> None:
        """Acknowledge, run the service call, deliver (``interactions.run``)."""
        task = asyncio.current_task()
        if task is not None:  # a stop lets it finish (and deliver) before closing
            self._commands.add(task)
        try:
            await interactions.run(self, interaction, call, preview_line=preview_line)
        finally:
            self._commands.discard(task)

    async def deliver(self, outcome: Outcome, *,
                      interaction: discord.Interaction[Any] | None = None) -> None:
        """Send what the service committed (``interactions.deliver``)."""
        await interactions.deliver(self, outcome, interaction=interaction)

    async def deliver_later(self, outcome: Outcome) -> None:
        """What a timer said, sent in a task of its own: the timer loop never waits for one
        game's deliveries (a claim held elsewhere, Discord's rate limits, images)."""
        self._spawn(self.deliver(outcome), self._deliveries)


def close_within(closed_by: float) -> float:
    """The seconds one close step of a stop may take: ``STOP_CLOSE``, or what is left until
    ``closed_by`` (``time.monotonic``) if that is less, but never under ``CLOSE_FLOOR``."""
    return max(min(STOP_CLOSE, closed_by - time.monotonic()), CLOSE_FLOOR)


def create_bot(settings: Settings, *, service: GameService | None = None,
               **options: Any) -> KhronosBot:
    """The bot, built but not connected (``await bot.start(token)`` connects it)."""
    return KhronosBot(settings, service=service, **options)


__all__ = ["KhronosBot", "create_bot"]
