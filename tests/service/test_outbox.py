"""The outbox (issue 12): rows written in the command's transaction, delivered in order per
game, retried with backoff, given up after a limit, late rows marked, replies of an earlier
run expired."""

from __future__ import annotations

import pytest

import engine
from bot.service import GameService
from bot.service.outbox import MAX_ATTEMPTS, Deliverer, Delivery, RetryLater
from bot.storage import Storage
from tests.service.conftest import Clock, current_user, started_game


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


async def unsent(storage: Storage) -> int:
    async with storage.read() as q:
        return len(await q.unsent(limit=10_000))


async def test_a_refused_command_stores_nothing_to_say(service: GameService,
                                                       storage: Storage) -> None:
    await started_game(service, 1, players=2, seed=1)
    before = await unsent(storage)
    user, _ = await current_user(service, 1)
    other = 12 if user == 11 else 11
    with pytest.raises(engine.NotYourTurn):
        await service.act(1, other, engine.EndTurn())
    assert await unsent(storage) == before


async def test_rows_go_out_in_order_per_game_and_a_failing_game_waits_alone(
        service: GameService, storage: Storage, clock: Clock) -> None:
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
        service: GameService, storage: Storage, clock: Clock) -> None:
    a = await started_game(service, 1, players=2, seed=1)
    assert a.game is not None
    transport = Recorder()
    transport.fail[a.game.game_id] = MAX_ATTEMPTS
    deliverer = Deliverer(storage, transport, clock=clock)
    for _ in range(MAX_ATTEMPTS + 2):
        await deliverer.drain()
        clock.now += 400
    async with storage.read() as q:
        rows = await q._all("SELECT result FROM outbox ORDER BY id")
    assert rows[0][0] == "failed" and all(r[0] is not None for r in rows)


async def test_late_rows_are_marked_and_replies_of_an_earlier_run_expire(
        service: GameService, storage: Storage, clock: Clock) -> None:
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
