"""The turn's table message in Discord (docs/discord.md, "The table"): one message per turn,
posted when the turn opens (mentioning only the player to act: the one notification of the
turn) and edited after every move (edits notify nobody).

It is a Components V2 layout (``ui.LayoutView``): a ``Container`` in the player's colour with
text displays (the header: round, whose turn, the deadline; the turn's moves in words; what
the game waits for), a media gallery with the picture made for the chat preview
(``render.table_png``, its alt text as the item's description) and an action row of three
buttons that survive restarts: My hand, Boards, Status. Where the layout cannot be sent (no
Attach Files, or Discord refuses it) the turn is a plain message instead, said once.

Where a turn's message is, is stored (``living_messages``): the id once known, and a row
without an id while its first post is on its way, so that after a crash the message is looked
for in the channel's recent history (its buttons carry the game and the turn) before anything
is posted again; a message someone deleted is posted anew, without a ping.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import discord

import render.style

from .. import i18n
from ..service import Table, when
from ..service.outbox import Delivery, Undeliverable
from ..storage.api import LivingMessageRow
from .host import Host, host_of
from .messages import (
    DESCRIPTION_LIMIT,
    MESSAGE_LIMIT,
    NO_PINGS,
    TEXT_DISPLAY_LIMIT,
    edit,
    fit,
    only,
    send,
)

PENDING_LIMIT = 1200  # the "waiting for" line (a choice's question) at most
HISTORY_LOOKUP = 50  # recent channel messages searched for a post a crash left unrecorded


# --- the buttons --------------------------------------------------------------------------------


class TableButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                  template=r"kh:tb:(?P<what>hand|boards|status):(?P<game>\d+):(?P<turn>\d+\.\d+)"):
    """My hand, Boards or Status on a turn's table message: ``kh:tb:<what>:<game>:<turn>``
    (the turn lets a message a crash left unrecorded be found again). Each answers privately,
    about the game of the message (not the channel's next one)."""

    LABELS = {"hand": "app.table_hand", "boards": "app.table_boards",
              "status": "app.table_status"}

    def __init__(self, what: str, game_id: int, turn: str, lang: str | None = None) -> None:
        style = discord.ButtonStyle.primary if what == "hand" else discord.ButtonStyle.secondary
        super().__init__(discord.ui.Button(
            label=i18n.text(self.LABELS[what], lang), style=style,
            custom_id=f"kh:tb:{what}:{game_id}:{turn.replace(':', '.')}"))
        self.what, self.game_id = what, game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> TableButton:
        return cls(match["what"], int(match["game"]), match["turn"].replace(".", ":"))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = host_of(interaction)
        service = bot.service
        if self.what == "hand":
            await bot.run_interaction(
                interaction, lambda ctx: service.table_hand(self.game_id, ctx.user_id))
        elif self.what == "boards":
            await bot.run_interaction(interaction, lambda ctx: service.table_boards(self.game_id))
        else:
            await bot.run_interaction(interaction, lambda ctx: service.table_status(self.game_id))


def buttons(game_id: int, turn: str, lang: str) -> list[TableButton]:
    return [TableButton(what, game_id, turn, lang) for what in ("hand", "boards", "status")]


def marker(game_id: int, turn: str) -> str:
    """The custom id by which a turn's message is recognised in the channel's history."""
    return f"kh:tb:status:{game_id}:{turn.replace(':', '.')}"


# --- the words ---------------------------------------------------------------------------------


def moves_text(lines: Sequence[str], budget: int, lang: str) -> str:
    """The turn's moves within ``budget`` characters: the latest that fit, whole, after a
    count of the earlier ones (/history has them all)."""
    if not lines:
        return i18n.text("table.nothing_yet", lang)
    kept: list[str] = []
    used = 0
    for line in reversed(lines):
        reserve = 0 if len(kept) + 1 == len(lines) else 40  # room for the count
        if used + len(line) + 1 > budget - reserve:
            break
        kept.append(line)
        used += len(line) + 1
    if not kept:  # one move says more than the whole message may: its beginning
        kept = [fit(lines[-1], budget - 40)]
    dropped = len(lines) - len(kept)
    text = "\n".join(reversed(kept))
    return (i18n.text("table.earlier", lang, count=dropped) + "\n" + text) if dropped else text


def texts(table: Table, limit: int, lang: str, extra: str = "") -> tuple[str, str, str]:
    """The header, the moves and the pending line, together (with ``extra``) within
    ``limit`` characters."""
    pending = fit(table.pending, PENDING_LIMIT)
    budget = limit - len(table.header) - len(pending) - len(extra) - 8
    return table.header, moves_text(table.lines, budget, lang), pending


def colour(seat: int) -> int:
    """The seat's colour (the images' palette) as Discord's accent colour."""
    red, green, blue = render.style.player_look(seat).colour
    return (red << 16) | (green << 8) | blue


# --- the message -------------------------------------------------------------------------------


def layout(table: Table, game_id: int, lang: str, file: discord.File | None,
           alt: str) -> discord.ui.LayoutView:
    """The table as a Components V2 layout; without ``file`` (no Attach Files) the picture is
    its alt text (nothing, when there is no picture)."""
    extra = "" if file is not None or not alt else i18n.text("app.image", lang, alt=alt)
    header, moves, pending = texts(table, TEXT_DISPLAY_LIMIT, lang, extra)
    box: discord.ui.Container[Any] = discord.ui.Container(accent_colour=colour(table.seat))
    box.add_item(discord.ui.TextDisplay(header))
    box.add_item(discord.ui.TextDisplay(moves))
    if file is not None:
        box.add_item(discord.ui.MediaGallery(discord.MediaGalleryItem(
            file, description=alt[:DESCRIPTION_LIMIT] or None)))
    elif extra:
        box.add_item(discord.ui.TextDisplay(extra))
    box.add_item(discord.ui.TextDisplay(pending))
    box.add_item(discord.ui.ActionRow(*buttons(game_id, table.turn, lang)))
    view = discord.ui.LayoutView(timeout=None)
    view.add_item(box)
    return view


def plain(table: Table, game_id: int, lang: str, alt: str | None) -> tuple[str, discord.ui.View]:
    """The table as a plain message (the fallback): its text within 2,000 characters (with
    the picture's alt text when it cannot be attached) and the three buttons."""
    extra = "" if alt is None else i18n.text("app.image", lang, alt=alt)
    header, moves, pending = texts(table, MESSAGE_LIMIT, lang, extra)
    text = "\n".join(part for part in (header, moves, pending, extra) if part)
    view = discord.ui.View(timeout=None)
    for button in buttons(game_id, table.turn, lang):
        view.add_item(button)
    return fit(text, MESSAGE_LIMIT), view


def _custom_ids(components: Sequence[Any]) -> list[str]:
    """Every custom id in a message's components (rows, containers, sections)."""
    found: list[str] = []
    for comp in components:
        custom_id = getattr(comp, "custom_id", None)
        if isinstance(custom_id, str):
            found.append(custom_id)
        found += _custom_ids(list(getattr(comp, "children", []) or []))
        accessory = getattr(comp, "accessory", None)
        if accessory is not None:
            found += _custom_ids([accessory])
    return found


class TableMessages:
    """Posts and edits the turns' table messages for the transport (``table`` rows)."""

    def __init__(self, bot: Host) -> None:
        self.bot = bot

    async def deliver(self, item: Delivery, channel: Any) -> str:
        """Make the turn's message say ``item.table``: edit it if the turn has one, else post
        it (mentioning the player only when the turn was not announced before)."""
        table = item.table
        assert table is not None
        if item.late:  # the bot could not post when it happened: said under the header
            item = replace(item, table=replace(table, header=table.header + "\n" + i18n.text(
                "app.delayed", item.lang, when=when(item.created_at))))
        key = f"table:{table.turn}"
        living = await self._living(item.game_id, key)
        if living is not None and living.message_id is None:  # a post may have gone out
            found = await self._find(channel, item.game_id, table.turn)
            if found is not None:
                living = await self._keep(item, key, found.id, bool(found.flags.components_v2))
        png, alt = await self._picture(item)
        if living is not None and living.message_id is not None:
            try:
                return await self._edit(channel, living, item, png, alt)
            except discord.NotFound:  # deleted: a new message, the turn already announced
                return await self._post(channel, item, key, png, alt, ping=False)
        if living is None:  # recorded first: a crash after the post cannot make a second
            await self._keep(item, key, None, True)
        return await self._post(channel, item, key, png, alt, ping=True)

    async def _picture(self, item: Delivery) -> tuple[bytes | None, str]:
        """The table's picture and its alt text; none when its state could not be read back
        (the message then goes without it)."""
        if item.image is None:
            return None, ""
        png, _, alt = await self.bot.renderer.render(item.image)
        return png, alt

    # --- storage ---

    async def _living(self, game_id: int, key: str) -> LivingMessageRow | None:
        async with self.bot.service.storage.read() as q:
            return await q.living_message(game_id, key)

    async def _keep(self, item: Delivery, key: str, message_id: int | None,
                    layout_used: bool) -> LivingMessageRow:
        now = self.bot.service.clock()
        async with self.bot.service.storage.write() as tx:
            await tx.keep_living_message(item.game_id, key, channel_id=item.channel_id,
                                         message_id=message_id, layout=layout_used, now=now)
        return LivingMessageRow(item.game_id, key, item.channel_id, message_id, layout_used, now)

    async def _once(self, game_id: int, kind: str) -> bool:
        async with self.bot.service.storage.write() as tx:
            return await tx.notice_once(game_id, 0, kind, self.bot.service.clock())

    async def _layout_refused(self, game_id: int) -> bool:
        """Whether Discord refused this game's layout (its later turns are plain messages)."""
        row = await self._living(game_id, "layout")
        return row is not None and not row.layout

    async def _find(self, channel: Any, game_id: int, turn: str) -> discord.Message | None:
        """The turn's message among the channel's recent ones (a post whose id a crash left
        unrecorded), recognised by its buttons."""
        wanted = marker(game_id, turn)
        me = self.bot.user.id if self.bot.user is not None else None
        try:
            async for message in channel.history(limit=HISTORY_LOOKUP):
                if message.author.id == me and wanted in _custom_ids(message.components):
                    return message  # type: ignore[no-any-return]
        except discord.Forbidden:  # no Read Message History: the nonce is all there is
            return None
        return None

    # --- Discord ---

    @staticmethod
    def _mentions(table: Table, ping: bool) -> discord.AllowedMentions:
        return only(table.user_id) if ping and table.user_id is not None else NO_PINGS

    @staticmethod
    def _file(png: bytes | None, alt: str) -> discord.File | None:
        if png is None:
            return None
        return discord.File(io.BytesIO(png), filename="table.png",
                            description=alt[:DESCRIPTION_LIMIT] or None)

    async def _post(self, channel: Any, item: Delivery, key: str, png: bytes | None, alt: str,
                    *, ping: bool) -> str:
        table = item.table
        assert table is not None
        mentions = self._mentions(table, ping)
        if not await self._layout_refused(item.game_id):
            file = self._file(png, alt)
            try:
                message = await channel.send(
                    view=layout(table, item.game_id, item.lang, file, alt),
                    files=[file] if file else [], allowed_mentions=mentions, nonce=item.nonce)
                await self._keep(item, key, message.id, True)
                return "sent"
            except discord.Forbidden as exc:
                if exc.code != 50013:
                    raise
                return await self._post_plain(channel, item, key, None, alt, mentions)
            except discord.HTTPException as exc:
                if exc.status != 400:
                    raise
                await self._keep(item, "layout", None, False)  # said once: plain from now on
                await send(channel, i18n.text("app.no_layout", item.lang,
                                              reason=fit(f"{exc.code} {exc.text}", 200)),
                           allowed_mentions=NO_PINGS)
        return await self._post_plain(channel, item, key, png, alt, mentions)

    async def _post_plain(self, channel: Any, item: Delivery, key: str, png: bytes | None,
                          alt: str, mentions: discord.AllowedMentions) -> str:
        """The table as today's plain message: with its picture, or described when files may
        not be attached (the channel is told once which permission is missing)."""
        table = item.table
        assert table is not None
        text, view = plain(table, item.game_id, item.lang, None if png or not alt else alt)
        kwargs: dict[str, Any] = {"view": view, "allowed_mentions": mentions,
                                  "nonce": f"{item.nonce}t"}
        file = self._file(png, alt)
        if file is not None:
            kwargs["file"] = file
        try:
            message = await send(channel, text, **kwargs)
        except discord.Forbidden as exc:
            if exc.code != 50013 or png is None:
                raise Undeliverable(f"HTTP {exc.status} code {exc.code}: {exc.text}") from exc
            return await self._post_plain(channel, item, key, None, alt, mentions)
        await self._keep(item, key, message.id, False)
        if png is None and alt:  # a picture there was, described
            if await self._once(item.game_id, "missing_attach_files"):
                await send(channel, i18n.text("app.no_attach", item.lang),
                           allowed_mentions=NO_PINGS)
            return "text-only"
        return "plain"

    async def _edit(self, channel: Any, living: LivingMessageRow, item: Delivery,
                    png: bytes | None, alt: str) -> str:
        table = item.table
        assert table is not None and living.message_id is not None
        message = channel.get_partial_message(living.message_id)
        mentions = self._mentions(table, True)  # an edit notifies nobody; he stays mentioned
        if living.layout:
            file = self._file(png, alt)
            try:
                await message.edit(view=layout(table, item.game_id, item.lang, file, alt),
                                   attachments=[file] if file else [], allowed_mentions=mentions)
                return "edited"
            except discord.Forbidden as exc:  # Attach Files taken away: the alt text
                if exc.code != 50013:
                    raise
                await message.edit(view=layout(table, item.game_id, item.lang, None, alt),
                                   attachments=[], allowed_mentions=mentions)
                return "edited text-only"
        text, view = plain(table, item.game_id, item.lang, None)
        file = self._file(png, alt)
        try:
            await edit(message, text, view=view, attachments=[file] if file else [],
                       allowed_mentions=mentions)
        except discord.Forbidden as exc:
            if exc.code != 50013:
                raise
            text, view = plain(table, item.game_id, item.lang, alt)
            await edit(message, text, view=view, attachments=[], allowed_mentions=mentions)
            return "edited text-only"
        return "edited"


__all__ = ["TableButton", "TableMessages", "layout", "marker", "moves_text", "plain"]
