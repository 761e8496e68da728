"""Restarts as a deployment does them, through the real entry point: ``python -m bot`` in a
child process against the fake Discord (``tests/discord/entry.py``), on SQLite and PostgreSQL.

1. **kill -9 during a stream of moves**: 20 games get a move every few dozen milliseconds;
   the bot is killed at a random moment, then started again at once, ``--kills`` times. For
   each restart: the process's start (spawn to connected), then from connected to the last
   row of the backlog the dead process left (its rows unsent at the kill) delivered, and to
   the answer of the first command sent (a move in a game of the backlog).
2. **reminders after a 10-minute outage**: 20 games wait for a player, with reminders every
   minute; the bot is killed while it delivers, the service's clock jumps 10 minutes (the
   outage, ``KHRONOS_CLOCK_SHIFT_FILE``), the bot restarts: reminders each waiting player
   gets and "while the bot was offline" notes each game gets in the next 40 s (one period is
   60 s). Then the same with a second kill 1 s after the restart, while it delivers (each post
   takes 3 s at the fake), and a second outage: what was not out yet is not said again.
3. **SIGTERM** (``docker stop``): seconds to the exit and its status, idle and with
   deliveries in flight (each post takes 0.3 s at the fake), and the rows left unsent.

Run: ``.venv/bin/python benchmarks/bench_restart.py [--kills 5] [--sqlite-only]``
(PostgreSQL: ``KHRONOS_BENCH_DATABASE_URL``, else a throwaway server from ``.ci/postgres``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import signal
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import asyncpg
from bench_scale import _server, _stop_server

import engine
from bot.service import GameService
from bot.storage.postgres import PgStorage
from bot.storage.sql import numbered
from bot.storage.sqlite import DB_FILENAME, SqliteStorage
from tests.discord.entry import BotProcess
from tests.fakediscord.fake import FakeDiscord
from tests.fakediscord.models import FakeChannel, FakeUser

GAMES = 20


@dataclass
class Backend:
    """Where the bot keeps its games, and raw SQL on it for the benchmark (``?`` marks)."""

    name: str
    data: Path
    url: str | None = None
    schema: str | None = None

    def env(self) -> dict[str, str]:
        if self.url is None:
            return {}
        return {"KHRONOS_DATABASE_URL": f"{self.url}?search_path={self.schema}"}

    def storage(self) -> SqliteStorage | PgStorage:
        if self.url is None:
            return SqliteStorage.in_dir(self.data)
        return PgStorage(self.url, schema=self.schema)

    async def fetch(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        if self.url is None:
            with sqlite3.connect(self.data / DB_FILENAME) as db:
                return db.execute(sql, args).fetchall()
        conn = await asyncpg.connect(self.url)
        try:
            await conn.execute(f"SET search_path TO {self.schema}")
            return [tuple(r) for r in await conn.fetch(numbered(sql), *args)]
        finally:
            await conn.close()

    async def unsent(self) -> set[int]:
        rows = await self.fetch("SELECT id FROM outbox WHERE sent_at IS NULL AND kind != 'reply'")
        return {int(r[0]) for r in rows}


@asynccontextmanager
async def backend(name: str, tmp: Path, url: str | None) -> AsyncIterator[Backend]:
    data = tmp / f"{name}-{uuid.uuid4().hex[:6]}"
    data.mkdir()
    if name == "sqlite":
        yield Backend(name, data)
        return
    assert url is not None
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    conn = await asyncpg.connect(url)
    await conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield Backend(name, data, url, schema)
    finally:
        await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        await conn.close()


@dataclass
class Tables:
    """The games of the benchmark: a channel and its players each."""

    fake: FakeDiscord
    guild_id: int
    games: list[tuple[FakeChannel, list[FakeUser]]] = field(default_factory=list)

    @classmethod
    def make(cls, fake: FakeDiscord, players: int = 3) -> Tables:
        guild = fake.add_guild()
        me = cls(fake, guild.id)
        for g in range(GAMES):
            ch = fake.add_channel(guild, f"game-{g}")
            me.games.append((ch, [fake.add_user(f"p{g}-{i}") for i in range(players)]))
        return me

    async def start_all(self) -> None:
        for ch, users in self.games:
            await self.command(users[0], ch, "create", players=len(users))
            for user in users[1:]:
                await self.command(user, ch, "join")

    async def command(self, user: FakeUser, ch: FakeChannel, name: str,
                      timeout: float = 30.0, **options: Any) -> float:
        """Send a command; the seconds until its answer."""
        start = time.monotonic()
        ia = await self.fake.slash(user, ch, name, options=options)
        await ia.wait_message(timeout=timeout)
        return time.monotonic() - start


async def turn_user(service: GameService, ch: FakeChannel) -> int | None:
    info, state = await service.snapshot(ch.id)
    seat = engine.current_seat(state)
    return None if seat is None or state.over else info.user_of(seat)


async def stream(tables: Tables, service: GameService, stop: asyncio.Event,
                 gap: float = 0.15) -> None:
    """A move in a random game every ``gap`` seconds (the player whose turn it is ends it),
    without waiting for the answers: players keep playing while the bot restarts."""
    chooser = random.Random(7)
    pending: set[asyncio.Task[Any]] = set()
    while not stop.is_set():
        ch, users = chooser.choice(tables.games)
        with contextlib.suppress(Exception):
            user_id = await turn_user(service, ch)
            user = next((u for u in users if u.id == user_id), None)
            if user is not None:
                task = asyncio.ensure_future(quietly(tables.command(user, ch, "end")))
                pending.add(task)
                task.add_done_callback(pending.discard)
        await asyncio.sleep(gap)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)


async def quietly(command: Any) -> None:
    """A command of the stream: a bot killed meanwhile never answers it."""
    with contextlib.suppress(Exception):
        await command


def summary(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values):.2f} / {max(values):.2f}"


# --- 1. kill -9 during a stream of moves ------------------------------------------------------


async def kill_cycles(fake: FakeDiscord, be: Backend, kills: int) -> dict[str, list[float]]:
    tables = Tables.make(fake)
    bot = await BotProcess.start(fake, be.data, tables.guild_id, **be.env())
    out: dict[str, list[float]] = {"start": [], "backlog": [], "reply": [], "rows": []}
    stop = asyncio.Event()
    async with be.storage() as storage:
        service = GameService(storage)
        try:
            await tables.start_all()
            fake.post_delay = 0.05  # Discord's own latency: a backlog builds under the stream
            flow = asyncio.ensure_future(stream(tables, service, stop))
            chooser = random.Random(11)
            for _ in range(kills):
                await asyncio.sleep(chooser.uniform(1.5, 4.0))
                bot.signal(signal.SIGKILL)
                await bot.wait(10)
                backlog = await be.unsent()
                spawned = time.monotonic()
                bot = await BotProcess.start(fake, be.data, tables.guild_id, **be.env())
                ready = time.monotonic()
                probe = asyncio.ensure_future(first_reply(tables, service, backlog, be))
                out["backlog"].append(await backlog_sent(be, backlog) - ready)
                out["reply"].append(await probe - ready)
                out["start"].append(ready - spawned)
                out["rows"].append(float(len(backlog)))
            stop.set()
            await flow
        finally:
            stop.set()
            fake.post_delay = 0.0
            await bot.kill()
    return out


async def backlog_sent(be: Backend, backlog: set[int]) -> float:
    """``time.monotonic()`` when the last of ``backlog`` is delivered."""
    while backlog & await be.unsent():
        await asyncio.sleep(0.05)
    return time.monotonic()


async def first_reply(tables: Tables, service: GameService, backlog: set[int],
                      be: Backend) -> float:
    """A move sent as soon as the bot is connected, in a game of the backlog if there is one;
    ``time.monotonic()`` when its answer arrives."""
    games = {int(r[0]) for r in await be.fetch(
        "SELECT DISTINCT game_id FROM outbox WHERE sent_at IS NULL AND kind != 'reply'")}
    for ch, users in tables.games:
        info, _ = await service.snapshot(ch.id)
        if info.game_id in games or not backlog:
            user_id = await turn_user(service, ch)
            user = next((u for u in users if u.id == user_id), None)
            if user is not None:
                await tables.command(user, ch, "end", timeout=120)
                return time.monotonic()
    await tables.command(tables.games[0][1][0], tables.games[0][0], "status", timeout=120)
    return time.monotonic()


# --- 2. reminders after a 10-minute outage ----------------------------------------------------

PERIOD = 60.0  # seconds between reminders in this part
WATCH = 40.0  # seconds watched after the restart (less than one period)


async def outage(fake: FakeDiscord, be: Backend, tmp: Path, kills: int) -> dict[str, list[float]]:
    """20 games waiting for a player, reminders every minute; ``kills`` kills while
    delivering, each followed by a 10-minute jump of the clock and a restart at once."""
    tables = Tables.make(fake)
    shift = tmp / f"shift-{uuid.uuid4().hex[:6]}"
    shift.write_text("0")
    env = {**be.env(), "KHRONOS_CLOCK_SHIFT_FILE": str(shift)}
    bot = await BotProcess.start(fake, be.data, tables.guild_id, **env)
    try:
        await tables.start_all()
        seen = {u.id: len(reminders(fake, u)) for _, users in tables.games for u in users}
        notes = {ch.id: len(offline_notes(fake, ch)) for ch, _ in tables.games}
        for k in range(kills):
            # reminders every minute, all due: the first restart finds them 9 minutes late
            if k == 0:
                await be.fetch("UPDATE timers SET due_at = due_at - 86400 + ? "
                               "WHERE kind = 'reminder'", PERIOD)
                for (settings_json, game_id) in await be.fetch("SELECT settings, id FROM games"):
                    settings = {**json.loads(settings_json), "reminder_hours": PERIOD / 3600}
                    await be.fetch("UPDATE games SET settings = ? WHERE id = ?",
                                   json.dumps(settings), game_id)
            await asyncio.sleep(1.0 if k else 0.2)  # after a restart: while it delivers
            bot.signal(signal.SIGKILL)
            await bot.wait(10)
            shift.write_text(str(float(shift.read_text()) + 600))  # ten minutes pass
            fake.post_delay = 0.0 if k == kills - 1 else 3.0  # killed again while sending
            bot = await BotProcess.start(fake, be.data, tables.guild_id, **env)
        await asyncio.sleep(WATCH)
        waiting = [u for ch, users in tables.games for u in users if u.id in
                   {r[0] for r in await be.fetch("SELECT user_id FROM timers")}]
        got = [float(len(reminders(fake, u)) - seen[u.id]) for u in waiting]
        said = [float(len(offline_notes(fake, ch)) - notes[ch.id]) for ch, _ in tables.games]
    finally:
        fake.post_delay = 0.0
        await bot.kill()
    return {"reminders": got, "notes": said}


def reminders(fake: FakeDiscord, user: FakeUser) -> list[Any]:
    return [m for m in fake.dms(user) if m.content.startswith(("Reminder", "(Delayed"))
            and "Reminder" in m.content[:80]]


def offline_notes(fake: FakeDiscord, ch: FakeChannel) -> list[Any]:
    return [m for m in fake.channel_messages(ch) if "While the bot was offline" in m.content]


# --- 3. SIGTERM ---------------------------------------------------------------------------------


async def sigterm(fake: FakeDiscord, be: Backend, busy: bool) -> tuple[float, int | None, int]:
    """Seconds from SIGTERM to the exit, the exit status, rows left unsent."""
    tables = Tables.make(fake)
    bot = await BotProcess.start(fake, be.data, tables.guild_id, **be.env())
    stop = asyncio.Event()
    try:
        if busy:
            await tables.start_all()
            async with be.storage() as storage:
                flow = asyncio.ensure_future(stream(tables, GameService(storage), stop))
                fake.post_delay = 0.3
                await asyncio.sleep(2.0)
                while not fake.posts_in_flight:
                    await asyncio.sleep(0.01)
                start = time.monotonic()
                bot.signal(signal.SIGTERM)
                status = await bot.wait(30)
                took = time.monotonic() - start
                stop.set()
                await flow
        else:
            start = time.monotonic()
            bot.signal(signal.SIGTERM)
            status = await bot.wait(30)
            took = time.monotonic() - start
        left = len(await be.unsent()) if busy else 0
    finally:
        stop.set()
        fake.post_delay = 0.0
        await bot.kill()
    return took, status, left


# --- the tables ---------------------------------------------------------------------------------


async def run(kills: int, url: str | None, tmp: Path, parts: str) -> None:
    names = ["sqlite"] + (["postgresql"] if url else [])
    if "1" in parts:
        await restart_table(names, kills, url, tmp)
    if "2" in parts:
        await outage_table(names, url, tmp)
    if "3" in parts:
        await sigterm_table(names, url, tmp)


LABEL = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}


async def restart_table(names: list[str], kills: int, url: str | None, tmp: Path) -> None:
    label = LABEL
    print(f"1. kill -9 at random moments during a stream of moves in {GAMES} games, restarted "
          f"at once ({kills} kills; seconds, median / max)\n")
    print("| backend | start (spawn to connected) | connected to last backlog row sent "
          "| connected to first answer | backlog rows |")
    print("|---|---|---|---|---|")
    for name in names:
        async with FakeDiscord() as fake, backend(name, tmp, url) as be:
            r = await kill_cycles(fake, be, kills)
        print(f"| {label[name]} | {summary(r['start'])} | {summary(r['backlog'])} | "
              f"{summary(r['reply'])} | {statistics.median(r['rows']):.0f} / "
              f"{max(r['rows']):.0f} |", flush=True)


async def outage_table(names: list[str], url: str | None, tmp: Path) -> None:
    label = LABEL
    print(f"\n2. reminders every minute, the bot killed and the clock 10 minutes on, restarted "
          f"at once: what arrives in the next {WATCH:.0f} s (one period is {PERIOD:.0f} s); "
          "per waiting player and per game, min / median / max\n")
    print("| backend | outages | reminders per player | offline notes per game (one per outage) |")
    print("|---|---|---|---|")
    for name in names:
        for outages in (1, 2):
            async with FakeDiscord() as fake, backend(name, tmp, url) as be:
                r = await outage(fake, be, tmp, outages)
            print(f"| {label[name]} | {outages} | {spread(r['reminders'])} | "
                  f"{spread(r['notes'])} |", flush=True)


async def sigterm_table(names: list[str], url: str | None, tmp: Path) -> None:
    label = LABEL
    print("\n3. SIGTERM (docker stop) to exit: seconds, exit status, rows left for the next "
          "start\n")
    print("| backend | while | seconds to exit | status | rows left |")
    print("|---|---|---|---|---|")
    for name in names:
        for busy in (False, True):
            for _ in range(2):
                async with FakeDiscord() as fake, backend(name, tmp, url) as be:
                    took, status, left = await sigterm(fake, be, busy)
                what = "a stream of moves, posts in flight" if busy else "idle"
                print(f"| {label[name]} | {what} | {took:.2f} | {status} | {left} |",
                      flush=True)


def spread(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{min(values):.0f} / {statistics.median(values):.0f} / {max(values):.0f}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kills", type=int, default=5)
    ap.add_argument("--sqlite-only", action="store_true")
    ap.add_argument("--parts", default="123", help="which parts to run (default 123)")
    args = ap.parse_args()
    url, folder = (None, None) if args.sqlite_only else _server()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            asyncio.run(run(args.kills, url, Path(tmp), args.parts))
    finally:
        _stop_server(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
