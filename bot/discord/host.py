"""What the Discord front end's parts need of the running bot, as a protocol: the buttons, the
slash commands, the transport and the interaction path are given a ``Host`` (the bot, in
``app.py``) instead of importing the bot's class, so that imports run one way (app -> parts).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol, runtime_checkable

import discord
from discord import app_commands

from ..commands import Context
from ..images import Renderer
from ..service import GameService, Outcome
from ..service.dispatcher import TimerDispatcher
from ..service.outbox import Deliverer
from ..settings import Settings


@runtime_checkable
class Host(Protocol):
    """The running bot as its parts see it."""

    settings: Settings
    renderer: Renderer
    stopping: bool  # after SIGTERM: no new commands; deliveries finish
    dispatcher: TimerDispatcher | None

    @property
    def service(self) -> GameService: ...

    @property
    def deliverer(self) -> Deliverer: ...

    @property
    def tree(self) -> app_commands.CommandTree[Any]: ...

    @property
    def user(self) -> discord.ClientUser | None: ...

    def get_channel(self, channel_id: int, /) -> Any: ...

    def is_closed(self) -> bool: ...

    async def fetch_channel(self, channel_id: int, /) -> Any: ...

    def get_user(self, user_id: int, /) -> discord.User | None: ...

    async def fetch_user(self, user_id: int, /) -> discord.User: ...

    async def run_interaction(
        self,
        interaction: discord.Interaction[Any],
        call: Callable[[Context], Awaitable[Outcome]],
        *,
        preview_line: str | None = None,
    ) -> None: ...


def host_of(interaction: discord.Interaction[Any]) -> Host:
    """The bot an interaction arrived at."""
    client = interaction.client
    assert isinstance(client, Host), "interactions reach the Khronos bot"
    return client
