"""A fake Discord (REST v10 + gateway) for end-to-end tests of discord.py bots."""

from .fake import DiscordPyPatch, FakeDiscord
from .models import (
    CallbackRecord,
    CommandNotAvailable,
    DiscordAPIError,
    FakeAttachment,
    FakeChannel,
    FakeCommand,
    FakeGuild,
    FakeInteraction,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    Intent,
    OptionValue,
    Perm,
    RequestRecord,
)

__all__ = [
    "CallbackRecord",
    "CommandNotAvailable",
    "DiscordAPIError",
    "DiscordPyPatch",
    "FakeAttachment",
    "FakeChannel",
    "FakeCommand",
    "FakeDiscord",
    "FakeGuild",
    "FakeInteraction",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "Intent",
    "OptionValue",
    "Perm",
    "RequestRecord",
]
