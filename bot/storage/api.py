"""The storage interface the game service talks to, whatever the backend.

Two implementations: :mod:`bot.storage.sqlite` (SQLite, one file, the default) and
:mod:`bot.storage.postgres` (PostgreSQL, shared by several bot processes). Both run the queries
written once in :mod:`bot.storage.sql`, return the row dataclasses defined here and keep the
same promises:

- ``write()`` is one transaction: it commits when the block ends and rolls back if it raises;
  the game rows a transaction reads are its own until it ends (SQLite: one writer at a time;
  PostgreSQL: a lock per channel, see docs/storage-postgres.md);
- ``update_game`` applies only on the expected version and raises ``StaleState`` otherwise;
- ``read()`` sees one committed snapshot;
- ``timer(id)`` inside ``write()`` returns the timer as it is once no other transaction can
  change it, so a timer handled and rescheduled (or deleted) by one transaction is not due
  for the next one: it fires once.

:func:`open_storage` picks the backend from the settings.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

from engine import EngineError


class StorageLost(EngineError):
    """The database file was deleted or replaced while the bot runs: writes would be
    acknowledged and lost (the open connections still write to the unlinked file), so every
    write is refused until the file is back and the bot restarted."""

LIVE_STATUSES = ("lobby", "active")


# --- rows -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameRow:
    id: int
    guild_id: int | None
    channel_id: int
    creator_id: int
    status: str
    settings: str
    seed: int
    state: str | None
    checkpoint: str | None
    checkpoint_seq: int
    version: int
    created_at: float
    updated_at: float
    paused_at: float | None = None
    turn_timing: str | None = None

    @property
    def is_live(self) -> bool:
        return self.status in LIVE_STATUSES


@dataclass(frozen=True)
class SeatRow:
    game_id: int
    seat: int
    user_id: int
    name: str
    joined_at: float
    muted: bool = False
    away_until: float | None = None
    removed: bool = False
    hints: int = 0  # /hint answers given to this seat in this game


@dataclass(frozen=True)
class NoteRow:
    id: int
    game_id: int
    after_seq: int
    user_id: int | None
    text: str
    created_at: float


@dataclass(frozen=True)
class MoveRow:
    id: int
    game_id: int
    seq: int
    version: int
    seat: int
    user_id: int | None
    kind: str
    action: str
    events: str
    step: int
    created_at: float


@dataclass(frozen=True)
class TimerRow:
    id: int
    game_id: int
    kind: str
    seat: int | None
    user_id: int | None
    due_at: float
    payload: str
    created_at: float


@dataclass(frozen=True)
class OutboxRow:
    id: int
    game_id: int
    kind: str
    user_id: int | None
    body: str
    created_at: float
    attempts: int
    next_at: float
    sent_at: float | None
    result: str | None


@dataclass(frozen=True)
class PendingMoveRow:
    key: str
    game_id: int
    version: int
    user_id: int
    line: str
    state: str
    created_at: float


@dataclass(frozen=True)
class SealRow:
    """A game's sealed seed: the salt and the commitment posted at the start."""

    game_id: int
    salt: str
    commitment: str
    created_at: float


@dataclass(frozen=True)
class DealRow:
    """What a draw gave, written when it was made: ``cards`` is JSON (seat -> card letters;
    at ``seq`` 0, the start: the hands, the Hold'em reserve and the first player)."""

    game_id: int
    seq: int
    cards: str


@dataclass(frozen=True)
class RatingRow:
    """A player's (``user:<id>``) or a computer level's (``computer:<level>``) rating on one
    server (``guild_id`` 0: outside any server), with the sums its statistics are made of."""

    guild_id: int
    player: str
    name: str
    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    ecus: int = 0
    deadlines: int = 0
    hints: int = 0
    timed: int = 0  # turns with a time to move (rows of turn_times)
    updated_at: float = 0.0


@dataclass(frozen=True)
class ResultRow:
    """One seat of a rated game: its rank (1: won), Ecus, rating before and after."""

    game_id: int
    seat: int
    guild_id: int
    player: str
    name: str
    rank: int
    ecus: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    deadlines: int
    hints: int
    finished_at: float


@dataclass(frozen=True)
class LivingMessageRow:
    """A message the bot edits in place (a turn's table message, a hand DM): where it is.
    ``message_id`` is None while its first post is on its way (a crash then may have posted
    it: look for it before posting again); ``layout`` False for the plain-message fallback."""

    game_id: int
    key: str
    channel_id: int
    message_id: int | None
    layout: bool
    updated_at: float


class Queries(Protocol):
    """What a read (``Storage.read()``) offers; ``Tx`` adds the writes."""

    async def game(self, game_id: int) -> GameRow | None: ...

    async def game_for_channel(
        self, channel_id: int, *, live_only: bool = False
    ) -> GameRow | None: ...

    async def games(self, *, status: str | None = None) -> list[GameRow]: ...

    async def seats(self, game_id: int) -> list[SeatRow]: ...

    async def games_of_user(self, user_id: int, *, live_only: bool = True) -> list[GameRow]: ...

    async def notes(self, game_id: int) -> list[NoteRow]: ...

    async def moves(self, game_id: int, *, after_seq: int = 0) -> list[MoveRow]: ...

    async def last_moves(self, game_id: int, limit: int) -> list[MoveRow]: ...

    async def last_seq(self, game_id: int) -> int: ...

    async def last_seq_of_seat(self, game_id: int, seat: int) -> int: ...

    async def timers(self, game_id: int) -> list[TimerRow]: ...

    async def due_timers(self, now: float, limit: int = 100) -> list[TimerRow]: ...

    async def timer(self, timer_id: int) -> TimerRow | None: ...

    async def next_due(self) -> float | None: ...

    async def unsent(self, game_id: int | None = None, limit: int = 200) -> list[OutboxRow]: ...

    async def unsent_count(self) -> int: ...

    async def outbox_row(self, row_id: int) -> OutboxRow | None: ...

    async def pending_move(self, key: str) -> PendingMoveRow | None: ...

    # --- the community: seals, deals, results, ratings (docs/community.md) ---

    async def seal(self, game_id: int) -> SealRow | None: ...

    async def deals(self, game_id: int) -> list[DealRow]: ...

    async def results(self, game_id: int) -> list[ResultRow]: ...

    async def rating(self, guild_id: int, player: str) -> RatingRow | None: ...

    async def leaderboard(self, guild_id: int, min_games: int, limit: int) -> list[RatingRow]: ...

    async def ranked_count(self, guild_id: int, min_games: int) -> int: ...

    async def ranked_above(self, guild_id: int, min_games: int, score: float) -> int: ...

    async def median_turn_time(self, guild_id: int, player: str, count: int) -> float | None: ...

    async def living_message(self, game_id: int, key: str) -> LivingMessageRow | None: ...


class Tx(Queries, Protocol):
    """The writes, valid only inside ``Storage.write()``."""

    async def insert_game(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        creator_id: int,
        settings: str,
        seed: int,
        now: float,
    ) -> int: ...

    async def update_game(
        self, game_id: int, expected_version: int, *, now: float, **fields: Any
    ) -> int: ...

    async def add_seat(
        self, game_id: int, seat: int, user_id: int, name: str, now: float
    ) -> None: ...

    async def remove_seat(self, game_id: int, user_id: int) -> None: ...

    async def replace_seats(self, game_id: int, seats: Sequence[SeatRow]) -> None: ...

    async def update_seat(self, game_id: int, seat: int, **fields: Any) -> None: ...

    async def add_note(
        self, game_id: int, after_seq: int, text: str, now: float, user_id: int | None = None
    ) -> None: ...

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
    ) -> None: ...

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
    ) -> int: ...

    async def cancel_timers(self, game_id: int, kinds: Sequence[str] | None = None) -> None: ...

    async def reschedule_timer(
        self, timer_id: int, due_at: float, payload: dict[str, Any] | None = None
    ) -> None: ...

    async def delete_timer(self, timer_id: int) -> bool: ...

    async def set_turn_timing(self, game_id: int, timing: dict[str, Any] | None) -> None: ...

    async def add_outbox(self, *, game_id: int, kind: str, user_id: int | None, body: str,
                         now: float) -> int: ...

    async def mark_sent(self, row_id: int, now: float, result: str) -> None: ...

    async def retry_later(self, row_id: int, next_at: float, result: str) -> None: ...

    async def prune_outbox(self, before: float) -> int: ...

    async def notice_once(self, game_id: int, user_id: int, kind: str, now: float) -> bool: ...

    async def forget_notice(self, game_id: int, user_id: int, kind: str) -> None: ...

    async def keep_living_message(self, game_id: int, key: str, *, channel_id: int,
                                  message_id: int | None, layout: bool, now: float) -> None:
        """Where the message ``key`` of the game is (inserted or replaced)."""
        ...

    async def add_pending_move(self, *, key: str, game_id: int, version: int, user_id: int,
                               line: str, now: float) -> None: ...

    async def set_pending_state(self, key: str, old: str, new: str) -> bool: ...

    async def claim_outbox(self, game_id: int, owner: str, now: float, until: float) -> bool: ...

    async def release_outbox(self, game_id: int, owner: str) -> None: ...

    async def add_seal(self, game_id: int, salt: str, commitment: str, now: float) -> None: ...

    async def add_deal(self, game_id: int, seq: int, cards: str) -> None: ...

    async def ratings_for_update(self, guild_id: int,
                                 players: Sequence[str]) -> list[RatingRow]: ...

    async def save_ratings(self, rows: Sequence[RatingRow]) -> None: ...

    async def add_results(self, rows: Sequence[ResultRow]) -> None: ...

    async def add_turn_times(self, guild_id: int, player: str, game_id: int,
                             seconds: Sequence[float]) -> None: ...


class Storage(Protocol):
    """A database the service can use: open, migrate, one write or read transaction at a time
    per ``async with``, close."""

    @property
    def path(self) -> Path | str:
        """Where the games are, for messages: the SQLite file, or the URL without its
        password."""
        ...

    async def open(self) -> Storage: ...

    async def close(self) -> None: ...

    async def schema_version(self) -> int: ...

    async def migrate(self) -> int: ...

    def write(self) -> AbstractAsyncContextManager[Tx]: ...

    def read(self) -> AbstractAsyncContextManager[Queries]: ...


class StorageUnavailable(Exception):
    """The PostgreSQL database could not be opened at start. ``str()`` is the one sentence
    ``python -m bot`` says; ``status`` its exit status: 2 when the settings must change (the
    server refused the user, the password or the database name), 1 when starting again later
    may do (no route to the server, refused or timed out, the server starting up)."""

    def __init__(self, sentence: str, status: int) -> None:
        super().__init__(sentence)
        self.status = status


def safe_url(url: str) -> str:
    """``url`` without its password (for logs and messages)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}"))
