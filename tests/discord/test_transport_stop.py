"""How the transport classes a failed send: once the bot's connection to Discord is closed or
closing (its stop), any failure is ``Stopped`` (the row is left as it was for the next
process), whether the request was cut by the close or started after it ("Session is
closed"); before that, the same errors are what they always were (a network failure to retry
later, a bug raised as it is)."""

from __future__ import annotations

from typing import cast

import aiohttp
import discord
import pytest

from bot.discord.host import Host
from bot.discord.transport import DiscordTransport
from bot.service.outbox import Delivery, RetryLater, Stopped


class Channel(discord.abc.Messageable):
    """A channel whose every post fails with ``error``."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def send(self, *args: object, **kwargs: object) -> discord.Message:
        """Whatever it is asked to send (any of Messageable.send's forms): ``error``."""
        raise self.error


class Bot:
    """What the transport asks of the bot for a ping row: its channel, and whether its
    connection is closed."""

    def __init__(self, channel: Channel, closed: bool) -> None:
        self.channel, self.closed = channel, closed

    def get_channel(self, channel_id: int) -> Channel:
        return self.channel

    def is_closed(self) -> bool:
        return self.closed


PING = Delivery(row_id=7, game_id=1, channel_id=5, kind="ping", user_id=11, text="your turn")
ERRORS = {
    "session closed": RuntimeError("Session is closed"),
    "cut by the close": aiohttp.ServerDisconnectedError(),
}


async def send(error: Exception, *, closed: bool) -> None:
    bot = Bot(Channel(error), closed)
    # cast: for a ping row the transport asks only get_channel and is_closed of its host
    await DiscordTransport(cast(Host, bot)).send(PING)


@pytest.mark.parametrize("error", ERRORS.values(), ids=ERRORS.keys())
async def test_a_send_failing_once_the_connection_is_closed_is_stopped(error: Exception
                                                                        ) -> None:
    with pytest.raises(Stopped):
        await send(error, closed=True)


async def test_the_same_failures_before_the_stop_keep_their_class() -> None:
    with pytest.raises(RetryLater):
        await send(aiohttp.ServerDisconnectedError(), closed=False)
    with pytest.raises(RuntimeError, match="Session is closed"):
        await send(RuntimeError("Session is closed"), closed=False)
