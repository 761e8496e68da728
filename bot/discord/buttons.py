"""Buttons that survive restarts: each carries what it needs in its ``custom_id``
(``DynamicItem``): a pending choice's game, version and option; a preview's key; a channel.
They run through the bot's one interaction path (``Host.run_interaction``)."""

from __future__ import annotations

import re
from typing import Any

import discord

from engine import EngineError

from .. import i18n
from ..service import DecisionInfo
from .host import host_of
from .messages import NO_PINGS, edit_response


class ChoiceButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
                   template=r"kh:ch:(?P<game>\d+):(?P<version>\d+):(?P<option>\d+)"):
    """One option of a pending decision (R37): ``kh:ch:<game>:<version>:<option>``."""

    def __init__(self, game_id: int, version: int, option: int, label: str,
                 default: bool = False) -> None:
        super().__init__(discord.ui.Button(
            label=label[:80],
            style=discord.ButtonStyle.primary if default else discord.ButtonStyle.secondary,
            custom_id=f"kh:ch:{game_id}:{version}:{option}",
        ))
        self.game_id, self.version, self.option = game_id, version, option

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> ChoiceButton:
        return cls(int(match["game"]), int(match["version"]), int(match["option"]), "")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = host_of(interaction)
        await bot.run_interaction(
            interaction,
            lambda ctx: bot.service.choose_in_game(
                self.game_id, ctx.user_id, self.option, expect_version=self.version),
        )


class ConfirmButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
                    template=r"kh:ok:(?P<key>[A-Za-z0-9_-]{16})"):
    """Confirm a previewed move: ``kh:ok:<key>``, the move itself is kept by the service
    (``hold_preview``), so the id stays short whatever the move."""

    def __init__(self, key: str, locale: str | None = None) -> None:
        super().__init__(discord.ui.Button(
            label=i18n.text("app.confirm", locale), style=discord.ButtonStyle.success,
            custom_id=f"kh:ok:{key}"))
        self.key = key

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> ConfirmButton:
        return cls(match["key"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = host_of(interaction)
        await bot.run_interaction(
            interaction, lambda ctx: bot.service.confirm_preview(self.key, ctx.user_id))


class CancelButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
                   template=r"kh:no:(?P<key>[A-Za-z0-9_-]{16})"):
    """Cancel a previewed move; if it was already confirmed, say that it was played."""

    def __init__(self, key: str, locale: str | None = None) -> None:
        super().__init__(discord.ui.Button(label=i18n.text("app.cancel", locale),
                                           style=discord.ButtonStyle.secondary,
                                           custom_id=f"kh:no:{key}"))
        self.key = key

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> CancelButton:
        return cls(match["key"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = host_of(interaction)
        try:
            with i18n.reading(interaction.locale.value):
                text = await bot.service.cancel_preview(self.key, interaction.user.id)
        except EngineError as exc:
            text = exc.message
        await edit_response(interaction, text, view=None, attachments=[],
                            allowed_mentions=NO_PINGS)


class ExpiredButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
                    template=r"kh:(?:ok:\d+:\d+:.*|no)"):
    """Confirm and Cancel buttons of the earlier form (the move in the id): they answer that
    the preview has expired instead of failing silently."""

    def __init__(self) -> None:
        super().__init__(discord.ui.Button(label="Expired", custom_id="kh:no"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> ExpiredButton:
        return cls()

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await edit_response(interaction, i18n.text("app.expired", interaction.locale.value),
                            view=None, attachments=[], allowed_mentions=NO_PINGS)


class HandButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
                 template=r"kh:hand:(?P<channel>\d+)"):
    """Shown when a player's DMs are closed: his hand, privately, in the channel."""

    def __init__(self, channel_id: int, lang: str | None = None) -> None:
        super().__init__(discord.ui.Button(label=i18n.text("app.show_hand", lang),
                                           style=discord.ButtonStyle.primary,
                                           custom_id=f"kh:hand:{channel_id}"))
        self.channel_id = channel_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> HandButton:
        return cls(int(match["channel"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = host_of(interaction)
        await bot.run_interaction(
            interaction, lambda ctx: bot.service.hand(self.channel_id, ctx.user_id))


def decision_view(decision: DecisionInfo) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for i, label in enumerate(decision.options[:25]):
        view.add_item(ChoiceButton(decision.game_id, decision.version, i, f"{i + 1}. {label}",
                                   default=i == decision.default))
    return view


ALL_BUTTONS = (ChoiceButton, ConfirmButton, CancelButton, ExpiredButton, HandButton)
