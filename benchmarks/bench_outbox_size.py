"""Database bytes per finished game, with its outbox: right after the last move (everything
delivered, nothing pruned yet) and after the delivered rows are pruned, for 2 to 5 players, on
SQLite and PostgreSQL; and the outbox's rows and their body bytes per game.

Games are played to the end by random players through ``GameService`` with the outbox on
(every command stores what it says), and a ``Deliverer`` with a transport that sends nothing
marks each game's rows delivered after each move, as the bot does. SQLite: pages in use
(``size_bytes``, after a WAL checkpoint). PostgreSQL: the bytes of the rows as stored
(``pg_column_size`` of every row of the game's tables, after TOAST compression), not the
files, which keep freed space until a VACUUM FULL.

Run: ``.venv/bin/python benchmarks/bench_outbox_size.py [--games 3]`` (PostgreSQL:
``KHRONOS_BENCH_DATABASE_URL``, else a throwaway server from ``.ci/postgres``).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import sys
import tempfile
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import asyncpg
from bench_scale import _server, _stop_server

from bot.service import GameService
from bot.service.outbox import Deliverer, Delivery
from bot.storage.api import Storage
from bot.storage.postgres import PgStorage
from bot.storage.sqlite import SqliteStorage
from engine.random_player import random_action

TABLES = ("games", "seats", "moves", "timers", "notes", "outbox", "notices", "pending_moves",
          "outbox_claims")


class Nowhere:
    """A transport that sends nothing (the rows are marked delivered)."""

    async def send(self, item: Delivery) -> str:
        return "sent"


async def play_games(storage: Storage, players: int, games: int, seed: int) -> float:
    """Play ``games`` games to the end; returns the clock after the last move."""
    now = [1_700_000_000.0]

    def clock() -> float:
        now[0] += 1.0
        return now[0]

    service = GameService(storage, clock=clock)
    deliverer = Deliverer(storage, Nowhere(), clock=clock)
    chooser = random.Random(seed)
    for g in range(games):
        ch = players * 1000 + g
        await service.create_game(ch, 1, "Player 1")
        for u in range(2, players + 1):
            await service.join(ch, u, f"Player {u}")
        out = await service.start(ch, 1)
        assert out.game is not None
        while True:
            info, state = await service.snapshot(ch)
            if state.over:
                break
            seat, action = random_action(state, chooser)
            await service.act(ch, info.user_of(seat) or 0, action)
            await deliverer.flush(info.game_id)
    return clock()


async def sqlite_bytes(storage: SqliteStorage) -> float:
    await storage.checkpoint_wal()
    return float(await storage.size_bytes())


async def pg_bytes(url: str, schema: str) -> float:
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(f"SET search_path TO {schema}")
        total = 0
        for table in TABLES:
            total += await conn.fetchval(
                f"SELECT COALESCE(SUM(pg_column_size(t.*)), 0) FROM {table} t")
        return float(total)
    finally:
        await conn.close()


async def measure(backend: str, players: int, games: int, where: str) -> dict[str, float]:
    """Bytes per game: before any game, right after the last move, after pruning."""
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    storage: Storage
    if backend == "sqlite":
        storage = SqliteStorage(Path(where) / f"size-{players}.sqlite3")
    else:
        storage = PgStorage(where, schema=schema)
    await storage.open()
    try:
        async def size() -> float:
            if isinstance(storage, SqliteStorage):
                return await sqlite_bytes(storage)
            return await pg_bytes(where, schema)

        base = await size()
        end = await play_games(storage, players, games, seed=players)
        after_end = await size()
        rows, body = await outbox_rows(storage)
        async with storage.write() as tx:
            await tx.prune_outbox(end + 1)
        after_prune = await size()
    finally:
        await storage.close()
        if backend == "postgresql":
            await drop(where, schema)
    return {"end": (after_end - base) / games, "pruned": (after_prune - base) / games,
            "rows": rows / games, "body": body / games}


async def outbox_rows(storage: Storage) -> tuple[float, float]:
    """The outbox's rows and the bytes of their bodies (all delivered, none pruned)."""
    if isinstance(storage, SqliteStorage):
        with sqlite3.connect(storage.path) as raw:
            count, body = raw.execute(
                "SELECT COUNT(*), COALESCE(SUM(LENGTH(body)), 0) FROM outbox").fetchone()
        return float(count), float(body)
    assert isinstance(storage, PgStorage)
    conn = await asyncpg.connect(storage.url)
    try:
        await conn.execute(f"SET search_path TO {storage.schema}")
        row = await conn.fetchrow(
            "SELECT COUNT(*), COALESCE(SUM(octet_length(body)), 0) FROM outbox")
        assert row is not None
        return float(row[0]), float(row[1])
    finally:
        await conn.close()


async def drop(url: str, schema: str) -> None:
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    finally:
        await conn.close()


async def run(games: int, url: str | None) -> None:
    print(f"database bytes per finished game ({games} games each, random players; outbox "
          "delivered as the game goes; KiB)")
    print()
    print("| backend | players | right after the end | after pruning | outbox rows "
          "| outbox bodies |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        backends = [("sqlite", tmp)] + ([("postgresql", url)] if url else [])
        for backend, where in backends:
            for players in (2, 3, 4, 5):
                r = await measure(backend, players, games, where)
                name = "SQLite" if backend == "sqlite" else "PostgreSQL"
                print(f"| {name} | {players} | {r['end'] / 1024:,.0f} | "
                      f"{r['pruned'] / 1024:,.0f} | {r['rows']:.0f} | "
                      f"{r['body'] / 1024:,.0f} |", flush=True)
    if url is None:
        print("\n(no PostgreSQL server: its rows are left out)")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=3)
    args = ap.parse_args()
    url, folder = _server()
    try:
        asyncio.run(run(args.games, url))
    finally:
        _stop_server(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
