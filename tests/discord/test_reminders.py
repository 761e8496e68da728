"""Durable timers end to end: the real bot against the fake Discord, with a controllable clock
in the service. Reminder DMs (channel link, Discord timestamp, the opponent's moves, the hand
image), one channel mention for closed DMs, a restart with timers due while the bot was down,
a deadline warning and the automatic move, and the keepers' commands (/replace, /mygames)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import engine
from bot.discord.app import KhronosBot, create_bot
from bot.service import HOUR, GameService
from bot.settings import Settings
from bot.storage.sqlite import SqliteStorage
from tests.discord.test_bot_game import decodes
from tests.fakediscord.fake import FakeDiscord
from tests.fakediscord.models import (
    FakeChannel,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    OptionValue,
)
from tests.service.conftest import Clock


def make_bot(fake: FakeDiscord, storage: SqliteStorage, clock: Clock, data: Path,
             guild_id: int) -> KhronosBot:
    settings = Settings(DISCORD_TOKEN=fake.token, KHRONOS_DATA_DIR=data,
                        KHRONOS_TEST_GUILD_ID=guild_id)
    return create_bot(settings, service=GameService(storage, clock=clock))


async def slash(fake: FakeDiscord, user: FakeUser, ch: FakeChannel, name: str,
                **options: OptionValue | None) -> FakeInteraction:
    ia = await fake.slash(user, ch, name, options={k: v for k, v in options.items()
                                                    if v is not None})
    await ia.wait_ack()
    await ia.wait_message(timeout=10)
    return ia


async def turn_of(bot: KhronosBot, ch: FakeChannel, users: dict[int, FakeUser]) -> FakeUser:
    info, state = await bot.service.snapshot(ch.id)
    seat = engine.current_seat(state)
    assert seat is not None
    user_id = info.user_of(seat)
    assert user_id is not None
    return users[user_id]


async def fired(bot: KhronosBot, at_least: int) -> None:
    """Wait until the dispatcher has fired ``at_least`` timers and what they committed is
    delivered. The dispatcher counts a timer when it commits and delivers it in a task of its
    own, so the wait ends when the outbox has nothing left to send, never with a wall-time
    sleep."""
    assert bot.dispatcher is not None
    loop = asyncio.get_running_loop()
    end = loop.time() + 30.0
    while bot.dispatcher.fired < at_least:
        assert loop.time() < end, f"the dispatcher fired {bot.dispatcher.fired}, not {at_least}"
        await asyncio.sleep(0.02)
    while await bot.deliverer.pending_games():
        assert loop.time() < end, "what the timers said was not delivered"
        await asyncio.sleep(0.02)


def reminders(fake: FakeDiscord, user: FakeUser) -> list[FakeMessage]:
    return [m for m in fake.dms(user) if m.content.startswith("Reminder")]


async def test_reminders_closed_dms_and_a_restart(fake_discord: FakeDiscord,
                                                  tmp_path: Path) -> None:
    fake = fake_discord
    guild = fake.add_guild()
    ch1, ch2 = fake.add_channel(guild, "game-one"), fake.add_channel(guild, "game-two")
    alice, bob, dave = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("dave")
    carol = fake.add_user("carol", dms_open=False)
    users = {u.id: u for u in (alice, bob, carol, dave)}
    clock = Clock()
    storage = await SqliteStorage.in_dir(tmp_path).open()
    try:
        async with fake.running(make_bot(fake, storage, clock, tmp_path, guild.id)) as bot:
            await slash(fake, alice, ch1, "create", players=2)
            await slash(fake, bob, ch1, "join")
            await slash(fake, dave, ch2, "create", players=2)
            await slash(fake, carol, ch2, "join")
            mover = await turn_of(bot, ch1, users)
            await slash(fake, mover, ch1, "travel", age="faith")
            await slash(fake, mover, ch1, "end")
            waiter = await turn_of(bot, ch1, users)
            if await turn_of(bot, ch2, users) is not carol:
                await slash(fake, dave, ch2, "end")
            assert await turn_of(bot, ch2, users) is carol

            clock.now += 24.02 * HOUR
            assert bot.dispatcher is not None
            bot.dispatcher.wake()
            dm = await fake.wait_for_dm(waiter, lambda m: m.content.startswith("Reminder"), 10)
            assert f"https://discord.com/channels/{guild.id}/{ch1.id}" in dm.content
            assert "<t:" in dm.content and ":R>" in dm.content
            assert "Since your last move" in dm.content and "travels" in dm.content
            assert "Your hand" in dm.content and decodes(dm)  # with the hand image
            note = await fake.wait_for_message(ch2, lambda m: carol.id in m.mentioned_user_ids()
                                               and "waiting for you" in m.content, 10)
            assert note.notified_user_ids() == [carol.id] and not note.attachments
            assert reminders(fake, mover) == []

            clock.now += 24.02 * HOUR  # a second period: DM again, no second channel mention
            bot.dispatcher.wake()
            await fired(bot, 4)
            assert len(reminders(fake, waiter)) == 2
            mentions = [m for m in fake.channel_messages(ch2)
                        if "waiting for you" in m.content]
            assert len(mentions) == 1

        # the bot is down for 30 hours; on restart each due timer fires once, and each
        # game says briefly in its channel that it happened while the bot was offline
        clock.now += 30 * HOUR
        async with fake.running(make_bot(fake, storage, clock, tmp_path, guild.id)) as bot:
            await fake.wait_for_message(ch1, lambda m: "While the bot was offline" in m.content,
                                        10)
            await fired(bot, 2)
            assert len(reminders(fake, waiter)) == 3
            for ch in (ch1, ch2):
                offline = [m for m in fake.channel_messages(ch)
                           if "While the bot was offline" in m.content]
                assert len(offline) == 1 and offline[0].notified_user_ids() == []
            assert len([m for m in fake.channel_messages(ch2)
                        if "waiting for you" in m.content]) == 1
    finally:
        await storage.close()


async def test_deadline_warning_automatic_move_replace_and_mygames(fake_discord: FakeDiscord,
                                                                   tmp_path: Path) -> None:
    fake = fake_discord
    guild = fake.add_guild()
    ch = fake.add_channel(guild, "khronos")
    alice, bob, erin = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("erin")
    users = {u.id: u for u in (alice, bob, erin)}
    clock = Clock()
    storage = await SqliteStorage.in_dir(tmp_path).open()
    try:
        async with fake.running(make_bot(fake, storage, clock, tmp_path, guild.id)) as bot:
            assert {"mygames", "mute", "away", "game"} <= fake.command_names(guild)
            await slash(fake, alice, ch, "create", players=2, deadline=24)
            await slash(fake, bob, ch, "join")
            late = await turn_of(bot, ch, users)
            other = bob if late is alice else alice
            assert bot.dispatcher is not None

            clock.now += 23.05 * HOUR
            bot.dispatcher.wake()
            warn = await fake.wait_for_dm(late, lambda m: "deadline" in m.content, 10)
            assert "<t:" in warn.content and "turn ends by itself" in warn.content

            seen = len(fake.channel_messages(ch))
            clock.now += 0.97 * HOUR
            bot.dispatcher.wake()
            # the late player's turn's table says it, edited like after any move (an edit
            # notifies nobody); the next turn's table pings the other player alone
            post = await fake.wait_for_message(ch, lambda m: "Time is up" in m.text(), 10)
            assert "automatically" in post.text() and "(over)" in post.text() and decodes(post)
            assert post.pinged in ([], [late.id]), "pinged when his turn began, if ever"
            await fake.wait_for_message(ch, lambda m: m.pinged == [other.id], 10,
                                        after=fake.channel_messages(ch)[seen - 1])
            assert await turn_of(bot, ch, users) is other

            # the creator hands bob's seat to erin: erin gets the hand by DM
            ia = await slash(fake, alice, ch, "game replace", old=bob, new=erin)
            assert ia.messages[0].ephemeral
            await fake.wait_for_message(ch, lambda m: "erin takes over bob's seat" in m.content)
            hand = await fake.wait_for_dm(erin, lambda m: m.content.removeprefix(
                "It is your turn. ").startswith("Your hand"))  # his turn's, if it is his turn
            assert decodes(hand) and len(fake.dms(erin)) == 1
            refused = await slash(fake, bob, ch, "game pause")
            assert "creator or a server admin" in refused.messages[0].content

            ia = await slash(fake, erin, ch, "mygames")
            msg = ia.messages[0]
            assert msg.ephemeral and f"https://discord.com/channels/{guild.id}/{ch.id}" in (
                msg.content)
    finally:
        await storage.close()


async def test_the_timer_loop_does_not_wait_for_one_games_deliveries(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    """Two games' reminders come due; the first one's DM cannot go out (Discord holds it).
    The second game's reminder is still fired and delivered: the timer loop sends what a
    timer says in a task of its own instead of waiting for it."""
    fake = fake_discord
    guild = fake.add_guild()
    ch1, ch2 = fake.add_channel(guild, "game-one"), fake.add_channel(guild, "game-two")
    users = {u.id: u for u in (fake.add_user(n) for n in ("alice", "bob", "carol", "dave"))}
    alice, bob, carol, dave = users.values()
    clock = Clock()
    storage = await SqliteStorage.in_dir(tmp_path).open()
    try:
        async with fake.running(make_bot(fake, storage, clock, tmp_path, guild.id)) as bot:
            await slash(fake, alice, ch1, "create", players=2)
            await slash(fake, bob, ch1, "join")
            clock.now += 60  # game one's reminder comes due first
            await slash(fake, carol, ch2, "create", players=2)
            await slash(fake, dave, ch2, "join")
            stuck, waiting = await turn_of(bot, ch1, users), await turn_of(bot, ch2, users)
            fake.held_channels.add(fake.dm_channel(stuck).id)
            clock.now += 24.1 * HOUR
            assert bot.dispatcher is not None
            bot.dispatcher.wake()
            await fake.wait_for_dm(waiting, lambda m: m.content.startswith("Reminder"), 10)
            assert reminders(fake, stuck) == [], "the first game's DM is still held"
            fake.held_channels.clear()
            await fake.wait_for_dm(stuck, lambda m: m.content.startswith("Reminder"), 10)
    finally:
        await storage.close()
