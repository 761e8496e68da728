"""The PostgreSQL backend on its own: migrations, the choice of backend, and what two
storages (two processes) on one database do at the same moment."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import asyncpg
import pytest

from bot.service import GameExists, GameService, GameSettings
from bot.settings import Settings
from bot.storage import make_storage
from bot.storage.api import MoveRow, safe_url
from bot.storage.postgres import MIGRATIONS, SCHEMA_VERSION, PgStorage
from bot.storage.sqlite import SqliteStorage
from engine import Age, EndTurn, EngineError, Travel
from tests.service.conftest import Clock, current_user, started_game
from tests.storage.postgres.backend import PG_URL, commits_held, needs_pg, pg_connect, pg_schema

HOUR = 3600.0


def test_the_setting_chooses_the_backend(tmp_path: Path) -> None:
    sqlite = make_storage(Settings(KHRONOS_DATA_DIR=tmp_path, KHRONOS_DATABASE_URL=None))
    assert isinstance(sqlite, SqliteStorage)
    assert sqlite.path == tmp_path / "khronos.sqlite3"
    pg = make_storage(Settings(KHRONOS_DATABASE_URL="postgresql://bot:secret@db:5432/khronos"))
    assert isinstance(pg, PgStorage)
    assert "secret" not in pg.path and "bot:***@db:5432" in pg.path


def test_safe_url_hides_only_the_password() -> None:
    assert safe_url("postgresql://u:p%40ss@h:1/d?x=1") == "postgresql://u:***@h:1/d?x=1"
    assert safe_url("postgresql://h/d") == "postgresql://h/d"


def test_a_bad_schema_name_is_refused() -> None:
    with pytest.raises(ValueError, match="schema"):
        PgStorage("postgresql://h/d", schema="x; DROP TABLE games")


@needs_pg
async def test_migrations_on_an_empty_schema_and_again() -> None:
    assert PG_URL is not None
    async with pg_schema() as schema:
        async with PgStorage(PG_URL, schema=schema) as s:
            assert await s.schema_version() == SCHEMA_VERSION == len(MIGRATIONS)
            async with s.write() as tx:
                await tx.insert_game(guild_id=1, channel_id=5, creator_id=7, settings="{}",
                                     seed=2**63 - 1, now=1.0)
            assert await s.migrate() == SCHEMA_VERSION
        async with PgStorage(PG_URL, schema=schema) as again:  # a restart migrates again
            assert await again.schema_version() == SCHEMA_VERSION
            async with again.read() as q:
                (game,) = await q.games()
            assert (game.channel_id, game.seed, game.version) == (5, 2**63 - 1, 1)
        conn = await pg_connect()
        try:
            tables = {r[0] for r in await conn.fetch(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = $1",
                schema)}
        finally:
            await conn.close()
        assert {"games", "seats", "moves", "timers", "notes", "khronos_schema", "outbox",
                "notices", "pending_moves", "outbox_claims"} <= tables


@needs_pg
async def test_a_database_of_schema_2_is_brought_up_to_date_with_its_games() -> None:
    """A database made before the outbox (migrations 1 and 2 only) keeps its games and gains
    the later migrations' tables and the games' turn_timing column."""
    assert PG_URL is not None
    async with pg_schema() as schema:
        conn = await pg_connect()
        try:
            await conn.execute(f"SET search_path TO {schema}")
            await conn.execute("CREATE TABLE khronos_schema (version integer NOT NULL)")
            for script in MIGRATIONS[:2]:
                await conn.execute(script)
            await conn.execute("INSERT INTO khronos_schema (version) VALUES (2)")
            await conn.execute(
                "INSERT INTO games (guild_id, channel_id, creator_id, status, settings, seed, "
                "version, created_at, updated_at) VALUES (1, 8, 2, 'lobby', '{}', 3, 1, 0, 0)")
        finally:
            await conn.close()
        async with PgStorage(PG_URL, schema=schema) as s:
            assert await s.schema_version() == SCHEMA_VERSION >= 3
            async with s.write() as tx:
                game = await tx.game_for_channel(8)
                assert game is not None and game.turn_timing is None
                await tx.set_turn_timing(game.id, {"deadline": 1.0})
                await tx.add_outbox(game_id=game.id, kind="post", user_id=None, body="{}",
                                    now=1.0)
            async with s.read() as q:
                assert [r.game_id for r in await q.unsent()] == [game.id]


@needs_pg
async def test_processes_starting_together_migrate_once_and_a_newer_schema_is_refused() -> None:
    assert PG_URL is not None
    async with pg_schema() as schema:
        storages = [PgStorage(PG_URL, schema=schema) for _ in range(4)]
        await asyncio.gather(*(s.open() for s in storages))
        for s in storages:
            assert await s.schema_version() == SCHEMA_VERSION
            await s.close()
        conn = await pg_connect()
        try:
            await conn.execute(f"UPDATE {schema}.khronos_schema SET version = version + 1")
        finally:
            await conn.close()
        with pytest.raises(RuntimeError, match="newer"):
            await PgStorage(PG_URL, schema=schema).open()


@needs_pg
async def test_two_creates_in_one_channel_from_two_processes_make_one_game() -> None:
    assert PG_URL is not None
    async with pg_schema() as schema, PgStorage(PG_URL, schema=schema) as a, \
            PgStorage(PG_URL, schema=schema) as b:
        for channel in range(1, 11):
            results = await asyncio.gather(
                GameService(a).create_game(channel, 1, "Ann"),
                GameService(b).create_game(channel, 2, "Bob"), return_exceptions=True)
            # the loser is told the channel has a game, as on SQLite (not a database error)
            assert sorted(type(r).__name__ for r in results) == ["GameExists", "Outcome"], results
            assert any(isinstance(r, GameExists) for r in results)


@needs_pg
async def test_a_timer_and_a_move_on_one_game_from_two_processes_do_not_deadlock() -> None:
    """The move locks the channel, then the game's timers; firing a timer locks the timer's
    game first too: the same order, so neither waits for the other forever."""
    assert PG_URL is not None
    clock = Clock()
    async with pg_schema() as schema, PgStorage(PG_URL, schema=schema) as a, \
            PgStorage(PG_URL, schema=schema) as b:
        mover = GameService(a, clock=clock)
        firer = GameService(b, clock=clock)
        for ch in range(1, 7):
            await started_game(mover, ch, players=2, seed=ch,
                               settings=GameSettings(reminder_hours=1, deadline_hours=2))
        clock.now += 3 * HOUR  # every game's deadline is due
        moves = []
        for ch in range(1, 7):
            user, _ = await current_user(mover, ch)
            moves.append(mover.act(ch, user, Travel(to=Age.FAITH)))
            moves.append(mover.act(ch, user, EndTurn()))
        fired = [firer.fire_timer(t) for t in await firer.due_timers()]
        results = await asyncio.wait_for(asyncio.gather(*moves, *fired,
                                                        return_exceptions=True), 60)
        for r in results:
            assert not isinstance(r, asyncpg.PostgresError), r  # no deadlock detected
            assert not isinstance(r, Exception) or isinstance(r, EngineError), r
        for ch in range(1, 7):  # whoever won, each turn ended once
            info, state = await mover.snapshot(ch)
            async with a.read() as q:
                ends = [m for m in await q.moves(info.game_id) if '"end_turn"' in m.action]
            assert len(ends) == 1
            assert state.step == len(await _moves(a, info.game_id))


async def _moves(storage: PgStorage, game_id: int) -> list[MoveRow]:
    async with storage.read() as q:
        return list(await q.moves(game_id))


@needs_pg
async def test_reads_inside_open_writes_never_exhaust_the_connections() -> None:
    """More commands at once than connections, each reading while its write transaction is
    open (as the service's outbox wrapper does): reads have their own pool, so none waits
    forever for a connection held by a write."""
    assert PG_URL is not None
    async with pg_schema() as schema, PgStorage(PG_URL, schema=schema, max_size=2) as s:
        async with s.write() as tx:
            ids = [await tx.insert_game(guild_id=1, channel_id=c, creator_id=1, settings="{}",
                                        seed=c, now=0.0) for c in range(1, 7)]

        async def command(game_id: int) -> int:
            async with s.write() as tx:
                game = await tx.game(game_id)
                assert game is not None
                async with s.read() as q:
                    assert await q.game(game_id) is not None
                return await tx.update_game(game_id, game.version, now=1.0)

        versions = await asyncio.wait_for(asyncio.gather(*(command(i) for i in ids)), 30)
        assert versions == [2] * 6


@needs_pg
async def test_a_nested_write_joins_the_open_transaction() -> None:
    """As on SQLite: the inner block's writes commit or roll back with the outer one, on the
    same connection (no second connection, no wait for the outer block's own locks)."""
    assert PG_URL is not None
    async with pg_schema() as schema, PgStorage(PG_URL, schema=schema, max_size=1) as s:
        async with s.write() as outer:
            gid = await outer.insert_game(guild_id=1, channel_id=1, creator_id=1,
                                          settings="{}", seed=1, now=0.0)
            async with s.write() as inner:
                assert inner is outer
                assert await inner.game_for_channel(1) is not None  # its own lock: no wait
                await inner.add_seat(gid, 0, 1, "Ann", 0.0)
        async with s.read() as q:
            assert [x.user_id for x in await q.seats(gid)] == [1]
        with pytest.raises(RuntimeError):
            async with s.write() as outer:
                async with s.write() as inner:
                    await inner.add_seat(gid, 1, 2, "Bob", 0.0)
                raise RuntimeError("the outer block fails")
        async with s.read() as q:
            assert [x.user_id for x in await q.seats(gid)] == [1]  # rolled back together



@needs_pg
async def test_a_write_cancelled_during_its_commit_ends_cancelled_and_the_storage_works(
        caplog: pytest.LogCaptureFixture) -> None:
    """A task cancelled while its COMMIT is under way (the bot's stop cancels the timer task
    wherever it is) ends cancelled, as anywhere else: asyncpg leaves the transaction object
    in an error state, and rolling it back used to raise "cannot rollback; the transaction is
    in error state" in place of the cancellation (the timer task then took it for a failed
    timer, postponed it and went on). Nothing is committed, the connection goes back to the
    pool clean, and the next writes work."""
    assert PG_URL is not None
    async with pg_schema() as schema, PgStorage(PG_URL, schema=schema, max_size=1) as s:
        async with commits_held(schema, "games") as waiting:

            async def create() -> None:
                async with s.write() as tx:
                    await tx.insert_game(guild_id=1, channel_id=1, creator_id=1,
                                         settings="{}", seed=1, now=0.0)

            task = asyncio.ensure_future(create())
            await waiting()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        async with s.read() as q:
            assert await q.games() == [], "the cancelled commit committed nothing"
        async with s.write() as tx:  # the one connection of the pool works
            await tx.insert_game(guild_id=1, channel_id=2, creator_id=1, settings="{}",
                                 seed=1, now=0.0)
        async with s.read() as q:
            assert [g.channel_id for g in await q.games()] == [2]
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]


@needs_pg
async def test_reads_and_writes_cancelled_anywhere_leave_the_connections_clean() -> None:
    """A task cancelled at any point of a write or a read (its BEGIN, a query, its COMMIT)
    ends cancelled and gives its connection back outside any transaction. A write cut in its
    BEGIN used to leave asyncpg's transaction marked open on the connection, and the pool then
    logged "Resetting connection with an active transaction" as an error (the stop cancels
    the timer task and the outbox task wherever they are)."""
    assert PG_URL is not None
    loop = asyncio.get_running_loop()
    complaints: list[str] = []
    before = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: complaints.append(context["message"]))
    try:
        async with pg_schema() as schema, PgStorage(PG_URL, schema=schema, max_size=1) as s:

            async def write() -> None:
                async with s.write() as tx:
                    await tx.last_seq(1)

            async def read() -> None:
                async with s.read() as q:
                    await q.last_seq(1)

            for call in (write, read):
                for steps in range(3000):  # later and later, until it ends first
                    task = asyncio.ensure_future(call())
                    for _ in range(steps):
                        await asyncio.sleep(0)
                    ended = task.done()
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                    await write()  # the pool's one connection works
                    await read()
                    if ended:
                        break
                else:
                    raise AssertionError(f"{call.__name__} never ended")
    finally:
        loop.set_exception_handler(before)
    assert complaints == []
