"""The outbox: rows written in the command's transaction, delivered in order per
game, retried with backoff, given up after a limit, late rows marked, replies of an earlier
run expired."""

from __future__ import annotations

import asyncio
import json
import random
from typing import cast

import pytest

import engine
from bot.service import GameService
from bot.service.outbox import CLAIM_FOR, MAX_ATTEMPTS, Deliverer, Delivery, RetryLater
from bot.service.states import Shown, StateReader, StateRef
from bot.storage.api import Queries
from tests.service.conftest import Clock, current_user, random_move, started_game
from tests.storage.postgres.backend import AnyStorage, another, fetch_raw


class Recorder:
    def __init__(self) -> None:
        self.sent: list[Delivery] = []
        self.fail: dict[int, int] = {}  # game id -> transient failures still to answer

    async def send(self, item: Delivery) -> str:
        if self.fail.get(item.game_id, 0) > 0:
            self.fail[item.game_id] -= 1
            raise RetryLater("503")
        self.sent.append(item)
        return "sent"


async def unsent(storage: AnyStorage) -> int:
    async with storage.read() as q:
        return len(await q.unsent(limit=10_000))


async def test_a_refused_command_stores_nothing_to_say(service: GameService,
                                                       storage: AnyStorage) -> None:
    await started_game(service, 1, players=2, seed=1)
    before = await unsent(storage)
    user, _ = await current_user(service, 1)
    other = 12 if user == 11 else 11
    with pytest.raises(engine.NotYourTurn):
        await service.act(1, other, engine.EndTurn())
    assert await unsent(storage) == before


async def test_rows_go_out_in_order_per_game_and_a_failing_game_waits_alone(
        service: GameService, storage: AnyStorage, clock: Clock) -> None:
    a = await started_game(service, 1, players=2, seed=1)
    b = await started_game(service, 2, players=2, seed=2)
    assert a.game is not None and b.game is not None
    transport = Recorder()
    deliverer = Deliverer(storage, transport, clock=clock)
    transport.fail[a.game.game_id] = 2
    await deliverer.drain()
    assert {d.game_id for d in transport.sent} == {b.game.game_id}, "A waits, B goes out"
    clock.now += 2.5  # the first backoff
    await deliverer.drain()
    assert not any(d.game_id == a.game.game_id for d in transport.sent), "second failure"
    clock.now += 6
    await deliverer.drain()
    sent_a = [d for d in transport.sent if d.game_id == a.game.game_id]
    assert [d.row_id for d in sent_a] == sorted(d.row_id for d in sent_a)
    assert sent_a[0].kind == "post" and any(d.image is not None for d in sent_a)
    assert await unsent(storage) == 0


async def test_a_row_is_given_up_after_the_attempt_limit(
        service: GameService, storage: AnyStorage, clock: Clock) -> None:
    a = await started_game(service, 1, players=2, seed=1)
    assert a.game is not None
    transport = Recorder()
    transport.fail[a.game.game_id] = MAX_ATTEMPTS
    deliverer = Deliverer(storage, transport, clock=clock)
    for _ in range(MAX_ATTEMPTS + 2):
        await deliverer.drain()
        clock.now += 400
    rows = await fetch_raw(storage, "SELECT result FROM outbox ORDER BY id")
    assert rows[0][0] == "failed" and all(r[0] is not None for r in rows)


async def test_late_rows_are_marked_and_replies_of_an_earlier_run_expire(
        service: GameService, storage: AnyStorage, clock: Clock) -> None:
    await started_game(service, 1, players=2, seed=1)
    out = await service.set_muted(1, 11, True)  # a command with a private reply
    assert out.reply_row is not None
    clock.now += 600  # the bot was down ten minutes
    transport = Recorder()
    await Deliverer(storage, transport, clock=clock).drain()
    assert transport.sent and all(d.late for d in transport.sent)
    async with storage.read() as q:
        row = await q.outbox_row(out.reply_row)
    assert row is not None and row.result == "expired"


class SharedLog:
    """Transports of several deliverers writing, in send order, to one list; each send
    takes a moment (a real await), so that deliverers running together overlap."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Delivery]] = []
        self.chooser = random.Random(7)

    def transport(self, name: str) -> Named:
        return Named(self, name)


class Named:
    def __init__(self, log: SharedLog, name: str) -> None:
        self.log, self.name = log, name
        self.during_send: list[asyncio.Future[None]] = []

    async def send(self, item: Delivery) -> str:
        await asyncio.sleep(self.log.chooser.uniform(0, 0.004))
        self.log.sent.append((self.name, item))
        return "sent"


def take_turns(log: SharedLog, deliverer: Deliverer, other: str) -> None:
    """Until ``other`` has sent a row, ``deliverer`` tries one claim at a time and holds one
    game at most: however the machine schedules them, neither takes every game before the
    other starts (six games: the other always finds a free one). Bounded, so that a
    deliverer that never sends fails the test instead of hanging it."""
    claim = deliverer._claim
    busy = False  # a claim in flight, or a game held, before the other sent

    def other_sent() -> bool:
        return any(name == other for name, _ in log.sent)

    async def after_the_other(game_id: int) -> bool:
        nonlocal busy
        for _ in range(1000):
            if not busy or other_sent():
                break
            await asyncio.sleep(0.01)
        if other_sent():
            return await claim(game_id)
        busy = True
        claimed = await claim(game_id)
        busy = claimed
        return claimed

    deliverer._claim = after_the_other  # type: ignore[method-assign]


async def games_with_rows(service: GameService, storage: AnyStorage,
                          channels: range) -> list[int]:
    """Started games with a few moves each; returns the ids of their unsent rows."""
    chooser = random.Random(3)
    for channel in channels:
        await started_game(service, channel, players=3, seed=channel)
        for _ in range(3):
            await random_move(service, channel, chooser)
    async with storage.read() as q:
        return [r.id for r in await q.unsent(limit=10_000)]


async def superseded(storage: AnyStorage) -> set[int]:
    """The table rows left unsent because a later row of their turn said more."""
    return {r[0] for r in await fetch_raw(
        storage, "SELECT id FROM outbox WHERE result = 'superseded'")}


async def assert_each_row_once_in_order(log: SharedLog, rows: list[int], game_ids: list[int],
                                        storage: AnyStorage) -> None:
    """Every row sent once, in order per game; a table row left out only for a later row of
    the same turn, which was sent."""
    skipped = await superseded(storage)
    sent = [item.row_id for _, item in log.sent]
    assert skipped and sorted(sent) == sorted(set(rows) - skipped), "every row once, none twice"
    turns = {item.row_id: (item.game_id, item.table.turn) for _, item in log.sent if item.table}
    async with storage.read() as q:
        for row_id in skipped:
            row = await q.outbox_row(row_id)
            assert row is not None and row.kind == "table"
            turn = json.loads(row.body)["table"]["turn"]
            assert any(t == (row.game_id, turn) and later > row_id
                       for later, t in turns.items()), "its turn's later row went out"
    for game_id in game_ids:
        of_game = [item.row_id for _, item in log.sent if item.game_id == game_id]
        assert of_game == sorted(of_game), f"game {game_id} out of order"


async def test_two_deliverers_on_one_database_send_every_row_once_in_order(
        service: GameService, storage: AnyStorage, clock: Clock, backend: str) -> None:
    """Two processes (two storage objects, each its own connections) deliver the same games
    at the same moment, each draining and flushing every game: every row is sent once, and
    each game's rows in row order (a game is claimed by one deliverer at a time)."""
    rows = await games_with_rows(service, storage, range(1, 7))
    assert len(rows) > 30
    log = SharedLog()
    second = await another(storage).open()
    try:
        one = Deliverer(storage, log.transport("one"), clock=clock)
        two = Deliverer(second, log.transport("two"), clock=clock)
        take_turns(log, one, "two")
        take_turns(log, two, "one")
        async with storage.read() as q:
            game_ids = sorted({r.game_id for r in await q.unsent(limit=10_000)})
        await asyncio.gather(one.drain(), two.drain(),
                             *(d.flush(g) for g in reversed(game_ids) for d in (two, one)))
    finally:
        await second.close()
    await assert_each_row_once_in_order(log, rows, game_ids, storage)
    assert {name for name, _ in log.sent} == {"one", "two"}, "both took part"
    assert await unsent(storage) == 0
    assert await fetch_raw(storage, "SELECT game_id FROM outbox_claims") == [], "claims released"


async def test_flushes_of_one_game_in_one_process_take_turns_and_leave_no_lock_behind(
        service: GameService, storage: AnyStorage, clock: Clock) -> None:
    """Within one process the claim is the same owner's, so the per-game lock is what keeps
    two flushes of a game apart: many at once still send every row once, in order. When they
    are done no lock is kept (a bot that runs for months does not keep one per game)."""
    rows = await games_with_rows(service, storage, range(1, 4))
    log = SharedLog()
    deliverer = Deliverer(storage, log.transport("one"), clock=clock)
    async with storage.read() as q:
        game_ids = sorted({r.game_id for r in await q.unsent(limit=10_000)})
    await asyncio.gather(*(deliverer.flush(g) for _ in range(4) for g in game_ids))
    await assert_each_row_once_in_order(log, rows, game_ids, storage)
    assert len(deliverer._locks) == 0


async def test_a_claim_left_by_a_dead_process_expires_and_a_stalled_deliverer_stops(
        service: GameService, storage: AnyStorage, clock: Clock) -> None:
    rows = await games_with_rows(service, storage, range(1, 2))
    async with storage.read() as q:
        (game_id,) = {r.game_id for r in await q.unsent()}
    # a process claimed the game, then died: its claim holds the rows until it expires
    async with storage.write() as tx:
        assert await tx.claim_outbox(game_id, "dead", clock.now, clock.now + CLAIM_FOR)
    log = SharedLog()
    one = Deliverer(storage, log.transport("one"), clock=clock)
    assert await one.flush(game_id, wait=0.1) == 0 and log.sent == []
    clock.now += CLAIM_FOR
    # now "one" delivers, but stalls past its claim on the first row, and "two" takes over
    two = Deliverer(storage, log.transport("two"), clock=clock)
    stalled = one.transport
    assert isinstance(stalled, Named)
    send = stalled.send

    async def stall(item: Delivery) -> str:
        result = await send(item)
        clock.now += CLAIM_FOR
        assert await two._claim(game_id)
        return result

    stalled.send = stall  # type: ignore[method-assign]
    assert await one.flush(game_id) == 1, "it stops once its claim is lost"
    sent_by_two = await two.flush(game_id)
    skipped = await superseded(storage)  # table rows of a turn a later row says better
    assert skipped and sent_by_two == len(rows) - 1 - len(skipped)
    assert [item.row_id for _, item in log.sent] == [r for r in rows if r not in skipped]
    assert [name for name, _ in log.sent] == ["one"] + ["two"] * (len(rows) - 1 - len(skipped))


async def test_a_claim_dies_with_its_holder_and_is_taken_at_once(
        service: GameService, storage: AnyStorage, clock: Clock) -> None:
    """Another storage on the database (a process) claims a game for a minute: while it is
    open, the claim holds; once it is gone (its lock with it: a file lock on SQLite, a session
    lock on PostgreSQL), the game's rows go out at once, long before the claim expires."""
    rows = await games_with_rows(service, storage, range(1, 2))
    async with storage.read() as q:
        (game_id,) = {r.game_id for r in await q.unsent()}
    other = await another(storage).open()
    try:
        async with other.write() as tx:
            assert await tx.claim_outbox(game_id, "theirs", clock.now, clock.now + CLAIM_FOR)
        log = SharedLog()
        mine = Deliverer(storage, log.transport("mine"), clock=clock)
        assert await mine.flush(game_id, wait=0.1) == 0 and log.sent == [], "it is alive"
    finally:
        await other.close()  # as its process ending: its lock goes, its claim stays
    [[owner]] = await fetch_raw(storage, "SELECT owner FROM outbox_claims")
    assert owner.endswith("/theirs"), "the claim is still in the table"
    sent = await mine.flush(game_id, wait=0)
    skipped = await superseded(storage)  # table rows of a turn a later row says better
    assert sent == len(rows) - len(skipped)
    assert [item.row_id for _, item in log.sent] == [r for r in rows if r not in skipped]


class Gate:
    """A transport whose first send waits until ``opened`` is set (Discord holding the
    request open); ``entered`` is set once it waits."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.opened = asyncio.Event()
        self.sent: list[int] = []

    async def send(self, item: Delivery) -> str:
        self.entered.set()
        await self.opened.wait()
        self.sent.append(item.row_id)
        return "sent"


async def background_sending(service: GameService, storage: AnyStorage, clock: Clock
                             ) -> tuple[Deliverer, Gate, list[int]]:
    """A game with a few rows, whose first row the background task is sending (held)."""
    rows = await games_with_rows(service, storage, range(1, 2))
    gate = Gate()
    deliverer = Deliverer(storage, gate, clock=clock)
    deliverer.start()
    await asyncio.wait_for(gate.entered.wait(), 10)
    return deliverer, gate, rows


async def test_stop_lets_the_row_being_sent_finish_within_its_grace_and_marks_it(
        service: GameService, storage: AnyStorage, clock: Clock) -> None:
    """Cut halfway, a row whose message Discord took would stay unsent (and be sent again,
    or superseded by a later row of its turn that posts a second table message)."""
    deliverer, gate, rows = await background_sending(service, storage, clock)
    stopping = asyncio.ensure_future(deliverer.stop(grace=30))
    gate.opened.set()  # Discord answers while the stop waits
    await asyncio.wait_for(stopping, 10)
    assert gate.sent and gate.sent[0] == rows[0]
    sent = {r[0] for r in await fetch_raw(
        storage, "SELECT id FROM outbox WHERE sent_at IS NOT NULL")}
    assert rows[0] in sent, "the row under way is marked sent"
    assert await fetch_raw(storage, "SELECT game_id FROM outbox_claims") == []


async def test_stop_past_its_grace_cancels_the_send_leaving_the_row_unsent_and_unclaimed(
        service: GameService, storage: AnyStorage, clock: Clock) -> None:
    deliverer, gate, rows = await background_sending(service, storage, clock)
    await asyncio.wait_for(deliverer.stop(grace=0.05), 10)  # Discord never answers
    assert gate.sent == []
    left = await fetch_raw(storage, "SELECT id FROM outbox WHERE sent_at IS NULL")
    assert sorted(r[0] for r in left) == rows, "left for the next start"
    assert await fetch_raw(storage, "SELECT game_id FROM outbox_claims") == [], (
        "the next process need not wait for the claim to expire")


async def test_a_storage_failure_while_an_image_is_read_back_leaves_its_row_for_later(
        service: GameService, storage: AnyStorage, clock: Clock) -> None:
    """The storage failing while a row's image state is read (a lost connection: aiosqlite
    says so with a ValueError) is not the row's fault: the row is neither dropped as
    unreadable nor sent without its picture; it waits, and the next pass sends it whole."""
    rows = await games_with_rows(service, storage, range(1, 2))
    log = SharedLog()
    deliverer = Deliverer(storage, log.transport("one"), clock=clock)
    reader = deliverer._states
    read = reader.read
    failed: list[int] = []

    async def lost_once(q: Queries, game_id: int, ref: StateRef, *,
                        moves: bool = False) -> Shown | None:
        if not failed:
            failed.append(1)
            raise ValueError("no active connection")
        return await read(q, game_id, ref, moves=moves)

    reader.read = lost_once  # type: ignore[method-assign]
    async with storage.read() as q:
        (game_id,) = {r.game_id for r in await q.unsent()}
    await deliverer.flush(game_id)
    assert failed, "an image was read back"
    assert await fetch_raw(storage, "SELECT id FROM outbox WHERE result = 'unreadable'") == []
    assert await unsent(storage) > 0, "the row waits with the rows after it"
    await deliverer.flush(game_id)
    assert await unsent(storage) == 0
    skipped = await superseded(storage)
    assert [item.row_id for _, item in log.sent] == [r for r in rows if r not in skipped]
    assert all(item.image is not None for _, item in log.sent if item.kind == "table")


async def test_a_storage_failure_reading_a_state_is_not_taken_for_a_damaged_game(
        service: GameService, storage: AnyStorage) -> None:
    """``StateReader.read`` says None for a game it cannot rebuild (gone, damaged), but lets
    the storage's own failure through: the caller must not take it for damage."""
    await games_with_rows(service, storage, range(1, 2))
    async with storage.read() as q:
        row = (await q.unsent())[-1]
        game_id = row.game_id
        last = await q.last_seq(game_id)
    reader = StateReader()
    ref = StateRef(seq=last, step=0)

    class Lost:
        def __getattr__(self, name: str) -> object:
            async def fail(*_args: object) -> None:
                raise ValueError("no active connection")
            return fail

    with pytest.raises(ValueError, match="no active connection"):
        # cast: a Queries in name only, whose every query fails as on a lost connection
        await reader.read(cast(Queries, Lost()), game_id, ref)
    async with storage.read() as q:
        assert await reader.read(q, game_id + 1000, ref) is None  # no such game
