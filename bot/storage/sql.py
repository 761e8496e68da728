"""The SQL both backends run: column lists, row mapping, the fields ``update_game`` and
``update_seat`` may set, every statement written once, and the queries on top of them.

A statement is written once with ``?`` placeholders (SQLite's style). :class:`Statement`
computes asyncpg's ``$1, $2 …`` form when the statement is defined (at import), so a call
never translates anything. The query methods of :class:`SqlQueries` (reads) and
:class:`SqlTx` (writes) run their statements through a :class:`Run`: a few methods per
backend (rows, one row, one value, execute, a row count, an insert's new id, many rows) on
one connection in one transaction. Each backend module keeps its connection, transactions,
migrations and locks, and the statements of its own dialect (PostgreSQL's ``FOR UPDATE`` and
advisory locks live in its ``PgTx``, a subclass of :class:`SqlTx`).

How to add a query: docs/storage.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from typing import Any, Protocol

from engine import StaleState

from .api import (
    LIVE_STATUSES,
    DealRow,
    GameRow,
    LivingMessageRow,
    MoveRow,
    NoteRow,
    OutboxRow,
    PendingMoveRow,
    RatingRow,
    ResultRow,
    SealRow,
    SeatRow,
    TimerRow,
)

# --- statements and their two placeholder styles -----------------------------------------------

# what the translation must step over: quoted literals and identifiers, comments; then the
# placeholder, and the `$` that would mean something else to each backend
_TOKEN = re.compile(r"'[^']*'|\"[^\"]*\"|--[^\n]*|[?$]")


def numbered(text: str) -> str:
    """``text`` with its ``?`` placeholders numbered ``$1, $2 …`` in order (asyncpg's style);
    quoted literals, quoted names and comments are left alone. A ``$`` outside them raises
    ``ValueError``: SQLite would read it as a named parameter."""
    count = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal count
        token = match.group()
        if token == "$":
            raise ValueError(f"a shared statement uses ? placeholders, not $: {text!r}")
        if token != "?":
            return token
        count += 1
        return f"${count}"

    return _TOKEN.sub(replace, text)


class Statement:
    """One statement in both placeholder styles: ``qmark`` as written (``?``, for SQLite)
    and ``dollar`` (``$1, $2 …``, for asyncpg), translated once, here."""

    __slots__ = ("dollar", "qmark")

    def __init__(self, text: str) -> None:
        self.qmark = text
        self.dollar = numbered(text)

    def __repr__(self) -> str:
        return f"Statement({self.qmark!r})"


class Insert(Statement):
    """An ``INSERT`` of one row whose new ``id`` the caller wants. SQLite reads it from the
    cursor (``lastrowid``); on PostgreSQL the ``dollar`` form ends with ``RETURNING id``."""

    __slots__ = ()

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.dollar += " RETURNING id"


# --- columns, rows, fields ----------------------------------------------------------------------

GAME_COLS = (
    "id, guild_id, channel_id, creator_id, status, settings, seed, state, checkpoint, "
    "checkpoint_seq, version, created_at, updated_at, paused_at, turn_timing"
)
SEAT_COLS = "game_id, seat, user_id, name, joined_at, muted, away_until, removed, hints"
NOTE_COLS = "id, game_id, after_seq, user_id, text, created_at"
MOVE_COLS = "id, game_id, seq, version, seat, user_id, kind, action, events, step, created_at"
TIMER_COLS = "id, game_id, kind, seat, user_id, due_at, payload, created_at"
OUTBOX_COLS = ("id, game_id, kind, user_id, body, created_at, attempts, next_at, sent_at, "
               "result")
PENDING_COLS = "key, game_id, version, user_id, line, state, created_at"
SEAL_COLS = "game_id, salt, commitment, created_at"
DEAL_COLS = "game_id, seq, cards"
RATING_COLS = ("guild_id, player, name, mu, sigma, games, wins, ecus, deadlines, hints, timed, "
               "updated_at")
RESULT_COLS = ("game_id, seat, guild_id, player, name, rank, ecus, mu_before, sigma_before, "
               "mu_after, sigma_after, deadlines, hints, finished_at")
# the conservative rating a leaderboard is ordered by: the skill a player has with ~99.7 %
# confidence (OpenSkill's ordinal, mu - 3 sigma)
SCORE = "mu - 3 * sigma"
LIVING_COLS = "game_id, key, channel_id, message_id, layout, updated_at"

# `status IN ('lobby', 'active')`: true for a live game (a boolean sorts after false)
IS_LIVE = "status IN ({})".format(", ".join(f"'{s}'" for s in LIVE_STATUSES))

# what update_game and update_seat may set
GAME_FIELDS = frozenset({"status", "settings", "state", "checkpoint", "checkpoint_seq",
                         "creator_id", "paused_at"})
SEAT_FIELDS = frozenset({"user_id", "name", "joined_at", "muted", "away_until", "removed",
                         "hints"})
BOOL_SEAT_FIELDS = frozenset({"muted", "removed"})  # SQLite keeps 0/1, PostgreSQL booleans


class Row(Protocol):
    """A result row as either driver gives it (``sqlite3.Row``, ``asyncpg.Record``)."""

    def __getitem__(self, index: int, /) -> Any: ...

    def __iter__(self) -> Iterator[Any]: ...


def seat_row(r: Row) -> SeatRow:
    """A seat from the columns of ``SEAT_COLS`` (``muted`` and ``removed`` as booleans)."""
    return SeatRow(r[0], r[1], r[2], r[3], r[4], bool(r[5]), r[6], bool(r[7]), r[8])


def seat_values(game_id: int, s: SeatRow) -> tuple[Any, ...]:
    """The values of ``SEAT_COLS`` for one seat."""
    return (game_id, s.seat, s.user_id, s.name, s.joined_at, bool(s.muted), s.away_until,
            bool(s.removed), s.hints)


def _fields(kind: str, fields: dict[str, Any], allowed: frozenset[str]) -> tuple[str, ...]:
    """The names of ``fields``, in order; ``ValueError`` if one is not allowed."""
    unknown = set(fields) - allowed
    if unknown:
        raise ValueError(f"unknown {kind} fields {sorted(unknown)}")
    return tuple(fields)


# --- reads --------------------------------------------------------------------------------------

GAME = Statement(f"SELECT {GAME_COLS} FROM games WHERE id = ?")
GAME_OF_CHANNEL = Statement(  # the live game first, else the latest
    f"SELECT {GAME_COLS} FROM games WHERE channel_id = ? "
    f"ORDER BY {IS_LIVE} DESC, id DESC LIMIT 1")
GAMES = Statement(f"SELECT {GAME_COLS} FROM games ORDER BY id")
GAMES_WITH_STATUS = Statement(f"SELECT {GAME_COLS} FROM games WHERE status = ? ORDER BY id")
_G_COLS = ", ".join(f"g.{c.strip()}" for c in GAME_COLS.split(","))
GAMES_OF_USER = Statement(
    f"SELECT {_G_COLS} FROM games g JOIN seats s ON s.game_id = g.id "
    "WHERE s.user_id = ? ORDER BY g.id")
LIVE_GAMES_OF_USER = Statement(
    f"SELECT {_G_COLS} FROM games g JOIN seats s ON s.game_id = g.id "
    f"WHERE s.user_id = ? AND g.{IS_LIVE} ORDER BY g.id")
SEATS = Statement(f"SELECT {SEAT_COLS} FROM seats WHERE game_id = ? ORDER BY seat")
NOTES = Statement(f"SELECT {NOTE_COLS} FROM notes WHERE game_id = ? ORDER BY id")
MOVES_AFTER = Statement(
    f"SELECT {MOVE_COLS} FROM moves WHERE game_id = ? AND seq > ? ORDER BY seq")
LAST_MOVES = Statement(
    f"SELECT {MOVE_COLS} FROM moves WHERE game_id = ? ORDER BY seq DESC LIMIT ?")
LAST_SEQ = Statement("SELECT MAX(seq) FROM moves WHERE game_id = ?")
LAST_SEQ_OF_SEAT = Statement("SELECT MAX(seq) FROM moves WHERE game_id = ? AND seat = ?")
TIMERS = Statement(f"SELECT {TIMER_COLS} FROM timers WHERE game_id = ? ORDER BY due_at, id")
DUE_TIMERS = Statement(
    f"SELECT {TIMER_COLS} FROM timers WHERE due_at <= ? ORDER BY due_at, id LIMIT ?")
TIMER = Statement(f"SELECT {TIMER_COLS} FROM timers WHERE id = ?")
NEXT_DUE = Statement("SELECT MIN(due_at) FROM timers")
UNSENT = Statement(
    f"SELECT {OUTBOX_COLS} FROM outbox WHERE sent_at IS NULL ORDER BY id LIMIT ?")
UNSENT_OF_GAME = Statement(
    f"SELECT {OUTBOX_COLS} FROM outbox WHERE sent_at IS NULL AND game_id = ? "
    "ORDER BY id LIMIT ?")
UNSENT_COUNT = Statement("SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL")
OUTBOX_ROW = Statement(f"SELECT {OUTBOX_COLS} FROM outbox WHERE id = ?")
PENDING_MOVE = Statement(f"SELECT {PENDING_COLS} FROM pending_moves WHERE key = ?")
LIVING_MESSAGE = Statement(
    f"SELECT {LIVING_COLS} FROM living_messages WHERE game_id = ? AND key = ?")

SEAL = Statement(f"SELECT {SEAL_COLS} FROM seals WHERE game_id = ?")
DEALS = Statement(f"SELECT {DEAL_COLS} FROM deals WHERE game_id = ? ORDER BY seq")
RESULTS = Statement(f"SELECT {RESULT_COLS} FROM results WHERE game_id = ? ORDER BY seat")
RATING = Statement(f"SELECT {RATING_COLS} FROM ratings WHERE guild_id = ? AND player = ?")
LEADERBOARD = Statement(
    f"SELECT {RATING_COLS} FROM ratings WHERE guild_id = ? AND games >= ? "
    f"ORDER BY {SCORE} DESC, games DESC, player LIMIT ?")
RANKED_COUNT = Statement("SELECT COUNT(*) FROM ratings WHERE guild_id = ? AND games >= ?")
RANKED_ABOVE = Statement(
    f"SELECT COUNT(*) FROM ratings WHERE guild_id = ? AND games >= ? AND {SCORE} > ?")
TURN_TIMES_AT = Statement(  # the middle one or two of a player's times (the index's order)
    "SELECT seconds FROM turn_times WHERE guild_id = ? AND player = ? "
    "ORDER BY seconds LIMIT ? OFFSET ?")

# --- writes -------------------------------------------------------------------------------------

INSERT_GAME = Insert(
    "INSERT INTO games (guild_id, channel_id, creator_id, status, settings, seed, "
    "version, created_at, updated_at) VALUES (?, ?, ?, 'lobby', ?, ?, 1, ?, ?)")
SET_TURN_TIMING = Statement("UPDATE games SET turn_timing = ? WHERE id = ?")
ADD_SEAT = Statement(
    "INSERT INTO seats (game_id, seat, user_id, name, joined_at) VALUES (?, ?, ?, ?, ?)")
REMOVE_SEAT = Statement("DELETE FROM seats WHERE game_id = ? AND user_id = ?")
DELETE_SEATS = Statement("DELETE FROM seats WHERE game_id = ?")
INSERT_SEAT = Statement(f"INSERT INTO seats ({SEAT_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
ADD_NOTE = Statement(
    "INSERT INTO notes (game_id, after_seq, user_id, text, created_at) VALUES (?, ?, ?, ?, ?)")
APPEND_MOVE = Statement(
    "INSERT INTO moves (game_id, seq, version, seat, user_id, kind, action, events, step, "
    "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
ADD_TIMER = Insert(
    "INSERT INTO timers (game_id, kind, seat, user_id, due_at, payload, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)")
CANCEL_TIMERS = Statement("DELETE FROM timers WHERE game_id = ?")
RESCHEDULE_TIMER = Statement("UPDATE timers SET due_at = ? WHERE id = ?")
RESCHEDULE_TIMER_WITH_PAYLOAD = Statement(
    "UPDATE timers SET due_at = ?, payload = ? WHERE id = ?")
DELETE_TIMER = Statement("DELETE FROM timers WHERE id = ?")
ADD_OUTBOX = Insert(
    "INSERT INTO outbox (game_id, kind, user_id, body, created_at, next_at) "
    "VALUES (?, ?, ?, ?, ?, ?)")
MARK_SENT = Statement(
    "UPDATE outbox SET sent_at = ?, result = ?, attempts = attempts + 1 WHERE id = ?")
RETRY_LATER = Statement(
    "UPDATE outbox SET attempts = attempts + 1, next_at = ?, result = ? WHERE id = ?")
PRUNE_OUTBOX = Statement("DELETE FROM outbox WHERE sent_at IS NOT NULL AND sent_at < ?")
PRUNE_PENDING = Statement("DELETE FROM pending_moves WHERE created_at < ?")
NOTICE_ONCE = Statement(  # ON CONFLICT DO NOTHING: SQLite 3.24 and PostgreSQL 9.5 both have it
    "INSERT INTO notices (game_id, user_id, kind, created_at) VALUES (?, ?, ?, ?) "
    "ON CONFLICT DO NOTHING")
FORGET_NOTICE = Statement("DELETE FROM notices WHERE game_id = ? AND user_id = ? AND kind = ?")
KEEP_LIVING_MESSAGE = Statement(  # an upsert, the same on both backends
    f"INSERT INTO living_messages ({LIVING_COLS}) VALUES (?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (game_id, key) DO UPDATE SET channel_id = excluded.channel_id, "
    "message_id = excluded.message_id, layout = excluded.layout, "
    "updated_at = excluded.updated_at")
ADD_PENDING_MOVE = Statement(
    f"INSERT INTO pending_moves ({PENDING_COLS}) VALUES (?, ?, ?, ?, ?, 'open', ?)")
SET_PENDING_STATE = Statement(
    "UPDATE pending_moves SET state = ? WHERE key = ? AND state = ?")
CLAIM_OUTBOX = Statement(  # one conditional upsert, the same on both backends
    "INSERT INTO outbox_claims (game_id, owner, until) VALUES (?, ?, ?) "
    "ON CONFLICT (game_id) DO UPDATE SET owner = excluded.owner, until = excluded.until "
    "WHERE outbox_claims.owner = excluded.owner OR outbox_claims.until <= ?")
RELEASE_OUTBOX = Statement("DELETE FROM outbox_claims WHERE game_id = ? AND owner = ?")
ADD_SEAL = Statement(f"INSERT INTO seals ({SEAL_COLS}) VALUES (?, ?, ?, ?)")
ADD_DEAL = Statement(f"INSERT INTO deals ({DEAL_COLS}) VALUES (?, ?, ?)")
RATINGS_OF = Statement(f"SELECT {RATING_COLS} FROM ratings WHERE guild_id = ? AND player = ?")
SAVE_RATING = Statement(  # an upsert both backends understand
    f"INSERT INTO ratings ({RATING_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (guild_id, player) DO UPDATE SET name = excluded.name, mu = excluded.mu, "
    "sigma = excluded.sigma, games = excluded.games, wins = excluded.wins, "
    "ecus = excluded.ecus, deadlines = excluded.deadlines, hints = excluded.hints, "
    "timed = excluded.timed, updated_at = excluded.updated_at")
ADD_RESULT = Statement(
    f"INSERT INTO results ({RESULT_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
ADD_TURN_TIME = Statement(
    "INSERT INTO turn_times (guild_id, player, game_id, seconds) VALUES (?, ?, ?, ?)")
CLAIM_OWNER = Statement("SELECT owner FROM outbox_claims WHERE game_id = ?")
TAKE_OUTBOX = Statement(  # a dead holder's claim, unless someone took it meanwhile
    "UPDATE outbox_claims SET owner = ?, until = ? WHERE game_id = ? AND owner = ?")


# statements that depend on which fields or how many values: made once per shape (the
# names are checked against GAME_FIELDS / SEAT_FIELDS first, so there are few shapes)

@cache
def update_game_statement(names: tuple[str, ...]) -> Statement:
    """``UPDATE games`` setting ``names``, bumping the version, where it is still expected."""
    sets = "".join(f"{name} = ?, " for name in names)
    return Statement(f"UPDATE games SET {sets}version = version + 1, updated_at = ? "
                     "WHERE id = ? AND version = ?")


@cache
def update_seat_statement(names: tuple[str, ...]) -> Statement:
    """``UPDATE seats`` setting ``names`` on one seat."""
    sets = ", ".join(f"{name} = ?" for name in names)
    return Statement(f"UPDATE seats SET {sets} WHERE game_id = ? AND seat = ?")


@cache
def cancel_timers_statement(kinds: int) -> Statement:
    """Delete a game's timers of ``kinds`` kinds (one placeholder each)."""
    marks = ", ".join("?" * kinds)
    return Statement(f"DELETE FROM timers WHERE game_id = ? AND kind IN ({marks})")


# --- the run layer, and the queries on it -------------------------------------------------------


class Run(Protocol):
    """How one backend runs a statement on its connection (inside the open transaction)."""

    async def rows(self, stmt: Statement, *args: Any) -> Sequence[Row]:
        """Every row of the result."""
        ...

    async def row(self, stmt: Statement, *args: Any) -> Row | None:
        """The first row, or None."""
        ...

    async def value(self, stmt: Statement, *args: Any) -> Any:
        """The first column of the first row, or None."""
        ...

    async def execute(self, stmt: Statement, *args: Any) -> None:
        """Run it, for its effect."""
        ...

    async def count(self, stmt: Statement, *args: Any) -> int:
        """Run it; how many rows it inserted, changed or deleted."""
        ...

    async def insert(self, stmt: Insert, *args: Any) -> int:
        """Insert one row; its new ``id``."""
        ...

    async def execute_many(self, stmt: Statement, rows: Iterable[Sequence[Any]]) -> None:
        """Run it once per tuple of values."""
        ...


class CommunityReads:
    """The reads of seals, deals, results and ratings (docs/community.md)."""

    _run: Run

    async def seal(self, game_id: int) -> SealRow | None:
        row = await self._run.row(SEAL, game_id)
        return None if row is None else SealRow(*row)

    async def deals(self, game_id: int) -> list[DealRow]:
        return [DealRow(*r) for r in await self._run.rows(DEALS, game_id)]

    async def results(self, game_id: int) -> list[ResultRow]:
        return [ResultRow(*r) for r in await self._run.rows(RESULTS, game_id)]

    async def rating(self, guild_id: int, player: str) -> RatingRow | None:
        row = await self._run.row(RATING, guild_id, player)
        return None if row is None else RatingRow(*row)

    async def leaderboard(self, guild_id: int, min_games: int, limit: int) -> list[RatingRow]:
        """The server's players and levels with ``min_games`` games or more, best first
        (by ``mu - 3 sigma``)."""
        rows = await self._run.rows(LEADERBOARD, guild_id, min_games, limit)
        return [RatingRow(*r) for r in rows]

    async def ranked_count(self, guild_id: int, min_games: int) -> int:
        return int(await self._run.value(RANKED_COUNT, guild_id, min_games) or 0)

    async def ranked_above(self, guild_id: int, min_games: int, score: float) -> int:
        """How many ranked players of the server have a conservative rating above ``score``."""
        return int(await self._run.value(RANKED_ABOVE, guild_id, min_games, score) or 0)

    async def median_turn_time(self, guild_id: int, player: str, count: int) -> float | None:
        """The median of the player's ``count`` times to move (``RatingRow.timed``), read
        from the index: the middle row, or the mean of the middle two."""
        if count <= 0:
            return None
        middle = await self._run.rows(TURN_TIMES_AT, guild_id, player, 2 - count % 2,
                                      (count - 1) // 2)
        values = [float(r[0]) for r in middle]
        return sum(values) / len(values) if values else None


class CommunityWrites:
    """The writes of seals, deals, results and ratings, in the transaction that starts a
    game, draws, or ends it."""

    _run: Run

    async def add_seal(self, game_id: int, salt: str, commitment: str, now: float) -> None:
        await self._run.execute(ADD_SEAL, game_id, salt, commitment, now)

    async def add_deal(self, game_id: int, seq: int, cards: str) -> None:
        await self._run.execute(ADD_DEAL, game_id, seq, cards)

    async def ratings_for_update(self, guild_id: int,
                                 players: Sequence[str]) -> list[RatingRow]:
        """The ratings of ``players`` that exist (PostgreSQL locks the server's ratings
        first: ``PgTx``)."""
        out = []
        for player in dict.fromkeys(players):
            row = await self._run.row(RATINGS_OF, guild_id, player)
            if row is not None:
                out.append(RatingRow(*row))
        return out

    async def save_ratings(self, rows: Sequence[RatingRow]) -> None:
        await self._run.execute_many(SAVE_RATING, [
            (r.guild_id, r.player, r.name, r.mu, r.sigma, r.games, r.wins, r.ecus,
             r.deadlines, r.hints, r.timed, r.updated_at) for r in rows])

    async def add_results(self, rows: Sequence[ResultRow]) -> None:
        """One row per seat; the primary key (game, seat) refuses a game rated twice."""
        await self._run.execute_many(ADD_RESULT, [
            (r.game_id, r.seat, r.guild_id, r.player, r.name, r.rank, r.ecus, r.mu_before,
             r.sigma_before, r.mu_after, r.sigma_after, r.deadlines, r.hints, r.finished_at)
            for r in rows])

    async def add_turn_times(self, guild_id: int, player: str, game_id: int,
                             seconds: Sequence[float]) -> None:
        await self._run.execute_many(ADD_TURN_TIME,
                                     [(guild_id, player, game_id, s) for s in seconds])


class Holder(Protocol):
    """The storage's mark of life, which a delivery claim names: a lock its process holds
    while it lives, released by the kernel or the database server when it dies (SQLite: a
    locked file, ``holder.FileHolder``; PostgreSQL: a session's advisory lock,
    ``postgres.PgHolder``)."""

    token: str  # names this storage's lock ("" if it has none: its claims only expire)

    async def alive(self, token: str, run: Run) -> bool:
        """Whether the storage that ``token`` names still holds its lock (``run``: the
        transaction asking, for a backend that asks its database)."""
        ...


class SqlQueries(CommunityReads):
    """The reads (``api.Queries``) on one :class:`Run`; :class:`SqlTx` adds the writes."""

    def __init__(self, run: Run) -> None:
        self._run = run

    async def game(self, game_id: int) -> GameRow | None:
        row = await self._run.row(GAME, game_id)
        return None if row is None else GameRow(*row)

    async def game_for_channel(self, channel_id: int, *, live_only: bool = False) -> GameRow | None:
        """The channel's live game (lobby or active); else, unless ``live_only``, its latest."""
        row = await self._run.row(GAME_OF_CHANNEL, channel_id)
        return live_or_latest(row, live_only)

    async def games(self, *, status: str | None = None) -> list[GameRow]:
        if status is None:
            rows = await self._run.rows(GAMES)
        else:
            rows = await self._run.rows(GAMES_WITH_STATUS, status)
        return [GameRow(*r) for r in rows]

    async def seats(self, game_id: int) -> list[SeatRow]:
        return [seat_row(r) for r in await self._run.rows(SEATS, game_id)]

    async def games_of_user(self, user_id: int, *, live_only: bool = True) -> list[GameRow]:
        """The games where ``user_id`` has a seat (live ones only by default), oldest first."""
        stmt = LIVE_GAMES_OF_USER if live_only else GAMES_OF_USER
        return [GameRow(*r) for r in await self._run.rows(stmt, user_id)]

    async def notes(self, game_id: int) -> list[NoteRow]:
        return [NoteRow(*r) for r in await self._run.rows(NOTES, game_id)]

    async def moves(self, game_id: int, *, after_seq: int = 0) -> list[MoveRow]:
        return [MoveRow(*r) for r in await self._run.rows(MOVES_AFTER, game_id, after_seq)]

    async def last_moves(self, game_id: int, limit: int) -> list[MoveRow]:
        rows = await self._run.rows(LAST_MOVES, game_id, limit)
        return [MoveRow(*r) for r in reversed(rows)]

    async def last_seq(self, game_id: int) -> int:
        value = await self._run.value(LAST_SEQ, game_id)
        return 0 if value is None else int(value)

    async def last_seq_of_seat(self, game_id: int, seat: int) -> int:
        """The log position of the seat's last entry (0 if it has none)."""
        value = await self._run.value(LAST_SEQ_OF_SEAT, game_id, seat)
        return 0 if value is None else int(value)

    async def timers(self, game_id: int) -> list[TimerRow]:
        return [TimerRow(*r) for r in await self._run.rows(TIMERS, game_id)]

    async def due_timers(self, now: float, limit: int = 100) -> list[TimerRow]:
        return [TimerRow(*r) for r in await self._run.rows(DUE_TIMERS, now, limit)]

    async def timer(self, timer_id: int) -> TimerRow | None:
        row = await self._run.row(TIMER, timer_id)
        return None if row is None else TimerRow(*row)

    async def next_due(self) -> float | None:
        value = await self._run.value(NEXT_DUE)
        return None if value is None else float(value)

    async def unsent(self, game_id: int | None = None, limit: int = 200) -> list[OutboxRow]:
        """Undelivered outbox rows, oldest first (of one game, or of all games)."""
        if game_id is None:
            rows = await self._run.rows(UNSENT, limit)
        else:
            rows = await self._run.rows(UNSENT_OF_GAME, game_id, limit)
        return [OutboxRow(*r) for r in rows]

    async def unsent_count(self) -> int:
        """How many outbox rows are undelivered (of all games)."""
        return int(await self._run.value(UNSENT_COUNT) or 0)

    async def outbox_row(self, row_id: int) -> OutboxRow | None:
        row = await self._run.row(OUTBOX_ROW, row_id)
        return None if row is None else OutboxRow(*row)

    async def pending_move(self, key: str) -> PendingMoveRow | None:
        row = await self._run.row(PENDING_MOVE, key)
        return None if row is None else PendingMoveRow(*row)

    async def living_message(self, game_id: int, key: str) -> LivingMessageRow | None:
        row = await self._run.row(LIVING_MESSAGE, game_id, key)
        return None if row is None else LivingMessageRow(
            row[0], row[1], row[2], row[3], bool(row[4]), row[5])


def live_or_latest(row: Row | None, live_only: bool) -> GameRow | None:
    """The game of a ``GAME_OF_CHANNEL`` row; None if there is none, or if ``live_only`` and
    the game is over."""
    game = None if row is None else GameRow(*row)
    if game is not None and live_only and not game.is_live:
        return None
    return game


class SqlTx(SqlQueries, CommunityWrites):
    """The writes (``api.Tx``), valid only inside ``Storage.write()``. ``holder``: the
    storage's mark of life, named in its delivery claims (None: they only expire)."""

    def __init__(self, run: Run, holder: Holder | None = None) -> None:
        super().__init__(run)
        self.holder = holder

    async def insert_game(self, *, guild_id: int | None, channel_id: int, creator_id: int,
                          settings: str, seed: int, now: float) -> int:
        return await self._run.insert(INSERT_GAME, guild_id, channel_id, creator_id, settings,
                                      seed, now, now)

    async def update_game(
        self, game_id: int, expected_version: int, *, now: float, **fields: Any
    ) -> int:
        """Set ``fields`` and ``version = version + 1`` only where the version is still
        ``expected_version``; returns the new version. Raises StaleState otherwise."""
        stmt = update_game_statement(_fields("game", fields, GAME_FIELDS))
        changed = await self._run.count(stmt, *fields.values(), now, game_id, expected_version)
        if changed != 1:
            raise StaleState(
                "The game changed while your command was being handled; look again and retry."
            )
        return expected_version + 1

    async def set_turn_timing(self, game_id: int, timing: dict[str, Any] | None) -> None:
        """The current turn's deadline bookkeeping (no new version: it follows the move)."""
        await self._run.execute(SET_TURN_TIMING,
                                None if timing is None else json.dumps(timing), game_id)

    async def add_seat(self, game_id: int, seat: int, user_id: int, name: str, now: float) -> None:
        await self._run.execute(ADD_SEAT, game_id, seat, user_id, name, now)

    async def remove_seat(self, game_id: int, user_id: int) -> None:
        await self._run.execute(REMOVE_SEAT, game_id, user_id)

    async def replace_seats(self, game_id: int, seats: Sequence[SeatRow]) -> None:
        await self._run.execute(DELETE_SEATS, game_id)
        await self._run.execute_many(INSERT_SEAT, [seat_values(game_id, s) for s in seats])

    async def update_seat(self, game_id: int, seat: int, **fields: Any) -> None:
        """Set some of ``user_id``, ``name``, ``joined_at``, ``muted``, ``away_until``,
        ``removed`` on one seat (``muted`` and ``removed`` may come as 0/1)."""
        names = _fields("seat", fields, SEAT_FIELDS)
        if not names:
            return
        values = [bool(v) if k in BOOL_SEAT_FIELDS else v for k, v in fields.items()]
        await self._run.execute(update_seat_statement(names), *values, game_id, seat)

    async def add_note(
        self, game_id: int, after_seq: int, text: str, now: float, user_id: int | None = None
    ) -> None:
        await self._run.execute(ADD_NOTE, game_id, after_seq, user_id, text, now)

    async def append_move(self, *, game_id: int, seq: int, version: int, seat: int,
                          user_id: int | None, kind: str, action: str, events: str, step: int,
                          now: float) -> None:
        """Append one entry to the log; the UNIQUE (game_id, seq) and (game_id, version)
        constraints make a duplicate entry impossible."""
        await self._run.execute(APPEND_MOVE, game_id, seq, version, seat, user_id, kind,
                                action, events, step, now)

    async def add_timer(self, *, game_id: int, kind: str, due_at: float, now: float,
                        seat: int | None = None, user_id: int | None = None,
                        payload: dict[str, Any] | None = None) -> int:
        return await self._run.insert(ADD_TIMER, game_id, kind, seat, user_id, due_at,
                                      json.dumps(payload or {}), now)

    async def cancel_timers(self, game_id: int, kinds: Sequence[str] | None = None) -> None:
        if kinds is None:
            await self._run.execute(CANCEL_TIMERS, game_id)
        elif kinds:
            await self._run.execute(cancel_timers_statement(len(kinds)), game_id, *kinds)

    async def reschedule_timer(
        self, timer_id: int, due_at: float, payload: dict[str, Any] | None = None
    ) -> None:
        """Move a timer to ``due_at`` (and replace its payload when one is given)."""
        if payload is None:
            await self._run.execute(RESCHEDULE_TIMER, due_at, timer_id)
        else:
            await self._run.execute(RESCHEDULE_TIMER_WITH_PAYLOAD, due_at, json.dumps(payload),
                                    timer_id)

    async def delete_timer(self, timer_id: int) -> bool:
        return await self._run.count(DELETE_TIMER, timer_id) == 1

    async def add_outbox(self, *, game_id: int, kind: str, user_id: int | None, body: str,
                         now: float) -> int:
        return await self._run.insert(ADD_OUTBOX, game_id, kind, user_id, body, now, now)

    async def mark_sent(self, row_id: int, now: float, result: str) -> None:
        await self._run.execute(MARK_SENT, now, result, row_id)

    async def retry_later(self, row_id: int, next_at: float, result: str) -> None:
        await self._run.execute(RETRY_LATER, next_at, result, row_id)

    async def prune_outbox(self, before: float) -> int:
        """Delete delivered rows sent before ``before``, and previews left unanswered since
        then (their buttons then say the preview has expired); returns how many rows."""
        pruned = await self._run.count(PRUNE_OUTBOX, before)
        await self._run.execute(PRUNE_PENDING, before)
        return pruned

    async def notice_once(self, game_id: int, user_id: int, kind: str, now: float) -> bool:
        """Record that ``kind`` was told about ``user_id`` in this game; True the first time."""
        return await self._run.count(NOTICE_ONCE, game_id, user_id, kind, now) == 1

    async def forget_notice(self, game_id: int, user_id: int, kind: str) -> None:
        await self._run.execute(FORGET_NOTICE, game_id, user_id, kind)

    async def keep_living_message(self, game_id: int, key: str, *, channel_id: int,
                                  message_id: int | None, layout: bool, now: float) -> None:
        await self._run.execute(KEEP_LIVING_MESSAGE, game_id, key, channel_id, message_id,
                                bool(layout), now)

    async def add_pending_move(self, *, key: str, game_id: int, version: int, user_id: int,
                               line: str, now: float) -> None:
        await self._run.execute(ADD_PENDING_MOVE, key, game_id, version, user_id, line, now)

    async def set_pending_state(self, key: str, old: str, new: str) -> bool:
        """Move a previewed move from ``old`` to ``new``; False if it was not ``old``."""
        return await self._run.count(SET_PENDING_STATE, new, key, old) == 1

    async def claim_outbox(self, game_id: int, owner: str, now: float, until: float) -> bool:
        """Take, or extend, the right to deliver the game's outbox rows until ``until``;
        False while another owner holds it: its ``until`` is still after ``now`` and its
        holder lives. One conditional upsert: of two processes claiming at once, the second
        waits for the first (SQLite: its write lock; PostgreSQL: its row lock), then finds
        it held. A claim whose holder is gone (its process died, and its lock with it) is
        taken at once, with a conditional update."""
        mine = self._claim_name(owner)
        if await self._run.count(CLAIM_OUTBOX, game_id, mine, until, now) == 1:
            return True
        held = await self._run.value(CLAIM_OWNER, game_id)
        if self.holder is None or not isinstance(held, str) or "/" not in held:
            return False  # released meanwhile (the next try takes it), or an older claim
        if await self.holder.alive(held.split("/", 1)[0], self._run):
            return False
        return await self._run.count(TAKE_OUTBOX, mine, until, game_id, held) == 1

    async def release_outbox(self, game_id: int, owner: str) -> None:
        """Give up the game's claim if ``owner`` holds it."""
        await self._run.execute(RELEASE_OUTBOX, game_id, self._claim_name(owner))

    def _claim_name(self, owner: str) -> str:
        """What a claim's ``owner`` column holds: the holder's token, then the owner."""
        token = self.holder.token if self.holder is not None else ""
        return f"{token}/{owner}" if token else owner
