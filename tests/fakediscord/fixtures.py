"""Pytest fixtures for tests that run a discord.py client against :class:`FakeDiscord`.

Import them into a conftest.py::

    from tests.fakediscord.fixtures import fake_discord  # noqa: F401
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import discord.asset
import discord.gateway
import discord.http
import pytest

from .fake import FakeDiscord


def _discord_globals() -> tuple[object, ...]:
    return (
        discord.http.Route.BASE,
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY,
        discord.asset.Asset.BASE,
    )


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    """A started FakeDiscord with discord.py pointed at it; globals restored afterwards."""
    before = _discord_globals()
    fake = FakeDiscord()
    await fake.start()
    patch = fake.configure_discord_py()
    try:
        yield fake
    finally:
        patch.restore()
        await fake.stop()
        assert _discord_globals() == before, "discord.py globals were not restored"
