"""SIGTERM while ``python -m bot`` is still starting (``entry.py``: the real entry point, against
the fake Discord of the test).

Before the bot serves (the login, the database, the commands' sync, the gateway), nothing is in
flight: no command, no timer, no delivery. A stop then ends the start where it waits and exits
0 at once. Before, it waited for the start to finish: a database that does not answer kept the
process until the hard stop (9.5 s, status 1)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from bot.discord.signals import HARD_STOP
from tests.discord.conftest import Scene
from tests.discord.entry import BotProcess


@asynccontextmanager
async def silent_server() -> AsyncIterator[tuple[int, asyncio.Event]]:
    """A TCP server that accepts connections and never answers (a database behind a network
    that drops its replies): its port, and an event set once a connection is made."""
    reached = asyncio.Event()
    handlers: set[asyncio.Task[None]] = set()

    async def hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        handlers.add(task)
        reached.set()
        try:
            await asyncio.sleep(3600)
        finally:
            writer.close()

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1], reached
    finally:
        server.close()
        for task in handlers:
            task.cancel()
        await asyncio.gather(*handlers, return_exceptions=True)


async def test_sigterm_while_the_database_does_not_answer_ends_the_start_exit_0(
        scene: Scene) -> None:
    async with silent_server() as (port, reached):
        bot = await BotProcess.launch(
            scene.fake, scene.data, scene.guild.id,
            KHRONOS_DATABASE_URL=f"postgresql://khronos@127.0.0.1:{port}/khronos")
        try:
            await asyncio.wait_for(reached.wait(), 60)  # the start waits on the database
            status, took = await bot.stop()
        finally:
            await bot.kill()
    log = bot.log()
    assert status == 0, log[-3000:]
    assert took < HARD_STOP, took
    assert "stopping during the start" in log
    assert "did not end within" not in log and "Traceback" not in log, log[-3000:]
    assert not bot.ready(), "it never served"
    synced = [r for r in scene.fake.requests if r["method"] == "PUT" and "/commands" in r["path"]]
    assert synced == [], "the start went no further than the database"
