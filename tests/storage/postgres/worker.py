"""One bot process in the multi-process tests (tests/storage/postgres/test_processes.py): a
GameService on the PostgreSQL schema named on the command line.

``play``: act in channel 1 until the game reaches ``--until`` moves, each time the move that
``Random(step)`` picks for the current state, so that every worker tries the same move at the
same moment (a double click across processes); prints ``applied VERSION`` for each move it
committed and ``refused`` for each one another process played first; it pauses up to 5 ms
before each move, at a pace of its own. With ``--kill-at K`` it kills itself (SIGKILL) inside
its K-th commit that stores a move, after the statements and before COMMIT, holding the
game's lock for ``--hold`` seconds first (the other processes queue behind it). With ``--go
PATH`` a player prints ``ready`` once connected and starts only when PATH exists; the killer,
inside its killing commit, also waits for PATH before its hold, so that every other player is
already queued on the lock when it dies.

``timers``: with the clock at ``--now``, fire every due timer until none is due, printing
``fired TIMER GAME DEADLINE`` for each one that had something to say (DEADLINE: 1 if it
played a deadline)."""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal

from asyncpg.transaction import Transaction

from bot.service import GameService
from bot.storage.postgres import PgStorage, PgTx
from engine import EngineError
from engine.random_player import random_action
from tests.storage.postgres.marked import stored_a_move


class KillingStorage(PgStorage):
    kill_at: int | None = None
    hold = 0.0
    go: str | None = None
    commits = 0

    async def _commit(self, tr: Transaction, tx: PgTx) -> None:
        # count the commits that store a move (not the other writes of a bot, such as
        # marking messages delivered)
        moved = stored_a_move(tx)
        self.commits += moved
        if moved and self.commits == self.kill_at:
            if self.go is not None:
                await _wait_for(self.go)
            await asyncio.sleep(self.hold)
            os.kill(os.getpid(), signal.SIGKILL)
        await super()._commit(tr, tx)


async def _wait_for(path: str) -> None:
    while not os.path.exists(path):
        await asyncio.sleep(0.01)


async def play(service: GameService, until: int, go: str | None) -> None:
    if go is not None:
        await service.snapshot(1)  # connected and reading
        print("ready", flush=True)
        await _wait_for(go)
    pace = random.Random()  # not the moves' generator: each process its own pace
    while True:
        # a pause of up to 5 ms before each move, as players' clicks come: without it the
        # process that just committed is always first to the next move (its rivals still
        # hear of their refusal), and one process could play every move alone
        await asyncio.sleep(pace.random() * 0.005)
        info, state = await service.snapshot(1)
        if state.over or state.step >= until:
            return
        seat, action = random_action(state, random.Random(state.step))
        user = info.user_of(seat)
        assert user is not None
        try:
            out = await service.act(1, user, action, expect_version=info.version)
        except EngineError:
            print("refused", flush=True)
            continue  # another process played it first (stale, or not your turn)
        assert out.game is not None
        print(f"applied {out.game.version}", flush=True)


async def timers(service: GameService) -> None:
    while ids := await service.due_timers():
        for timer_id in ids:
            out = await service.fire_timer(timer_id)
            if out is not None and out.game is not None:
                deadline = any(p.text.startswith("Time is up") for p in out.public)
                print(f"fired {timer_id} {out.game.game_id} {int(deadline)}", flush=True)


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("schema")
    ap.add_argument("mode", choices=["play", "timers"])
    ap.add_argument("--until", type=int, default=40)
    ap.add_argument("--kill-at", type=int, default=None)
    ap.add_argument("--hold", type=float, default=0.0)
    ap.add_argument("--now", type=float, default=None)
    ap.add_argument("--go", default=None)
    args = ap.parse_args()
    storage = KillingStorage(args.url, schema=args.schema, max_size=4)
    storage.kill_at = args.kill_at
    storage.hold = args.hold
    storage.go = args.go if args.kill_at is not None else None
    await storage.open()
    now = args.now
    service = (GameService(storage) if now is None
               else GameService(storage, clock=lambda: now))
    try:
        if args.mode == "play":
            await play(service, args.until, None if args.kill_at is not None else args.go)
        else:
            await timers(service)
    finally:
        await storage.close()


if __name__ == "__main__":
    asyncio.run(main())
