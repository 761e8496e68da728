"""Outbox rows name the state their image shows (a place in the move log) instead of carrying
a copy of it; the deliverer reads it back when it sends the row, however far the game has
moved on since: the same state, from the stored state, the checkpoint, or the seed and the
log (bot/service/states.py)."""

from __future__ import annotations

import json
import random

import engine
from bot.service import GameService, Outcome
from bot.service.outbox import Deliverer, Delivery
from bot.storage.api import OutboxRow
from tests.service.conftest import Clock, current_user, random_move, started_game
from tests.storage.postgres.backend import AnyStorage


class Unused:
    async def send(self, item: Delivery) -> str:
        raise AssertionError("not sent here")


async def rows_of(storage: AnyStorage, out: Outcome) -> list[OutboxRow]:
    async with storage.read() as q:
        rows = [await q.outbox_row(r) for r in out.outbox]
    return [r for r in rows if r is not None and json.loads(r.body).get("image")]


async def test_a_row_names_its_state_and_gets_the_same_state_back_after_the_game_moved_on(
        service: GameService, storage: AnyStorage, clock: Clock) -> None:
    """Rows of every move of a game, some undone, read back only at the end (a backlog): each
    image shows exactly the state of its move, with no copy of it in the row."""
    chooser = random.Random(4)
    written: list[tuple[OutboxRow, engine.GameState]] = []
    out = await started_game(service, 40, players=3, seed=40)
    for turn in range(60):
        written += [(r, (await service.snapshot(40))[1]) for r in await rows_of(storage, out)]
        user, state = await current_user(service, 40)
        if state.over:
            break
        if turn % 7 == 3:
            try:
                out = await service.undo(40, user)
                continue
            except engine.EngineError:
                pass
        out = await random_move(service, 40, chooser)
    assert len(written) > 60
    deliverer = Deliverer(storage, Unused(), clock=clock)
    for row, state in written:
        body = json.loads(row.body)
        assert "state" not in body["image"] and "at" in body["image"], "no copy of the state"
        message = await deliverer.message(row)
        assert message.image is not None and message.image.state == state, row.id
    assert max(len(r.body) for r, _ in written) < 4000


async def test_the_end_of_game_summary_reads_its_moves_and_seed_back(
        service: GameService, storage: AnyStorage, clock: Clock) -> None:
    chooser = random.Random(8)
    await started_game(service, 41, players=2, seed=41)
    while True:
        out = await random_move(service, 41, chooser)
        if (await service.snapshot(41))[1].over:
            break
    summary = next(p.image for p in out.public if p.image and p.image.kind == "summary")
    [row] = [r for r in await rows_of(storage, out)
             if json.loads(r.body)["image"]["kind"] == "summary"]
    assert len(row.body) < 4000, "neither the state nor the moves are copied"
    message = await Deliverer(storage, Unused(), clock=clock).message(row)
    assert message.image is not None
    assert message.image.moves == summary.moves and message.image.seed == summary.seed
    assert message.image.state == summary.state
