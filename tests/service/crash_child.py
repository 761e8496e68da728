"""Run by test_crash.py in a subprocess: plays random moves on a game and prints each commit;
with ``--kill-at K`` it kills itself (SIGKILL) inside the K-th move's write transaction, after
its statements ran and before COMMIT."""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal

import aiosqlite

from bot.service import GameService
from bot.storage.sqlite import SqliteStorage
from engine.random_player import random_action


class KillingStorage(SqliteStorage):
    kill_at: int | None = None
    commits = 0

    async def _commit(self, conn: aiosqlite.Connection) -> None:
        self.commits += 1
        if self.kill_at is not None and self.commits == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        await super()._commit(conn)


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("path")
    ap.add_argument("--kill-at", type=int, default=None)
    ap.add_argument("--moves", type=int, default=100000)
    args = ap.parse_args()
    storage = KillingStorage(args.path)
    storage.kill_at = args.kill_at
    await storage.open()
    service = GameService(storage, seeds=lambda: 77)
    try:
        await service.info(1)
    except Exception:
        await service.create_game(1, 1, "Ann")
        await service.join(1, 2, "Bob")
        await service.join(1, 3, "Cid")
        await service.start(1, 1)
    chooser = random.Random(1)
    for _ in range(args.moves):
        info, state = await service.snapshot(1)
        if state.over:
            break
        seat, action = random_action(state, chooser)
        user = info.user_of(seat)
        assert user is not None
        out = await service.act(1, user, action)
        assert out.game is not None
        print(f"committed {out.game.version}", flush=True)
    await storage.close()


if __name__ == "__main__":
    asyncio.run(main())
