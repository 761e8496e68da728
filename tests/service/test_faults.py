"""Storage faults (issue 12, defects 6-8): the timer loop backs off when the database cannot
be written, a deleted database file is refused loudly, and a cancelled command leaves the
connections usable."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from typing import Any

import pytest

from bot.dispatcher import TimerDispatcher
from bot.service import Outcome


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


async def test_defect6_a_full_disk_makes_the_timer_loop_back_off_and_say_it_once(
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

    service_any: Any = service
    dispatcher = TimerDispatcher(service_any, deliver, sleep=fake_sleep, max_sleep=300)
    with caplog.at_level(logging.WARNING, logger="khronos.timers"):
        dispatcher.start()
        await asyncio.wait_for(enough.wait(), 10)
        await dispatcher.stop()
    assert slept[:8] == [1, 2, 4, 8, 16, 32, 64, 128]
    assert service.fires <= len(slept) + 2, "one attempt per round, not one per timer"
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "cannot be used" in errors[0].getMessage()
