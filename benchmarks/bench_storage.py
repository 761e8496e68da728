"""Benchmark of the storage layer alone: the cost of one query, on each backend.

Reads: ``game``, ``seats``, ``timers`` and ``last_seq`` of random games, many in one read
transaction. Writes: transactions like a move's (find the game, append to the log, update
the game, cancel and add its timers, set the turn's timing). Printed per backend: wall time
and the process's CPU time (all threads: aiosqlite works in one) per query or per
transaction, the median of the repeats; ``bench_service.py`` and ``bench_scale.py`` measure
whole moves.

First, the query layer's own cost (the query method, the run layer, the statement's text, the
row mapping: what the SQL written once could change), on fake connections that answer at
once: CPU microseconds for the ten queries of a move, far less noisy on a busy machine than
the database's own work around them.

PostgreSQL when ``KHRONOS_BENCH_DATABASE_URL`` (or ``KHRONOS_TEST_DATABASE_URL``) names a
server: a fresh schema, dropped at the end.

Run: ``.venv/bin/python benchmarks/bench_storage.py [--games 200] [--repeats 5]``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from backends import Storage, on_each_backend

from bot.storage.postgres import PgRun, PgTx
from bot.storage.sql import Run, SqlTx
from bot.storage.sqlite import SqliteRun

READS = 2000  # queries per repeat
WRITES = 200  # transactions per repeat


async def fill(storage: Storage, games: int) -> None:
    async with storage.write() as tx:
        for g in range(1, games + 1):
            gid = await tx.insert_game(guild_id=1, channel_id=g, creator_id=g * 10,
                                       settings="{}", seed=g, now=0.0)
            for seat in range(4):
                await tx.add_seat(gid, seat, g * 10 + seat, f"Player {seat}", 0.0)
            await tx.update_game(gid, 1, now=0.0, status="active", state="{}")


async def reads(storage: Storage, games: int, rng: random.Random) -> None:
    async with storage.read() as q:
        for _ in range(READS // 4):
            gid = rng.randint(1, games)
            await q.game(gid)
            await q.seats(gid)
            await q.timers(gid)
            await q.last_seq(gid)


async def writes(storage: Storage, games: int, rng: random.Random) -> None:
    for _ in range(WRITES):
        async with storage.write() as tx:
            game = await tx.game_for_channel(rng.randint(1, games))
            assert game is not None
            seq = await tx.last_seq(game.id) + 1
            await tx.append_move(game_id=game.id, seq=seq, version=game.version + 1, seat=0,
                                 user_id=1, kind="action", action="{}", events="[]", step=seq,
                                 now=1.0)
            await tx.update_game(game.id, game.version, now=1.0, state="{}")
            await tx.cancel_timers(game.id, ["reminder", "deadline"])
            await tx.add_timer(game_id=game.id, kind="reminder", due_at=9.0, now=1.0, seat=0)
            await tx.set_turn_timing(game.id, {"turn": seq})


async def measure(step: Callable[[], Awaitable[None]], count: int,
                  repeats: int) -> tuple[float, float]:
    """Median wall and CPU microseconds per unit of ``step`` (``count`` units a call)."""
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        await step()
        walls.append((time.perf_counter() - wall) / count * 1e6)
        cpus.append((time.process_time() - cpu) / count * 1e6)
    return statistics.median(walls), statistics.median(cpus)


async def bench(name: str, storage: Storage, games: int, repeats: int) -> None:
    await fill(storage, games)
    rng = random.Random(1)
    rw, rc = await measure(lambda: reads(storage, games, rng), READS, repeats)
    ww, wc = await measure(lambda: writes(storage, games, rng), WRITES, repeats)
    print(f"{name:<11} {rw:>9.0f} {rc:>9.0f} {ww:>10.0f} {wc:>10.0f}")


# --- the query layer alone ----------------------------------------------------------------------

_GAME = (1, 1, 5, 7, "active", "{}", 3, "{}", None, 0, 4, 0.0, 0.0, None, None)
_SEAT = (1, 0, 7, "Ann", 0.0, 0, None, 0, 0)
_TIMER = (1, 1, "reminder", 0, 7, 9.0, "{}", 0.0)


def _rows(sql: str) -> list[tuple[Any, ...]]:
    """What a fake connection answers: rows of the right shape for the statement."""
    if "MAX(" in sql:
        return [(5,)]
    if "FROM games" in sql:
        return [_GAME]
    return [_SEAT] * 4 if "FROM seats" in sql else [_TIMER]


class _Cursor:
    rowcount = 1
    lastrowid = 3


class FakeSqlite:
    """The part of an aiosqlite connection SqliteRun uses, answering at once."""

    async def execute_fetchall(self, sql: str, args: Any = ()) -> list[tuple[Any, ...]]:
        return _rows(sql)

    async def execute(self, sql: str, args: Any = ()) -> _Cursor:
        return _Cursor()


class FakePg:
    """The part of an asyncpg connection PgRun uses, answering at once."""

    async def fetch(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        return _rows(sql)

    async def fetchrow(self, sql: str, *args: Any) -> tuple[Any, ...]:
        return _rows(sql)[0]

    async def fetchval(self, sql: str, *args: Any) -> Any:
        return _rows(sql)[0][0]

    async def execute(self, sql: str, *args: Any) -> str:
        return "UPDATE 1"


async def a_move(tx: SqlTx) -> None:
    """The ten queries of a stored move, about."""
    assert await tx.game_for_channel(5) is not None
    await tx.seats(1)
    await tx.timers(1)
    await tx.last_seq(1)
    await tx.append_move(game_id=1, seq=2, version=5, seat=0, user_id=7, kind="action",
                         action="{}", events="[]", step=2, now=1.0)
    await tx.update_game(1, 4, now=1.0, state="{}", checkpoint_seq=2)
    await tx.cancel_timers(1, ["reminder", "deadline"])
    await tx.add_timer(game_id=1, kind="reminder", due_at=9.0, now=1.0, seat=0)
    await tx.set_turn_timing(1, {"turn": 2})
    await tx.update_seat(1, 0, muted=1)


async def layer(repeats: int, moves: int = 20_000) -> None:
    print("the query layer alone (fake connections): CPU µs per move of 10 queries")
    run: Run
    for name, run in (("SQLite", SqliteRun(FakeSqlite())),  # type: ignore[arg-type]
                      ("PostgreSQL", PgRun(FakePg()))):  # type: ignore[arg-type]
        tx = PgTx(run) if isinstance(run, PgRun) else SqlTx(run)

        async def step(tx: SqlTx = tx) -> None:
            for _ in range(moves):
                await a_move(tx)

        _, cpu = await measure(step, moves, repeats)
        print(f"{name:<11} {cpu:>9.1f}")


async def main(games: int, repeats: int) -> None:
    await layer(repeats)
    print(f"{games} games; median of {repeats} repeats; µs per read query and per write "
          "transaction (6 queries)")
    print(f"{'backend':<11} {'read wall':>9} {'read CPU':>9} {'write wall':>10} "
          f"{'write CPU':>10}")
    await on_each_backend(lambda name, storage: bench(name, storage, games, repeats))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    asyncio.run(main(args.games, args.repeats))
