"""SQLite storage for games (style 9): one file in the data directory, WAL mode, numbered
migrations recorded in ``PRAGMA user_version``, one write transaction at a time.

Two aiosqlite connections share the file:

- the **writer**, used only inside ``Storage.write()``: an ``asyncio.Lock`` lets one
  transaction at a time run on it (``BEGIN IMMEDIATE`` … ``COMMIT``), so writes never interleave;
- the **reader**, used by ``Storage.read()`` for status, hands and history: WAL lets it read the
  last committed state while a write is under way.

Nothing here knows the rules or Discord; rows come back as small frozen dataclasses and the
JSON columns as text (the service validates them).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import logging
import os
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from engine import StaleState

from .api import (
    GameRow,
    MoveRow,
    NoteRow,
    OutboxRow,
    PendingMoveRow,
    SeatRow,
    StorageLost,
    TimerRow,
)

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
]

SCHEMA_VERSION = len(MIGRATIONS)


_OUTBOX_COLS = ("id, game_id, kind, user_id, body, created_at, attempts, next_at, sent_at, "
                "result")
_PENDING_COLS = "key, game_id, version, user_id, line, state, created_at"

_GAME_COLS = (
    "id, guild_id, channel_id, creator_id, status, settings, seed, state, checkpoint, "
    "checkpoint_seq, version, created_at, updated_at, paused_at, turn_timing"
)
_SEAT_COLS = "game_id, seat, user_id, name, joined_at, muted, away_until, removed"
_MOVE_COLS = "id, game_id, seq, version, seat, user_id, kind, action, events, step, created_at"
_TIMER_COLS = "id, game_id, kind, seat, user_id, due_at, payload, created_at"


# --- queries shared by reads and write transactions ------------------------------------------


class SqliteQueries:
    """Statements on one connection. ``Tx`` adds the writes."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    # execute_fetchall is one hop to aiosqlite's thread (execute + fetch + close are three)
    async def _one(self, sql: str, args: Sequence[Any] = ()) -> sqlite3.Row | None:
        rows = await self._conn.execute_fetchall(sql, args)
        return next(iter(rows), None)

    async def _all(self, sql: str, args: Sequence[Any] = ()) -> list[sqlite3.Row]:
        return list(await self._conn.execute_fetchall(sql, args))

    async def game(self, game_id: int) -> GameRow | None:
        row = await self._one(f"SELECT {_GAME_COLS} FROM games WHERE id = ?", (game_id,))
        return GameRow(*row) if row else None

    async def game_for_channel(self, channel_id: int, *, live_only: bool = False) -> GameRow | None:
        """The channel's live game (lobby or active); else, unless ``live_only``, its latest."""
        row = await self._one(
            f"SELECT {_GAME_COLS} FROM games WHERE channel_id = ? "
            "ORDER BY status IN ('lobby', 'active') DESC, id DESC LIMIT 1",
            (channel_id,),
        )
        game = GameRow(*row) if row else None
        if game is not None and live_only and not game.is_live:
            return None
        return game

    async def games(self, *, status: str | None = None) -> list[GameRow]:
        if status is None:
            rows = await self._all(f"SELECT {_GAME_COLS} FROM games ORDER BY id")
        else:
            rows = await self._all(
                f"SELECT {_GAME_COLS} FROM games WHERE status = ? ORDER BY id", (status,)
            )
        return [GameRow(*r) for r in rows]

    async def seats(self, game_id: int) -> list[SeatRow]:
        rows = await self._all(
            f"SELECT {_SEAT_COLS} FROM seats WHERE game_id = ? ORDER BY seat", (game_id,)
        )
        return [_seat_row(r) for r in rows]

    async def games_of_user(self, user_id: int, *, live_only: bool = True) -> list[GameRow]:
        """The games where ``user_id`` has a seat (live ones only by default), oldest first."""
        live = " AND g.status IN ('lobby', 'active')" if live_only else ""
        cols = ", ".join(f"g.{c.strip()}" for c in _GAME_COLS.split(","))
        rows = await self._all(
            f"SELECT {cols} FROM games g JOIN seats s ON s.game_id = g.id "
            f"WHERE s.user_id = ?{live} ORDER BY g.id",
            (user_id,),
        )
        return [GameRow(*r) for r in rows]

    async def notes(self, game_id: int) -> list[NoteRow]:
        rows = await self._all(
            "SELECT id, game_id, after_seq, user_id, text, created_at FROM notes "
            "WHERE game_id = ? ORDER BY id",
            (game_id,),
        )
        return [NoteRow(*r) for r in rows]

    async def moves(self, game_id: int, *, after_seq: int = 0) -> list[MoveRow]:
        rows = await self._all(
            f"SELECT {_MOVE_COLS} FROM moves WHERE game_id = ? AND seq > ? ORDER BY seq",
            (game_id, after_seq),
        )
        return [MoveRow(*r) for r in rows]

    async def last_moves(self, game_id: int, limit: int) -> list[MoveRow]:
        rows = await self._all(
            f"SELECT {_MOVE_COLS} FROM moves WHERE game_id = ? ORDER BY seq DESC LIMIT ?",
            (game_id, limit),
        )
        return [MoveRow(*r) for r in reversed(rows)]

    async def last_seq(self, game_id: int) -> int:
        row = await self._one("SELECT MAX(seq) FROM moves WHERE game_id = ?", (game_id,))
        return int(row[0]) if row and row[0] is not None else 0

    async def last_seq_of_seat(self, game_id: int, seat: int) -> int:
        """The log position of the seat's last entry (0 if it has none)."""
        row = await self._one(
            "SELECT MAX(seq) FROM moves WHERE game_id = ? AND seat = ?", (game_id, seat)
        )
        return int(row[0]) if row and row[0] is not None else 0

    async def timers(self, game_id: int) -> list[TimerRow]:
        rows = await self._all(
            f"SELECT {_TIMER_COLS} FROM timers WHERE game_id = ? ORDER BY due_at, id", (game_id,)
        )
        return [TimerRow(*r) for r in rows]

    async def due_timers(self, now: float, limit: int = 100) -> list[TimerRow]:
        rows = await self._all(
            f"SELECT {_TIMER_COLS} FROM timers WHERE due_at <= ? ORDER BY due_at, id LIMIT ?",
            (now, limit),
        )
        return [TimerRow(*r) for r in rows]

    async def timer(self, timer_id: int) -> TimerRow | None:
        row = await self._one(f"SELECT {_TIMER_COLS} FROM timers WHERE id = ?", (timer_id,))
        return TimerRow(*row) if row else None

    async def next_due(self) -> float | None:
        row = await self._one("SELECT MIN(due_at) FROM timers")
        return float(row[0]) if row and row[0] is not None else None

    async def unsent(self, game_id: int | None = None, limit: int = 200) -> list[OutboxRow]:
        """Undelivered outbox rows, oldest first (of one game, or of all games)."""
        where = "sent_at IS NULL" + ("" if game_id is None else " AND game_id = ?")
        args: tuple[Any, ...] = () if game_id is None else (game_id,)
        rows = await self._all(
            f"SELECT {_OUTBOX_COLS} FROM outbox WHERE {where} ORDER BY id LIMIT ?",
            (*args, limit),
        )
        return [OutboxRow(*r) for r in rows]

    async def outbox_row(self, row_id: int) -> OutboxRow | None:
        row = await self._one(f"SELECT {_OUTBOX_COLS} FROM outbox WHERE id = ?", (row_id,))
        return OutboxRow(*row) if row else None

    async def pending_move(self, key: str) -> PendingMoveRow | None:
        row = await self._one(f"SELECT {_PENDING_COLS} FROM pending_moves WHERE key = ?",
                              (key,))
        return PendingMoveRow(*row) if row else None


class SqliteTx(SqliteQueries):
    """The writes, valid only inside ``Storage.write()`` (one open ``BEGIN IMMEDIATE``)."""

    async def insert_game(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        creator_id: int,
        settings: str,
        seed: int,
        now: float,
    ) -> int:
        cur = await self._conn.execute(
            "INSERT INTO games (guild_id, channel_id, creator_id, status, settings, seed, "
            "version, created_at, updated_at) VALUES (?, ?, ?, 'lobby', ?, ?, 1, ?, ?)",
            (guild_id, channel_id, creator_id, settings, seed, now, now),
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    async def update_game(
        self, game_id: int, expected_version: int, *, now: float, **fields: Any
    ) -> int:
        """Set ``fields`` and ``version = version + 1`` only where the version is still
        ``expected_version``; returns the new version. Raises StaleState otherwise."""
        allowed = {"status", "settings", "state", "checkpoint", "checkpoint_seq", "creator_id",
                   "paused_at"}
        unknown = set(fields) - allowed
        if unknown:
            raise ValueError(f"unknown game fields {sorted(unknown)}")
        sets = "".join(f"{name} = ?, " for name in fields)
        cur = await self._conn.execute(
            f"UPDATE games SET {sets}version = version + 1, updated_at = ? "
            "WHERE id = ? AND version = ?",
            (*fields.values(), now, game_id, expected_version),
        )
        if cur.rowcount != 1:
            raise StaleState(
                "The game changed while your command was being handled; look again and retry."
            )
        return expected_version + 1

    async def set_turn_timing(self, game_id: int, timing: dict[str, Any] | None) -> None:
        """The current turn's deadline bookkeeping (no new version: it follows the move)."""
        await self._conn.execute(
            "UPDATE games SET turn_timing = ? WHERE id = ?",
            (json.dumps(timing) if timing is not None else None, game_id),
        )

    async def add_seat(self, game_id: int, seat: int, user_id: int, name: str, now: float) -> None:
        await self._conn.execute(
            "INSERT INTO seats (game_id, seat, user_id, name, joined_at) VALUES (?, ?, ?, ?, ?)",
            (game_id, seat, user_id, name, now),
        )

    async def remove_seat(self, game_id: int, user_id: int) -> None:
        await self._conn.execute(
            "DELETE FROM seats WHERE game_id = ? AND user_id = ?", (game_id, user_id)
        )

    async def replace_seats(self, game_id: int, seats: Sequence[SeatRow]) -> None:
        await self._conn.execute("DELETE FROM seats WHERE game_id = ?", (game_id,))
        await self._conn.executemany(
            f"INSERT INTO seats ({_SEAT_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(game_id, s.seat, s.user_id, s.name, s.joined_at, int(s.muted), s.away_until,
              int(s.removed)) for s in seats],
        )

    async def update_seat(self, game_id: int, seat: int, **fields: Any) -> None:
        """Set some of ``user_id``, ``name``, ``joined_at``, ``muted``, ``away_until``,
        ``removed`` on one seat."""
        allowed = {"user_id", "name", "joined_at", "muted", "away_until", "removed"}
        unknown = set(fields) - allowed
        if unknown:
            raise ValueError(f"unknown seat fields {sorted(unknown)}")
        if not fields:
            return
        sets = ", ".join(f"{name} = ?" for name in fields)
        await self._conn.execute(
            f"UPDATE seats SET {sets} WHERE game_id = ? AND seat = ?",
            (*fields.values(), game_id, seat),
        )

    async def add_note(
        self, game_id: int, after_seq: int, text: str, now: float, user_id: int | None = None
    ) -> None:
        await self._conn.execute(
            "INSERT INTO notes (game_id, after_seq, user_id, text, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (game_id, after_seq, user_id, text, now),
        )

    async def append_move(
        self,
        *,
        game_id: int,
        seq: int,
        version: int,
        seat: int,
        user_id: int | None,
        kind: str,
        action: str,
        events: str,
        step: int,
        now: float,
    ) -> None:
        """Append one entry to the log; the UNIQUE (game_id, seq) and (game_id, version)
        constraints make a duplicate entry impossible."""
        await self._conn.execute(
            "INSERT INTO moves (game_id, seq, version, seat, user_id, kind, action, events, "
            "step, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (game_id, seq, version, seat, user_id, kind, action, events, step, now),
        )

    async def add_timer(
        self,
        *,
        game_id: int,
        kind: str,
        due_at: float,
        now: float,
        seat: int | None = None,
        user_id: int | None = None,
        payload: dict[str, Any] | None = None,
    ) -> int:
        cur = await self._conn.execute(
            "INSERT INTO timers (game_id, kind, seat, user_id, due_at, payload, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (game_id, kind, seat, user_id, due_at, json.dumps(payload or {}), now),
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    async def cancel_timers(self, game_id: int, kinds: Sequence[str] | None = None) -> None:
        if kinds is None:
            await self._conn.execute("DELETE FROM timers WHERE game_id = ?", (game_id,))
        else:
            marks = ", ".join("?" for _ in kinds)
            await self._conn.execute(
                f"DELETE FROM timers WHERE game_id = ? AND kind IN ({marks})", (game_id, *kinds)
            )

    async def reschedule_timer(
        self, timer_id: int, due_at: float, payload: dict[str, Any] | None = None
    ) -> None:
        """Move a timer to ``due_at`` (and replace its payload when one is given)."""
        if payload is None:
            await self._conn.execute(
                "UPDATE timers SET due_at = ? WHERE id = ?", (due_at, timer_id)
            )
        else:
            await self._conn.execute(
                "UPDATE timers SET due_at = ?, payload = ? WHERE id = ?",
                (due_at, json.dumps(payload), timer_id),
            )

    async def delete_timer(self, timer_id: int) -> bool:
        cur = await self._conn.execute("DELETE FROM timers WHERE id = ?", (timer_id,))
        return cur.rowcount == 1

    async def add_outbox(self, *, game_id: int, kind: str, user_id: int | None, body: str,
                         now: float) -> int:
        cur = await self._conn.execute(
            "INSERT INTO outbox (game_id, kind, user_id, body, created_at, next_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (game_id, kind, user_id, body, now, now),
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    async def mark_sent(self, row_id: int, now: float, result: str) -> None:
        await self._conn.execute(
            "UPDATE outbox SET sent_at = ?, result = ?, attempts = attempts + 1 WHERE id = ?",
            (now, result, row_id),
        )

    async def retry_later(self, row_id: int, next_at: float, result: str) -> None:
        await self._conn.execute(
            "UPDATE outbox SET attempts = attempts + 1, next_at = ?, result = ? WHERE id = ?",
            (next_at, result, row_id),
        )

    async def prune_outbox(self, before: float) -> int:
        """Delete delivered rows sent before ``before``, and previews left unanswered since
        then (their buttons then say the preview has expired); returns how many rows."""
        cur = await self._conn.execute(
            "DELETE FROM outbox WHERE sent_at IS NOT NULL AND sent_at < ?", (before,))
        await self._conn.execute("DELETE FROM pending_moves WHERE created_at < ?", (before,))
        return cur.rowcount

    async def notice_once(self, game_id: int, user_id: int, kind: str, now: float) -> bool:
        """Record that ``kind`` was told about ``user_id`` in this game; True the first time."""
        cur = await self._conn.execute(
            "INSERT OR IGNORE INTO notices (game_id, user_id, kind, created_at) "
            "VALUES (?, ?, ?, ?)",
            (game_id, user_id, kind, now),
        )
        return cur.rowcount == 1

    async def forget_notice(self, game_id: int, user_id: int, kind: str) -> None:
        await self._conn.execute(
            "DELETE FROM notices WHERE game_id = ? AND user_id = ? AND kind = ?",
            (game_id, user_id, kind))

    async def add_pending_move(self, *, key: str, game_id: int, version: int, user_id: int,
                               line: str, now: float) -> None:
        await self._conn.execute(
            f"INSERT INTO pending_moves ({_PENDING_COLS}) VALUES (?, ?, ?, ?, ?, 'open', ?)",
            (key, game_id, version, user_id, line, now),
        )

    async def set_pending_state(self, key: str, old: str, new: str) -> bool:
        """Move a previewed move from ``old`` to ``new``; False if it was not ``old``."""
        cur = await self._conn.execute(
            "UPDATE pending_moves SET state = ? WHERE key = ? AND state = ?", (new, key, old))
        return cur.rowcount == 1

    async def claim_outbox(self, game_id: int, owner: str, now: float, until: float) -> bool:
        """Take, or extend, the right to deliver the game's outbox rows until ``until``;
        False while another owner holds it (its ``until`` is still after ``now``)."""
        cur = await self._conn.execute(
            "INSERT INTO outbox_claims (game_id, owner, until) VALUES (?, ?, ?) "
            "ON CONFLICT (game_id) DO UPDATE SET owner = excluded.owner, until = excluded.until "
            "WHERE outbox_claims.owner = excluded.owner OR outbox_claims.until <= ?",
            (game_id, owner, until, now),
        )
        return cur.rowcount == 1

    async def release_outbox(self, game_id: int, owner: str) -> None:
        """Give up the game's claim if ``owner`` holds it."""
        await self._conn.execute(
            "DELETE FROM outbox_claims WHERE game_id = ? AND owner = ?", (game_id, owner))


def _seat_row(r: Sequence[Any]) -> SeatRow:
    return SeatRow(r[0], r[1], r[2], r[3], r[4], bool(r[5]), r[6], bool(r[7]))


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
        self._open_tx: contextvars.ContextVar[SqliteTx | None] = contextvars.ContextVar(
            f"khronos_tx_{id(self)}", default=None)
        self._identity: tuple[int, int] | None = None  # (device, inode) of the opened file
        self._lost_told = False

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
        except BaseException:
            await self.close()
            raise
        return self

    async def close(self) -> None:
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
    async def write(self) -> AsyncIterator[SqliteTx]:
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
            tx = SqliteTx(conn)
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
    async def read(self) -> AsyncIterator[SqliteQueries]:
        """A consistent snapshot of what is committed (a read transaction on the reader)."""
        assert self._reader is not None, "SqliteStorage.open() first"
        async with self._read_lock:
            conn = self._reader
            await _begin(conn, "BEGIN")
            try:
                yield SqliteQueries(conn)
            finally:
                await asyncio.shield(conn.execute("COMMIT"))

    async def checkpoint_wal(self) -> None:
        """Copy the WAL into the main file and truncate it (for size measurements, backups)."""
        assert self._writer is not None, "SqliteStorage.open() first"
        async with self._write_lock:
            await self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    async def size_bytes(self) -> int:
        """Pages in use times page size (the file itself may hold free pages and the WAL)."""
        async with self.read() as q:
            row1 = await q._one("PRAGMA page_count")
            row2 = await q._one("PRAGMA page_size")
            row3 = await q._one("PRAGMA freelist_count")
        assert row1 and row2 and row3
        return (int(row1[0]) - int(row3[0])) * int(row2[0])


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
