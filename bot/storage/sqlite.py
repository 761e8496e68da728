"""SQLite storage for games: one file in the data directory, WAL mode, numbered migrations
recorded in ``PRAGMA user_version``, one write transaction at a time.

Two aiosqlite connections share the file:

- the **writer**, used only inside ``Storage.write()``: an ``asyncio.Lock`` lets one
  transaction at a time run on it (``BEGIN IMMEDIATE`` … ``COMMIT``), so writes never interleave;
- the **reader**, used by ``Storage.read()`` for status, hands and history: WAL lets it read the
  last committed state while a write is under way.

The queries are those of :mod:`bot.storage.sql`, run by :class:`SqliteRun` with the ``?``
form of their statements. Nothing here knows the rules or Discord; rows come back as small
frozen dataclasses and the JSON columns as text (the service validates them).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import os
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from .api import StorageLost
from .holder import FileHolder
from .sql import Insert, SqlQueries, SqlTx, Statement

DB_FILENAME = "khronos.sqlite3"

log = logging.getLogger("khronos.storage")


# --- migrations: a numbered list; migration i (1-based) brings user_version from i-1 to i -----

MIGRATIONS: list[str] = [
    # 1: games, seats, the move log, timers
    """
    CREATE TABLE games (
        id             INTEGER PRIMARY KEY,
        guild_id       INTEGER,
        channel_id     INTEGER NOT NULL,
        creator_id     INTEGER NOT NULL,
        status         TEXT NOT NULL
                       CHECK (status IN ('lobby', 'active', 'over', 'abandoned')),
        settings       TEXT NOT NULL,          -- JSON: seats wanted, Hold'em, reminder hours …
        seed           INTEGER NOT NULL,
        state          TEXT,                   -- JSON GameState; NULL in the lobby
        checkpoint     TEXT,                   -- JSON GameState after the last card draw
        checkpoint_seq INTEGER NOT NULL DEFAULT 0,  -- move-log seq of that checkpoint
        version        INTEGER NOT NULL DEFAULT 0,
        created_at     REAL NOT NULL,
        updated_at     REAL NOT NULL
    );
    -- one live game per channel (a thread is a channel); finished games stay for history
    CREATE UNIQUE INDEX games_live_channel ON games (channel_id)
        WHERE status IN ('lobby', 'active');
    CREATE INDEX games_channel ON games (channel_id, id);

    CREATE TABLE seats (
        game_id   INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat      INTEGER NOT NULL,             -- engine seat once started; join order before
        user_id   INTEGER NOT NULL,
        name      TEXT NOT NULL,
        joined_at REAL NOT NULL,
        PRIMARY KEY (game_id, seat),
        UNIQUE (game_id, user_id)
    );

    CREATE TABLE moves (
        id         INTEGER PRIMARY KEY,
        game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seq        INTEGER NOT NULL,            -- 1, 2, 3 … within the game
        version    INTEGER NOT NULL,            -- the game version this entry produced
        seat       INTEGER NOT NULL,
        user_id    INTEGER,                     -- NULL when a timer acted (deadline)
        kind       TEXT NOT NULL CHECK (kind IN ('action', 'undo')),
        action     TEXT NOT NULL,               -- JSON: engine action, or {"undoes": seq}
        events     TEXT NOT NULL,               -- JSON list of engine events
        step       INTEGER NOT NULL,            -- state.step after this entry
        created_at REAL NOT NULL,
        UNIQUE (game_id, seq),
        UNIQUE (game_id, version)
    );

    CREATE TABLE timers (
        id         INTEGER PRIMARY KEY,
        game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        kind       TEXT NOT NULL,               -- reminder, deadline_warning, deadline
        seat       INTEGER,
        user_id    INTEGER,
        due_at     REAL NOT NULL,
        payload    TEXT NOT NULL DEFAULT '{}',
        created_at REAL NOT NULL
    );
    CREATE INDEX timers_due ON timers (due_at);
    CREATE INDEX timers_game ON timers (game_id);
    """,
    # 2: pause, per-seat reminder mute, absence and removal; notes for the game's history
    """
    ALTER TABLE games ADD COLUMN paused_at REAL;             -- set while the game is paused
    ALTER TABLE seats ADD COLUMN muted INTEGER NOT NULL DEFAULT 0;   -- no reminder DMs
    ALTER TABLE seats ADD COLUMN away_until REAL;            -- declared absence ends then
    ALTER TABLE seats ADD COLUMN removed INTEGER NOT NULL DEFAULT 0; -- kicked: plays by default
    CREATE INDEX seats_user ON seats (user_id);

    CREATE TABLE notes (                                     -- replace, kick, pause … in /history
        id         INTEGER PRIMARY KEY,
        game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        after_seq  INTEGER NOT NULL,                         -- the move-log entry it follows
        user_id    INTEGER,                                  -- who did it (NULL: the bot)
        text       TEXT NOT NULL,
        created_at REAL NOT NULL
    );
    CREATE INDEX notes_game ON notes (game_id, id);
    """,
    # 3: the transactional outbox, notices told once, previewed moves waiting for Confirm,
    #    and the current turn's deadline (fixed when the turn starts)
    """
    ALTER TABLE games ADD COLUMN turn_timing TEXT;           -- JSON: turn key, deadline, credit
    CREATE TABLE outbox (                                    -- what people must be told
        id         INTEGER PRIMARY KEY AUTOINCREMENT,        -- never reused: it is the nonce
        game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        kind       TEXT NOT NULL,                            -- post, ping, direct, reply
        user_id    INTEGER,                                  -- ping, direct: whom
        body       TEXT NOT NULL,                            -- JSON: text, image, decision …
        created_at REAL NOT NULL,
        attempts   INTEGER NOT NULL DEFAULT 0,
        next_at    REAL NOT NULL,                            -- not before (retry backoff)
        sent_at    REAL,                                     -- NULL until delivered
        result     TEXT                                      -- sent, fallback, late, failed …
    );
    CREATE INDEX outbox_unsent ON outbox (game_id, id) WHERE sent_at IS NULL;

    CREATE TABLE notices (                                   -- said once per game and user
        game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        user_id    INTEGER NOT NULL,                         -- 0 for the channel itself
        kind       TEXT NOT NULL,                            -- dm_closed, missing_permission
        created_at REAL NOT NULL,
        PRIMARY KEY (game_id, user_id, kind)
    );

    CREATE TABLE pending_moves (                             -- a preview's Confirm button
        key        TEXT PRIMARY KEY,
        game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        version    INTEGER NOT NULL,
        user_id    INTEGER NOT NULL,
        line       TEXT NOT NULL,                            -- the command line previewed
        state      TEXT NOT NULL DEFAULT 'open',             -- open, confirmed, cancelled
        created_at REAL NOT NULL
    );
    """,
    # 4: which process delivers a game's outbox rows, until when (a lease; docs/service.md)
    """
    CREATE TABLE outbox_claims (
        game_id INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
        owner   TEXT NOT NULL,                               -- the deliverer that holds it
        until   REAL NOT NULL                                -- free for others after this
    );
    """,
    # 5: the community (docs/community.md): each game's sealed seed (the commitment posted at
    #    the start), what each draw dealt, the results and ratings per server, times to move
    """
    CREATE TABLE seals (
        game_id    INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
        salt       TEXT NOT NULL,                            -- hex; revealed with the seed
        commitment TEXT NOT NULL,                            -- SHA-256 hex, posted at start
        created_at REAL NOT NULL
    );
    CREATE TABLE deals (                                     -- what each draw gave, when made
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seq     INTEGER NOT NULL,                            -- 0: the start; else the entry
        cards   TEXT NOT NULL,                               -- JSON: seat -> cards received
        PRIMARY KEY (game_id, seq)
    );
    CREATE TABLE results (                                   -- one per seat of a rated game
        game_id      INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat         INTEGER NOT NULL,
        guild_id     INTEGER NOT NULL,                       -- 0: outside any server
        player       TEXT NOT NULL,                          -- user:<id> or computer:<level>
        name         TEXT NOT NULL,
        rank         INTEGER NOT NULL,                       -- 1: won (R50: shared)
        ecus         INTEGER NOT NULL,
        mu_before    REAL NOT NULL,
        sigma_before REAL NOT NULL,
        mu_after     REAL NOT NULL,
        sigma_after  REAL NOT NULL,
        deadlines    INTEGER NOT NULL,                       -- turns a deadline ended
        hints        INTEGER NOT NULL DEFAULT 0,
        finished_at  REAL NOT NULL,
        PRIMARY KEY (game_id, seat)                          -- a game is rated once
    );
    CREATE INDEX results_player ON results (guild_id, player);
    CREATE TABLE ratings (                                   -- per server and player or level
        guild_id   INTEGER NOT NULL,
        player     TEXT NOT NULL,
        name       TEXT NOT NULL,                            -- as last seen at a table
        mu         REAL NOT NULL,
        sigma      REAL NOT NULL,
        games      INTEGER NOT NULL,
        wins       INTEGER NOT NULL,
        ecus       INTEGER NOT NULL,                         -- final Ecus, summed
        deadlines  INTEGER NOT NULL,
        hints      INTEGER NOT NULL,
        timed      INTEGER NOT NULL,                         -- rows in turn_times
        updated_at REAL NOT NULL,
        PRIMARY KEY (guild_id, player)
    );
    CREATE TABLE turn_times (                                -- seconds to a turn's first move
        guild_id INTEGER NOT NULL,
        player   TEXT NOT NULL,
        game_id  INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seconds  REAL NOT NULL
    );
    CREATE INDEX turn_times_player ON turn_times (guild_id, player, seconds);
    """,
    # 6: the messages the bot edits in place: each turn's table message in the channel and
    #    the hand DM of the player whose turn it is (docs/discord.md, "The table")
    """
    CREATE TABLE living_messages (
        game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        key        TEXT NOT NULL,                            -- table:<round>:<seat>, hand:…
        channel_id INTEGER NOT NULL,                         -- the game's channel, or a DM
        message_id INTEGER,                                  -- NULL while its post is on its way
        layout     INTEGER NOT NULL DEFAULT 1,               -- 1 Components V2, 0 plain message
        updated_at REAL NOT NULL,
        PRIMARY KEY (game_id, key)
    );
    """,
    # 7: each seat's hints (/hint) in its game, summed into the player's statistics at the end
    """
    ALTER TABLE seats ADD COLUMN hints INTEGER NOT NULL DEFAULT 0;
    """,
]

SCHEMA_VERSION = len(MIGRATIONS)

# --- how statements run on an aiosqlite connection ----------------------------------------------


class SqliteRun:
    """The run layer of :class:`SqlQueries` on one aiosqlite connection: the ``?`` form of
    each statement. ``execute_fetchall`` is one hop to aiosqlite's thread (execute + fetch +
    close would be three)."""

    __slots__ = ("_conn",)

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def rows(self, stmt: Statement, *args: Any) -> Sequence[sqlite3.Row]:
        return list(await self._conn.execute_fetchall(stmt.qmark, args))

    async def row(self, stmt: Statement, *args: Any) -> sqlite3.Row | None:
        return next(iter(await self._conn.execute_fetchall(stmt.qmark, args)), None)

    async def value(self, stmt: Statement, *args: Any) -> Any:
        row = next(iter(await self._conn.execute_fetchall(stmt.qmark, args)), None)
        return None if row is None else row[0]

    async def execute(self, stmt: Statement, *args: Any) -> None:
        await self._conn.execute(stmt.qmark, args)

    async def count(self, stmt: Statement, *args: Any) -> int:
        cur = await self._conn.execute(stmt.qmark, args)
        return cur.rowcount

    async def insert(self, stmt: Insert, *args: Any) -> int:
        cur = await self._conn.execute(stmt.qmark, args)
        assert cur.lastrowid is not None
        return cur.lastrowid

    async def execute_many(self, stmt: Statement, rows: Iterable[Sequence[Any]]) -> None:
        await self._conn.executemany(stmt.qmark, rows)


# --- the storage object -------------------------------------------------------------------------


class SqliteStorage:
    """One SQLite file. ``await open()`` connects and migrates; ``await close()`` at the end."""

    def __init__(self, path: str | Path, *, synchronous: str = "NORMAL") -> None:
        self.path = Path(path)
        self.synchronous = synchronous
        self._writer: aiosqlite.Connection | None = None
        self._reader: aiosqlite.Connection | None = None
        self._write_lock = asyncio.Lock()
        self._read_lock = asyncio.Lock()
        # the write transaction open in this task, so that a nested ``write()`` joins it
        self._open_tx: contextvars.ContextVar[SqlTx | None] = contextvars.ContextVar(
            f"khronos_tx_{id(self)}", default=None)
        self._identity: tuple[int, int] | None = None  # (device, inode) of the opened file
        self._lost_told = False
        # this storage's mark of life, named in its delivery claims (holder.py)
        self.holder = FileHolder(self.path)

    @classmethod
    def in_dir(cls, data_dir: str | Path, **kwargs: Any) -> SqliteStorage:
        """The storage file ``khronos.sqlite3`` in ``data_dir`` (created if missing)."""
        directory = Path(data_dir)
        directory.mkdir(parents=True, exist_ok=True)
        return cls(directory / DB_FILENAME, **kwargs)

    async def _connect(self) -> aiosqlite.Connection:
        conn = await aiosqlite.connect(self.path, isolation_level=None)
        await conn.execute("PRAGMA busy_timeout = 10000")
        await conn.execute("PRAGMA journal_mode = WAL")
        # NORMAL in WAL mode: a killed process loses nothing committed; only a power cut may
        # lose the last transactions (never corrupts). FULL syncs every commit.
        await conn.execute(f"PRAGMA synchronous = {self.synchronous}")
        await conn.execute("PRAGMA foreign_keys = ON")
        return conn

    def _file_identity(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return st.st_dev, st.st_ino

    def _check_file(self) -> None:
        """Refuse a write if the database file is no longer the one opened (checked before
        each write transaction; a stat costs microseconds)."""
        if self._identity is None or self._file_identity() == self._identity:
            return
        if not self._lost_told:
            self._lost_told = True
            log.critical("the database file %s was deleted or replaced while the bot runs; "
                         "every write is refused until it is restored and the bot restarted",
                         self.path)
        raise StorageLost(
            "The bot's game database is unavailable, so nothing can be saved and nothing was "
            "changed. A server admin of the bot must restore it and restart the bot.")

    async def open(self) -> SqliteStorage:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._writer = await self._connect()
        self._identity = self._file_identity()
        try:
            await self.migrate()
            self._reader = await self._connect()
            await self._reader.execute("PRAGMA query_only = ON")
            self.holder.acquire()
        except BaseException:
            await self.close()
            raise
        return self

    async def close(self) -> None:
        self.holder.release()
        for conn in (self._reader, self._writer):
            if conn is not None:
                await conn.close()
        self._reader = self._writer = None

    async def __aenter__(self) -> SqliteStorage:
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def schema_version(self) -> int:
        assert self._writer is not None, "SqliteStorage.open() first"
        async with self._writer.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        assert row is not None
        return int(row[0])

    async def migrate(self) -> int:
        """Apply the migrations the file lacks, all in one transaction; returns the version.
        Running it again is harmless."""
        assert self._writer is not None, "SqliteStorage.open() first"
        async with self._write_lock:
            conn = self._writer
            await conn.execute("BEGIN IMMEDIATE")
            try:
                async with conn.execute("PRAGMA user_version") as cur:
                    row = await cur.fetchone()
                current = int(row[0]) if row else 0
                if current > SCHEMA_VERSION:
                    raise RuntimeError(
                        f"the database {self.path} has schema version {current}, newer than "
                        f"this program's {SCHEMA_VERSION}"
                    )
                for number in range(current + 1, SCHEMA_VERSION + 1):
                    for statement in _statements(MIGRATIONS[number - 1]):
                        await conn.execute(statement)
                    await conn.execute(f"PRAGMA user_version = {number}")
                await conn.execute("COMMIT")
            except BaseException:
                await conn.execute("ROLLBACK")
                raise
        return SCHEMA_VERSION

    @asynccontextmanager
    async def write(self) -> AsyncIterator[SqlTx]:
        """One write transaction (``BEGIN IMMEDIATE``), alone on the writer connection.
        Commits when the block ends; rolls back if it raises. Inside an open ``write()`` of
        the same task, a nested ``write()`` joins it: the outer block commits (the service
        writes a command's outbox rows that way, in the command's own transaction)."""
        assert self._writer is not None, "SqliteStorage.open() first"
        joined = self._open_tx.get()
        if joined is not None:
            yield joined
            return
        async with self._write_lock:
            conn = self._writer
            self._check_file()
            await _begin(conn, "BEGIN IMMEDIATE")
            tx = SqlTx(SqliteRun(conn), self.holder)
            token = self._open_tx.set(tx)
            try:
                yield tx
            except BaseException:
                await _rollback_quietly(conn)
                raise
            finally:
                self._open_tx.reset(token)
            try:
                await self._commit(conn)
            except BaseException:
                await _rollback_quietly(conn)
                raise

    async def _commit(self, conn: aiosqlite.Connection) -> None:
        await conn.execute("COMMIT")

    @asynccontextmanager
    async def read(self) -> AsyncIterator[SqlQueries]:
        """A consistent snapshot of what is committed (a read transaction on the reader)."""
        assert self._reader is not None, "SqliteStorage.open() first"
        async with self._read_lock:
            conn = self._reader
            await _begin(conn, "BEGIN")
            try:
                yield SqlQueries(SqliteRun(conn))
            finally:
                await asyncio.shield(conn.execute("COMMIT"))

    async def checkpoint_wal(self) -> None:
        """Copy the WAL into the main file and truncate it (for size measurements, backups)."""
        assert self._writer is not None, "SqliteStorage.open() first"
        async with self._write_lock:
            await self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    async def size_bytes(self) -> int:
        """Pages in use times page size (the file itself may hold free pages and the WAL)."""
        async with self.read():  # one snapshot, on the reader connection
            assert self._reader is not None
            run = SqliteRun(self._reader)
            pages, size, free = [int(await run.value(stmt)) for stmt in _SIZE_PRAGMAS]
        return (pages - free) * size


_SIZE_PRAGMAS = [Statement(f"PRAGMA {name}")
                 for name in ("page_count", "page_size", "freelist_count")]


async def _rollback_quietly(conn: aiosqlite.Connection) -> None:
    """Roll back after a failure or a cancellation; an error of the rollback itself (the
    COMMIT went through after all, the disk is gone) never replaces the original exception,
    so a cancelled task still ends as cancelled."""
    if conn.in_transaction:
        with contextlib.suppress(sqlite3.Error, ValueError):
            await asyncio.shield(conn.execute("ROLLBACK"))


async def _begin(conn: aiosqlite.Connection, sql: str) -> None:
    """Begin a transaction. A caller cancelled while its BEGIN (or COMMIT) was queued leaves
    that statement to run after all (aiosqlite keeps the order), and its transaction open:
    without this, every later BEGIN on the connection would fail until a restart. Such an
    abandoned transaction never committed anything, so it is rolled back."""
    if conn.in_transaction:
        with contextlib.suppress(sqlite3.OperationalError):
            await conn.execute("ROLLBACK")
    try:
        await conn.execute(sql)
    except sqlite3.OperationalError as exc:
        if "within a transaction" not in str(exc):
            raise
        await conn.execute("ROLLBACK")
        await conn.execute(sql)


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (sqlite3.complete_statement knows the rules)."""
    out: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out
