"""Two bot OS processes (tests/storage/postgres/bot_child.py), one shard each, against the fake
Discord and one PostgreSQL database. The game's server is on shard 1; DMs are on shard 0, the other
process. The process of shard 0 is killed by SIGKILL inside the commit of a choice (holding
the game's lock): the other process goes on, a new process of shard 0 takes the click again,
and the choice is applied once."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, cast

import engine
from bot.discord.app import KhronosBot
from bot.service import GameInfo, GameService
from bot.storage.postgres import PgStorage
from engine import EndTurn
from tests.discord.test_bot_game import Table
from tests.fakediscord.fake import FakeDiscord
from tests.fakediscord.models import FakeChannel, FakeUser
from tests.storage.postgres.backend import PG_URL, needs_pg, pg_schema
from tests.storage.postgres.test_two_bots import HAMLET, guild_on_shard, junction

if TYPE_CHECKING:  # not at run time: importing it patches PgTx (it is the child's main module)
    from tests.storage.postgres.bot_child import ChildConfig

pytestmark = needs_pg

CHILD = Path(__file__).with_name("bot_child.py")
ROOT = Path(__file__).resolve().parents[3]


class DbTable(Table):
    """The driver of tests/discord, reading the game from the database (the bots are elsewhere)."""

    def __init__(self, fake: FakeDiscord, service: GameService, ch: FakeChannel,
                 users: list[FakeUser]) -> None:
        # cast: no bot runs in this process (Table reads the game through ``state`` below)
        super().__init__(fake, cast(KhronosBot, None), ch, users)
        self.service = service

    async def state(self) -> tuple[GameInfo, engine.GameState]:
        return await self.service.snapshot(self.ch.id)


async def start_bot(fake: FakeDiscord, schema: str, data: Path, guild_id: int, shard: int,
                    kill_at: int | None = None) -> asyncio.subprocess.Process:
    assert PG_URL is not None
    cfg: ChildConfig = {
        "api_base": fake.api_base, "gateway_url": fake.gateway_url, "cdn_base": fake.cdn_base,
        "token": fake.token, "guild": guild_id, "shard": shard, "count": 2, "url": PG_URL,
        "schema": schema, "data": str(data), "kill_at": kill_at}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(CHILD), json.dumps(cfg), cwd=str(ROOT),
        env={**os.environ, "PYTHONPATH": str(ROOT)},  # the child imports tests.storage
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    assert proc.stdout is not None
    line = await asyncio.wait_for(proc.stdout.readline(), 60)
    if line.strip() != b"ready":
        assert proc.stderr is not None
        err = await proc.stderr.read()
        raise AssertionError(f"the bot did not start: {line!r} {err.decode()[-2000:]}")
    return proc


async def stop(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        proc.terminate()
    await asyncio.wait_for(proc.wait(), 30)


async def test_a_bot_process_killed_inside_a_commit(fake: FakeDiscord, tmp_path: Path) -> None:
    assert PG_URL is not None
    guild = guild_on_shard(fake, 1)
    ch = fake.add_channel(guild, "khronos")
    red, white = fake.add_user("red"), fake.add_user("white")
    async with pg_schema() as schema, PgStorage(PG_URL, schema=schema) as store:
        service = GameService(store)
        # shard 0 dies in its first commit: the first thing it commits is white's choice
        bot0 = await start_bot(fake, schema, tmp_path / "b0", guild.id, 0, kill_at=1)
        bot1 = await start_bot(fake, schema, tmp_path / "b1", guild.id, 1)
        try:
            table = DbTable(fake, service, ch, [red, white])
            await table.slash(red, "create", players=2)
            await table.slash(white, "join")
            info, _ = await table.state()
            await junction(store, info.game_id, red.id)
            await table.play(red, HAMLET)  # through the process of shard 1
            dm = await fake.wait_for_dm(white, lambda m: any(
                c.startswith("kh:ch:") for c in m.custom_ids()), timeout=10)
            option = next(c for c in dm.custom_ids() if c.startswith("kh:ch:"))
            before, _ = await table.state()

            await fake.click(white, dm, option)  # reaches shard 0, which dies
            assert await asyncio.wait_for(bot0.wait(), 30) == -signal.SIGKILL
            after, state = await table.state()
            assert after.version == before.version and state.pending is not None  # not applied

            # the other process is not blocked by the dead one's lock
            ia = await fake.slash(red, ch, "end")
            await ia.wait_ack()
            await ia.wait_message(timeout=10)
            assert "waiting for white to make a choice" in ia.messages[0].content

            # shard 0 comes back (a restart); white clicks again: applied once
            bot0 = await start_bot(fake, schema, tmp_path / "b0", guild.id, 0)
            again = await fake.click(white, dm, option)
            await again.wait_ack()
            await again.wait_message(timeout=10)
            info, state = await table.state()
            assert state.pending is None and info.version == before.version + 1
            async with store.read() as q:
                moves = await q.moves(info.game_id)
            assert sum('"choose"' in m.action for m in moves) == 1
            assert [m.seq for m in moves] == list(range(1, len(moves) + 1))
            # and the game goes on through the process of shard 1
            user = info.user_of(state.turn)
            assert user is not None
            await table.play(red if user == red.id else white, EndTurn())
            assert (await table.state())[0].version == info.version + 1
        finally:
            await stop(bot1)
            await stop(bot0)
