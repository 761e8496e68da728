"""Both storage backends for the tests: SQLite in a temporary folder, and PostgreSQL in a
fresh schema of the server named by ``KHRONOS_TEST_DATABASE_URL``.

Without that variable the PostgreSQL cases skip with a reason; with it, a server that does not
answer fails them (CI sets it: ``.ci/run`` starts a throwaway server)."""

from __future__ import annotations

import asyncio
import os
import random
import sqlite3
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.storage.postgres import PgStorage
from bot.storage.sql import numbered
from bot.storage.sqlite import SqliteStorage

PG_URL = os.environ.get("KHRONOS_TEST_DATABASE_URL") or None
NO_PG = "KHRONOS_TEST_DATABASE_URL is not set (.ci/run starts a PostgreSQL server and sets it)"

needs_pg = pytest.mark.skipif(PG_URL is None, reason=NO_PG)

# the `backend` parameter of fixtures: SQLite always, PostgreSQL when a server is given
BACKENDS = ["sqlite", pytest.param("postgresql", marks=needs_pg)]

AnyStorage = SqliteStorage | PgStorage


async def pg_connect() -> asyncpg.Connection:
    """A plain connection to the test server; a server that does not answer fails the test."""
    assert PG_URL is not None
    try:
        return await asyncpg.connect(PG_URL, timeout=10)
    except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
        pytest.fail(f"KHRONOS_TEST_DATABASE_URL is set but the server does not answer: {exc}")


@asynccontextmanager
async def pg_schema() -> AsyncIterator[str]:
    """A new empty schema, dropped with everything in it at the end."""
    name = f"t_{uuid.uuid4().hex[:16]}"
    conn = await pg_connect()
    try:
        await conn.execute(f"CREATE SCHEMA {name}")
        yield name
    finally:
        await conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
        await conn.close()


@asynccontextmanager
async def new_storage(backend: str, tmp_path: Path) -> AsyncIterator[AnyStorage]:
    """An opened, empty storage of that backend."""
    if backend == "sqlite":
        async with SqliteStorage.in_dir(tmp_path / "data") as lite:
            yield lite
        return
    assert PG_URL is not None
    async with pg_schema() as schema:
        s = PgStorage(PG_URL, schema=schema)
        await s.open()
        try:
            yield s
        finally:
            await s.close()


def another(storage: AnyStorage) -> AnyStorage:
    """A second storage object (its own connections) on the same database, not yet opened:
    as a second process would see it."""
    if isinstance(storage, PgStorage):
        return PgStorage(storage.url, schema=storage.schema)
    return SqliteStorage(storage.path)


async def execute_raw(storage: AnyStorage, sql: str, *args: object) -> None:
    """Run one statement (``?`` placeholders) behind the storage's back, as damage would."""
    if isinstance(storage, PgStorage):
        conn = await pg_connect()
        try:
            await conn.execute(f"SET search_path TO {storage.schema}")
            await conn.execute(numbered(sql), *args)
        finally:
            await conn.close()
        return
    with sqlite3.connect(storage.path) as raw:
        raw.execute(sql, args)


async def fetch_raw(storage: AnyStorage, sql: str, *args: object) -> list[tuple[Any, ...]]:
    """The rows of one query (``?`` placeholders) on its own connection: what is committed,
    seen from outside the storage."""
    if isinstance(storage, PgStorage):
        conn = await pg_connect()
        try:
            await conn.execute(f"SET search_path TO {storage.schema}")
            return [tuple(r) for r in await conn.fetch(numbered(sql), *args)]
        finally:
            await conn.close()
    with sqlite3.connect(storage.path) as raw:
        return raw.execute(sql, args).fetchall()


# what a broken uniqueness rule raises, per backend
INTEGRITY_ERRORS = (sqlite3.IntegrityError, asyncpg.IntegrityConstraintViolationError)


@asynccontextmanager
async def commits_held(schema: str, table: str) -> AsyncIterator[Callable[[], Awaitable[None]]]:
    """While the block runs, a transaction that inserts into ``table`` of ``schema`` waits in
    its COMMIT (a trigger deferred to the commit waits for an advisory lock this connection
    holds). Yields ``waiting()``: returns once a commit waits (polls, 30 s at most). At the
    end the trigger is dropped and the lock released: a waiting commit goes on."""
    key = random.randrange(1, 2**31)  # below 2**31: no channel's lock has this key
    conn = await pg_connect()
    try:
        await conn.execute(f"SET search_path = {schema}")
        await conn.execute(f"""
            CREATE FUNCTION hold_commit() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN PERFORM pg_advisory_xact_lock({key}); RETURN NULL; END $$;
            CREATE CONSTRAINT TRIGGER hold_commit AFTER INSERT ON {table}
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION hold_commit();
        """)
        await conn.execute("SELECT pg_advisory_lock($1)", key)

        async def waiting() -> None:
            sql = ("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
                   "AND NOT granted AND classid = 0 AND objid = $1")
            loop = asyncio.get_running_loop()
            end = loop.time() + 30
            while not await conn.fetchval(sql, key):
                assert loop.time() < end, "no commit waited"
                await asyncio.sleep(0.02)

        yield waiting
        await conn.execute("SELECT pg_advisory_unlock($1)", key)  # first: a commit waits
        await conn.execute(f"DROP TRIGGER hold_commit ON {table}; DROP FUNCTION hold_commit()")
    finally:
        await conn.close()  # the lock goes with its session
