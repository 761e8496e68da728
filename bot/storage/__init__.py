"""Where the games are kept. ``api`` is the interface the service sees (row types, the
``Queries`` / ``Tx`` / ``Storage`` protocols, the storage errors); ``sqlite`` and ``postgres``
are its two backends. This module is the only one that names a backend: :func:`open_storage`
picks it from the settings.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .api import Storage, StorageUnavailable

if TYPE_CHECKING:
    from ..settings import Settings
    from .postgres import PgStorage

__all__ = ["Storage", "StorageUnavailable", "make_storage", "open_checked", "open_storage",
           "storage_for"]


def storage_for(data_dir: Path, database_url: str | None) -> Storage:
    """The storage, not yet opened: PostgreSQL at ``database_url`` when it is set, else the
    SQLite file in ``data_dir``."""
    if database_url:
        from .postgres import PgStorage  # asyncpg is imported only when it is used

        return PgStorage(database_url)
    from .sqlite import SqliteStorage

    return SqliteStorage.in_dir(data_dir)


def make_storage(settings: Settings) -> Storage:
    """The storage the settings choose (``KHRONOS_DATABASE_URL``, else the SQLite file in
    ``KHRONOS_DATA_DIR``), not yet opened."""
    return storage_for(settings.data_dir, settings.database_url)


async def open_checked(storage: Storage) -> Storage:
    """``storage.open()`` (connected and migrated). A PostgreSQL server that cannot be
    reached or refuses the connection raises :class:`StorageUnavailable` with one sentence
    (never the password)."""
    from .sqlite import SqliteStorage

    if isinstance(storage, SqliteStorage):  # the data folder was checked before
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


async def open_storage(settings: Settings) -> Storage:
    """:func:`make_storage`, opened (see :func:`open_checked`)."""
    return await open_checked(make_storage(settings))


if TYPE_CHECKING:
    from .sqlite import SqliteStorage

    def _both_backends_conform(sqlite: SqliteStorage, pg: PgStorage) -> list[Storage]:
        """Never called: mypy checks here that both backends implement the interface."""
        return [sqlite, pg]
