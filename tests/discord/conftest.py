"""Shared set-up of the end-to-end tests: a fake Discord with one server and its #khronos
channel (``scene``), the bot built on it (``scene.bot()``, or ``seeded_bot`` for a bot whose
games get a chosen seed), and games started or set to a prepared position."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypedDict, Unpack

import pytest

import engine
from bot.discord.app import KhronosBot, create_bot
from bot.service import GameService
from bot.settings import Settings
from bot.storage.sqlite import SqliteStorage
from tests.fakediscord.fake import FakeDiscord
from tests.fakediscord.fixtures import fake_discord  # noqa: F401
from tests.fakediscord.models import (
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeUser,
    OptionValue,
)


class SettingsExtra(TypedDict, total=False):
    """The settings a test gives a scene's bot, by variable name (a wrong name or value is a
    type error, not a setting silently ignored)."""

    KHRONOS_COMPUTER_DELAY: float
    KHRONOS_COMPUTER_BUDGET: float
    KHRONOS_AI_WORKERS: int


@dataclass
class Scene:
    """One server with its game channel on the fake Discord, and the bot's data folder."""

    fake: FakeDiscord
    guild: FakeGuild
    ch: FakeChannel
    data: Path

    def settings(self, **extra: Unpack[SettingsExtra]) -> Settings:
        """The bot's settings for this scene; ``extra`` by variable name
        (``KHRONOS_AI_WORKERS=0``)."""
        return Settings(DISCORD_TOKEN=self.fake.token, KHRONOS_DATA_DIR=self.data,
                        KHRONOS_TEST_GUILD_ID=self.guild.id, **extra)

    def bot(self, *, service: GameService | None = None,
            **extra: Unpack[SettingsExtra]) -> KhronosBot:
        """The bot, not connected yet (``async with scene.fake.running(bot)``); with its own
        SQLite file in the data folder unless ``service`` is given."""
        return create_bot(self.settings(**extra), service=service)

    async def slash(self, user: FakeUser, name: str,
                    **options: OptionValue | None) -> FakeInteraction:
        """Run ``/name`` in the game channel (None options left out) and wait for the
        answer."""
        ia = await self.fake.slash(user, self.ch, name,
                                   options={k: v for k, v in options.items() if v is not None})
        await ia.wait_ack()
        await ia.wait_message(timeout=10)
        return ia

    async def two_player_game(self, alice: FakeUser, bob: FakeUser) -> None:
        """alice creates a 2-player game and bob joins: it starts."""
        await self.slash(alice, "create", players=2)
        await self.slash(bob, "join")


async def set_position(bot: KhronosBot, channel_id: int, state: engine.GameState) -> None:
    """Replace the channel's started game by a prepared position (``engine.builder``)."""
    info = await bot.service.info(channel_id)
    async with bot.service.storage.write() as tx:
        game = await tx.game(info.game_id)
        assert game is not None
        await tx.update_game(game.id, game.version, now=0.0, state=state.model_dump_json(),
                             checkpoint=state.model_dump_json())


async def all_sent(bot: KhronosBot, timeout: float = 30.0) -> None:
    """Wait until what is committed is delivered (reply rows left out: their interaction
    sends them). What a timer says goes out in a task of its own, so a game's state may be
    ahead of its posts for a moment."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        async with bot.service.storage.read() as q:
            if not [r for r in await q.unsent(limit=10_000) if r.kind != "reply"]:
                return
        assert loop.time() < end, "what was committed was not delivered"
        await asyncio.sleep(0.02)


async def wait_until(check: Callable[[], object], timeout: float = 10.0) -> None:
    """Wait until ``check()`` is true (what the bot sends after a command's reply: a held
    table edit, a retried row)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


@pytest.fixture
def scene(fake_discord: FakeDiscord, tmp_path: Path) -> Scene:  # noqa: F811
    guild = fake_discord.add_guild()
    return Scene(fake_discord, guild, fake_discord.add_channel(guild, "khronos"), tmp_path)


class SeededBot(Protocol):
    """``seeded_bot(seed)``: see the fixture."""

    def __call__(self, seed: int | None = None) -> AbstractAsyncContextManager[KhronosBot]: ...


@pytest.fixture
def seeded_bot(scene: Scene) -> SeededBot:
    """``async with seeded_bot(seed) as bot``: the bot on the data folder's SQLite file, whose
    new games get ``seed`` (None: random); the file is closed after the block."""

    @asynccontextmanager
    async def make(seed: int | None = None) -> AsyncIterator[KhronosBot]:
        storage = await SqliteStorage.in_dir(scene.data).open()
        try:
            yield scene.bot(service=GameService(
                storage, seeds=None if seed is None else (lambda: seed)))
        finally:
            await storage.close()

    return make
