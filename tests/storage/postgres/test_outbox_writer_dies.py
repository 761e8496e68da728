"""A bot process killed (SIGKILL) right after a command's commit, before it delivered anything,
while another process shares the database (a SQLite file, and PostgreSQL when
``KHRONOS_TEST_DATABASE_URL`` names a server): the other process, which started before the
commit and has its own process identity, announces the move to the table and leaves the dead
process's reply row unsent, without waiting for it, until the interaction's token is dead
(``REPLY_WINDOW`` after the commit); then it drops it as ``expired``.

Run as a script, this file is the process that dies: ``python test_outbox_writer_dies.py
BACKEND TARGET [SCHEMA]`` declares an absence in channel 1 (a public post and a private
reply), prints the reply's row id, and kills itself."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.service import GameService, outbox
from bot.service.outbox import REPLY_WINDOW, Deliverer, Delivery
from bot.storage.postgres import PgStorage
from bot.storage.sqlite import SqliteStorage
from tests.service.conftest import Clock, started_game
from tests.storage.postgres.backend import BACKENDS, AnyStorage, new_storage

ROOT = Path(__file__).resolve().parents[3]


class Channel:
    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []

    async def send(self, item: Delivery) -> str:
        self.seen.append((item.kind, item.row_id))
        return "sent"


def _target(storage: AnyStorage) -> list[str]:
    if isinstance(storage, PgStorage):
        assert storage.schema is not None
        return ["postgresql", storage.url, storage.schema]
    return ["sqlite", str(storage.path)]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_the_reply_of_a_process_killed_after_its_commit_expires_with_its_token(
        backend: str, tmp_path: Path) -> None:
    async with new_storage(backend, tmp_path) as storage:
        clock = Clock(time.time())
        service = GameService(storage, clock=clock)
        await started_game(service, 1, players=2, seed=1)
        async with storage.read() as q:
            before = {r.id for r in await q.unsent(limit=10_000)}
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        child = subprocess.run([sys.executable, __file__, *_target(storage)], check=False, env=env,
                               capture_output=True, text=True, timeout=120)
        assert child.returncode == -signal.SIGKILL, child.stderr
        reply_row = int(child.stdout.split()[-1])
        async with storage.read() as q:
            row = await q.outbox_row(reply_row)
            of_child = [r for r in await q.unsent(limit=10_000) if r.id not in before]
        assert row is not None and row.sent_at is None, "committed, then nothing delivered"
        assert [r.kind for r in of_child] == ["post", "reply"]
        post = of_child[0].id

        # the surviving process (re)started its deliverer a moment after that commit
        clock.now = row.created_at + 1
        table = Channel()
        survivor = Deliverer(storage, table, clock=clock)
        await survivor.drain()
        assert ("post", post) in table.seen, "the table sees the move announced"
        assert ("reply", reply_row) not in table.seen
        async with storage.read() as q:
            row = await q.outbox_row(reply_row)
            assert [r.id for r in await q.unsent(limit=10_000)] == [reply_row]
        assert row is not None and row.sent_at is None, "its writer's, while the token lives"
        clock.now = row.created_at + REPLY_WINDOW - 1
        await survivor.drain()
        async with storage.read() as q:
            row = await q.outbox_row(reply_row)
        assert row is not None and row.sent_at is None
        clock.now = row.created_at + REPLY_WINDOW
        await survivor.drain()
        async with storage.read() as q:
            row = await q.outbox_row(reply_row)
            assert await q.unsent(limit=10_000) == []
        assert row is not None and row.result == "expired"
        assert ("reply", reply_row) not in table.seen, "nobody answered for the dead one"
        assert outbox.delivery(row, clock.now).writer not in ("", survivor.process), (
            "each process has its own identity")


async def _die_after_commit(args: list[str]) -> None:
    storage: AnyStorage = (PgStorage(args[1], schema=args[2]) if args[0] == "postgresql"
                           else SqliteStorage(args[1]))
    await storage.open()
    out = await GameService(storage).away(1, 11, 2)
    print(out.reply_row, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    asyncio.run(_die_after_commit(sys.argv[1:]))
