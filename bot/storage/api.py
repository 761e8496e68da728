"""The storage interface the game service talks to, whatever the backend.

Two implementations: :mod:`bot.storage.sqlite` (SQLite, one file, the default) and
:mod:`bot.storage.postgres` (PostgreSQL, shared by several bot processes). Both return the same row
dataclasses (defined in :mod:`bot.storage.sqlite`) and keep the same promises:

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
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .sqlite import (
    GameRow,
    MoveRow,
    NoteRow,
    OutboxRow,
    PendingMoveRow,
    SeatRow,
    Storage,
    TimerRow,
)

if TYPE_CHECKING:
    from ..settings import Settings


class QueriesAPI(Protocol):
    """What a read (``Storage.read()``) offers; ``TxAPI`` adds the writes."""

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

    async def outbox_row(self, row_id: int) -> OutboxRow | None: ...

    async def pending_move(self, key: str) -> PendingMoveRow | None: ...


class TxAPI(QueriesAPI, Protocol):
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

    async def add_pending_move(self, *, key: str, game_id: int, version: int, user_id: int,
                               line: str, now: float) -> None: ...

    async def set_pending_state(self, key: str, old: str, new: str) -> bool: ...

    async def claim_outbox(self, game_id: int, owner: str, now: float, until: float) -> bool: ...

    async def release_outbox(self, game_id: int, owner: str) -> None: ...


class StorageAPI(Protocol):
    """A database the service can use: open, migrate, one write or read transaction at a time
    per ``async with``, close."""

    @property
    def path(self) -> Path | str:
        """Where the games are, for messages: the SQLite file, or the URL without its
        password."""
        ...

    async def open(self) -> StorageAPI: ...

    async def close(self) -> None: ...

    async def schema_version(self) -> int: ...

    async def migrate(self) -> int: ...

    def write(self) -> AbstractAsyncContextManager[TxAPI]: ...

    def read(self) -> AbstractAsyncContextManager[QueriesAPI]: ...


class StorageUnavailable(Exception):
    """The PostgreSQL database could not be opened at start. ``str()`` is the one sentence
    ``python -m bot`` says; ``status`` its exit status: 2 when the settings must change (the
    server refused the user, the password or the database name), 1 when starting again later
    may do (no route to the server, refused or timed out, the server starting up)."""

    def __init__(self, sentence: str, status: int) -> None:
        super().__init__(sentence)
        self.status = status


def storage_for(data_dir: Path, database_url: str | None) -> StorageAPI:
    """The storage, not yet opened: PostgreSQL at ``database_url`` when it is set, else the
    SQLite file in ``data_dir``."""
    if database_url:
        from .postgres import PgStorage  # asyncpg is imported only when it is used

        return PgStorage(database_url)
    return Storage.in_dir(data_dir)


def make_storage(settings: Settings) -> StorageAPI:
    """The storage the settings choose (``KHRONOS_DATABASE_URL``, else the SQLite file in
    ``KHRONOS_DATA_DIR``), not yet opened."""
    return storage_for(settings.data_dir, settings.database_url)


async def open_checked(storage: StorageAPI) -> StorageAPI:
    """``storage.open()`` (connected and migrated). A PostgreSQL server that cannot be
    reached or refuses the connection raises :class:`StorageUnavailable` with one sentence
    (never the password)."""
    if isinstance(storage, Storage):  # SQLite: the data folder was checked before
        return await storage.open()
    import asyncpg

    try:
        return await storage.open()
    except (asyncpg.InvalidAuthorizationSpecificationError,
            asyncpg.InvalidCatalogNameError) as exc:
        raise StorageUnavailable(
            f"The PostgreSQL server at {storage.path} refused the connection ({exc}): fix "
            "KHRONOS_DATABASE_URL (user, password, database name).", 2) from exc
    except (OSError, TimeoutError, asyncpg.PostgresError,
            asyncpg.InterfaceError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise StorageUnavailable(
            f"Cannot reach the PostgreSQL database at {storage.path} ({reason}): check that "
            "the server runs and KHRONOS_DATABASE_URL, then start the bot again.", 1) from exc


async def open_storage(settings: Settings) -> StorageAPI:
    """:func:`make_storage`, opened (see :func:`open_checked`)."""
    return await open_checked(make_storage(settings))


if TYPE_CHECKING:
    from .postgres import PgStorage

    def _both_backends_conform(sqlite: Storage, pg: PgStorage) -> list[StorageAPI]:
        """Never called: mypy checks here that both backends implement the interface."""
        return [sqlite, pg]
