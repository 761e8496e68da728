"""SIGTERM in the middle of what a person asked, through the real entry point (``python -m
bot`` against the fake Discord, as ``test_stop_timers.py``): a /hint whose plans are being
computed in the worker process (held there by the test site), the turn's table message being
edited (its edit held by the fake), and an admin's /kick whose move is held in its
transaction (by the test site, or on PostgreSQL in its COMMIT by a lock the test holds).

Each time: the process exits 0 within Docker's 10 s, its log has no traceback, no ERROR line
and no leaked resource, none of its worker processes is left, and after a restart the state
is right (no hint counted for an answer never given; one table message per turn, showing the
latest state; the kick made once). Every wait is a poll with a deadline."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from ai.hard import SPEED_ENV
from bot import i18n
from tests.discord.conftest import Scene
from tests.discord.entry import BotProcess, descendants, environment
from tests.discord.test_stop_and_restart import game_under_way, wait_until
from tests.discord.test_stop_timers import (
    COMPUTER,
    Site,
    clean,
    each_row_once,
    each_step_once,
    eventually,
    site_on,
    sqlite_site,  # noqa: F401 (a fixture)
    stopped_cleanly,
    turn_of,
)
from tests.fakediscord.fake import FakeDiscord
from tests.fakediscord.models import FakeChannel, FakeInteraction, FakeMessage, FakeUser
from tests.storage.postgres.backend import BACKENDS, commits_held

RESTARTING = i18n.text("hint.restarting", "en")
HEADER = i18n.text("hint.header", "en")


@dataclass
class Held:
    """A point held by the test: ``waiting()`` returns once it is reached, ``release()``
    lets it go on."""

    waiting: Callable[[], Awaitable[None]]
    release: Callable[[], Awaitable[None]]


# --- a /hint being computed -----------------------------------------------------------------


async def alice_to_act(scene: Scene, site: Site) -> FakeUser:
    """alice against an easy computer (hints are on: a computer is seated), once it is her
    turn and everything is delivered."""
    alice = scene.fake.add_user("alice")
    await scene.slash(alice, "create")
    await scene.slash(alice, "addbot", level="easy")
    await scene.slash(alice, "start")
    await eventually(lambda: turn_of(site, alice), "the computer did not play")
    await site.all_sent()
    return alice


@dataclass
class HintHeld:
    """The bot, alice, and her /hint, acknowledged, whose search is held (``hold="hint"``)."""

    bot: BotProcess
    alice: FakeUser
    ia: FakeInteraction


@asynccontextmanager
async def hint_held(scene: Scene, site: Site, **env: str) -> AsyncIterator[HintHeld]:
    """A ``python -m bot`` (with ``env``) where alice's /hint is being computed, held; on the
    way out the hold is released and the process killed if it still runs."""
    bot = await site.start(hold="hint", **{**COMPUTER, **env})
    try:
        alice = await alice_to_act(scene, site)
        ia = await scene.fake.slash(alice, scene.ch, "hint", options={})
        await ia.wait_ack()
        await site.reached("hint")
        yield HintHeld(bot, alice, ia)
    finally:
        site.release()
        await bot.kill()


async def hints_counted(site: Site, user: FakeUser) -> int:
    (count,), = await site.rows(f"SELECT hints FROM seats WHERE user_id = {user.id}")
    return int(count)


async def test_sigterm_while_a_hint_is_computed_it_says_to_ask_again_no_worker_left(
        scene: Scene, sqlite_site: Site) -> None:  # noqa: F811
    """The plans are being computed in the worker process when the signal comes: the stop
    ends the worker, and the player's deferred answer becomes a private "the bot is
    restarting, ask again in a minute" within the grace (it was an apology, with an ERROR
    and a traceback in the log). Nothing is counted; after the restart he asks again and
    gets his plans."""
    fake, site = scene.fake, sqlite_site
    async with hint_held(scene, site) as held:
        assert descendants(held.bot.pid), "the hint is computed in a worker process"
        await stopped_cleanly(held.bot)
    alice, ia = held.alice, held.ia
    [answer] = ia.messages
    assert answer.ephemeral and answer.content == RESTARTING, answer.content
    assert await hints_counted(site, alice) == 0, "no hint was given"
    bot = await site.start(**COMPUTER)
    try:
        again = await fake.slash(alice, scene.ch, "hint", options={})
        plans = await again.wait_message(timeout=30)
        assert plans.content.startswith(HEADER), plans.content
    finally:
        await stopped_cleanly(bot)
    assert await hints_counted(site, alice) == 1


async def test_sigterm_while_a_hint_is_computed_in_a_thread_it_is_answered(
        scene: Scene, sqlite_site: Site) -> None:  # noqa: F811
    """With ``KHRONOS_AI_WORKERS=0`` the plans are computed in a thread of the bot's process,
    which nothing can stop: the stop waits for the command, as for any other, and a search
    that ends within the grace (here: released once the stop began) is answered and
    counted."""
    site = sqlite_site
    async with hint_held(scene, site, KHRONOS_AI_WORKERS="0") as held:
        # the tests' speed, not a calibration before the search: it would run into the grace
        assert environment(held.bot.pid)[SPEED_ENV] == os.environ[SPEED_ENV]
        status, _ = await held.bot.stop(site.release)
    assert status == 0, held.bot.log()[-3000:]
    clean(held.bot.log())
    ended = site.holds / "hint.ended"  # how the search ended: answered, or what it raised
    assert held.ia.messages, (ended.exists() and ended.read_text(), held.bot.log()[-3000:])
    [answer] = held.ia.messages
    assert answer.ephemeral and answer.content.startswith(HEADER), answer.content
    assert await hints_counted(site, held.alice) == 1


async def test_sigterm_while_a_hint_waits_past_the_grace_in_a_thread_its_search_gives_up(
        scene: Scene, sqlite_site: Site) -> None:  # noqa: F811
    """With ``KHRONOS_AI_WORKERS=0``, a /hint whose search is still to run when the grace ends
    (held until then): its command is cut, and the search, in a thread the process must
    wait for, gives up at its first step (``ai.work.STOP``) instead of running its course;
    the process exits cleanly. Nothing is counted."""
    site = sqlite_site
    async with hint_held(scene, site, KHRONOS_AI_WORKERS="0") as held:
        bot = held.bot

        async def after_the_grace() -> None:
            await wait_until(lambda: "end of the grace" in bot.log(), timeout=30,
                             what="the grace's end")
            site.release()

        status, _ = await bot.stop(after_the_grace)
    assert status == 0, bot.log()[-3000:]
    assert (site.holds / "hint.ended").read_text() == "Stopping"
    assert "1 command still running at the end of the grace" in bot.log()
    assert await hints_counted(site, held.alice) == 0


# --- the turn's table message being edited --------------------------------------------------


def turn_tables(fake: FakeDiscord, channel: FakeChannel) -> dict[str, list[FakeMessage]]:
    """The channel's table messages by turn (their Status button's id)."""
    out: dict[str, list[FakeMessage]] = {}
    for msg in fake.channel_messages(channel):
        for cid in msg.custom_ids():
            if cid.startswith("kh:tb:status:"):
                out.setdefault(cid, []).append(msg)
    return out


async def end_turn(scene: Scene, site: Site, users: list[FakeUser]) -> None:
    """Whoever must act ends his turn; returns once his move is committed."""
    turn = await site.turn_user()
    before = await site.rows("SELECT count(*) FROM outbox")
    await scene.fake.slash(next(u for u in users if u.id == turn), scene.ch, "end")

    async def committed() -> bool:
        return await site.rows("SELECT count(*) FROM outbox") != before
    await eventually(committed, "the move was not committed")


@pytest.mark.parametrize("release", ["within the grace", "after the exit"])
async def test_sigterm_while_the_table_is_edited_one_message_per_turn_showing_the_latest(
        scene: Scene, sqlite_site: Site, release: str) -> None:  # noqa: F811
    """The first player ended his turn: the edit of his turn's table message (now "over")
    is held by Discord, the next turn's message waits behind it, and the second player's
    turn ended too (his rows wait behind theirs). Released within the grace, the edit is
    marked sent and the rest goes out before the exit; held past it, the edit is abandoned
    and its row left for the next start, which edits the message again. Either way each
    turn has one table message, and each says what its turn is now."""
    fake, site = scene.fake, sqlite_site
    bot = await site.start()
    try:
        users = await game_under_way(scene, bot)
        await site.all_sent()
        fake.held_edits.add(scene.ch.id)
        for _ in range(2):  # two turns end; the first turn's edit is held
            await end_turn(scene, site, users)
        await wait_until(lambda: fake.edits_in_flight > 0, what="the table's edit held")
        within = release == "within the grace"
        status, _ = await bot.stop(fake.held_edits.clear if within else None)
    finally:
        fake.held_edits.clear()
        await bot.kill()
    assert status == 0, bot.log()[-3000:]
    clean(bot.log())
    left = await site.unsent()
    assert (left == []) == (release == "within the grace"), left
    assert ("left for the next start" in bot.log()) == bool(left)
    await wait_until(lambda: fake.edits_in_flight == 0, what="the held edit done")
    bot = await site.start()
    try:
        await site.all_sent()
    finally:
        await stopped_cleanly(bot)
    each_row_once(fake, users, scene.ch)
    tables = turn_tables(fake, scene.ch)
    assert len(tables) == 3 and all(len(m) == 1 for m in tables.values()), tables
    first, *ended, current = (msgs[0] for msgs in tables.values())
    assert all("turn (over)" in m.text() for m in (first, *ended)), tables
    assert "turn (over)" not in current.text()
    # the held edit once; abandoned, it was made again by the restart (Discord completed
    # the abandoned one after the exit: the same words)
    assert len(first.history) == (1 if release == "within the grace" else 2)


# --- an admin's move held in its transaction ------------------------------------------------


@asynccontextmanager
async def kick_held(site: Site, backend: str) -> AsyncIterator[Held]:
    """The kick's move held in its transaction: by the test site before its COMMIT (SQLite),
    or in its COMMIT by a lock the test holds (PostgreSQL). Yields the wait until it is held
    and the release."""
    async with AsyncExitStack() as stack:
        if backend == "sqlite":
            stack.callback(site.release)
            yield Held(lambda: site.reached("play"), stack.aclose)
        else:
            schema = site.env["KHRONOS_DATABASE_URL"].rsplit("search_path=", 1)[1]
            waiting = await stack.enter_async_context(commits_held(schema, "moves"))
            yield Held(waiting, stack.aclose)


async def kicked(site: Site, user: FakeUser) -> tuple[int, int]:
    """Whether ``user``'s seat is removed, and how many notes say that he was removed."""
    (removed,), = await site.rows(f"SELECT removed FROM seats WHERE user_id = {user.id}")
    note = i18n.text("kick.note", "en", name=user.name)
    (notes,), = await site.rows(f"SELECT count(*) FROM notes WHERE text = '{note}'")
    return int(removed), int(notes)


@pytest.mark.parametrize("release", ["within the grace", "after the grace"])
@pytest.mark.parametrize("backend", BACKENDS)
async def test_sigterm_while_an_admins_kick_is_held_in_its_transaction_it_is_made_once(
        scene: Scene, tmp_path: Path, backend: str, release: str) -> None:
    """/game kick of the player whose turn it is ends his turn in the admin's transaction,
    held when the signal comes. Released within the grace, the kick commits, is delivered
    and answered before the exit 0; held past it, the stop cancels the command when the
    grace ends: its transaction rolls back (nothing happened, the admin's answer is cut
    with the connection, the log says that a command was cut, and he kicks again after the
    restart). Either way the kick is made
    once: one note, his turn ended once by the bot, each row posted once."""
    fake = scene.fake
    async with site_on(backend, scene, tmp_path) as site:
        bot = await site.start(hold="play" if backend == "sqlite" else "")
        try:
            alice, bob = await game_under_way(scene, bot)
            if await site.turn_user() == alice.id:
                await scene.slash(alice, "end")
            await site.all_sent()
            before = await site.moves()
            async with kick_held(site, backend) as held:
                ia = await fake.slash(alice, scene.ch, "game kick", options={"player": bob})
                await held.waiting()
                within = release == "within the grace"
                status, _ = await bot.stop(held.release if within else None)
        finally:
            site.release()
            await bot.kill()
        assert status == 0, bot.log()[-3000:]
        clean(bot.log())
        if release == "within the grace":
            assert await kicked(site, bob) == (1, 1)
            assert ia.messages and ia.messages[-1].ephemeral, "the admin got his answer"
            assert await site.unsent() == []
        else:
            assert await kicked(site, bob) == (0, 0) and await site.moves() == before
            assert not ia.messages, "his answer was cut"
        cut = "stopping: 1 command still running at the end of the grace cut"
        assert (cut in bot.log()) == (release == "after the grace"), "said once it is lost"
        bot = await site.start()
        try:
            if release == "after the grace":
                await scene.slash(alice, "game kick", player=bob)
            await site.all_sent()
        finally:
            await stopped_cleanly(bot)
        assert await kicked(site, bob) == (1, 1)
        after = (await site.moves())[len(before):]
        seat = dict(await site.rows("SELECT user_id, seat FROM seats"))[bob.id]
        assert after and all(m[1] == seat and m[2] is None for m in after), after
        each_step_once(await site.moves())
        assert await site.turn_user() == alice.id
        each_row_once(fake, [alice, bob], scene.ch)
