"""SqliteStorage faults: the timer loop backs off when the database cannot
be written, a deleted database file is refused loudly, a cancelled command leaves the
connections usable, and the timer loop's stop is a stop whatever error it cuts."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path

import pytest

from bot.service import GameService, Outcome
from bot.service.dispatcher import TimerDispatcher
from bot.storage.api import StorageLost
from bot.storage.sqlite import SqliteStorage
from engine import EngineError


class FullDisk:
    """A service whose storage fails every write, as on a full disk."""

    clock = staticmethod(lambda: 1_700_000_000.0)

    def __init__(self) -> None:
        self.fires = 0

    async def due_timers(self, now: float | None = None) -> list[int]:
        return [1, 2, 3]

    async def fire_timer(self, timer_id: int) -> Outcome | None:
        self.fires += 1
        raise sqlite3.OperationalError("database or disk is full")

    async def postpone_timer(self, timer_id: int, seconds: float) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    async def next_timer_due(self) -> float | None:
        return 0.0  # long overdue


async def test_a_full_disk_makes_the_timer_loop_back_off_and_say_it_once(
        caplog: pytest.LogCaptureFixture) -> None:
    service = FullDisk()
    slept: list[float] = []
    enough = asyncio.Event()

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)
        if len(slept) >= 8:
            enough.set()
        await asyncio.sleep(0)

    async def deliver(out: Outcome) -> None:
        raise AssertionError("nothing to deliver")

    dispatcher = TimerDispatcher(service, deliver, sleep=fake_sleep, max_sleep=300)
    with caplog.at_level(logging.WARNING, logger="khronos.timers"):
        dispatcher.start()
        await asyncio.wait_for(enough.wait(), 10)
        await dispatcher.stop()
    assert slept[:8] == [1, 2, 4, 8, 16, 32, 64, 128]
    assert service.fires <= len(slept) + 2, "one attempt per round, not one per timer"
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "cannot be used" in errors[0].getMessage()


async def test_a_deleted_database_file_is_refused_loudly(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    storage = await SqliteStorage.in_dir(tmp_path).open()
    try:
        service = GameService(storage)
        await service.create_game(1, 11, "Ann")
        for suffix in ("", "-wal", "-shm"):
            Path(f"{storage.path}{suffix}").unlink(missing_ok=True)
        with caplog.at_level(logging.CRITICAL, logger="khronos.storage"):
            for user in (12, 13):
                with pytest.raises(StorageLost, match="nothing was changed"):
                    await service.join(1, user, "Bob")
        assert len([r for r in caplog.records if r.levelno >= logging.CRITICAL]) == 1
    finally:
        await storage.close()


async def test_commands_cancelled_anywhere_leave_the_storage_usable(
        tmp_path: Path) -> None:
    storage = await SqliteStorage.in_dir(tmp_path).open()
    try:
        service = GameService(storage)
        await service.create_game(1, 11, "Ann")
        for steps in range(12):
            for call in (lambda: service.info(1), lambda: service.join(1, 99, "Zed"),
                         lambda: service.leave(1, 99)):
                task = asyncio.ensure_future(call())
                for _ in range(steps):
                    await asyncio.sleep(0)
                task.cancel()
                try:
                    await task
                except asyncio.CancelledError:
                    pass
                except EngineError:
                    pass  # it finished first: a refusal (already joined, not seated)
            # the next read and write work
            assert (await service.info(1)).status == "lobby"
            async with storage.write() as tx:
                await tx.last_seq(1)
    finally:
        await storage.close()


class CutBadly:
    """A service whose first timer, cancelled while it fires, fails with another error in
    place of the cancellation (as asyncpg did for a COMMIT cut halfway); nothing else is
    due."""

    clock = staticmethod(lambda: 1_700_000_000.0)

    def __init__(self) -> None:
        self.firing = asyncio.Event()
        self.postponed: list[int] = []
        self.rounds = 0

    async def due_timers(self, now: float | None = None) -> list[int]:
        self.rounds += 1
        return [1, 2] if self.rounds == 1 else []

    async def fire_timer(self, timer_id: int) -> Outcome | None:
        if timer_id != 1:
            return None
        self.firing.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            raise RuntimeError("cannot rollback; the transaction is in error state") from None
        return None

    async def postpone_timer(self, timer_id: int, seconds: float) -> None:
        self.postponed.append(timer_id)

    async def next_timer_due(self) -> float | None:
        return None


async def test_a_stop_that_cuts_a_timer_with_an_error_still_stops_and_leaves_it_due(
        caplog: pytest.LogCaptureFixture) -> None:
    """The stop cancels the timer task wherever it is; an error raised in place of the
    cancellation is the stop's doing, not the timer's: the timer is not postponed (it stays
    due: the next start fires it), nothing is logged as an error, and the loop ends instead
    of going on with the next timer (a stop that never ended)."""
    service = CutBadly()

    async def deliver(out: Outcome) -> None:
        raise AssertionError("nothing to deliver")

    dispatcher = TimerDispatcher(service, deliver)
    with caplog.at_level(logging.DEBUG, logger="khronos.timers"):
        dispatcher.start()
        await asyncio.wait_for(service.firing.wait(), 10)
        stopping = asyncio.ensure_future(dispatcher.stop())
        await asyncio.wait({stopping}, timeout=5)
    assert stopping.done(), "the stop ended"
    assert service.postponed == []
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
