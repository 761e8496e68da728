"""The bot's process through its real entry point (``python -m bot`` in a child process, against
the fake Discord of the test; ``entry.py``): SIGTERM sends what is committed, then exits 0
within Docker's 10 s; a second signal exits at once; after SIGKILL a restart sends the backlog
within seconds, each message once and in order; no worker process outlives a killed bot.

The fake takes ``post_delay`` seconds per message, so that deliveries are in flight when the
signal comes. Bounds are generous (the suite runs on busy cores): what they tell apart is
seconds against the minute a dead process's claim used to hold its games, or a process that
never exits."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg
import pytest

import engine
from ai.hard import SPEED_ENV
from bot.service import GameService
from bot.storage.sqlite import DB_FILENAME, SqliteStorage
from tests.discord.conftest import Scene
from tests.discord.entry import BotProcess, alive, descendants
from tests.fakediscord.fake import FakeDiscord
from tests.fakediscord.models import FakeMessage, FakeUser
from tests.storage.postgres.backend import PG_URL, pg_schema
from tests.storage.postgres.test_two_bots import guild_on_shard


async def wait_until(check: Callable[[], bool], timeout: float = 20.0,
                     what: str = "the condition") -> float:
    """Wait until ``check()``; returns the seconds it took."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    while not check():
        assert loop.time() - start < timeout, f"{what}: not within {timeout} s"
        await asyncio.sleep(0.02)
    return loop.time() - start


@asynccontextmanager
async def reading(data: Path) -> AsyncIterator[GameService]:
    """The games in the data folder, read from the test process (the bot is another one)."""
    async with SqliteStorage.in_dir(data) as storage:
        yield GameService(storage)


def row_ids(data: Path, where: str = "") -> list[int]:
    """Outbox rows (replies left out: only their interaction can send them, and a dead
    process's interactions are gone with it), read from the file as it is committed."""
    with sqlite3.connect(data / DB_FILENAME) as db:
        rows = db.execute(f"SELECT id FROM outbox WHERE kind != 'reply' {where} ORDER BY id")
        return [int(r[0]) for r in rows]


async def unsent_rows(data: Path) -> list[int]:
    return row_ids(data, "AND sent_at IS NULL")


async def all_rows(data: Path) -> list[int]:
    return row_ids(data)


async def each_message_once(sent: list[FakeMessage], data: Path) -> None:
    """Each message the bot posted from the outbox came from a row of its own, once, and every
    row that is no edit has its message: a table row that edited its turn's message (or was
    left for a later row of the turn, ``superseded``) posts nothing; a table message posted
    before a kill and found again after it is the posting row's, edited by it."""
    posted = [row_of(m) for m in sent]
    assert len(posted) == len(set(posted)), "a row posted twice"
    edits = row_ids(data, "AND (result LIKE '%edited%' OR result = 'superseded')")
    assert set(await all_rows(data)) - set(edits) <= set(posted) <= set(await all_rows(data))


async def turn_user(scene: Scene) -> int | None:
    """The user id of whoever must act now (a computer's is negative)."""
    async with reading(scene.data) as service:
        info, state = await service.snapshot(scene.ch.id)
    seat = engine.current_seat(state)
    return None if seat is None else info.user_of(seat)


async def whose_turn(scene: Scene, users: list[FakeUser]) -> FakeUser:
    user_id = await turn_user(scene)
    return next(u for u in users if u.id == user_id)


def sent_by_bot(fake: FakeDiscord, users: list[FakeUser], scene: Scene) -> list[FakeMessage]:
    """What the bot posted from the outbox (messages with a row's nonce), in the channel and
    in the players' DMs, in the order Discord took them."""
    msgs = [*fake.channel_messages(scene.ch), *(m for u in users for m in fake.dms(u))]
    return sorted((m for m in msgs if m.nonce and m.nonce.startswith("kh")),
                  key=lambda m: m.id)


def row_of(msg: FakeMessage) -> int:
    assert msg.nonce is not None
    return int(msg.nonce[2:])


async def game_under_way(scene: Scene, bot: BotProcess) -> list[FakeUser]:
    alice, bob = scene.fake.add_user("alice"), scene.fake.add_user("bob")
    await scene.slash(alice, "create", players=2)
    await scene.slash(bob, "join")
    assert bot.proc.returncode is None
    return [alice, bob]


async def test_sigterm_sends_what_is_committed_then_exits_0_within_10_s(scene: Scene) -> None:
    fake = scene.fake
    bot = await BotProcess.start(fake, scene.data, scene.guild.id)
    try:
        users = await game_under_way(scene, bot)
        first = await whose_turn(scene, users)
        fake.post_delay = 0.4  # the move's post, ping and DMs are still going out
        ia = await fake.slash(first, scene.ch, "end")
        await wait_until(lambda: fake.posts_in_flight > 0, what="a delivery in flight")
        status, _ = await bot.stop()
    finally:
        await bot.kill()
    assert status == 0, bot.log()[-3000:]
    assert await unsent_rows(scene.data) == [], "everything committed was delivered first"
    sent = sent_by_bot(fake, users, scene)
    await each_message_once(sent, scene.data)
    assert any(m.notified_user_ids() and m.channel_id == scene.ch.id for m in sent), "the ping"
    assert ia.messages and ia.messages[-1].ephemeral, "the author got his answer"
    assert "did not end within" not in bot.log()


async def test_a_second_signal_during_the_stop_exits_at_once(scene: Scene) -> None:
    fake = scene.fake
    bot = await BotProcess.start(fake, scene.data, scene.guild.id)
    try:
        users = await game_under_way(scene, bot)
        first = await whose_turn(scene, users)
        fake.post_delay = 5.0  # the stop would take its whole grace
        await fake.slash(first, scene.ch, "end")
        await wait_until(lambda: fake.posts_in_flight > 0, what="a delivery in flight")
        bot.signal(signal.SIGTERM)
        await wait_until(lambda: "stopping" in bot.log(), what="the stop")
        bot.signal(signal.SIGINT)
        status = await bot.wait(4.0)
    finally:
        await bot.kill()
    assert status == 128 + signal.SIGINT, bot.log()[-3000:]
    # what was not sent goes out at the next start, once
    fake.post_delay = 0.0
    bot = await BotProcess.start(fake, scene.data, scene.guild.id)
    try:
        await wait_until_sent(scene.data)
    finally:
        await bot.kill()
    sent = sent_by_bot(fake, users, scene)
    await each_message_once(sent, scene.data)


async def wait_until_sent(data: Path, timeout: float = 20.0) -> float:
    """Seconds until every committed row (but replies) is delivered."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    while await unsent_rows(data):
        assert loop.time() - start < timeout, "the backlog was not delivered"
        await asyncio.sleep(0.1)
    return loop.time() - start


async def test_after_sigkill_a_restart_sends_the_backlog_at_once_each_message_once_in_order(
        scene: Scene) -> None:
    """The killed process held the game's delivery claim: the new process takes it at once
    (the claim dies with its holder), instead of a minute later."""
    fake = scene.fake
    bot = await BotProcess.start(fake, scene.data, scene.guild.id)
    try:
        users = await game_under_way(scene, bot)
        first = await whose_turn(scene, users)
        fake.post_delay = 0.5
        await fake.slash(first, scene.ch, "end")
        await wait_until(lambda: fake.posts_in_flight > 0, what="a delivery in flight")
        bot.signal(signal.SIGKILL)
        assert await bot.wait(10) == -signal.SIGKILL
    finally:
        await bot.kill()
    assert await unsent_rows(scene.data), "a backlog is left"
    fake.post_delay = 0.0
    bot = await BotProcess.start(fake, scene.data, scene.guild.id)
    try:
        took = await wait_until_sent(scene.data)
    finally:
        await bot.kill()
    assert took < 10.0
    sent = sent_by_bot(fake, users, scene)
    await each_message_once(sent, scene.data)
    channel = [row_of(m) for m in sent if m.channel_id == scene.ch.id]
    assert channel == sorted(channel), "the channel's messages in the order of their rows"


async def test_no_worker_process_outlives_a_killed_bot(scene: Scene) -> None:
    fake = scene.fake
    bot = await BotProcess.start(fake, scene.data, scene.guild.id, KHRONOS_AI_WORKERS="1",
                                 KHRONOS_COMPUTER_DELAY="0", KHRONOS_COMPUTER_BUDGET="0")
    try:
        alice = fake.add_user("alice")
        await scene.slash(alice, "create")
        await scene.slash(alice, "addbot", level="easy")
        await scene.slash(alice, "start")
        if await turn_user(scene) == alice.id:
            await scene.slash(alice, "end")
        # the computer thinks in a worker process (started on its first decision)
        await wait_until(lambda: len(descendants(bot.pid)) >= 2, what="the worker processes")
        for _ in range(200):
            if await turn_user(scene) == alice.id:
                break
            await asyncio.sleep(0.05)
        workers = descendants(bot.pid)  # the worker, and multiprocessing's resource tracker
        assert len(workers) >= 2
        bot.signal(signal.SIGKILL)
        assert await bot.wait(10) == -signal.SIGKILL
        await wait_until(lambda: not any(alive(pid) for pid in workers), timeout=10,
                         what=f"the end of the bot's processes {workers}")
    finally:
        await bot.kill()


async def test_sigterm_while_the_workers_measure_the_speed_exits_0_and_leaves_none(
        scene: Scene, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ``KHRONOS_AI_SPEED`` (a deployment) the worker starts with the bot, before any
    game, to measure the machine's speed; a stop meanwhile ends it within the stop's bound."""
    monkeypatch.delenv(SPEED_ENV)  # the bot and its worker get the environment without it
    bot = await BotProcess.start(scene.fake, scene.data, scene.guild.id, KHRONOS_AI_WORKERS="1")
    try:
        await wait_until(lambda: len(descendants(bot.pid)) >= 2, what="the worker processes")
        workers = descendants(bot.pid)  # the worker measures the speed meanwhile
        status, _ = await bot.stop()
    finally:
        await bot.kill()
    assert status == 0, bot.log()[-3000:]
    # the worker, and multiprocessing's resource tracker, which ends once the bot is gone
    await wait_until(lambda: not any(alive(pid) for pid in workers), timeout=10,
                     what=f"the end of the bot's processes {workers}")


# --- two processes on one database, one killed ----------------------------------------------


@pytest.fixture
async def sharded() -> AsyncIterator[FakeDiscord]:
    """A fake Discord whose bot runs two shards (one per process)."""
    fake = FakeDiscord(shard_count=2)
    await fake.start()
    try:
        yield fake
    finally:
        await fake.stop()


@asynccontextmanager
async def database(backend: str, tmp_path: Path) -> AsyncIterator[tuple[dict[str, str], Path]]:
    """The settings that put both processes on one database, and the SQLite data folder
    (where the rows are read: for PostgreSQL, the test reads them from its schema)."""
    if backend == "sqlite":
        yield {}, tmp_path / "shared"
        return
    if PG_URL is None:
        pytest.skip("KHRONOS_TEST_DATABASE_URL is not set")
    async with pg_schema() as schema:
        yield {"KHRONOS_DATABASE_URL": f"{PG_URL}?search_path={schema}"}, tmp_path / "pg"


async def unsent_in(backend: str, env: dict[str, str], data: Path) -> list[int]:
    if backend == "sqlite":
        return await unsent_rows(data)
    conn = await asyncpg.connect(env["KHRONOS_DATABASE_URL"])
    try:
        rows = await conn.fetch("SELECT id FROM outbox WHERE kind != 'reply' "
                                "AND sent_at IS NULL ORDER BY id")
    finally:
        await conn.close()
    return [int(r[0]) for r in rows]


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_two_processes_one_killed_the_survivor_sends_its_games_at_once(
        sharded: FakeDiscord, tmp_path: Path, backend: str) -> None:
    """The game's server is on shard 1, whose process handles its commands and is killed
    while it delivers a move (holding the game's claim); the process of shard 0 sends the
    rest within seconds, each message once."""
    fake = sharded
    guild = guild_on_shard(fake, 1)
    ch = fake.add_channel(guild, "khronos")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with database(backend, tmp_path) as (env, data):
        procs = [await BotProcess.start(fake, data if backend == "sqlite" else data / str(n),
                                        guild.id, KHRONOS_SHARD_COUNT="2",
                                        KHRONOS_SHARD_IDS=str(n), **env) for n in (0, 1)]
        survivor, doomed = procs
        try:
            for user, name, opts in ((alice, "create", {"players": 2}), (bob, "join", {})):
                ia = await fake.slash(user, ch, name, options=opts)
                await ia.wait_message(timeout=10)
            turn = next(m for m in fake.channel_messages(ch) if m.notified_user_ids())
            first = alice if turn.notified_user_ids() == [alice.id] else bob
            fake.post_delay = 0.5
            await fake.slash(first, ch, "end")
            await wait_until(lambda: fake.posts_in_flight > 0, what="a delivery in flight")
            doomed.signal(signal.SIGKILL)
            assert await doomed.wait(10) == -signal.SIGKILL
            assert await unsent_in(backend, env, data), "the killed process left a backlog"
            fake.post_delay = 0.0
            loop = asyncio.get_running_loop()
            start = loop.time()
            while await unsent_in(backend, env, data):
                assert loop.time() - start < 10.0, "the survivor did not send the backlog"
                await asyncio.sleep(0.1)
            assert survivor.proc.returncode is None
        finally:
            for proc in procs:
                await proc.kill()
    nonces = [m.nonce for m in [*fake.channel_messages(ch), *fake.dms(alice), *fake.dms(bob)]
              if m.nonce and m.nonce.startswith("kh")]
    assert len(nonces) == len(set(nonces)), "each message once"
