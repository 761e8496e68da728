"""A send cut by this process's stop is no failure of its row: the transport says ``Stopped``
(its connection to Discord closed or closing) and the deliverer leaves the row exactly as it
was (no attempt counted, no backoff stored, no mark), its claim released, so that the next
process sends it at once; a row cut by the stop's cancellation is left the same way. A real
failure during the stop is still counted and logged."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from bot.service import GameService
from bot.service.outbox import BACKOFF, Deliverer, Delivery, Stopped, unsent_count
from tests.service.conftest import Clock, started_game
from tests.service.test_outbox import Recorder, games_with_rows
from tests.storage.postgres.backend import AnyStorage, fetch_raw

ROW_STATE = "SELECT id, attempts, next_at, sent_at, result FROM outbox ORDER BY id"


class Cut:
    """A transport whose first send waits until ``release`` is set (Discord holding the
    request), then fails with ``error`` (the stop closed the connection under it)."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        self.sent: list[int] = []

    async def send(self, item: Delivery) -> str:
        if not self.entered.is_set():
            self.entered.set()
            await self.release.wait()
            raise self.error
        self.sent.append(item.row_id)
        return "sent"


async def cut_during_the_stop(service: GameService, storage: AnyStorage, clock: Clock,
                              error: Exception) -> tuple[list[tuple[Any, ...]], Deliverer]:
    """The background task sends a game's first row; the stop comes (its grace long); the
    send then fails with ``error``. Returns the rows' state before, and the deliverer."""
    await games_with_rows(service, storage, range(1, 2))
    before = await fetch_raw(storage, ROW_STATE)
    transport = Cut(error)
    deliverer = Deliverer(storage, transport, clock=clock)
    deliverer.start()
    await asyncio.wait_for(transport.entered.wait(), 10)
    stopping = asyncio.ensure_future(deliverer.stop(grace=30))
    await asyncio.sleep(0)  # the stop has begun: the deliverer is closing
    clock.now += 1.0  # the stop takes time: a stored "now + backoff" would show it
    transport.release.set()
    await asyncio.wait_for(stopping, 10)
    return before, deliverer


async def test_a_send_the_stop_cut_leaves_its_row_exactly_as_it_was_and_unclaimed(
        service: GameService, storage: AnyStorage, clock: Clock,
        caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="khronos.outbox"):
        before, _ = await cut_during_the_stop(
            service, storage, clock, Stopped("RuntimeError: Session is closed"))
    assert await fetch_raw(storage, ROW_STATE) == before, (
        "no attempt counted, no backoff stored, no mark: due at once for the next process")
    assert await fetch_raw(storage, "SELECT game_id FROM outbox_claims") == []
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info], (
        "the expected cut logs no error and no traceback")
    assert await unsent_count(storage) == len(before)


async def test_a_real_failure_during_the_stop_is_still_counted_and_logged(
        service: GameService, storage: AnyStorage, clock: Clock,
        caplog: pytest.LogCaptureFixture) -> None:
    """Only the transport can tell its closed connection from a bug: a failure it does not
    class as ``Stopped`` keeps its backoff and its traceback, stop or not."""
    with caplog.at_level(logging.ERROR, logger="khronos.outbox"):
        before, _ = await cut_during_the_stop(
            service, storage, clock, RuntimeError("a bug in the transport"))
    after = await fetch_raw(storage, ROW_STATE)
    first = before[0][0]
    row = next(r for r in after if r[0] == first)
    assert row[1] == 1 and row[2] == pytest.approx(clock.now + BACKOFF[-1])
    assert any(r.exc_info for r in caplog.records), "a real error keeps its traceback"


async def test_a_send_cancelled_by_the_stop_leaves_its_row_exactly_as_it_was(
        service: GameService, storage: AnyStorage, clock: Clock) -> None:
    await games_with_rows(service, storage, range(1, 2))
    before = await fetch_raw(storage, ROW_STATE)
    transport = Cut(Stopped("never reached"))
    deliverer = Deliverer(storage, transport, clock=clock)
    deliverer.start()
    await asyncio.wait_for(transport.entered.wait(), 10)
    await asyncio.wait_for(deliverer.stop(grace=0.05), 10)  # Discord never answers
    assert await fetch_raw(storage, ROW_STATE) == before
    assert await fetch_raw(storage, "SELECT game_id FROM outbox_claims") == []


async def test_a_reply_the_stop_cut_is_left_unmarked_and_the_next_row_waits(
        service: GameService, storage: AnyStorage, clock: Clock) -> None:
    """The interaction's answer cut by the stop is not marked "failed": the row stays as it
    was (the next process drops it once its interaction's token is dead)."""
    await started_game(service, 1, players=2, seed=1)
    deliverer = Deliverer(storage, Recorder(), clock=clock)
    await deliverer.drain()  # the game's rows so far go out
    out = await service.set_muted(1, 11, True)  # a command with a private reply
    assert out.reply_row is not None and out.game is not None
    before = await fetch_raw(storage, ROW_STATE)

    async def cut(item: Delivery) -> None:
        raise Stopped("RuntimeError: Session is closed")
    deliverer.expect_reply(out.reply_row, cut)
    await deliverer.flush(out.game.game_id)
    assert await fetch_raw(storage, ROW_STATE) == before
    assert await fetch_raw(storage, "SELECT game_id FROM outbox_claims") == []
