"""SqliteStorage: migrations, WAL, and a round trip of every table on a real SQLite file (and, for
the tests on the ``storage`` fixture, on PostgreSQL: tests/storage/postgres/backend.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.storage.api import SeatRow
from bot.storage.sql import Insert, Statement, numbered, update_game_statement
from bot.storage.sqlite import DB_FILENAME, MIGRATIONS, SCHEMA_VERSION, SqliteStorage
from engine import StaleState
from tests.storage.postgres.backend import INTEGRITY_ERRORS, AnyStorage


async def test_migrations_from_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite3"
    path.touch()
    async with SqliteStorage(path) as s:
        assert await s.schema_version() == SCHEMA_VERSION == len(MIGRATIONS)
    with sqlite3.connect(path) as raw:
        tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"games", "seats", "moves", "timers"} <= tables
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


async def test_rerunning_migrations_is_harmless(tmp_path: Path) -> None:
    s = SqliteStorage.in_dir(tmp_path)
    await s.open()
    async with s.write() as tx:
        await tx.insert_game(guild_id=1, channel_id=5, creator_id=7, settings="{}", seed=3, now=1.0)
    assert await s.migrate() == SCHEMA_VERSION
    await s.close()
    async with SqliteStorage.in_dir(tmp_path) as again:  # a restart migrates again
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
        await SqliteStorage(path).open()


async def test_round_trip_of_every_table(storage: AnyStorage) -> None:
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


async def test_stale_version_and_duplicate_log_entry_are_refused(storage: AnyStorage) -> None:
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


async def test_one_live_game_per_channel(storage: AnyStorage) -> None:
    async with storage.write() as tx:
        await tx.insert_game(guild_id=1, channel_id=9, creator_id=1, settings="{}", seed=1,
                             now=0.0)
    with pytest.raises(INTEGRITY_ERRORS):
        async with storage.write() as tx:
            await tx.insert_game(guild_id=1, channel_id=9, creator_id=2, settings="{}", seed=2,
                                 now=0.0)


async def test_round_trip_of_the_outbox_notices_previews_and_turn_timing(
        storage: AnyStorage) -> None:
    """Migration 3's tables and the methods the service's outbox uses, on both backends."""
    async with storage.write() as tx:
        gid = await tx.insert_game(guild_id=1, channel_id=31, creator_id=1, settings="{}",
                                   seed=1, now=5.0)
        await tx.set_turn_timing(gid, {"turn": "1:0", "deadline": 90.5})
        first = await tx.add_outbox(game_id=gid, kind="post", user_id=None, body='{"t":1}',
                                    now=6.0)
        second = await tx.add_outbox(game_id=gid, kind="ping", user_id=2 ** 60, body="{}",
                                     now=6.5)
        assert await tx.notice_once(gid, 7, "dm_closed", 6.0) is True
        assert await tx.notice_once(gid, 7, "dm_closed", 7.0) is False
        await tx.add_pending_move(key="k" * 16, game_id=gid, version=1, user_id=7,
                                  line="end", now=6.0)
    assert second > first
    async with storage.read() as q:
        game = await q.game(gid)
        assert game is not None and game.turn_timing is not None
        assert game.turn_timing.replace(" ", "") == '{"turn":"1:0","deadline":90.5}'
        rows = await q.unsent(gid)
        assert [(r.id, r.kind, r.user_id, r.body, r.created_at, r.next_at, r.attempts,
                 r.sent_at) for r in rows] == [
            (first, "post", None, '{"t":1}', 6.0, 6.0, 0, None),
            (second, "ping", 2 ** 60, "{}", 6.5, 6.5, 0, None)]
        assert [r.id for r in await q.unsent()] == [first, second]
        pending = await q.pending_move("k" * 16)
        assert pending is not None
        assert (pending.game_id, pending.version, pending.user_id, pending.line,
                pending.state) == (gid, 1, 7, "end", "open")
    async with storage.write() as tx:
        await tx.retry_later(first, 20.0, "retry: 503")
        assert await tx.set_pending_state("k" * 16, "open", "confirmed") is True
        assert await tx.set_pending_state("k" * 16, "open", "cancelled") is False
        await tx.forget_notice(gid, 7, "dm_closed")
        await tx.set_turn_timing(gid, None)
    async with storage.write() as tx:
        assert await tx.notice_once(gid, 7, "dm_closed", 8.0) is True
        await tx.mark_sent(first, 21.0, "sent")
        await tx.mark_sent(second, 22.0, "late sent")
    async with storage.read() as q:
        row = await q.outbox_row(first)
        assert row is not None
        assert (row.attempts, row.next_at, row.sent_at, row.result) == (2, 20.0, 21.0, "sent")
        assert await q.unsent() == []
        game = await q.game(gid)
        assert game is not None and game.turn_timing is None
        pending = await q.pending_move("k" * 16)
        assert pending is not None and pending.state == "confirmed"
    async with storage.write() as tx:
        assert await tx.prune_outbox(21.5) == 1  # the row sent at 21.0; previews before 21.5
    async with storage.read() as q:
        assert await q.outbox_row(first) is None
        assert await q.outbox_row(second) is not None
        assert await q.pending_move("k" * 16) is None


async def test_where_the_living_messages_are(storage: AnyStorage) -> None:
    """Migration 6: a turn's table message is recorded before its post (no id yet), then
    with its id; a later keep replaces the row (a message posted anew); other keys and games
    stay apart; both backends read a layout as a boolean and a 64-bit id whole."""
    async with storage.write() as tx:
        gid = await tx.insert_game(guild_id=1, channel_id=41, creator_id=1, settings="{}",
                                   seed=1, now=5.0)
        other = await tx.insert_game(guild_id=1, channel_id=42, creator_id=1, settings="{}",
                                     seed=1, now=5.0)
        assert await tx.living_message(gid, "table:1:0") is None
        await tx.keep_living_message(gid, "table:1:0", channel_id=41, message_id=None,
                                     layout=True, now=6.0)
        await tx.keep_living_message(other, "table:1:0", channel_id=42, message_id=7,
                                     layout=False, now=6.0)
    async with storage.read() as q:
        row = await q.living_message(gid, "table:1:0")
        assert row is not None and (row.message_id, row.layout, row.channel_id) == (None, True, 41)
    async with storage.write() as tx:
        await tx.keep_living_message(gid, "table:1:0", channel_id=41, message_id=2 ** 62,
                                     layout=False, now=7.0)
        await tx.keep_living_message(gid, "hand:1:0:9", channel_id=99, message_id=3,
                                     layout=False, now=7.0)
    async with storage.read() as q:
        row = await q.living_message(gid, "table:1:0")
        assert row is not None
        assert (row.game_id, row.key, row.channel_id, row.message_id, row.layout,
                row.updated_at) == (gid, "table:1:0", 41, 2 ** 62, False, 7.0)
        hand = await q.living_message(gid, "hand:1:0:9")
        assert hand is not None and (hand.channel_id, hand.message_id) == (99, 3)
        theirs = await q.living_message(other, "table:1:0")
        assert theirs is not None and (theirs.message_id, theirs.layout) == (7, False)


async def test_updates_of_any_fields_and_the_reads_around_them(storage: AnyStorage) -> None:
    """The statements made per set of fields (update_game, update_seat) or per number of
    values (cancel_timers of some kinds), and the reads the round trips above leave out."""
    async with storage.write() as tx:
        gid = await tx.insert_game(guild_id=1, channel_id=41, creator_id=1, settings="{}",
                                   seed=1, now=0.0)
        other = await tx.insert_game(guild_id=1, channel_id=42, creator_id=2, settings="{}",
                                     seed=2, now=0.0)
        await tx.add_seat(gid, 0, 1, "Ann", 0.0)
        await tx.add_seat(gid, 1, 2, "Bob", 0.0)
        await tx.add_seat(other, 0, 2, "Bob", 0.0)
        await tx.update_seat(gid, 1, muted=1, away_until=50, name="Bo")  # 0/1 and an int time
        await tx.update_seat(gid, 0, removed=True)
        await tx.update_seat(gid, 0)  # nothing to set
        await tx.update_game(other, 1, now=3.0, status="over")
        await tx.update_game(gid, 1, now=2.0, paused_at=2, status="active")
        for kind in ("reminder", "deadline_warning", "deadline"):
            await tx.add_timer(game_id=gid, kind=kind, due_at=10.0, now=0.0)
        await tx.cancel_timers(gid, ["reminder", "deadline"])
        await tx.cancel_timers(gid, [])
        await tx.add_note(gid, 0, "paused", 2.0, user_id=1)
        for seq in (1, 2, 3):
            await tx.append_move(game_id=gid, seq=seq, version=seq + 2, seat=seq % 2,
                                 user_id=None, kind="action", action="{}", events="[]",
                                 step=seq, now=3.0)
    async with storage.read() as q:
        seats = await q.seats(gid)
        assert [(s.name, s.muted, s.away_until, s.removed) for s in seats] == [
            ("Ann", False, None, True), ("Bo", True, 50.0, False)]
        game = await q.game(gid)
        assert game is not None and (game.status, game.paused_at, game.version) == (
            "active", 2.0, 2)
        assert [t.kind for t in await q.timers(gid)] == ["deadline_warning"]
        assert [g.id for g in await q.games_of_user(2)] == [gid]
        assert [g.id for g in await q.games_of_user(2, live_only=False)] == [gid, other]
        assert [g.id for g in await q.games(status="over")] == [other]
        assert await q.game_for_channel(42, live_only=True) is None
        assert [(n.after_seq, n.user_id, n.text) for n in await q.notes(gid)] == [
            (0, 1, "paused")]
        assert [m.seq for m in await q.last_moves(gid, 2)] == [2, 3]
        assert [m.seq for m in await q.moves(gid, after_seq=1)] == [2, 3]
        assert (await q.last_seq(gid), await q.last_seq_of_seat(gid, 0)) == (3, 2)
        assert (await q.last_seq(other), await q.last_seq_of_seat(gid, 5)) == (0, 0)


async def test_unknown_fields_are_refused_and_change_nothing(storage: AnyStorage) -> None:
    async with storage.write() as tx:
        gid = await tx.insert_game(guild_id=1, channel_id=43, creator_id=1, settings="{}",
                                   seed=1, now=0.0)
        await tx.add_seat(gid, 0, 1, "Ann", 0.0)
    with pytest.raises(ValueError, match="unknown game fields \\['id'\\]"):
        async with storage.write() as tx:
            await tx.update_game(gid, 1, now=1.0, state="x", id=9)
    with pytest.raises(ValueError, match="unknown seat fields \\['version'\\]"):
        async with storage.write() as tx:
            await tx.update_seat(gid, 0, version=3, name="Zed")
    async with storage.read() as q:
        game = await q.game(gid)
        assert game is not None and (game.id, game.state, game.version) == (gid, None, 1)
        assert [(s.seat, s.name) for s in await q.seats(gid)] == [(0, "Ann")]


def test_a_statement_is_numbered_for_asyncpg_once() -> None:
    """Each shared statement is written with ``?``; its ``$n`` form is made when it is
    defined, numbering only the placeholders (not a ``?`` in a literal, a quoted name or a
    comment), and the statements made per shape are made once per shape."""
    stmt = Statement("SELECT 'a?''b', \"c?\" FROM t -- why?\nWHERE x = ? AND y IN (?, ?)")
    assert stmt.qmark.endswith("WHERE x = ? AND y IN (?, ?)")
    assert stmt.dollar == ("SELECT 'a?''b', \"c?\" FROM t -- why?\n"
                           "WHERE x = $1 AND y IN ($2, $3)")
    assert Insert("INSERT INTO t (a) VALUES (?)").dollar == (
        "INSERT INTO t (a) VALUES ($1) RETURNING id")
    assert numbered("SELECT '$'") == "SELECT '$'"
    with pytest.raises(ValueError, match=r"\? placeholders"):
        Statement("SELECT * FROM t WHERE x = $1")
    assert update_game_statement(("state", "status")) is update_game_statement(
        ("state", "status"))
    assert update_game_statement(("state",)).dollar == (
        "UPDATE games SET state = $1, version = version + 1, updated_at = $2 "
        "WHERE id = $3 AND version = $4")
