"""The one task that serves the durable timers.

Timers are rows in the ``timers`` table, created and cancelled by the service in the same
transaction as the move that causes them. ``TimerDispatcher`` runs one asyncio task::

    loop: fire every due timer (service.fire_timer, one transaction each) and deliver what it
          says; then sleep until the next due time, at most ``max_sleep`` seconds, or until
          ``wake()`` is called (a command committed a timer that may be earlier).

Exactly once: ``fire_timer`` reschedules or deletes the timer in the transaction that handles
it, so a second dispatcher (another process) or a second attempt finds nothing due. What it
says is stored in the outbox in that same transaction and delivered after the commit: a crash
in between delays that message to the next start, never loses or doubles it. If the storage
fails (disk full, read-only), the loop backs off and says so once.
After a restart, due timers fire at once; the service adds one "While the bot was offline …"
note per game to the first one that fires late.

The clock and the sleep are injectable for tests; ``run_once()`` fires what is due now.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

from . import Outcome
from .wake import sleep_or_wake

log = logging.getLogger("khronos.timers")

MAX_SLEEP = 300.0  # seconds: a jump of the wall clock is noticed within this
RETRY_AFTER = 600.0  # seconds: a timer whose handling raised is tried again after this


class TimerService(Protocol):
    """What the dispatcher uses of the service (``GameService``; the tests' stand-ins)."""

    @property
    def clock(self) -> Callable[[], float]: ...

    async def due_timers(self, now: float | None = None) -> list[int]: ...

    async def fire_timer(self, timer_id: int) -> Outcome | None: ...

    async def postpone_timer(self, timer_id: int, seconds: float) -> None: ...

    async def next_timer_due(self) -> float | None: ...


class TimerDispatcher:
    def __init__(
        self,
        service: TimerService,
        deliver: Callable[[Outcome], Awaitable[None]],
        *,
        clock: Callable[[], float] | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        max_sleep: float = MAX_SLEEP,
        ready: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.service = service
        self.deliver = deliver
        self.clock = clock or service.clock
        self.sleep = sleep
        self.max_sleep = max_sleep
        self.ready = ready
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.fired = 0  # timers that produced something to deliver (for tests and logs)
        self.failing = 0  # consecutive rounds in which the storage failed (backoff)
        self._stopping = False  # stop() is cancelling the task: no error is the timers'

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        if not self.running:
            self._stopping = False
            self._task = asyncio.create_task(self._run(), name="khronos-timers")

    async def stop(self) -> None:
        """Cancel the task wherever it is: a timer being fired is left as it was (its
        transaction rolls back; a computer's thinking is dropped), due for the next start.
        An error raised in place of the cancellation (a COMMIT cut halfway) is the stop's
        doing: the timer is not postponed as a failed one, and the loop ends all the same."""
        task, self._task = self._task, None
        if task is not None:
            self._stopping = True
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def _cut(self, exc: BaseException) -> None:
        """Raise the cancellation if ``exc`` came from the stop cutting the task."""
        if self._stopping:
            log.debug("timers: stopped while busy (%s: %s)", type(exc).__name__, exc)
            raise asyncio.CancelledError from exc

    def wake(self) -> None:
        """Look at the timers again now (after a command that may have created one)."""
        self._wake.set()

    async def run_once(self) -> int:
        """Fire the timers due now and deliver their outcomes; returns how many were fired.

        If the storage cannot be written (disk full, read-only or deleted file), the round
        stops at the first timer that can neither fire nor be postponed, and the loop backs off
        (``failing``); the error is logged once, not once per timer and round."""
        count = 0
        failed = False
        try:
            due = await self.service.due_timers(self.clock())
        except Exception as exc:
            self._cut(exc)
            self._failed(exc)
            return 0
        for timer_id in due:
            try:
                outcome = await self.service.fire_timer(timer_id)
            except Exception as exc:
                self._cut(exc)  # left as it was, not postponed: the stop cut it
                try:
                    await self.service.postpone_timer(timer_id, RETRY_AFTER)
                except Exception:
                    self._failed(exc)  # the storage itself fails: stop this round
                    failed = True
                    break
                log.exception("timer %s failed; trying again in %.0f s", timer_id, RETRY_AFTER)
                continue
            if outcome is None:
                continue
            count += 1
            self.fired += 1
            try:
                await self.deliver(outcome)
            except Exception:
                log.exception("could not deliver what timer %s said", timer_id)
        if not failed and self.failing:
            log.warning("timers: the storage works again after %d failed rounds", self.failing)
            self.failing = 0
        return count

    def _failed(self, exc: BaseException) -> None:
        if self.failing == 0:
            log.error("timers: the storage cannot be used (%s: %s); backing off and retrying "
                      "quietly until it works again", type(exc).__name__, exc)
        self.failing += 1

    def backoff(self) -> float:
        """Seconds to wait after ``failing`` failed rounds: 1, 2, 4 … up to ``max_sleep``."""
        return min(float(2 ** min(self.failing - 1, 20)), self.max_sleep)

    async def _run(self) -> None:
        if self.ready is not None:
            await self.ready()
        while not self._stopping:
            self._wake.clear()  # a wake() from here on interrupts the coming sleep
            delay = self.max_sleep
            try:
                await self.run_once()
                if self.failing:
                    delay = self.backoff()
                else:
                    nxt = await self.service.next_timer_due()
                    if nxt is not None:
                        delay = min(max(nxt - self.clock(), 0.0), self.max_sleep)
            except Exception as exc:
                self._cut(exc)
                self._failed(exc)
                delay = self.backoff()
            if self.failing:
                await self.sleep(delay)  # a wake() does not cut a backoff short
            else:
                await self._wait(delay)

    async def _wait(self, delay: float) -> None:
        await sleep_or_wake(self.sleep, self._wake, delay)


__all__ = ["TimerDispatcher"]
