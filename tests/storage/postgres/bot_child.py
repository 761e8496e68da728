"""One bot process for tests/storage/postgres/test_bot_processes.py: the real bot
(``KhronosBot``) on one shard, its service on PostgreSQL, connected to the fake Discord that
runs in the test process.

Argument: a JSON object with the fake's addresses and token, the server to sync commands in,
the shard id and count, the database URL and schema, the data folder, and ``kill_at``: kill
this process (SIGKILL) inside its K-th commit that stores a move, holding the game's lock.
Prints ``ready`` once connected."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from typing import TypedDict

import discord
import discord.asset
import discord.gateway
import discord.http
import yarl
from asyncpg.transaction import Transaction

from bot.discord.app import create_bot
from bot.service import GameService
from bot.settings import Settings
from bot.storage.postgres import PgStorage, PgTx
from tests.storage.postgres.marked import stored_a_move


class ChildConfig(TypedDict):
    """The argument, as JSON (test_bot_processes.py writes it)."""

    api_base: str
    gateway_url: str
    cdn_base: str
    token: str
    guild: int
    shard: int
    count: int
    url: str
    schema: str
    data: str
    kill_at: int | None


class KillingStorage(PgStorage):
    kill_at: int | None = None
    commits = 0

    async def _commit(self, tr: Transaction, tx: PgTx) -> None:
        # count the commits that store a move (not the other writes of a bot, such as
        # marking messages delivered)
        moved = stored_a_move(tx)
        self.commits += moved
        if moved and self.commits == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        await super()._commit(tr, tx)


async def main(cfg: ChildConfig) -> None:
    discord.http.Route.BASE = cfg["api_base"]
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(cfg["gateway_url"])
    discord.asset.Asset.BASE = cfg["cdn_base"]
    storage = KillingStorage(cfg["url"], schema=cfg["schema"], max_size=4)
    storage.kill_at = cfg["kill_at"]
    await storage.open()
    settings = Settings(DISCORD_TOKEN=cfg["token"], KHRONOS_DATA_DIR=cfg["data"],
                        KHRONOS_TEST_GUILD_ID=cfg["guild"], KHRONOS_SHARD_COUNT=cfg["count"],
                        KHRONOS_SHARD_IDS=str(cfg["shard"]))
    bot = create_bot(settings, service=GameService(storage), **settings.shard_options())
    bot._connection.guild_ready_timeout = 0.2

    async def no_wait(shard_id: int | None, *, initial: bool = False) -> None:
        return None

    bot.before_identify_hook = no_wait  # type: ignore[method-assign]

    async def ready() -> None:
        await bot.wait_until_ready()
        print("ready", flush=True)

    task = asyncio.create_task(ready())
    try:
        await bot.start(cfg["token"])
    finally:
        task.cancel()
        await storage.close()


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
