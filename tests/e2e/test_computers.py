"""End to end: a person against an easy computer through the fake Discord, a whole game: /addbot, a
restart while the computer's move waits, and the computer's moves posted with their boards."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import random
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

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


# --- the computers' worker processes (KHRONOS_AI_WORKERS, bot/ai_pool.py) --------------------


def pool_bot(fake: FakeDiscord, data: Path, guild_id: int, workers: int,
             budget: float) -> KhronosBot:
    return create_bot(Settings(
        DISCORD_TOKEN=fake.token, KHRONOS_DATA_DIR=data, KHRONOS_TEST_GUILD_ID=guild_id,
        KHRONOS_COMPUTER_DELAY=0, KHRONOS_COMPUTER_BUDGET=budget, KHRONOS_AI_WORKERS=workers))


async def until(check: Callable[[], bool], timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not check():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.02)


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def test_a_killed_worker_process_is_replaced_and_the_computer_still_plays(
        fake_discord: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The computer thinks in a worker process, not in the bot's; a worker killed while it
    thinks, and one killed while idle, are replaced and the decision is computed again (not
    the default move); closing the bot leaves no worker process."""
    fake = fake_discord
    guild = fake.add_guild()
    ch = fake.add_channel(guild, "khronos")
    alice = fake.add_user("alice")
    caplog.set_level(logging.WARNING, logger="khronos")
    async with fake.running(pool_bot(fake, tmp_path, guild.id, 1, 1.5)) as bot:
        pool = bot.ai_pool
        assert pool is not None and bot.service.ai_executor is pool
        table = Table(fake, bot, ch, [alice])
        await table.slash(alice, "create")
        await table.slash(alice, "addbot", level="normal")
        await table.slash(alice, "start")
        info, state = await table.state()
        if info.user_of(state.turn) == alice.id:
            await table.play(alice, engine.EndTurn())
        # its first decision: kill the worker while it searches (a 1.5 s budget)
        await until(lambda: pool.submitted >= 1 and bool(pool.pids()))
        [first] = pool.pids()
        assert first != os.getpid()
        await asyncio.sleep(0.3)
        os.kill(first, signal.SIGKILL)
        info, _ = await table.state()
        await computer_done(table, info.version, timeout=60)
        assert pool.replaced >= 1 and pool.submitted >= 2, "the decision was computed again"
        # an idle worker killed between two of its turns
        await until(lambda: bool(pool.pids()))
        [second] = pool.pids()
        assert second != first
        os.kill(second, signal.SIGKILL)
        await until(lambda: gone(second) or not pool.pids())
        replaced = pool.replaced
        info, state = await table.state()
        while engine.current_seat(state) is not None and state.pending is not None:
            await table.answer_choice(alice)
            info, state = await table.state()
        await table.play(alice, engine.EndTurn())
        info, _ = await table.state()
        await computer_done(table, info.version, timeout=60)
        assert pool.replaced > replaced
        workers = pool.pids()
        assert workers
    assert bot.ai_pool is None
    assert all(gone(pid) for pid in workers), "closing the bot stops its worker processes"
    assert not [p for p in multiprocessing.active_children() if p.pid in workers]
    said = [r.getMessage() for r in caplog.records]
    assert not any("could not decide" in m for m in said), "it never fell back to the default"
    assert any("worker process died" in m for m in said)


async def test_ai_workers_0_thinks_in_a_thread(fake_discord: FakeDiscord,
                                                tmp_path: Path) -> None:
    fake = fake_discord
    guild = fake.add_guild()
    async with fake.running(pool_bot(fake, tmp_path, guild.id, 0, 0)) as bot:
        assert bot.ai_pool is None and bot.service.ai_executor is None
