"""Small helpers of every Discord message the bot sends: Discord's length limit, the allowed
mentions, and a rendered image as an attachment."""

from __future__ import annotations

import io

import discord

from ..images import Renderer
from ..service import Image

NO_PINGS = discord.AllowedMentions.none()
MESSAGE_LIMIT = 2000  # characters of a message's content
DESCRIPTION_LIMIT = 1024  # characters of an attachment's description (alt text)


def chunks(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """``text`` in pieces of at most ``limit`` characters (Discord's message limit), cut at line
    ends where possible; never an empty list."""
    out: list[str] = []
    current = ""
    for line in text.split("\n"):
        while len(line) > limit:
            if current:
                out.append(current)
                current = ""
            out.append(line[:limit])
            line = line[limit:]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > limit:
            out.append(current)
            current = line
        else:
            current = candidate
    out.append(current or "\u200b")
    return out


def only(user_id: int) -> discord.AllowedMentions:
    """Allowed mentions of a message that may ping ``user_id`` and nobody else (never
    @everyone, @here or a role, whatever a display name or a prompt says)."""
    return discord.AllowedMentions(users=[discord.Object(id=user_id)], everyone=False,
                                   roles=False, replied_user=False)


_THREADS = Renderer()


async def to_file(image: Image, renderer: Renderer | None = None) -> discord.File:
    """The image rendered off the event loop, as an attachment with its alt text."""
    png, name, alt = await (renderer or _THREADS).render(image)
    return discord.File(io.BytesIO(png), filename=name, description=alt[:DESCRIPTION_LIMIT])
