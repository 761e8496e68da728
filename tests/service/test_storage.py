"""Storage: migrations, WAL, and a round trip of every table on a real SQLite file (and, for
the tests on the ``storage`` fixture, on PostgreSQL: tests/pg/backend.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.storage import DB_FILENAME, MIGRATIONS, SCHEMA_VERSION, SeatRow, Storage
from engine import StaleState
from tests.pg.backend import INTEGRITY_ERRORS


async def test_migrations_from_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite3"
    path.touch()
    async with Storage(path) as s:
        assert await s.schema_version() == SCHEMA_VERSION == len(MIGRATIONS)
    with sqlite3.connect(path) as raw:
        tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"games", "seats", "moves", "timers"} <= tables
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


async def test_rerunning_migrations_is_harmless(tmp_path: Path) -> None:
    s = Storage.in_dir(tmp_path)
    await s.open()
    async with s.write() as tx:
        await tx.insert_game(guild_id=1, channel_id=5, creator_id=7, settings="{}", seed=3, now=1.0)
    assert await s.migrate() == SCHEMA_VERSION
    await s.close()
    async with Storage.in_dir(tmp_path) as again:  # a restart migrates again
        assert await again.schema_version() == SCHEMA_VERSION
        async with again.read() as q:
            games = await q.games()
        assert [g.channel_id for g in games] == [5]
    assert (tmp_path / DB_FILENAME).exists()


async def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    with sqlite3.connect(path) as raw:
        raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(RuntimeError, match="newer"):
        await Storage(path).open()


async def test_round_trip_of_every_table(storage: Storage) -> None:
    async with storage.write() as tx:
        gid = await tx.insert_game(guild_id=11, channel_id=22, creator_id=33,
                                   settings='{"holdem":true}', seed=2**62 + 5, now=10.5)
        await tx.add_seat(gid, 0, 33, "Ann", 10.5)
        await tx.add_seat(gid, 1, 44, "Bob ✓", 11.0)
        v = await tx.update_game(gid, 1, now=12.0, status="active", state='{"s":1}',
                                 checkpoint='{"c":1}', checkpoint_seq=0)
        await tx.append_move(game_id=gid, seq=1, version=v + 1, seat=1, user_id=44,
                             kind="action", action='{"kind":"end_turn"}', events="[]", step=1,
                             now=13.0)
        v = await tx.update_game(gid, v, now=13.0, state='{"s":2}')
        tid = await tx.add_timer(game_id=gid, kind="reminder", seat=1, user_id=44, due_at=99.5,
                                 now=13.0, payload={"n": 1})
    async with storage.read() as q:
        game = await q.game_for_channel(22)
        assert game is not None
        assert (game.id, game.guild_id, game.creator_id, game.status, game.seed) == (
            gid, 11, 33, "active", 2**62 + 5)
        assert (game.settings, game.state, game.checkpoint, game.version) == (
            '{"holdem":true}', '{"s":2}', '{"c":1}', 3)
        assert (game.created_at, game.updated_at) == (10.5, 13.0)
        seats = await q.seats(gid)
        assert [(s.seat, s.user_id, s.name) for s in seats] == [(0, 33, "Ann"), (1, 44, "Bob ✓")]
        (move,) = await q.moves(gid)
        assert (move.seq, move.version, move.seat, move.user_id, move.kind, move.action,
                move.events, move.step, move.created_at) == (
            1, 3, 1, 44, "action", '{"kind":"end_turn"}', "[]", 1, 13.0)
        (timer,) = await q.timers(gid)
        assert (timer.id, timer.kind, timer.seat, timer.user_id, timer.due_at, timer.payload) == (
            tid, "reminder", 1, 44, 99.5, '{"n": 1}')
        assert [t.id for t in await q.due_timers(100.0)] == [tid]
        assert await q.due_timers(50.0) == []
        assert await q.next_due() == 99.5
    async with storage.write() as tx:
        await tx.replace_seats(gid, [SeatRow(gid, 0, 44, "Bob ✓", 11.0),
                                     SeatRow(gid, 1, 33, "Ann", 10.5)])
        await tx.reschedule_timer(tid, 200.0)
    async with storage.read() as q:
        assert [s.user_id for s in await q.seats(gid)] == [44, 33]
        assert (await q.timers(gid))[0].due_at == 200.0
    async with storage.write() as tx:
        await tx.cancel_timers(gid)
        await tx.remove_seat(gid, 44)
    async with storage.read() as q:
        assert await q.timers(gid) == []
        assert [s.user_id for s in await q.seats(gid)] == [33]


async def test_stale_version_and_duplicate_log_entry_are_refused(storage: Storage) -> None:
    async with storage.write() as tx:
        gid = await tx.insert_game(guild_id=1, channel_id=1, creator_id=1, settings="{}",
                                   seed=1, now=0.0)
    with pytest.raises(StaleState):
        async with storage.write() as tx:
            await tx.update_game(gid, 7, now=1.0, state="x")
    async with storage.write() as tx:
        await tx.append_move(game_id=gid, seq=1, version=2, seat=0, user_id=1, kind="action",
                             action="{}", events="[]", step=1, now=1.0)
    with pytest.raises(INTEGRITY_ERRORS):
        async with storage.write() as tx:
            await tx.append_move(game_id=gid, seq=1, version=3, seat=0, user_id=1,
                                 kind="action", action="{}", events="[]", step=1, now=1.0)
    async with storage.read() as q:
        assert len(await q.moves(gid)) == 1  # the failed transaction left nothing behind


async def test_one_live_game_per_channel(storage: Storage) -> None:
    async with storage.write() as tx:
        await tx.insert_game(guild_id=1, channel_id=9, creator_id=1, settings="{}", seed=1,
                             now=0.0)
    with pytest.raises(INTEGRITY_ERRORS):
        async with storage.write() as tx:
            await tx.insert_game(guild_id=1, channel_id=9, creator_id=2, settings="{}", seed=2,
                                 now=0.0)
