"""A reply row belongs to the process whose interaction wrote it (several bot processes on one
database): another process delivering the game's rows neither expires it while its
writer may still answer nor waits for it, and drops it once the interaction's token is dead
(``REPLY_WINDOW``) when the writer died after the commit. Both backends (SQLite file, and
PostgreSQL when ``KHRONOS_TEST_DATABASE_URL`` names a server).

Each "process" is a ``Deliverer`` with its own storage object (its own connections) and its
own process identity (``outbox.PROCESS``, set while its commands run and its deliverer is
made), started at its own time."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.service import GameService, Outcome, outbox
from bot.service.outbox import REPLY_WINDOW, Deliverer, Delivery
from tests.service.conftest import Clock, started_game
from tests.storage.postgres.backend import AnyStorage, another

Event = tuple[str, str, int]  # (process, kind, row id), in the order people see them


class Table:
    """What people see, in order: each process's transport and its interactions' replies."""

    def __init__(self) -> None:
        self.seen: list[Event] = []
        self.gate: asyncio.Event | None = None  # while set to an unset event, sends wait
        self.waiting = asyncio.Event()  # a send is waiting at the gate

    def transport(self, process: str) -> Process:
        return Process(self, process)

    def index(self, row_id: int) -> int:
        (found,) = [i for i, (_, _, r) in enumerate(self.seen) if r == row_id]
        return found


class Process:
    def __init__(self, table: Table, name: str) -> None:
        self.table, self.name = table, name

    async def send(self, item: Delivery) -> str:
        assert item.kind != "reply", "a reply goes through its interaction, not the channel"
        gate = self.table.gate
        if gate is not None:
            self.table.waiting.set()
            await gate.wait()
        await asyncio.sleep(0)
        self.table.seen.append((self.name, item.kind, item.row_id))
        return "sent"

    async def reply(self, item: Delivery) -> None:
        self.table.seen.append((self.name, "reply", item.row_id))


async def answer(deliverer: Deliverer, process: Process, out: Outcome, *,
                 wait: float = outbox.CLAIM_WAIT) -> None:
    """What the Discord adapter does after a command's commit (``KhronosBot.deliver``): the
    reply is expected by this interaction, the game's rows are flushed, the reply sent."""
    assert out.game is not None and out.reply_row is not None
    deliverer.expect_reply(out.reply_row, process.reply)
    await deliverer.flush(out.game.game_id, wait=wait)
    await deliverer.reply_now(out.reply_row)


async def result(storage: AnyStorage, row_id: int) -> str | None:
    async with storage.read() as q:
        row = await q.outbox_row(row_id)
    assert row is not None
    return row.result


def rows_of(out: Outcome) -> list[int]:
    return [r for r in out.outbox if r != out.reply_row]


@pytest.fixture
async def second(storage: AnyStorage) -> AsyncIterator[AnyStorage]:
    other = await another(storage).open()
    try:
        yield other
    finally:
        await other.close()


async def test_a_process_started_after_the_commit_leaves_the_reply_to_its_writer(
        service: GameService, storage: AnyStorage, second: AnyStorage, clock: Clock,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Process A commits a command; process B, started a moment later, holds the game's
    claim and delivers first: it sends A's post and leaves A's reply alone; A then answers
    its interaction (the defect: B expired the reply, and the author got no answer)."""
    table = Table()
    monkeypatch.setattr(outbox, "PROCESS", "proc-a", raising=False)
    a_side = table.transport("a")
    a = Deliverer(storage, a_side, clock=clock)
    await started_game(service, 1, players=2, seed=1)
    clock.now += 1
    out = await service.away(1, 11, 2)
    monkeypatch.setattr(outbox, "PROCESS", "proc-b", raising=False)
    clock.now += 1
    b = Deliverer(second, table.transport("b"), clock=clock)
    assert b.started_at > a.started_at
    await b.drain()
    assert out.reply_row is not None
    assert await result(storage, out.reply_row) is None, "B left A's reply unsent"
    assert [("b", "post", r) for r in rows_of(out)] == [
        e for e in table.seen if e[2] in rows_of(out)], "B sent A's post"
    await answer(a, a_side, out)
    assert table.seen[-1] == ("a", "reply", out.reply_row), "A answered its interaction"
    assert await result(storage, out.reply_row) == "sent"


async def test_a_process_holding_the_claim_sends_the_writers_rows_and_not_its_reply(
        service: GameService, storage: AnyStorage, second: AnyStorage, clock: Clock,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """B holds the game's claim (it is sending a backlog) while A's command awaits its flush:
    B sends A's post in order and skips A's reply; A gets the claim once B lets go and
    answers its interaction after its post."""
    table = Table()
    monkeypatch.setattr(outbox, "PROCESS", "proc-b", raising=False)
    b = Deliverer(second, table.transport("b"), clock=clock)
    await started_game(service, 1, players=2, seed=1)  # B's backlog
    monkeypatch.setattr(outbox, "PROCESS", "proc-a", raising=False)
    clock.now += 1
    a_side = table.transport("a")
    a = Deliverer(storage, a_side, clock=clock)
    table.gate = asyncio.Event()
    draining = asyncio.create_task(b.drain())
    await asyncio.wait_for(table.waiting.wait(), 5)  # B holds the claim, in its first send
    out = await service.away(1, 11, 2)
    answering = asyncio.create_task(answer(a, a_side, out, wait=60))  # a slow machine too
    await asyncio.sleep(0.2)  # A polls for the claim
    assert not answering.done()
    table.gate.set()
    await asyncio.gather(draining, answering)
    assert out.reply_row is not None
    replies = [e for e in table.seen if e[2] == out.reply_row]
    assert replies == [("a", "reply", out.reply_row)], "once, by its writer"
    assert all(table.index(r) < table.index(out.reply_row) for r in rows_of(out)), (
        "the author is answered after his post")
    assert await result(storage, out.reply_row) == "sent"


async def test_when_the_claim_is_held_too_long_the_writer_still_answers_once(
        service: GameService, storage: AnyStorage, second: AnyStorage, clock: Clock,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """B holds the claim longer than A waits for it: A answers its interaction without the
    claim (within the token's life), B sends A's post when it gets there; each once."""
    table = Table()
    monkeypatch.setattr(outbox, "PROCESS", "proc-b", raising=False)
    b = Deliverer(second, table.transport("b"), clock=clock)
    await started_game(service, 1, players=2, seed=1)
    monkeypatch.setattr(outbox, "PROCESS", "proc-a", raising=False)
    clock.now += 1
    a_side = table.transport("a")
    a = Deliverer(storage, a_side, clock=clock)
    table.gate = asyncio.Event()
    draining = asyncio.create_task(b.drain())
    await asyncio.wait_for(table.waiting.wait(), 5)
    out = await service.away(1, 11, 2)
    await answer(a, a_side, out, wait=0.1)
    assert out.reply_row is not None
    assert table.seen == [("a", "reply", out.reply_row)], "answered while B still holds it"
    table.gate.set()
    await draining
    assert [e for e in table.seen if e[2] in rows_of(out)] == [
        ("b", "post", r) for r in rows_of(out)], "B sent A's post, once"
    assert [e for e in table.seen if e[2] == out.reply_row] == [("a", "reply", out.reply_row)]
    assert await result(storage, out.reply_row) == "sent"


async def test_the_reply_of_a_writer_that_died_blocks_nothing_and_expires_with_its_token(
        service: GameService, storage: AnyStorage, second: AnyStorage, clock: Clock,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A dies right after committing: B sends A's post (the table sees the move announced),
    then B's own commands in that game go out in full past A's unsent reply; A's reply is
    dropped as ``expired`` once its interaction's token is dead, not before."""
    table = Table()
    monkeypatch.setattr(outbox, "PROCESS", "proc-a", raising=False)
    await started_game(service, 1, players=2, seed=1)
    out_a = await service.away(1, 11, 2)  # A commits, then dies: nobody calls answer()
    assert out_a.reply_row is not None
    created = clock.now
    monkeypatch.setattr(outbox, "PROCESS", "proc-b", raising=False)
    clock.now += 5
    b_side = table.transport("b")
    b = Deliverer(second, b_side, clock=clock)
    await b.drain()
    assert ("b", "post", rows_of(out_a)[0]) in table.seen
    out_b = await service.away(1, 12, 3)  # a command B's process handles, after A's
    await answer(b, b_side, out_b)
    assert out_b.reply_row is not None
    assert table.seen[-2:] == [("b", "post", rows_of(out_b)[0]), ("b", "reply", out_b.reply_row)]
    assert await result(storage, out_a.reply_row) is None
    assert await b.next_due() == created + REPLY_WINDOW, "B looks again when the token dies"
    clock.now = created + REPLY_WINDOW - 1
    await b.drain()
    assert await result(storage, out_a.reply_row) is None, "A may still answer"
    clock.now = created + REPLY_WINDOW
    await b.drain()
    assert await result(storage, out_a.reply_row) == "expired"
    assert all(e[2] != out_a.reply_row for e in table.seen), "nobody answered for A"
    async with storage.read() as q:
        assert await q.unsent(limit=10_000) == []

