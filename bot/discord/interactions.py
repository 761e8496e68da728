"""The one path of every interaction (slash command or button) and its error funnel.

``run``: acknowledge at once (a private "thinking"), read who asks and in which language, show
a preview with Confirm and Cancel when a construct or upgrade reaches beyond its own squares,
call the service, then ``deliver`` what it committed (the game's outbox rows in order, the
reply last). An ``EngineError`` becomes a private refusal; anything else is logged with a short
apology, said only when nothing was committed.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord import app_commands

from engine import EngineError

from .. import i18n
from ..commands import Context, parse_line, preview_of
from ..service import DamagedGame, Outcome
from ..service.outbox import Delivery, reply_delivery
from .buttons import CancelButton, ConfirmButton, decision_view
from .host import Host
from .messages import NO_PINGS, chunks, respond, send, text_file, to_file
from .slash import OptionRefused
from .transport import channel_of, cut_by_stop

log = logging.getLogger("khronos.discord")

Call = Callable[[Context], Awaitable[Outcome]]


def context(interaction: discord.Interaction[Any]) -> Context:
    """Who asks, where, with which rights and in which language."""
    user = interaction.user
    perms = getattr(user, "guild_permissions", None)
    is_admin = bool(perms and (perms.administrator or perms.manage_guild))
    return Context(
        channel_id=interaction.channel_id or 0,
        user_id=user.id,
        user_name=getattr(user, "display_name", None) or user.name,
        guild_id=interaction.guild_id,
        is_admin=is_admin,
        locale=interaction.locale.value,
    )


async def run(bot: Host, interaction: discord.Interaction[Any], call: Call, *,
              preview_line: str | None = None) -> None:
    """Acknowledge, run the service call, then deliver; refusals are private replies.
    The apology ("nothing was changed") is said only when the call did not commit: once
    the service returns, what it stored is delivered from the outbox whatever happens."""
    try:
        if not interaction.response.is_done():
            await interaction.response.defer(ephemeral=True, thinking=True)
        ctx = context(interaction)
        with i18n.reading(ctx.locale):  # his reply and refusals in his client's language
            await _run(bot, interaction, ctx, call, preview_line)
    except Exception as exc:
        if not bot.is_closed():
            raise
        # a send cut by the stop (its connection closed): what the command committed is in
        # the outbox for the next start, and the stop's log counts it; a failure of the
        # command itself was logged with its traceback by ``_run``
        log.debug("stopping: the answer to a command was cut (%s: %s)",
                  type(exc).__name__, exc)


async def _run(bot: Host, interaction: discord.Interaction[Any], ctx: Context, call: Call,
               preview_line: str | None) -> None:
    if bot.stopping:
        await send(interaction.followup, i18n.text("app.restarting", ctx.locale),
                   ephemeral=True, allowed_mentions=NO_PINGS)
        return
    try:
        if preview_line is not None and await _preview(bot, interaction, ctx, preview_line):
            return
        outcome = await call(ctx)
    except EngineError as exc:
        await send(interaction.followup, exc.message, ephemeral=True,
                   allowed_mentions=NO_PINGS)
        if isinstance(exc, DamagedGame) and exc.game_id is not None:
            await _tell_damaged(bot, exc.game_id, ctx.channel_id)
        return
    except Exception:
        log.exception("command failed: user=%s channel=%s command=%s", ctx.user_id,
                      ctx.channel_id, getattr(interaction.command, "name", None))
        await send(interaction.followup, i18n.text("app.apology", ctx.locale), ephemeral=True,
                   allowed_mentions=NO_PINGS)
        return
    await deliver(bot, outcome, interaction=interaction)


async def _tell_damaged(bot: Host, game_id: int, channel_id: int) -> None:
    """Say in the channel, once until it is rebuilt, that the game's saved data is damaged
    (the players need to know why the game stopped; the notice is stored)."""
    try:
        async with bot.service.storage.write() as tx:
            first = await tx.notice_once(game_id, 0, "damaged", bot.service.clock())
        if first:
            lang = await bot.service.game_language(game_id)
            channel = await channel_of(bot, channel_id)
            await send(channel, i18n.text("notice.damaged", lang), allowed_mentions=NO_PINGS)
    except Exception:
        log.exception("could not tell channel %s that game %s is damaged", channel_id, game_id)


async def _preview(bot: Host, interaction: discord.Interaction[Any], ctx: Context,
                   line: str) -> bool:
    """Show what a construct or upgrade will set off, with Confirm and Cancel (R23-R37).
    Returns False when the move has no consequence beyond its own squares."""
    parsed = parse_line(line)
    seen = await preview_of(bot.service, ctx, parsed.name, parsed.args)
    if seen is None:
        return False
    key = await bot.service.hold_preview(seen.info.game_id, seen.info.version, ctx.user_id,
                                         seen.action)
    buttons = discord.ui.View(timeout=None)
    buttons.add_item(ConfirmButton(key, ctx.locale))
    buttons.add_item(CancelButton(key, ctx.locale))
    await send(interaction.followup, i18n.text("app.preview", ctx.locale) + "\n" + seen.text,
               file=await to_file(seen.image, bot.renderer), view=buttons, ephemeral=True,
               allowed_mentions=NO_PINGS)
    return True


async def deliver(bot: Host, outcome: Outcome, *,
                  interaction: discord.Interaction[Any] | None = None) -> None:
    """Send what the service committed: the game's outbox rows in order (public posts,
    the turn ping, DMs), and last the reply to ``interaction``. A delivery failure is
    logged and retried by the outbox; it never tells the player that nothing happened.
    Then wake the timer dispatcher: the command may have created an earlier timer."""
    try:
        game = outcome.game
        if game is not None and outcome.outbox:
            if outcome.reply_row is not None and interaction is not None:
                bot.deliverer.expect_reply(
                    outcome.reply_row, functools.partial(_reply_row, bot, interaction))
            try:
                await bot.deliverer.flush(game.game_id)
            except Exception:
                if not bot.is_closed():  # else the stop closed what it used: left as it is
                    log.exception("delivery of game %s failed; the outbox will retry",
                                  game.game_id)
            if outcome.reply_row is not None:
                await bot.deliverer.reply_now(outcome.reply_row)
            elif interaction is not None:  # nothing to say to him but that it is done
                await reply(bot, interaction, reply_delivery(outcome))
        elif interaction is not None:
            await reply(bot, interaction, reply_delivery(outcome))
    finally:
        if bot.dispatcher is not None and interaction is not None:
            bot.dispatcher.wake()


async def _reply_row(bot: Host, interaction: discord.Interaction[Any], item: Delivery) -> None:
    """A reply row's sender: ``Stopped`` when the stop cut it (the row is left as it was)."""
    with cut_by_stop(bot):
        await reply(bot, interaction, item)


async def reply(bot: Host, interaction: discord.Interaction[Any], item: Delivery) -> None:
    """The answer to the command's author, after everything else of his command."""
    text = item.text or i18n.text("app.done", item.lang)
    kwargs: dict[str, Any] = {"ephemeral": item.ephemeral, "allowed_mentions": NO_PINGS}
    files = [await to_file(item.image, bot.renderer)] if item.image is not None else []
    if item.file is not None:  # a file that is not an image (a game's record)
        files.append(text_file(item.file.name, item.file.text))
    if files:
        kwargs["files"] = files
    decision = item.decision
    if decision is not None and decision.user_id == interaction.user.id:
        kwargs["view"] = decision_view(decision)
        text = f"{text}\n{decision.prompt}" if item.text else decision.prompt
    *first, last = chunks(text)
    for part in first:
        await send(interaction.followup, part, ephemeral=item.ephemeral,
                   allowed_mentions=NO_PINGS)
    await send(interaction.followup, last, **kwargs)


async def on_tree_error(interaction: discord.Interaction[Any],
                        error: app_commands.AppCommandError) -> None:
    """The funnel of errors raised before a command's callback runs (an option refused). It
    says the bot's own sentences only: discord.py's messages repeat the value as typed,
    which may be thousands of characters long."""
    original = getattr(error, "original", error)
    locale = interaction.locale.value
    if isinstance(original, EngineError):
        message = original.message
    elif isinstance(error, OptionRefused):  # the table's refusal, with a short excerpt
        message = i18n.text("app.option", locale, error=error.args[0])
    elif isinstance(error, app_commands.TransformerError):  # discord.py's own conversion
        message = i18n.text("app.option", locale, error=i18n.text("app.unread", locale))
    elif isinstance(error, app_commands.CommandSignatureMismatch):
        message = i18n.text("app.outdated", locale)
    else:
        log.error("unexpected error in a command", exc_info=original)
        message = i18n.text("app.apology", locale)
    if interaction.response.is_done():
        await send(interaction.followup, message, ephemeral=True, allowed_mentions=NO_PINGS)
    else:
        await respond(interaction, message, ephemeral=True, allowed_mentions=NO_PINGS)
