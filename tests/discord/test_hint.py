"""/hint end to end through the fake Discord: acknowledged at once and privately, the plans sent
after the search (which runs in the bot's worker pool), in the asker's language, within one
message; refused privately once a keeper turns hints off; the count kept on the seat; every
request body as Discord's OpenAPI description (shared/discord-spec) accepts it."""

from __future__ import annotations

import asyncio
from concurrent.futures import Executor

import pytest

import ai
import engine
from ai.pool import ThinkPool
from bot import i18n
from bot.discord.app import KhronosBot
from bot.service import hints as hints_module
from bot.service import is_computer
from tests.discord.conftest import Scene, all_sent
from tests.discord.discord_spec import findings
from tests.fakediscord.models import FakeInteraction, FakeUser

DEFERRED = 5  # DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: "Bot is thinking…"


async def alices_turn(bot: KhronosBot, channel_id: int, timeout: float = 30.0) -> None:
    """Wait until the computer has played and the game waits for alice."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        info, state = await bot.service.snapshot(channel_id)
        seat = engine.current_seat(state)
        if seat is not None and not is_computer(info.user_of(seat)) and state.pending is None:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the computer did not play")


async def ask(scene: Scene, user: FakeUser) -> FakeInteraction:
    ia = await scene.fake.slash(user, scene.ch, "hint", options={})
    ack = await ia.wait_ack()
    assert ack.type == DEFERRED and ack.ephemeral, "acknowledged at once, privately"
    await ia.wait_message(timeout=30)
    return ia


async def test_hint_in_discord(scene: Scene, monkeypatch: pytest.MonkeyPatch) -> None:
    fake, ch = scene.fake, scene.ch
    alice = fake.add_user("alice")
    executors: list[Executor | None] = []
    real = ai.advise

    async def spy(view: engine.PlayerView, level: ai.Level | str, budget_s: float, seed: int,
                  executor: Executor | None = None) -> list[ai.Hint]:
        executors.append(executor)
        return await real(view, level, budget_s, seed, executor)

    monkeypatch.setattr(hints_module, "advise", spy)
    bot = scene.bot(KHRONOS_COMPUTER_DELAY=0, KHRONOS_COMPUTER_BUDGET=0, KHRONOS_AI_WORKERS=1)
    async with fake.running(bot):
        await scene.slash(alice, "create", players=2, bots=1, level="hard")
        await alices_turn(bot, ch.id)
        await all_sent(bot)
        before = len(fake.channel_messages(ch))
        ia = await ask(scene, alice)
        [answer] = ia.messages
        assert answer.ephemeral and len(answer.content) <= 2000
        assert answer.content.startswith(i18n.text("hint.header", "en"))
        assert "**1.**" in answer.content and "Costs " in answer.content
        assert answer.notified_user_ids() == []
        assert len(fake.channel_messages(ch)) == before, "nothing said in the channel"
        assert len(executors) == 1 and isinstance(executors[0], ThinkPool)
        assert executors[0] is bot.service.ai_executor  # the worker pool, not the event loop

        alice.locale = "fr"  # his client's language: the plans in French
        ia = await ask(scene, alice)
        assert ia.messages[0].content.startswith(i18n.text("hint.header", "fr"))
        assert "Coût : " in ia.messages[0].content

        await scene.slash(alice, "game settings", hints=False)
        ia = await ask(scene, alice)
        [refused] = ia.messages
        assert refused.ephemeral and refused.content == i18n.text("hint.off", "fr")
        info = await bot.service.info(ch.id)
        assert [s.hints for s in info.seats if s.user_id == alice.id] == [2]
    answers = [r for r in fake.requests if r["path"].startswith(("/webhooks/", "/interactions/"))]
    assert answers and findings(answers) == []  # what Discord's OpenAPI checker accepts
    assert findings(fake.requests) == []
