"""Small helpers of every Discord message the bot sends: Discord's length limit, the allowed
mentions, and a rendered image as an attachment.

Every text the adapter sends or edits goes through ``send``, ``respond``, ``edit_response``
or ``edit`` here, which fit it into Discord's 2,000 characters (``bot/limits.py``: the one
place that cuts); ``tests/discord/test_long_values.py`` checks that no other module of the
adapter hands a text to discord.py itself."""

from __future__ import annotations

import io
from typing import Any

import discord

from ..images import Renderer
from ..limits import ALT_TEXT_LIMIT, MESSAGE_LIMIT, TEXT_DISPLAY_LIMIT, chunks, fit
from ..service import Image

NO_PINGS = discord.AllowedMentions.none()
DESCRIPTION_LIMIT = ALT_TEXT_LIMIT  # characters of an attachment's description (alt text)

__all__ = ["DESCRIPTION_LIMIT", "MESSAGE_LIMIT", "NO_PINGS", "TEXT_DISPLAY_LIMIT", "chunks",
           "edit", "edit_response", "fit", "only", "respond", "send", "to_file"]


async def send(target: Any, text: str, **kwargs: Any) -> Any:
    """``target.send(text, ...)`` (a channel, a user, an interaction's followup webhook), the
    text fitted into one message."""
    return await target.send(fit(text, MESSAGE_LIMIT), **kwargs)


async def respond(interaction: discord.Interaction[Any], text: str, **kwargs: Any) -> None:
    """The interaction's first response, the text fitted into one message."""
    await interaction.response.send_message(fit(text, MESSAGE_LIMIT), **kwargs)


async def edit_response(interaction: discord.Interaction[Any], text: str,
                        **kwargs: Any) -> None:
    """Edit the message a component lives on, the text fitted into one message."""
    await interaction.response.edit_message(content=fit(text, MESSAGE_LIMIT), **kwargs)


async def edit(message: Any, text: str, **kwargs: Any) -> Any:
    """Edit a message the bot sent (a turn's living message), the text fitted into one
    message. Text in components (Components V2) is fitted with ``fit(text,
    TEXT_DISPLAY_LIMIT)`` where the component is built."""
    return await message.edit(content=fit(text, MESSAGE_LIMIT), **kwargs)


def only(user_id: int) -> discord.AllowedMentions:
    """Allowed mentions of a message that may ping ``user_id`` and nobody else (never
    @everyone, @here or a role, whatever a display name or a prompt says)."""
    return discord.AllowedMentions(users=[discord.Object(id=user_id)], everyone=False,
                                   roles=False, replied_user=False)


_THREADS = Renderer()


async def to_file(image: Image, renderer: Renderer | None = None) -> discord.File:
    """The image rendered off the event loop, as an attachment with its alt text (the
    renderer keeps it within Discord's 1,024 characters: ``bot/images.py``)."""
    png, name, alt = await (renderer or _THREADS).render(image)
    return discord.File(io.BytesIO(png), filename=name, description=alt)


def text_file(name: str, text: str) -> discord.File:
    """A text file (UTF-8) as an attachment."""
    return discord.File(io.BytesIO(text.encode()), filename=name)
