"""Fixtures of the PostgreSQL tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import discord.asset
import discord.gateway
import discord.http
import pytest

from tests.fakediscord.fake import FakeDiscord


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    """A fake Discord with two shards (the fixture of tests/fakediscord has one)."""
    before = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY,
              discord.asset.Asset.BASE)
    fake = FakeDiscord(shard_count=2)
    await fake.start()
    patch = fake.configure_discord_py()
    try:
        yield fake
    finally:
        patch.restore()
        await fake.stop()
    after = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY,
             discord.asset.Asset.BASE)
    assert after == before, "discord.py globals were not restored"
