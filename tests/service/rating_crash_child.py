"""Run by test_rating_crash.py in a subprocess: plays random moves on a game to its end; with
``--kill-at-end`` it kills itself (SIGKILL) inside the write transaction of the game's last
move, after its statements ran (the rating's included) and before COMMIT."""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal

import aiosqlite

import engine
from bot.service import GameService
from bot.storage.sqlite import SqliteStorage
from engine.random_player import random_action


class KillingStorage(SqliteStorage):
    kill_next = False

    async def _commit(self, conn: aiosqlite.Connection) -> None:
        if self.kill_next:
            os.kill(os.getpid(), signal.SIGKILL)
        await super()._commit(conn)


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("path")
    ap.add_argument("--kill-at-end", action="store_true")
    args = ap.parse_args()
    storage = KillingStorage(args.path)
    await storage.open()
    service = GameService(storage, seeds=lambda: 77)
    try:
        await service.info(1)
    except Exception:
        await service.create_game(1, 1, "Ann", guild_id=9)
        await service.join(1, 2, "Bob")
        await service.join(1, 3, "Cid")
        await service.start(1, 1)
    chooser = random.Random(3)
    while True:
        info, state = await service.snapshot(1)
        if state.over:
            print("over", flush=True)
            break
        seat, action = random_action(state, chooser)
        after, _ = engine.apply(state, seat, action)
        if after.over and args.kill_at_end:
            storage.kill_next = True
            print("killing", flush=True)
        user = info.user_of(seat)
        assert user is not None
        await service.act(1, user, action)
    await storage.close()


if __name__ == "__main__":
    asyncio.run(main())
