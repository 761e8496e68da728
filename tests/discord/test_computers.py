"""End to end: a person against an easy computer through the fake Discord, a whole game: /addbot, a
restart while the computer's move waits, and the computer's moves posted with their boards."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import random
import signal
import time
from collections.abc import Callable

import pytest

import engine
from ai import hard
from ai.pool import PoolClosed, ThinkPool
from bot.discord.app import KhronosBot
from bot.service import MARK, GameInfo, TimerKind, is_computer
from bot.storage.api import OutboxRow
from bot.storage.sqlite import SqliteStorage
from engine import Age
from tests.discord.conftest import Scene, all_sent, wait_until
from tests.discord.test_bot_game import Table, decodes, pick
from tests.fakediscord.fake import FakeDiscord
from tests.fakediscord.models import FakeChannel, FakeMessage, FakeUser


def waits_for(info: GameInfo, state: engine.GameState) -> int | None:
    """The user the game waits for (None: nobody, it is over)."""
    seat = engine.current_seat(state)
    return None if seat is None else info.user_of(seat)


def make_bot(scene: Scene, delay: float) -> KhronosBot:
    """A computer acts ``delay`` seconds after the game waits for it, without a search budget."""
    return scene.bot(KHRONOS_COMPUTER_DELAY=delay, KHRONOS_COMPUTER_BUDGET=0)


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


async def test_a_person_against_a_computer(scene: Scene) -> None:
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    rng = random.Random(5)

    # --- lobby, and the first turns with a computer that waits ten minutes ---------------
    async with fake.running(make_bot(scene, 600.0)) as bot:
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
        assert waits_for(info, state) == -1
        waiting = info.version
        await asyncio.sleep(0.3)
        assert (await table.state())[0].version == waiting, "it waits its delay"
    # --- the bot stops during the computer's turn; when it starts, the timer is due --------
    storage = await SqliteStorage.in_dir(scene.data).open()
    try:
        async with storage.write() as tx:
            [timer] = await tx.timers(info.game_id)
            assert timer.kind == TimerKind.COMPUTER and timer.user_id == -1
            await tx.reschedule_timer(timer.id, 0.0)
    finally:
        await storage.close()
    async with fake.running(make_bot(scene, 0.0)) as bot:
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
    moves = computer_posts(fake, ch)
    assert len(moves) >= 3, "the computer's turns are shown by their table messages"
    assert all(decodes(m) and m.pinged == [] for m in moves), "which ping nobody"
    sent = [r for r in rows if r is not None]
    assert sent and all(r.user_id is None or r.user_id > 0 for r in sent), "no DM to a computer"
    assert any(r.kind == "direct" and r.user_id == alice.id for r in sent)


# --- the computers' worker processes (KHRONOS_AI_WORKERS, ai/pool.py) --------------------


def pool_bot(scene: Scene, workers: int, budget: float) -> KhronosBot:
    return scene.bot(KHRONOS_COMPUTER_DELAY=0, KHRONOS_COMPUTER_BUDGET=budget,
                     KHRONOS_AI_WORKERS=workers)


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
        scene: Scene, caplog: pytest.LogCaptureFixture) -> None:
    """The computer thinks in a worker process, not in the bot's; a worker killed while it
    thinks, and one killed while idle, are replaced and the decision is computed again (not
    the default move); closing the bot leaves no worker process."""
    fake, ch = scene.fake, scene.ch
    alice = fake.add_user("alice")
    caplog.set_level(logging.WARNING, logger="khronos")
    async with fake.running(pool_bot(scene, 1, 1.5)) as bot:
        pool = bot.ai_pool
        assert pool is not None and bot.service.ai_executor is pool
        table = Table(fake, bot, ch, [alice])
        await table.slash(alice, "create")
        await table.slash(alice, "addbot", level="normal")
        await table.slash(alice, "start")
        info, state = await table.state()
        if info.user_of(state.turn) == alice.id:
            await table.play(alice, engine.EndTurn())
        # its first decision: kill the worker before it can have answered (a new worker takes
        # about 0.35 s to start; a search may end well within its 1.5 s budget when only one
        # plan is worth sampling, so waiting could find the worker idle)
        await until(lambda: pool.submitted >= 1 and bool(pool.pids()))
        [first] = pool.pids()
        assert first != os.getpid()
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


async def test_without_a_set_speed_the_workers_start_at_once_and_measure_it(
        scene: Scene, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where nothing sets ``KHRONOS_AI_SPEED`` (a real deployment), the bot starts its worker
    with the pool and the worker measures the machine's speed then, so that the first
    decision or /hint of level ``hard`` does not wait for it; a decision after it finds the
    speed known; closing the bot leaves no worker."""
    monkeypatch.delenv(hard.SPEED_ENV)  # the workers inherit the environment as they start
    monkeypatch.setattr(hard, "_speed", None)  # this process has not measured either
    async with scene.fake.running(pool_bot(scene, 1, 0.5)) as bot:
        pool = bot.ai_pool
        assert pool is not None and pool.measure
        await until(lambda: bool(pool.pids()))  # before any game or decision
        assert pool.submitted == 0
        await until(lambda: pool.measured == 1, timeout=120)
        workers = pool.pids()
        speed = await asyncio.wrap_future(pool.submit(hard.known_speed))
        assert speed is not None and hard.SPEED_RANGE[0] <= speed <= hard.SPEED_RANGE[1]
        assert pool.pids() == workers, "the same worker: it measured once"
    assert all(gone(pid) for pid in workers), "closing the bot stops its worker processes"


def test_a_pool_closed_while_its_workers_measure_stops_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A stop during the measure (SIGTERM just after the start) ends the measuring workers: none
    outlives the pool, which takes no more work; a pool whose speed is set starts none before
    its first task."""
    monkeypatch.delenv(hard.SPEED_ENV)
    pool = ThinkPool(2, measure=True)
    deadline = time.monotonic() + 30
    while len(pool.pids()) < 2:
        assert time.monotonic() < deadline, "the two workers did not start"
        time.sleep(0.02)
    workers = pool.pids()
    pool.close(grace=0.2)
    assert all(gone(pid) for pid in workers)
    with pytest.raises(PoolClosed):
        pool.submit(hard.known_speed)
    monkeypatch.setenv(hard.SPEED_ENV, "1")
    idle = ThinkPool(1)
    try:
        assert not idle.measure and idle.pids() == []
    finally:
        idle.close()


async def test_ai_workers_0_thinks_in_a_thread(scene: Scene) -> None:
    fake = scene.fake
    async with fake.running(pool_bot(scene, 0, 0)) as bot:
        assert bot.ai_pool is None and bot.service.ai_executor is None


# --- rebuild, an R37 choice, a restart in the middle of its turn, a seat and back -------------


async def due_now(bot: KhronosBot, game_id: int) -> None:
    """The computer's durable timer is due now (its delay has passed), and the bot looks."""
    async with bot.service.storage.write() as tx:
        for timer in await tx.timers(game_id):
            if timer.kind == TimerKind.COMPUTER:
                await tx.reschedule_timer(timer.id, 0.0)
    assert bot.dispatcher is not None
    bot.dispatcher.wake()


async def turn_of(table: Table, user_id: int, timeout: float = 60.0) -> engine.GameState:
    """Wait until ``user_id`` must act (the computers playing meanwhile) and what was
    committed is posted."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        info, state = await table.state()
        seat = engine.current_seat(state)
        if seat is not None and info.user_of(seat) == user_id:
            await all_sent(table.bot)  # and what was committed is posted
            return state
        assert loop.time() < end, "the computers did not hand the turn back"
        await asyncio.sleep(0.05)


def computer_posts(fake: FakeDiscord, ch: FakeChannel, after: str = "") -> list[FakeMessage]:
    """The table messages that show a computer's moves (each marked), after the first
    message containing ``after`` if given."""
    messages = fake.channel_messages(ch)
    if after:
        start = next(i for i, m in enumerate(messages) if after in m.text())
        messages = messages[start + 1:]
    return [m for m in messages if m.is_layout and f"- {MARK} " in m.text() and m.attachments]


async def test_a_rebuild_keeps_the_computer_seats_and_their_levels(scene: Scene) -> None:
    """/game rebuild of a game damaged during a computer's turn keeps both computers, each at
    its level, and they play on from the rebuilt state."""
    fake, ch = scene.fake, scene.ch
    alice = fake.add_user("alice")
    async with fake.running(make_bot(scene, 600.0)) as bot:
        table = Table(fake, bot, ch, [alice])
        await table.slash(alice, "create")
        await table.slash(alice, "addbot", level="easy")
        await table.slash(alice, "addbot", level="normal")
        await table.slash(alice, "start")
        info, _ = await table.state()
        levels = dict(info.settings.bots)
        names = [s.name for s in info.seats]
        assert sorted(levels.values()) == ["easy", "normal"]
        bot.service.computer_delay = 0.0  # to alice's turn, the computers acting at once
        await due_now(bot, info.game_id)
        await turn_of(table, alice.id)
        bot.service.computer_delay = 600.0  # the next computer waits
        await table.play(alice, engine.EndTurn())
        info, good = await table.state()
        assert is_computer(waits_for(info, good)), "a computer waits"
        async with bot.service.storage.write() as tx:  # the saved state is damaged
            game = await tx.game(info.game_id)
            assert game is not None
            await tx.update_game(game.id, game.version, now=0.0,
                                 state='{"schema_version": 1, "round": 99}')
        ia = await table.slash(alice, "game rebuild")
        assert ia.messages[0].ephemeral
        await fake.wait_for_message(ch, lambda m: "rebuilt from its move log" in m.content)
        info, state = await table.state()
        assert state == good
        assert info.settings.bots == levels, "each computer keeps its level"
        assert [s.name for s in info.seats] == names
        bot.service.computer_delay = 0.0
        await due_now(bot, info.game_id)  # its delay has passed
        await turn_of(table, alice.id)
        await table.play(alice, engine.EndTurn())  # and the next round too
        await turn_of(table, alice.id)
    after = computer_posts(fake, ch, after="rebuilt from its move log")
    who = {name for name in names if name.startswith("Computer")}
    assert who == {n for n in who if any(f"- {MARK} {n}" in m.text() for m in after)}, (
        "both computers play after the rebuild")


def junction(a: int, c: int, mover: int) -> engine.GameState:
    """R32: a Hamlet at H4 on Might joins alice's domain (Keep F4 + Watchtower F6, seat ``a``)
    to the computer's Keep I4 (seat ``c``, copied on Faith and as a ruin on Reason); ``mover``
    holds the cards for it and is to play."""
    from engine.builder import position

    return position(2, might=f"Keep F4 {a}; Watchtower F6 {a}; Keep I4 {c}",
                    faith=f"Keep I4 {c} copy", reason="Keep I4 ruin copy",
                    hands={mover: "ccmr"}, turn=mover)


HAMLET_H4 = engine.Construct(age=Age.MIGHT, building=engine.BuildingType.HAMLET, square="H4")


async def alice_against_easy(fake: FakeDiscord, bot: KhronosBot, ch: FakeChannel,
                             alice: FakeUser) -> Table:
    """The lobby of a two-seat game: alice creates it, adds an easy computer and starts."""
    table = Table(fake, bot, ch, [alice])
    await table.slash(alice, "create")
    await table.slash(alice, "addbot", level="easy")
    await table.slash(alice, "start")
    return table


async def store_state(bot: KhronosBot, game_id: int, state: engine.GameState) -> None:
    """Save ``state`` as the game's state and checkpoint (a prepared position)."""
    async with bot.service.storage.write() as tx:
        game = await tx.game(game_id)
        assert game is not None
        await tx.update_game(game.id, game.version, now=0.0, state=state.model_dump_json(),
                             checkpoint=state.model_dump_json())


def watchtowers_in_keep(state: engine.GameState, owner: int | None = None) -> list[str]:
    """The Watchtowers (of ``owner``, if given) inside the footprint of the Keep at I4."""
    from engine.builder import tile_at

    return [sq for sq in ("I4", "J4", "I5", "J5")
            if (t := tile_at(state, Age.MIGHT, sq)) is not None
            and t.type is engine.BuildingType.WATCHTOWER and owner in (None, t.owner)]


async def outbox_rows(bot: KhronosBot) -> list[OutboxRow]:
    async with bot.service.storage.read() as q:
        return [r for r in [await q.outbox_row(i) for i in range(1, 300)] if r is not None]


def assert_posted_and_nothing_sent_to_it(fake: FakeDiscord, ch: FakeChannel, tower: str,
                                         rows: list[OutboxRow]) -> None:
    """The computer's R33 answer is posted, marked as a computer's; no row is addressed to it."""
    posts = [m.text() for m in fake.channel_messages(ch) if m.is_layout]
    assert any(f"- {MARK} Computer 1 (easy) chooses {tower}" in p
               and "downsized to a Watchtower" in p for p in posts), (
        "the computer's answer is shown by the turn's table, marked as a computer's")
    to_it = [r for r in rows if r.user_id is not None and r.user_id < 0]
    assert rows and not to_it, "no choice and no DM addressed to the computer"


async def test_a_computer_answers_its_r37_choice_and_the_game_goes_on(scene: Scene) -> None:
    """R32/R33/R37: alice's Hamlet joins her domain (Keep + Watchtower) to the computer's Keep;
    the computer owns the losing Keep and must choose where its Watchtower goes. It answers by
    itself, no choice is sent to it, and alice's turn goes on."""
    from engine.builder import tile_at

    fake, ch = scene.fake, scene.ch
    alice = fake.add_user("alice")
    async with fake.running(make_bot(scene, 600.0)) as bot:
        table = await alice_against_easy(fake, bot, ch, alice)
        info, _ = await table.state()
        a = info.seat_of(alice.id)
        assert a is not None
        c = 1 - a
        await store_state(bot, info.game_id, junction(a, c, mover=a))
        async with bot.service.storage.write() as tx:
            for timer in await tx.timers(info.game_id):  # the computer's, if it was first
                await tx.delete_timer(timer.id)
        bot.service.computer_delay = 0.0
        await table.play(alice, HAMLET_H4)
        info, state = await table.state()
        if state.pending is not None:  # not answered yet: it is the computer's to answer
            assert state.pending.seat == c
            await computer_done(table, info.version)
        info, state = await table.state()
        assert state.pending is None and engine.current_seat(state) == a, "alice plays on"
        assert tile_at(state, Age.FAITH, "I4") is None, "the losing Keep was downsized"
        towers = watchtowers_in_keep(state)
        assert len(towers) == 1, "its Watchtower stands inside the old footprint"
        await table.play(alice, engine.EndTurn())
        await computer_done(table, (await table.state())[0].version)
        rows = await outbox_rows(bot)
    assert_posted_and_nothing_sent_to_it(fake, ch, towers[0], rows)


async def test_a_computer_answers_the_choice_its_own_move_provoked(
        scene: Scene, caplog: pytest.LogCaptureFixture) -> None:
    """R32/R33/R37, the computer as the mover: its Hamlet has joined its Keep to alice's
    stronger domain (Keep + Watchtower), so its own Keep is downsized and, owning it, it must
    choose where the Watchtower goes, in the middle of its own turn. It answers by itself
    (nothing sent to it), plays the rest of its turn and hands the turn to alice."""
    from engine.builder import tile_at

    caplog.set_level(logging.WARNING, logger="khronos")
    fake, ch = scene.fake, scene.ch
    alice = fake.add_user("alice")
    async with fake.running(make_bot(scene, 600.0)) as bot:
        table = await alice_against_easy(fake, bot, ch, alice)
        info, state = await table.state()
        a = info.seat_of(alice.id)
        assert a is not None
        c = 1 - a
        if engine.current_seat(state) == a:  # the computer's turn, with its durable timer
            await table.play(alice, engine.EndTurn())
        info, state = await table.state()
        assert engine.current_seat(state) == c
        provoked, _ = engine.apply(junction(a, c, mover=c), c, HAMLET_H4)
        assert provoked.pending is not None and provoked.pending.seat == c == provoked.turn
        await store_state(bot, info.game_id, provoked)
        bot.service.computer_delay = 0.0
        await due_now(bot, info.game_id)
        state = await turn_of(table, alice.id)
        assert state.pending is None and state.turn == a, "its turn ended, alice plays"
        assert tile_at(state, Age.FAITH, "I4") is None, "its Keep's copy went with the Keep"
        towers = watchtowers_in_keep(state, owner=c)
        assert len(towers) == 1, "its Watchtower stands inside the old footprint"
        rows = await outbox_rows(bot)
    assert_posted_and_nothing_sent_to_it(fake, ch, towers[0], rows)
    said = [r.getMessage() for r in caplog.records]
    assert not [m for m in said if "the computer" in m], "it decided: no default played"


async def test_a_restart_in_the_middle_of_a_computers_turn(scene: Scene) -> None:
    """The computer has played part of its turn when the bot stops; after the start its
    durable timer fires and it finishes that same turn, nothing played twice or lost."""
    fake, ch = scene.fake, scene.ch
    alice = fake.add_user("alice")
    async with fake.running(make_bot(scene, 600.0)) as bot:
        table = await alice_against_easy(fake, bot, ch, alice)
        for _ in range(14):  # until one of its actions leaves its turn unfinished
            await turn_of_or_step(table, alice.id)
            info, before = await table.state()
            await due_now(bot, info.game_id)
            await computer_acted(table, info.version)
            info, mid = await table.state()
            if engine.current_seat(mid) == before.turn and mid.turn == before.turn:
                break
        else:
            raise AssertionError("the computer never played a card before ending its turn")
        async with bot.service.storage.read() as q:
            [timer] = await q.timers(info.game_id)
        assert timer.kind == TimerKind.COMPUTER
    # what it played is on its turn's table message (sent before the bot closed)
    [its_table] = [m for m in computer_posts(fake, ch) if f"Round {mid.round} of 7" in
                   m.text() and "(over)" not in m.text()]
    shown = its_table.text()
    async with fake.running(make_bot(scene, 600.0)) as bot:
        table = Table(fake, bot, ch, [alice])
        info, state = await table.state()
        assert state == mid, "what it played before the stop is kept"
        await due_now(bot, info.game_id)  # the delay has passed during the restart
        while waits_for(info, state) != alice.id:
            await computer_acted(table, info.version)
            info, state = await table.state()
            await due_now(bot, info.game_id)
        assert state.round > mid.round or state.turn != mid.turn
    finished = fake.get_message(its_table.id)
    assert "(over)" in finished.text() and finished.text() != shown, (
        "it finished its turn after the restart, on the same table message")
    assert finished.text().count(f"- {MARK} ") > shown.count(f"- {MARK} ")
    turn_tables = [m for m in fake.channel_messages(ch) if m.is_layout
                   and f"Round {mid.round} of 7** · Computer" in m.text()]
    assert turn_tables == [finished], "one message for its turn"


async def turn_of_or_step(table: Table, person: int) -> None:
    """Bring the game to the start of the computer's turn: the person ends his turn if it is
    his."""
    info, state = await table.state()
    if waits_for(info, state) == person:
        user = table.users[person]
        while state.pending is not None:
            await table.answer_choice(user)
            info, state = await table.state()
        await table.play(user, engine.EndTurn())


async def computer_acted(table: Table, version: int, timeout: float = 30.0) -> None:
    """Wait until the game's version moved on (one action of the computer) and what it
    committed is posted."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while (await table.state())[0].version == version:
        assert loop.time() < end, "the computer did not act"
        await asyncio.sleep(0.05)
    await all_sent(table.bot)


async def test_a_kicked_player_is_replaced_by_a_computer_then_taken_back_by_a_person(
        scene: Scene) -> None:
    """/game kick level:easy during bob's turn: a computer plays his turn and the next ones
    with his seat; /game replace computer:… new:@dee gives the seat to dee, who gets the hand
    and plays it, and the computer acts no more."""
    fake, ch = scene.fake, scene.ch
    alice, bob, dee = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("dee")
    async with fake.running(make_bot(scene, 0.0)) as bot:
        table = Table(fake, bot, ch, [alice, bob, dee])
        await table.slash(alice, "create", players=2)
        await table.slash(bob, "join")
        info, state = await table.state()
        if info.user_of(state.turn) == alice.id:
            await table.play(alice, engine.EndTurn())
        info, state = await table.state()
        seat = info.seat_of(bob.id)
        assert seat is not None
        assert engine.current_seat(state) == seat
        ia = await table.slash(alice, "game kick", player=bob, level="easy")
        assert ia.messages[0].ephemeral
        await fake.wait_for_message(ch, lambda m: "takes over bob's seat" in m.content)
        await turn_of(table, alice.id)  # the computer played bob's turn
        info, state = await table.state()
        computer = info.user_of(seat)
        assert is_computer(computer) and info.settings.bots == {computer: "easy"}
        refused = await table.slash(bob, "end")
        assert refused.messages[0].ephemeral
        await table.play(alice, engine.EndTurn())
        await turn_of(table, alice.id)  # and the next one
        await wait_until(lambda: len(computer_posts(fake, ch)) >= 2)
        played = len(computer_posts(fake, ch))

        ia = await table.slash(alice, "game replace", computer="Computer 1", new=dee)
        assert ia.messages[0].ephemeral
        await fake.wait_for_message(ch, lambda m: "dee takes over Computer 1" in m.content)
        got = await fake.wait_for_dm(dee, lambda m: m.content.startswith("Your hand"))
        assert decodes(got)
        info, _ = await table.state()
        assert info.user_of(seat) == dee.id and info.settings.bots == {}
        await table.play(alice, engine.EndTurn())
        await turn_of(table, dee.id)
        async with bot.service.storage.read() as q:
            assert not [t for t in await q.timers(info.game_id) if t.kind == TimerKind.COMPUTER]
        await table.play(dee, engine.EndTurn())
        await turn_of(table, alice.id)
    assert len(computer_posts(fake, ch)) == played, "the computer plays no more"
    assert not [m for m in fake.channel_messages(ch) if f"- {MARK} dee" in m.text()]


def test_closing_the_pool_stops_a_busy_worker_and_refuses_new_decisions(
        caplog: pytest.LogCaptureFixture) -> None:
    """A worker still busy when the bot closes (a decision nobody waits for any more, or a
    hint its player waits for) is terminated after the grace period, so the bot's exit is
    never held up by a search; the closed pool refuses further work. Expected on a stop, so
    said without a warning (an operator reads every warning of a deploy). What was in
    progress or waiting fails with ``PoolClosed``, whose waiter can tell the stop from a
    crash: a dead worker's ``BrokenProcessPool`` is a crash, and a cancellation would cancel
    the task that awaits it (a /hint's answer never sent)."""
    import threading
    import time

    from ai.pool import PoolClosed, ThinkPool

    pool = ThinkPool(1)
    busy = pool.submit(time.sleep, 600)
    while not pool.pids():
        time.sleep(0.02)
    [pid] = pool.pids()
    # behind it: one in the worker's queue (running, for the executor), one not started
    waiting = [pool.submit(time.sleep, 600) for _ in range(2)]
    closer = threading.Thread(target=pool.close, kwargs={"grace": 0.2})
    with caplog.at_level(logging.INFO, logger="khronos"):
        closer.start()
        closer.join(timeout=20)
    assert not closer.is_alive(), "close() waited for the search instead of stopping it"
    assert gone(pid)
    said = [(r.levelno, r.getMessage()) for r in caplog.records]
    assert (logging.INFO, "stopping: a computer's decision, a hint or the measure of the "
            "machine's speed in progress is dropped; its worker process is ended") in said
    assert not [m for level, m in said if level >= logging.WARNING]
    for future in (busy, *waiting):
        assert isinstance(future.exception(timeout=10), PoolClosed)
    with pytest.raises(PoolClosed, match="shut down"):
        pool.submit(time.sleep, 0)
