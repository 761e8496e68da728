"""Delivery of the outbox to Discord: what the service committed (posts, pings, DMs) sent in
order, with a fallback for each permanent refusal."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import aiohttp
import discord

from .. import i18n
from ..service import when
from ..service.outbox import Delivery, RetryLater, Stopped, Undeliverable
from .buttons import HandButton, decision_view
from .host import Host
from .messages import NO_PINGS, chunks, edit, only, send, to_file
from .table import TableMessages


async def channel_of(bot: Host, channel_id: int) -> discord.abc.Messageable:
    """The channel (or thread) a game lives in; ``Undeliverable`` if it cannot take messages."""
    channel = bot.get_channel(channel_id) or await bot.fetch_channel(channel_id)
    if not isinstance(channel, discord.abc.Messageable):
        raise Undeliverable(f"channel {channel_id} cannot receive messages")
    return channel


@contextlib.contextmanager
def cut_by_stop(bot: Host) -> Iterator[None]:
    """Whatever fails once the bot's connection to Discord is closed or closing (its stop:
    discord.py's ``is_closed()`` is true from the start of ``close``) is ``Stopped``: a
    request cut by the close, or one started after it ("Session is closed"), says nothing
    about the row, which the next process sends (docs/discord.md, "Stopping")."""
    try:
        yield
    except Exception as exc:
        if isinstance(exc, Stopped) or not bot.is_closed():
            raise
        raise Stopped(f"{type(exc).__name__}: {exc}") from exc


class DiscordTransport:
    """Sends outbox rows to Discord, with the fallbacks of a permanent refusal:

    - a post whose image may not be attached (403 / 50013, no Attach Files): the text with the
      image's alt text, and the channel is told once per game which permission is missing;
    - a DM to closed DMs (403 / 50007): the channel is told once per game and player (stored),
      with a "Show my hand" button; a choice goes to the channel, mentioning only the chooser;
      a reminder or warning posts its ``fallback`` sentence, mentioning only him;
    - a server error, a rate limit or a network failure: ``RetryLater`` (the deliverer backs
      off); anything else refused: ``Undeliverable``; any failure once the bot's connection
      is closed or closing (its stop): ``Stopped`` (``cut_by_stop``: the row is left as is).
    A ``table`` row is the turn's table message, posted or edited (``table.TableMessages``);
    a ``hand`` DM during its player's turn edits that turn's hand DM, which his "your turn"
    DM opened.
    Every message carries explicit allowed mentions and the row's nonce (``enforce_nonce``)."""

    def __init__(self, bot: Host) -> None:
        self.bot = bot
        self.tables = TableMessages(bot)

    async def send(self, item: Delivery) -> str:
        with cut_by_stop(self.bot):
            return await self._send(item)

    async def _send(self, item: Delivery) -> str:
        try:
            if item.kind == "post":
                return await self._post(item)
            if item.kind == "table":
                return await self.tables.deliver(item, await self._channel(item.channel_id))
            if item.kind == "ping":
                assert item.user_id is not None
                channel = await self._channel(item.channel_id)
                await send(channel, f"<@{item.user_id}> {item.text}",
                           allowed_mentions=only(item.user_id), nonce=item.nonce)
                return "sent"
            if item.kind == "direct":
                return await self._direct(item)
        except (discord.DiscordServerError, discord.RateLimited, aiohttp.ClientError,
                TimeoutError, ConnectionError) as exc:
            raise RetryLater(f"{type(exc).__name__}: {exc}") from exc
        except discord.HTTPException as exc:
            if exc.status == 429 or exc.status >= 500:
                raise RetryLater(f"HTTP {exc.status}") from exc
            raise Undeliverable(f"HTTP {exc.status} code {exc.code}: {exc.text}") from exc
        raise Undeliverable(f"unknown row kind {item.kind!r}")

    async def _channel(self, channel_id: int) -> discord.abc.Messageable:
        return await channel_of(self.bot, channel_id)

    async def _once(self, game_id: int, user_id: int, kind: str) -> bool:
        async with self.bot.service.storage.write() as tx:
            return await tx.notice_once(game_id, user_id, kind, self.bot.service.clock())

    async def _post(self, item: Delivery) -> str:
        channel = await self._channel(item.channel_id)
        text = item.text
        if item.late:
            text = i18n.text("app.delayed", item.lang, when=when(item.created_at)) + "\n" + text
        parts = chunks(text)
        for i, part in enumerate(parts[:-1]):
            await send(channel, part, allowed_mentions=NO_PINGS, nonce=f"{item.nonce}p{i}")
        if item.image is None:
            await send(channel, parts[-1], allowed_mentions=NO_PINGS, nonce=item.nonce)
            return "sent"
        file = await to_file(item.image, self.bot.renderer)
        try:
            await send(channel, parts[-1], file=file, allowed_mentions=NO_PINGS,
                       nonce=item.nonce)
            return "sent"
        except discord.Forbidden as exc:
            if exc.code != 50013:
                raise
        # no Attach Files here: the same words, and the picture described
        described = parts[-1] + "\n" + i18n.text(
            "app.image", item.lang,
            alt=file.description or i18n.text("app.image_boards", item.lang))
        for i, part in enumerate(chunks(described)):
            await send(channel, part, allowed_mentions=NO_PINGS, nonce=f"{item.nonce}t{i}")
        if await self._once(item.game_id, 0, "missing_attach_files"):
            await send(channel, i18n.text("app.no_attach", item.lang), allowed_mentions=NO_PINGS)
        return "text-only"

    async def _direct(self, item: Delivery) -> str:
        assert item.user_id is not None
        user = self.bot.get_user(item.user_id) or await self.bot.fetch_user(item.user_id)
        kwargs: dict[str, Any] = {"allowed_mentions": NO_PINGS}
        if item.image is not None:
            kwargs["file"] = await to_file(item.image, self.bot.renderer)
        if item.decision is not None:
            kwargs["view"] = decision_view(item.decision)
        text = item.text
        if str(item.channel_id) not in text:
            text = text + "\n" + i18n.text("app.game_in", item.lang,
                                            channel=f"<#{item.channel_id}>")
        try:
            if item.turn is not None and item.direct_kind == "hand":  # his turn's hand DM
                edited = await self._edit_hand(item, user, text, kwargs)
                if edited:
                    return "edited"
            message = await send(user, text, nonce=item.nonce, **kwargs)
            if item.turn is not None:  # "your turn" opens the turn's hand DM, edited later
                await self._keep_hand(item, message)
            return "sent"
        except discord.Forbidden as exc:
            if exc.code not in (50007, 50278):  # cannot send messages to this user
                raise
        return await self._dm_closed(item)

    @staticmethod
    def _hand_key(item: Delivery) -> str:
        return f"hand:{item.turn}:{item.user_id}"

    async def _edit_hand(self, item: Delivery, user: discord.User, text: str,
                         kwargs: dict[str, Any]) -> bool:
        """Edit the player's hand DM of this turn, if it was sent; False if there is none
        (or it was deleted): a new DM then."""
        async with self.bot.service.storage.read() as q:
            living = await q.living_message(item.game_id, self._hand_key(item))
        if living is None or living.message_id is None:
            return False
        dm = await user.create_dm()
        files = [kwargs["file"]] if "file" in kwargs else []
        try:
            await edit(dm.get_partial_message(living.message_id), text, attachments=files,
                       allowed_mentions=NO_PINGS)
        except discord.NotFound:
            return False
        return True

    async def _keep_hand(self, item: Delivery, message: discord.Message) -> None:
        async with self.bot.service.storage.write() as tx:
            await tx.keep_living_message(
                item.game_id, self._hand_key(item), channel_id=message.channel.id,
                message_id=message.id, layout=False, now=self.bot.service.clock())

    async def _dm_closed(self, item: Delivery) -> str:
        assert item.user_id is not None
        channel = await self._channel(item.channel_id)
        uid = item.user_id
        if item.direct_kind in ("reminder", "deadline_warning"):
            # the service sets ``fallback`` on the turn's first reminder only: once a turn
            if item.fallback is not None:
                await send(channel, f"<@{uid}> {item.fallback}",
                           allowed_mentions=only(uid), nonce=f"{item.nonce}f")
            return "dm-closed"
        if item.decision is not None:
            # the game waits for him: the choice goes to the channel, usable by him alone
            await send(channel, f"<@{uid}> {item.decision.prompt}",
                       view=decision_view(item.decision), allowed_mentions=only(uid),
                       nonce=f"{item.nonce}f")
        if await self._once(item.game_id, uid, "dm_closed"):
            view = discord.ui.View(timeout=None)
            view.add_item(HandButton(item.channel_id, item.lang))
            name = item.name or i18n.text("app.a_player", item.lang)
            await send(channel, i18n.text("app.dm_closed", item.lang, name=name),
                       view=view, allowed_mentions=NO_PINGS)
        return "dm-closed"
