"""SIGTERM while one of the process's own deliveries is under way, through the real entry point
(``python -m bot`` against the fake Discord, as ``test_stop_and_restart.py``).

The game's outbox has a few rows: the first player ended his turn (the next turn's table
message is being posted, with its DM after it) and the second player ended his turn too (his
rows, among them a new version of that same table message, wait behind the first). The fake
holds the post of that table message open when the signal comes. Who is sending it is the
parameter: the first player's command itself, or the outbox's background task retrying it
after a failed first attempt.

Within the stop's grace the post is released: the delivery under way must finish and be
marked sent (Discord gets one request for it), the rest go out, the process exits 0 within
Docker's 10 s, and a restart has nothing left. Held past the grace, it is abandoned (Discord
completes it after the process is gone): the restart sends what was left at once, and still
every message is in the channel once (its nonce, and the table message's buttons, recognise
what the abandoned request posted). Synchronisation is by polls with a deadline."""

from __future__ import annotations

import asyncio
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from bot.discord.app import STOP_GRACE
from bot.discord.signals import HARD_STOP
from bot.storage.sqlite import DB_FILENAME
from tests.discord.conftest import Scene
from tests.discord.entry import BotProcess
from tests.discord.test_stop_and_restart import (
    all_rows,
    each_message_once,
    game_under_way,
    row_of,
    sent_by_bot,
    unsent_rows,
    wait_until,
    wait_until_sent,
    whose_turn,
)
from tests.fakediscord.fake import FakeDiscord
from tests.fakediscord.models import FakeMessage, FakeUser, body_of

SENDERS = ["command", "retry"]  # who sends the held post when the signal comes


def posts_of(fake: FakeDiscord, channel_id: int, nonce: str) -> int:
    """How many message posts with this nonce Discord received in the channel (a nonce
    replay included), but the injected failures of a first attempt."""
    path = f"/channels/{channel_id}/messages"
    return sum(1 for r in fake.requests if r["method"] == "POST" and r["path"] == path
               and body_of(r).get("nonce") == nonce and r.get("status") != 503)


# an outbox row's id, attempts, next try, sent time and result
RowState = tuple[int, int, float, float | None, str | None]


def row_states(data: Path) -> list[RowState]:
    """Each row's stored attempts, next try, sent time and result (replies left out: only
    their interaction can send them)."""
    with sqlite3.connect(data / DB_FILENAME) as db:
        rows: list[RowState] = db.execute(
            "SELECT id, attempts, next_at, sent_at, result FROM outbox "
            "WHERE kind != 'reply' ORDER BY id").fetchall()
        return rows


def table_messages(msgs: list[FakeMessage]) -> Counter[str]:
    """How many messages carry each turn's table marker (its Status button)."""
    return Counter(cid for m in msgs for cid in m.custom_ids()
                   if cid.startswith("kh:tb:status:"))


async def hold_a_table_post(scene: Scene, bot: BotProcess, sender: str
                            ) -> tuple[list[FakeUser], int]:
    """Start a game; the first player ends his turn and the post of the next turn's table
    message is held in flight, sent by ``sender``; the second player ends his turn (his rows
    wait behind it). Returns the players and the held row."""
    fake = scene.fake
    users = await game_under_way(scene, bot)
    first = await whose_turn(scene, users)
    before = await all_rows(scene.data)
    if sender == "command":
        fake.held_channels.add(scene.ch.id)
        await fake.slash(first, scene.ch, "end")
    else:  # the first attempt fails: the background task tries again 2 s later
        fake.post_failures = [503]
        ia = await fake.slash(first, scene.ch, "end")
        await ia.wait_message(timeout=10)
        fake.held_channels.add(scene.ch.id)
    await wait_until(lambda: fake.posts_in_flight > 0, what="the table's post held")
    held = [m for m in fake.requests if m["method"] == "POST" and m.get("status") is None
            and m["path"] == f"/channels/{scene.ch.id}/messages"]
    assert len(held) == 1, held
    row = int(body_of(held[0])["nonce"][2:])
    assert row not in before
    mine = await all_rows(scene.data)
    second = await whose_turn(scene, users)
    assert second != first
    await fake.slash(second, scene.ch, "end")

    async def committed() -> bool:
        return len(await all_rows(scene.data)) > len(mine)
    loop = asyncio.get_running_loop()
    end = loop.time() + 20
    while not await committed():
        assert loop.time() < end, "the second player's move was not committed"
        await asyncio.sleep(0.02)
    return users, row


async def restart_and_check(scene: Scene, users: list[FakeUser]) -> float:
    """A second process on the same data: the seconds it took to send what was left; then
    every message once, in order, and one table message per turn."""
    fake = scene.fake
    bot = await BotProcess.start(fake, scene.data, scene.guild.id)
    try:
        took = await wait_until_sent(scene.data)
    finally:
        await bot.kill()
    sent = sent_by_bot(fake, users, scene)
    await each_message_once(sent, scene.data)
    channel = [row_of(m) for m in sent if m.channel_id == scene.ch.id]
    assert channel == sorted(channel), "the channel's messages in the order of their rows"
    tables = table_messages(fake.channel_messages(scene.ch))
    assert tables and max(tables.values()) == 1, f"a turn's table message twice: {tables}"
    return took


@pytest.mark.parametrize("sender", SENDERS)
async def test_sigterm_during_a_delivery_it_finishes_and_is_marked_then_exit_0(
        scene: Scene, sender: str) -> None:
    fake = scene.fake
    bot = await BotProcess.start(fake, scene.data, scene.guild.id)
    try:
        users, row = await hold_a_table_post(scene, bot, sender)
        status, _ = await bot.stop(fake.held_channels.clear)
    finally:
        fake.held_channels.clear()
        await bot.kill()
    assert status == 0, bot.log()[-3000:]
    assert await unsent_rows(scene.data) == [], "everything committed was delivered first"
    assert posts_of(fake, scene.ch.id, f"kh{row}") == 1, (
        "the delivery under way was cut and sent again")
    assert "every outbox row delivered" in bot.log()
    assert "left for the next start" not in bot.log()
    assert await restart_and_check(scene, users) < 1.0  # nothing left


@pytest.mark.parametrize("sender", SENDERS)
async def test_sigterm_during_a_delivery_held_past_the_grace_no_duplicate_after_restart(
        scene: Scene, sender: str) -> None:
    """The post cut by the close of the connection is no failure of its row: the row is left
    as it was (no attempt, no backoff: sent at once by the next process), the stop says once
    how many rows it leaves, and logs no traceback for the cut requests."""
    fake = scene.fake
    bot = await BotProcess.start(fake, scene.data, scene.guild.id)
    try:
        users, row = await hold_a_table_post(scene, bot, sender)
        before = row_states(scene.data)
        status, stopped = await bot.stop()
    finally:
        # Discord completes the abandoned request after the process is gone
        fake.held_channels.clear()
        await bot.kill()
    assert status == 0, bot.log()[-3000:]
    assert stopped >= STOP_GRACE - 0.5, "the stop waited for the delivery within its grace"
    await wait_until(lambda: fake.posts_in_flight == 0, what="the abandoned post done")
    assert posts_of(fake, scene.ch.id, f"kh{row}") >= 1
    left = await unsent_rows(scene.data)
    assert left, "a backlog is left for the next start"
    assert row_states(scene.data) == before, "the cut rows are stored as they were"
    said = [line for line in bot.log().splitlines() if "left for the next start" in line]
    assert len(said) == 1 and f" {len(left)} outbox rows " in said[0], said
    assert "Traceback" not in bot.log(), bot.log()[-3000:]
    took = await restart_and_check(scene, users)
    assert took < 10.0, "what was left went out at once, not after a claim expired"


async def test_sigterm_held_past_the_grace_then_the_database_hung_exits_0_in_time(
        scene: Scene, tmp_path: Path) -> None:
    """A slow stop: a delivery held past the grace, then the database does not answer its
    close. The close steps are bounded, all of them end by ``STOP_CLOSED_BY``, and a connection
    left open does not keep the process alive: it exits 0 before ``signals.HARD_STOP`` (status
    1, the last resort), says once that it did not wait for the database, and the restart (the
    SQLite holder died with the process) sends what was left at once. Before, the database's
    threads kept the process until the hard stop."""
    fake = scene.fake
    holds = tmp_path / "holds"
    holds.mkdir()
    bot = await BotProcess.start(fake, scene.data, scene.guild.id, KHRONOS_HOLD_DIR=str(holds))
    try:
        users, _ = await hold_a_table_post(scene, bot, "command")
        (holds / "close").touch()
        status, stopped = await bot.stop()
    finally:
        (holds / "close").unlink(missing_ok=True)
        fake.held_channels.clear()
        await bot.kill()
    log = bot.log()
    assert status == 0, log[-3000:]
    assert (holds / "close.reached").exists(), "the database's close was reached and held"
    assert STOP_GRACE - 0.5 <= stopped < HARD_STOP, stopped
    assert "did not end within" not in log
    said = [line for line in log.splitlines() if "did not close within" in line]
    assert len(said) == 1 and "the database connections" in said[0], log[-3000:]
    assert "Traceback" not in log, log[-3000:]
    await wait_until(lambda: fake.posts_in_flight == 0, what="the abandoned post done")
    assert await unsent_rows(scene.data), "a backlog is left for the next start"
    assert await restart_and_check(scene, users) < 10.0
