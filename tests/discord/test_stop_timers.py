"""SIGTERM in the middle of the timers' and the computers' work, through the real entry point
(``python -m bot`` against the fake Discord, as ``test_stop_and_restart.py``).

The signal comes while a reminder's DM is being sent (held by the fake), while a turn's
deadline or a computer's move is being applied (held in its transaction by the test site,
``entry_site/sitecustomize.py``, or, on PostgreSQL, in its COMMIT by a lock the test holds),
while a computer thinks in its worker process (held there), and while a second process
started on the same database takes over. Each time: the process exits 0 within Docker's
10 s, its log has no traceback and no ERROR line, none of its worker processes is left, and
after a restart the timer's effect happened once (the move made once, the reminder DM sent
once). Every wait is a poll with a deadline."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import pytest

import engine
from bot.storage.sqlite import DB_FILENAME
from tests.discord.conftest import Scene
from tests.discord.entry import STOP_BOUND, BotProcess, alive, descendants
from tests.discord.test_stop_and_restart import (
    database,
    game_under_way,
    row_of,
    wait_until,
)
from tests.fakediscord.fake import FakeDiscord
from tests.fakediscord.models import FakeChannel, FakeUser
from tests.storage.postgres.backend import BACKENDS, commits_held, needs_pg

HOUR = 3600.0
COMPUTER = {"KHRONOS_AI_WORKERS": "1", "KHRONOS_COMPUTER_DELAY": "0",
            "KHRONOS_COMPUTER_BUDGET": "0"}
# a move of a game's log: (seq, seat, user id or None for a timer's move, step)
Move = tuple[int, int, int | None, int]



async def eventually(check: Callable[[], Awaitable[bool]], what: str,
                     timeout: float = 30.0, poll: float = 0.05) -> None:
    """Wait until ``await check()`` is true, failing with ``what`` after ``timeout`` s."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not await check():
        assert loop.time() < end, what
        await asyncio.sleep(poll)

@dataclass
class Site:
    """Where the processes of one test keep their games (``env``: SQLite in ``data``, or a
    PostgreSQL schema), the test site's holds (``KHRONOS_HOLD_DIR``) and the service's
    clock shift (``KHRONOS_CLOCK_SHIFT_FILE``), read and set from the test."""

    scene: Scene
    data: Path
    holds: Path
    shift_file: Path
    env: dict[str, str] = field(default_factory=dict)

    @classmethod
    def make(cls, scene: Scene, base: Path, data: Path, env: dict[str, str]) -> Site:
        holds = base / "holds"
        holds.mkdir()
        shift = base / "shift"
        shift.write_text("0")
        return cls(scene, data, holds, shift, env)

    async def start(self, *, hold: str = "", **env: str) -> BotProcess:
        """A ``python -m bot`` on these games; ``hold`` names the holds in force for it."""
        for name in hold.split():
            (self.holds / name).write_text("")
        holds = self.holds if hold else self.holds / "none"
        return await BotProcess.start(
            self.scene.fake, self.data, self.scene.guild.id, KHRONOS_HOLD_DIR=str(holds),
            KHRONOS_CLOCK_SHIFT_FILE=str(self.shift_file), **self.env, **env)

    def release(self) -> None:
        for name in ("play", "think", "hint"):
            (self.holds / name).unlink(missing_ok=True)

    async def reached(self, name: str) -> None:
        marker = self.holds / f"{name}.reached"
        await wait_until(marker.exists, timeout=30, what=f"the hold {name} reached")

    def shift(self, seconds: float) -> None:
        """The service's clock runs ``seconds`` ahead of the wall clock from now on."""
        self.shift_file.write_text(str(seconds))

    async def rows(self, sql: str) -> list[tuple[Any, ...]]:
        """A query's rows, read from what is committed (SQL both backends take; the values
        as the database's driver gives them)."""
        url = self.env.get("KHRONOS_DATABASE_URL")
        if url is None:
            with sqlite3.connect(self.data / DB_FILENAME) as db:
                return [tuple(r) for r in db.execute(sql).fetchall()]
        conn = await asyncpg.connect(url)
        try:
            return [tuple(r) for r in await conn.fetch(sql)]
        finally:
            await conn.close()

    async def moves(self, channel: FakeChannel | None = None) -> list[Move]:
        """The log of the game of ``channel`` (the scene's by default): (seq, seat, user id
        or None for a timer's move, step)."""
        channel_id = (channel or self.scene.ch).id
        rows = await self.rows(
            "SELECT m.seq, m.seat, m.user_id, m.step FROM moves m JOIN games g "
            f"ON g.id = m.game_id WHERE g.channel_id = {channel_id} ORDER BY m.seq")
        return [(int(a), int(b), None if c is None else int(c), int(d)) for a, b, c, d in rows]

    async def timers(self) -> list[str]:
        return [str(r[0]) for r in await self.rows("SELECT kind FROM timers ORDER BY id")]

    async def unsent(self) -> list[int]:
        return [int(r[0]) for r in await self.rows(
            "SELECT id FROM outbox WHERE kind != 'reply' AND sent_at IS NULL ORDER BY id")]

    async def all_sent(self, timeout: float = 30.0) -> None:
        async def done() -> bool:
            return not await self.unsent()
        await eventually(done, "the backlog was not delivered", timeout, poll=0.1)

    async def reminders_to(self, user_id: int) -> list[int]:
        rows = await self.rows("SELECT id, body FROM outbox WHERE kind = 'direct' "
                               f"AND user_id = {int(user_id)}")
        return [int(i) for i, body in rows if json.loads(body).get("direct_kind") == "reminder"]

    async def turn_user(self, channel: FakeChannel | None = None) -> int | None:
        """Who must act now in the game of ``channel`` (the scene's by default; a computer's
        id is negative), from the stored state."""
        channel_id = (channel or self.scene.ch).id
        (game_id, state), = await self.rows(
            f"SELECT id, state FROM games WHERE status = 'active' AND channel_id = {channel_id}")
        seat = engine.current_seat(engine.GameState.model_validate_json(state))
        users = dict(await self.rows(f"SELECT seat, user_id FROM seats WHERE game_id = {game_id}"))
        return None if seat is None else int(users[seat])


@pytest.fixture
async def sqlite_site(scene: Scene, tmp_path: Path) -> Site:
    return Site.make(scene, tmp_path, scene.data, {})


@asynccontextmanager
async def site_on(backend: str, scene: Scene, tmp_path: Path) -> AsyncIterator[Site]:
    async with database(backend, tmp_path) as (env, data):
        yield Site.make(scene, tmp_path, data, env)


def clean(log: str) -> None:
    """No traceback, no ERROR or CRITICAL line, no warning of leaked resources."""
    bad = [line for line in log.splitlines()
           if any(word in line for word in ("Traceback", "ERROR", "CRITICAL", "leaked"))]
    assert not bad, log[-4000:]


async def stop(bot: BotProcess) -> int | None:
    """SIGTERM; the exit status within Docker's 10 s (None: still running)."""
    status, _ = await bot.stop()
    return status


async def stopped_cleanly(bot: BotProcess) -> None:
    """SIGTERM: exit 0 within Docker's 10 s, nothing wrong in the log, no process left."""
    workers = descendants(bot.pid)
    status = await stop(bot)
    assert status == 0, bot.log()[-3000:]
    clean(bot.log())
    await wait_until(lambda: not any(alive(pid) for pid in workers), timeout=5,
                     what=f"the end of the bot's processes {workers}")


def each_row_once(fake: FakeDiscord, users: list[FakeUser], *channels: FakeChannel
                  ) -> list[int]:
    """The outbox rows the bot posted in ``channels`` and the users' DMs (by their nonces),
    each once. (The rows themselves may be pruned: the service's clock runs days ahead.)"""
    msgs = [*(m for ch in channels for m in fake.channel_messages(ch)),
            *(m for u in users for m in fake.dms(u))]
    posted = [row_of(m) for m in msgs if m.nonce and m.nonce.startswith("kh")]
    assert len(posted) == len(set(posted)), f"a row posted twice: {posted}"
    return posted


def each_step_once(moves: list[tuple[int, int, int | None, int]]) -> None:
    steps = [m[3] for m in moves]
    assert steps == sorted(set(steps)), f"a step made twice: {moves}"


# --- a reminder's DM being sent -----------------------------------------------------------


@pytest.mark.parametrize("release", ["within the grace", "after the exit"])
async def test_sigterm_while_a_reminder_dm_is_sent_it_is_sent_once(
        scene: Scene, sqlite_site: Site, release: str) -> None:
    """The reminder's timer fired (its DM committed, then sent): released within the grace,
    the DM is marked sent; held past it, the row is left for the next start, which sends it
    again with its nonce (Discord keeps the first: one DM), and no second reminder."""
    fake, site = scene.fake, sqlite_site
    bot = await site.start()
    try:
        users = await game_under_way(scene, bot)
        turn = await site.turn_user()
        first = next(u for u in users if u.id == turn)
        other = next(u for u in users if u is not first)
        await site.all_sent()
        fake.held_channels.add(fake.dm_channel(first).id)
        site.shift(24 * HOUR)  # his reminder is due
        await scene.slash(other, "status")  # a command wakes the timers
        await wait_until(lambda: fake.posts_in_flight > 0, what="the reminder's DM held")
        reminder = await site.reminders_to(first.id)
        assert len(reminder) == 1
        within = release == "within the grace"
        status, _ = await bot.stop(fake.held_channels.clear if within else None)
    finally:
        fake.held_channels.clear()
        await bot.kill()
    assert status == 0, bot.log()[-3000:]
    clean(bot.log())
    assert await site.unsent() == ([] if release == "within the grace" else reminder)
    await wait_until(lambda: fake.posts_in_flight == 0, what="the held post done")
    bot = await site.start()
    try:
        await site.all_sent()
    finally:
        await stopped_cleanly(bot)
    assert each_row_once(fake, users, scene.ch).count(reminder[0]) == 1, "the reminder DM once"
    assert await site.reminders_to(first.id) == reminder, "no second reminder"


# --- a turn's deadline being applied ------------------------------------------------------


async def deadline_game(scene: Scene, site: Site) -> tuple[list[FakeUser], FakeUser]:
    """A two-player game with a one-hour deadline; returns the players and whose turn it is
    (everything delivered)."""
    alice, bob = scene.fake.add_user("alice"), scene.fake.add_user("bob")
    await scene.slash(alice, "create", players=2, deadline=1)
    await scene.slash(bob, "join")
    await site.all_sent()
    users = [alice, bob]
    turn = await site.turn_user()
    return users, next(u for u in users if u.id == turn)


async def deadline_applied_once(scene: Scene, site: Site, users: list[FakeUser],
                                late: FakeUser, before: list[Move]) -> None:
    """A restart applies the deadline once: the turn passes to the other player by the
    timer's moves only, each step once, each row posted once."""
    assert await site.moves() == before, "nothing of the cut move was committed"
    assert "deadline" in await site.timers(), "the deadline waits for the next start"
    bot = await site.start()
    try:
        async def applied() -> bool:
            return len(await site.moves()) > len(before)
        await eventually(applied, "the deadline was not applied after the restart")
        await site.all_sent()
    finally:
        await stopped_cleanly(bot)
    after = (await site.moves())[len(before):]
    seat = dict(await site.rows("SELECT user_id, seat FROM seats"))[late.id]
    assert all(m[1] == seat and m[2] is None for m in after), f"the deadline's only: {after}"
    each_step_once(await site.moves())
    assert await site.turn_user() == next(u for u in users if u is not late).id
    each_row_once(scene.fake, users, scene.ch)


async def test_sigterm_while_a_deadline_is_applied_it_is_applied_once_after_restart(
        scene: Scene, sqlite_site: Site) -> None:
    """The deadline's move is computed, not committed, when the signal comes: its
    transaction rolls back, and the next start applies it."""
    site = sqlite_site
    bot = await site.start(hold="play")
    try:
        users, late = await deadline_game(scene, site)
        before = await site.moves()
        site.shift(HOUR + 60)  # his deadline has passed
        other = next(u for u in users if u is not late)
        await scene.slash(other, "status")
        await site.reached("play")
        await stopped_cleanly(bot)
    finally:
        site.release()
        await bot.kill()
    await deadline_applied_once(scene, site, users, late, before)


@needs_pg
async def test_sigterm_while_a_deadline_commits_on_postgresql_it_is_applied_once(
        scene: Scene, tmp_path: Path) -> None:
    """On PostgreSQL, the signal comes while the deadline's COMMIT waits (``commits_held``):
    the stop cancels it, the server rolls it back, and the stop goes on as any other. (A
    cancelled commit once ended the timer task with asyncpg's "cannot rollback; the
    transaction is in error state": the task took it for a failed timer, postponed the
    deadline by 10 minutes with an ERROR and its traceback, and went on, so the stop waited
    for it until the hard stop: exit status 1.)"""
    async with site_on("postgresql", scene, tmp_path) as site:
        schema = site.env["KHRONOS_DATABASE_URL"].rsplit("search_path=", 1)[1]
        bot = await site.start()
        try:
            users, late = await deadline_game(scene, site)
            before = await site.moves()
            async with commits_held(schema, "moves") as waiting:
                site.shift(HOUR + 60)
                await scene.slash(next(u for u in users if u is not late), "status")
                await waiting()
                await stopped_cleanly(bot)
        finally:
            await bot.kill()
        await deadline_applied_once(scene, site, users, late, before)


# --- a computer thinking, or its move being applied ---------------------------------------


async def computer_game(scene: Scene, site: Site) -> FakeUser:
    """alice against an easy computer; returns alice once the computer must act."""
    alice = scene.fake.add_user("alice")
    await scene.slash(alice, "create")
    await scene.slash(alice, "addbot", level="easy")
    await scene.slash(alice, "start")
    if await site.turn_user() == alice.id:
        await scene.slash(alice, "end")
    return alice


async def turn_of(site: Site, user: FakeUser) -> bool:
    return await site.turn_user() == user.id


async def computer_moved_once(scene: Scene, site: Site, alice: FakeUser,
                              before: list[Move]) -> None:
    """A restart makes the computer's moves, each once, until alice's turn."""
    bot = await site.start(**COMPUTER)
    try:
        await eventually(lambda: turn_of(site, alice),
                         "the computer did not play after the restart")
        await site.all_sent()
    finally:
        await stopped_cleanly(bot)
    after = (await site.moves())[len(before):]
    assert after and all(m[2] is not None and m[2] < 0 for m in after), after
    each_step_once(await site.moves())
    each_row_once(scene.fake, [alice], scene.ch)


@pytest.mark.parametrize("hold", ["think", "play"])
async def test_sigterm_while_a_computer_thinks_or_moves_no_worker_left_it_moves_once(
        scene: Scene, sqlite_site: Site, hold: str) -> None:
    """``think``: its worker process computes the decision when the signal comes (the stop
    ends the worker; the decision is computed again at the next start: the same seed, the
    same move); ``play``: the worker answered and the move is computed, not committed (its
    transaction rolls back)."""
    site = sqlite_site
    bot = await site.start(hold=hold, **COMPUTER)
    try:
        alice = await computer_game(scene, site)
        await site.reached(hold)
        before = await site.moves()
        assert descendants(bot.pid), "the computer thinks in a worker process"
        await stopped_cleanly(bot)
    finally:
        site.release()
        await bot.kill()
    assert await site.moves() == before
    assert await site.timers() == ["computer"], "its timer waits for the next start"
    await computer_moved_once(scene, site, alice, before)


# --- a second process on the same database while the first stops -------------------------


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_second_process_takes_over_while_the_first_stops(
        scene: Scene, tmp_path: Path, backend: str) -> None:
    """A deploy: the first process is stopping (its computer was thinking in a worker; a
    move in another channel is being delivered, held past the stop's grace, so the stop
    lasts its whole grace) when the second starts on the same database and the same shard.
    The second plays the computer's move once and sends the other game's rows once the
    first is gone; each process exits 0 with a clean log."""
    fake = scene.fake
    bob, carol = fake.add_user("bob"), fake.add_user("carol")
    other = fake.add_channel(scene.guild, "khronos-2")
    async with site_on(backend, scene, tmp_path) as site:
        first = await site.start(hold="think", **COMPUTER)
        second: BotProcess | None = None
        try:
            for user, name, opts in ((bob, "create", {"players": 2}), (carol, "join", {})):
                ia = await fake.slash(user, other, name, options=opts)
                await ia.wait_message(timeout=10)
            alice = await computer_game(scene, site)
            await site.reached("think")
            before = await site.moves()
            await site.all_sent()
            fake.held_channels.add(other.id)
            mover = bob if await site.turn_user(other) == bob.id else carol
            await fake.slash(mover, other, "end")
            await wait_until(lambda: fake.posts_in_flight > 0, what="the other game's post held")
            workers = descendants(first.pid)
            first.signal(signal.SIGTERM)
            await wait_until(lambda: "stopping" in first.log(), what="the first's stop")
            second = await site.start(**COMPUTER)
            status = await first.wait(STOP_BOUND)
            fake.held_channels.clear()
            assert status == 0, first.log()[-3000:]
            clean(first.log())
            await wait_until(lambda: not any(alive(pid) for pid in workers), timeout=5,
                             what="the end of the first's processes")
        finally:
            fake.held_channels.clear()
            site.release()
            await first.kill()
            if second is not None and second.proc.returncode is not None:
                await second.kill()
        assert second is not None
        try:
            await eventually(lambda: turn_of(site, alice),
                             "the second process did not play the computer")
            await site.all_sent()
        finally:
            await stopped_cleanly(second)
        after = (await site.moves())[len(before):]
        computer = [m for m in after if m[2] is not None and m[2] < 0]
        assert computer, after
        each_step_once(await site.moves())
        each_step_once(await site.moves(other))
        each_row_once(fake, [alice, bob, carol], scene.ch, other)
