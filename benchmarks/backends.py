"""The storage benchmarks' backends: a figure measured on SQLite (a file in a temporary folder),
then on PostgreSQL in a schema of its own, dropped at the end. The server is
``KHRONOS_BENCH_DATABASE_URL`` (or ``KHRONOS_TEST_DATABASE_URL``); without one, only SQLite."""

from __future__ import annotations

import os
import sys
import tempfile
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import asyncpg

from bot.storage.postgres import PgStorage
from bot.storage.sqlite import SqliteStorage

Storage = SqliteStorage | PgStorage


async def on_each_backend(run: Callable[[str, Storage], Awaitable[None]]) -> None:
    """``run(name, storage)`` on a fresh SQLite file, then on a fresh PostgreSQL schema."""
    with tempfile.TemporaryDirectory() as tmp:
        async with SqliteStorage(Path(tmp) / "bench.sqlite3") as s:
            await run("SQLite", s)
    url = os.environ.get("KHRONOS_BENCH_DATABASE_URL") or os.environ.get(
        "KHRONOS_TEST_DATABASE_URL")
    if not url:
        print("PostgreSQL: no server (set KHRONOS_BENCH_DATABASE_URL)")
        return
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    try:
        async with PgStorage(url, schema=schema) as pg:
            await run("PostgreSQL", pg)
    finally:
        conn: Any = await asyncpg.connect(url)
        await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        await conn.close()
