"""End to end: a person against an easy computer through the fake Discord, a whole game: /addbot, a
restart while the computer's move waits, and the computer's moves posted with their boards."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import engine
from bot.discord_app import KhronosBot, create_bot
from bot.service import MARK, TimerKind, is_computer
from bot.settings import Settings
from bot.storage import Storage
from tests.e2e.test_bot_game import Table, decodes, pick
from tests.fakediscord.fake import FakeDiscord


def make_bot(fake: FakeDiscord, data: Path, guild_id: int, delay: float) -> KhronosBot:
    return create_bot(Settings(
        DISCORD_TOKEN=fake.token, KHRONOS_DATA_DIR=data, KHRONOS_TEST_GUILD_ID=guild_id,
        KHRONOS_COMPUTER_DELAY=delay, KHRONOS_COMPUTER_BUDGET=0))


async def computer_done(table: Table, version: int, timeout: float = 20.0) -> None:
    """Wait until the computer has acted (the game's version moved on)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        info, state = await table.state()
        seat = engine.current_seat(state)
        if info.version != version and (seat is None or not is_computer(info.user_of(seat))):
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the computer did not play")


async def test_a_person_against_a_computer(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    guild = fake.add_guild()
    ch = fake.add_channel(guild, "khronos")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    rng = random.Random(5)

    # --- lobby, and the first turns with a computer that waits ten minutes ---------------
    async with fake.running(make_bot(fake, tmp_path, guild.id, 600.0)) as bot:
        table = Table(fake, bot, ch, [alice])
        await table.slash(alice, "create")
        ia = await table.slash(bob, "addbot", level="easy")
        assert ia.messages[0].ephemeral and "creator or a server admin" in ia.messages[0].content
        ia = await table.slash(alice, "start")  # alone: refused, and nothing changes
        assert ia.messages[0].ephemeral and "/addbot" in ia.messages[0].content
        await table.slash(alice, "addbot", level="easy")
        info = await bot.service.info(ch.id)
        assert [s.name for s in info.seats] == ["alice", "Computer 1 (easy)"]
        await table.slash(alice, "start")
        info, state = await table.state()
        if info.user_of(state.turn) == alice.id:
            await table.play(alice, engine.EndTurn())
        info, state = await table.state()
        assert info.user_of(engine.current_seat(state)) == -1
        waiting = info.version
        await asyncio.sleep(0.3)
        assert (await table.state())[0].version == waiting, "it waits its delay"
    # --- the bot stops during the computer's turn; when it starts, the timer is due --------
    storage = await Storage.in_dir(tmp_path).open()
    try:
        async with storage.write() as tx:
            [timer] = await tx.timers(info.game_id)
            assert timer.kind == TimerKind.COMPUTER and timer.user_id == -1
            await tx.reschedule_timer(timer.id, 0.0)
    finally:
        await storage.close()
    async with fake.running(make_bot(fake, tmp_path, guild.id, 0.0)) as bot:
        table = Table(fake, bot, ch, [alice])
        await computer_done(table, waiting)
        plays = 0
        for _ in range(400):  # the person plays by slash commands to the end of the game
            info, state = await table.state()
            if state.over:
                break
            seat = engine.current_seat(state)
            assert seat is not None and info.user_of(seat) == alice.id
            if state.pending is not None:
                await table.answer_choice(alice)
            else:
                action = pick(state, seat, rng, plays)
                await table.play(alice, action)
                plays = 0 if action.kind == "end_turn" else plays + 1
            info2, state2 = await table.state()
            now = engine.current_seat(state2)
            if now is not None and is_computer(info2.user_of(now)):
                await computer_done(table, info2.version)
        info, state = await table.state()
        assert state.over and state.winners, "the game reached its final scores"
        async with bot.service.storage.read() as q:
            rows = [await q.outbox_row(i) for i in range(1, 5000)]
    mine = [m for m in fake.channel_messages(ch) if m.content.startswith(MARK)]
    moves = [m for m in mine if m.attachments]
    assert len(moves) >= 3, "the computer's moves are posted with the boards"
    assert all(decodes(m) and m.notified_user_ids() == [] for m in moves[:3])
    sent = [r for r in rows if r is not None]
    assert sent and all(r.user_id is None or r.user_id > 0 for r in sent), "no DM to a computer"
    assert any(r.kind == "direct" and r.user_id == alice.id for r in sent)
