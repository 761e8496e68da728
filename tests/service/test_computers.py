"""Computer seats through the service: lobby, timers, whole games, restart, hand-over and back."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any, TypeVar

import pytest

import engine
from ai.pool import PoolClosed
from ai.work import Stopping, searches_stopped
from bot.service import (
    MARK,
    GameService,
    GameSettings,
    LobbyError,
    NotSeated,
    Outcome,
    PermissionDenied,
    TimerKind,
    is_computer,
)
from engine import EndTurn, MalformedAction
from engine.random_player import random_action
from tests.service.conftest import Clock
from tests.storage.postgres.backend import AnyStorage

CH = 700
T = TypeVar("T")
ANN, BOB = 7001, 7002


def computers(storage: AnyStorage, clock: Clock, delay: float = 0.0) -> GameService:
    seeds = itertools.count(4242)
    return GameService(storage, clock=clock, seeds=lambda: next(seeds), computer_delay=delay,
                       computer_budget=0.0)


async def timers(storage: AnyStorage, service: GameService) -> list[tuple[str, int | None]]:
    info = await service.info(CH)
    async with storage.read() as q:
        return [(t.kind, t.user_id) for t in await q.timers(info.game_id)]


async def fire_due(service: GameService) -> list[Outcome]:
    outs = [await service.fire_timer(t) for t in await service.due_timers()]
    return [o for o in outs if o is not None]


async def check_outbox(storage: AnyStorage) -> None:
    """Nothing is ever addressed to a computer (no DM, no ping)."""
    async with storage.read() as q:
        rows = await q.unsent(limit=100_000)
    assert rows
    assert all(r.user_id is None or r.user_id > 0 for r in rows)


async def play_out(service: GameService, storage: AnyStorage, chooser: random.Random,
                   limit: int = 3000) -> list[Outcome]:
    """Play to the end: people by random legal moves, computers by their timers; the RULES.md
    section 9 invariants are checked after every step. Returns the computers' outcomes."""
    played: list[Outcome] = []
    for _ in range(limit):
        info, state = await service.snapshot(CH)
        assert engine.invariant_problems(state) == []
        if state.over:
            return played
        seat = engine.current_seat(state)
        assert seat is not None
        user = info.user_of(seat)
        assert user is not None
        if is_computer(user):
            assert await timers(storage, service) == [(TimerKind.COMPUTER, user)]
            outs = await fire_due(service)
            assert len(outs) == 1
            played += outs
        else:
            assert all(k != TimerKind.COMPUTER for k, _ in await timers(storage, service))
            s, action = random_action(state, chooser)
            await service.act(CH, user, action)
    raise AssertionError("the game did not end")


async def test_lobby_add_and_remove_computers(storage: AnyStorage, clock: Clock) -> None:
    service = computers(storage, clock)
    await service.create_game(CH, ANN, "Ann", guild_id=1)
    with pytest.raises(LobbyError, match="at least 2 players"):
        await service.start(CH, ANN)
    with pytest.raises(PermissionDenied, match="creator or a server admin"):
        await service.add_bot(CH, BOB, "easy")
    with pytest.raises(MalformedAction, match="easy, normal, hard"):
        await service.add_bot(CH, ANN, "brilliant")
    with pytest.raises(LobbyError, match="no computer"):
        await service.remove_bot(CH, ANN)
    out = await service.add_bot(CH, ANN, "easy")
    assert out.public[0].text.startswith(MARK)
    await service.add_bot(CH, ANN)
    info = await service.info(CH)
    assert [(s.user_id, s.name) for s in info.seats] == [
        (ANN, "Ann"), (-1, "Computer 1 (easy)"), (-2, "Computer 2 (normal)")]
    assert info.settings.bots == {-1: "easy", -2: "normal"}
    out = await service.remove_bot(CH, ANN)
    assert "Computer 2 (normal) leaves" in out.public[0].text
    info = await service.info(CH)
    assert [s.user_id for s in info.seats] == [ANN, -1]
    assert info.settings.bots == {-1: "easy"}
    # the settings with computers still load from their JSON
    assert GameSettings.model_validate_json(info.settings.model_dump_json()) == info.settings
    # a lobby of computers only is not left behind: when its last person leaves, it ends,
    # and the channel is free for a new game
    out = await service.leave(CH, ANN)
    assert "only computers; the game is closed" in out.public[0].text
    assert out.game is not None and out.game.status == "abandoned"
    await service.create_game(CH, BOB, "Bob", guild_id=1)


async def test_create_with_computers_and_a_full_table_starts(storage: AnyStorage,
                                                             clock: Clock) -> None:
    service = computers(storage, clock)
    await service.create_game(CH, ANN, "Ann", guild_id=1, settings=GameSettings(seats=3),
                              bots=1, bot_level="easy")
    assert len((await service.info(CH)).seats) == 2
    with pytest.raises(LobbyError, match="full"):
        await service.create_game(CH + 1, ANN, "Ann", settings=GameSettings(seats=2), bots=2)
    out = await service.add_bot(CH, ANN, "easy")
    assert "The game begins" in out.public[0].text
    assert (await service.info(CH)).status == "active"
    assert not any(is_computer(d.user_id) for d in out.direct)
    with pytest.raises(LobbyError, match="only in the lobby"):
        await service.add_bot(CH, ANN)


async def test_a_game_is_never_left_to_computers_and_they_play_to_the_final_scores(
        storage: AnyStorage, clock: Clock) -> None:
    """The last person of a game can neither hand his seat to a computer nor be removed (a
    game of computers only would play on for nobody); Bob's seat may go to one."""
    service = computers(storage, clock)
    await service.create_game(CH, ANN, "Ann", guild_id=1, bots=2, bot_level="easy")
    await service.join(CH, BOB, "Bob")
    await service.start(CH, ANN)
    await service.seat_to_computer(CH, ANN, BOB, "easy")
    for refused in (service.seat_to_computer(CH, ANN, ANN, "easy"),
                    service.kick(CH, BOB, ANN, is_admin=True)):
        with pytest.raises(LobbyError, match="Ann is the last person in this game"):
            await refused
    info = await service.info(CH)
    assert [s.user_id for s in info.seats if not is_computer(s.user_id)] == [ANN]
    played = await play_out(service, storage, random.Random(1))
    _, state = await service.snapshot(CH)
    assert state.over and (await service.info(CH)).status == "over"
    assert played and all(o.public[0].text.startswith(MARK) for o in played)
    assert all(o.public[0].image is not None for o in played)
    assert not any(is_computer(d.user_id) for o in played for d in o.direct)
    assert await timers(storage, service) == []


async def test_one_person_against_computers(storage: AnyStorage, clock: Clock) -> None:
    service = computers(storage, clock)
    await service.create_game(CH, ANN, "Ann", guild_id=1)
    await service.add_bot(CH, ANN, "easy")
    await service.add_bot(CH, ANN, "normal")
    out = await service.start(CH, ANN)
    assert [d.user_id for d in out.direct if d.kind in ("hand", "your_turn")] == [ANN]
    played = await play_out(service, storage, random.Random(2))
    assert {o.events[0].seat for o in played if o.events and o.events[0].seat is not None}
    await check_outbox(storage)
    # the person's turns opened with a table message mentioning him; the computers' moves
    # were shown by their turns' table messages, which mention nobody
    async with storage.read() as q:
        rows = await q.unsent(limit=100_000)
    tables = [json.loads(r.body)["table"] for r in rows if r.kind == "table"]
    assert any(r.kind == "table" and r.user_id == ANN for r in rows)
    assert not any(r.kind == "ping" for r in rows), "no ping message: the table mentions him"
    info = await service.info(CH)
    theirs = [t for t in tables if info.user_of(t["seat"]) != ANN]
    assert theirs and all(t["mention"] is None and t["image"] for t in theirs)
    assert any(t["lines"] for t in theirs)


async def test_a_restart_during_a_computers_turn_loses_nothing(storage: AnyStorage,
                                                               clock: Clock) -> None:
    service = computers(storage, clock, delay=3.0)
    await service.create_game(CH, ANN, "Ann", guild_id=1, bots=1, bot_level="easy")
    await service.start(CH, ANN)
    info, state = await service.snapshot(CH)
    if info.user_of(state.turn) == ANN:
        await service.act(CH, ANN, EndTurn())
    info, state = await service.snapshot(CH)
    assert info.user_of(state.turn) == -1
    assert await timers(storage, service) == [(TimerKind.COMPUTER, -1)]
    assert await service.due_timers() == []  # a few seconds, not at once
    version = info.version
    # the bot stops here; another process starts on the same storage after the delay
    clock.now += 3.0
    again = computers(storage, clock, delay=3.0)
    [timer_id] = await again.due_timers()
    out = await again.fire_timer(timer_id)
    assert out is not None and out.public[0].text.startswith(MARK)
    assert (await again.info(CH)).version == version + 1
    assert await again.fire_timer(timer_id) is None  # exactly once


class _Closed(Executor):
    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        raise PoolClosed("the computers' worker pool is shut down")


@pytest.mark.parametrize("where", ["closed pool", "thread"])
async def test_a_computer_cut_by_the_stop_plays_nothing_and_its_timer_stays_due(
        where: str, storage: AnyStorage, clock: Clock) -> None:
    """The worker pool closed under a computer's thought (the bot stops), or, thinking in the
    loop's threads (the terminal, ``KHRONOS_AI_WORKERS=0``), its search given up because the
    process stops (``searches_stopped``), is no failure of the search: no default move is
    played in its place, the timer waits for the next start, which plays."""
    service = GameService(storage, clock=clock, seeds=lambda: 4242, computer_delay=0.0,
                          computer_budget=0.0,
                          ai_executor=_Closed() if where == "closed pool" else None)
    await service.create_game(CH, ANN, "Ann", guild_id=1, bots=1, bot_level="easy")
    await service.start(CH, ANN)
    info, state = await service.snapshot(CH)
    if info.user_of(state.turn) == ANN:
        await service.act(CH, ANN, EndTurn())
    version = (await service.info(CH)).version
    [timer_id] = await service.due_timers()
    with searches_stopped(), pytest.raises(Stopping):
        await service.fire_timer(timer_id)
    assert (await service.info(CH)).version == version
    assert await service.due_timers() == [timer_id]
    again = computers(storage, clock)  # the next start
    out = await again.fire_timer(timer_id)
    assert out is not None and (await again.info(CH)).version == version + 1


async def test_a_computer_whose_game_moved_while_it_thought_thinks_again(
        storage: AnyStorage, clock: Clock) -> None:
    service = computers(storage, clock)
    await service.create_game(CH, ANN, "Ann", guild_id=1, bots=1, bot_level="easy")
    await service.start(CH, ANN)
    info, state = await service.snapshot(CH)
    if info.user_of(state.turn) == ANN:
        await service.act(CH, ANN, EndTurn())
    [timer_id] = await service.due_timers()
    plan = await service._computer_plan(timer_id)
    assert plan is not None
    await service.update_settings(CH, ANN, reminder_hours=5)  # the game's version moves on
    assert await service._computer_move(timer_id, plan, EndTurn()) is None
    # still one computer timer due (the settings change may have renewed it): it thinks again
    [again] = await service.due_timers()
    out = await service.fire_timer(again)
    assert out is not None and out.public[0].text.startswith(MARK)


async def test_a_seat_goes_to_a_computer_and_back_to_a_person(storage: AnyStorage,
                                                              clock: Clock) -> None:
    service = computers(storage, clock)
    await service.create_game(CH, ANN, "Ann", guild_id=1)
    await service.join(CH, BOB, "Bob")
    await service.start(CH, ANN)
    with pytest.raises(PermissionDenied):
        await service.seat_to_computer(CH, BOB, ANN, "easy")
    out = await service.seat_to_computer(CH, ANN, BOB, "easy")
    assert "Computer 1 (easy) takes over Bob's seat" in out.public[0].text
    info = await service.info(CH)
    bob_seat = info.seat_of(-1)
    assert bob_seat is not None and info.settings.bots == {-1: "easy"}
    with pytest.raises(LobbyError, match="already a computer"):
        await service.seat_to_computer(CH, ANN, -1, "easy")
    chooser = random.Random(3)
    for _ in range(40):  # a few turns each
        info, state = await service.snapshot(CH)
        seat = engine.current_seat(state)
        assert seat is not None
        if seat == bob_seat:
            assert len(await fire_due(service)) == 1
        else:
            _, action = random_action(state, chooser)
            await service.act(CH, ANN, action)
    await service.replace_player(CH, ANN, -1, BOB, "Bob")
    info, state = await service.snapshot(CH)
    assert info.user_of(bob_seat) == BOB and info.settings.bots == {}
    kinds = await timers(storage, service)
    assert all(k != TimerKind.COMPUTER for k, _ in kinds)
    if engine.current_seat(state) == bob_seat:
        assert (TimerKind.REMINDER, BOB) in kinds


async def test_the_typed_commands(storage: AnyStorage, clock: Clock) -> None:
    from bot.commands import Context, run_line

    service = computers(storage, clock)
    ann, bob = Context(CH, ANN, "Ann"), Context(CH, BOB, "Bob")
    await run_line(service, ann, "/create bots:1 level:easy")
    await run_line(service, bob, "/join")
    with pytest.raises(PermissionDenied):
        await run_line(service, bob, "/addbot")
    with pytest.raises(MalformedAction, match="not a level"):
        await run_line(service, ann, "/addbot brilliant")
    await run_line(service, ann, "/addbot normal")
    await run_line(service, ann, "/removebot")
    info = await service.info(CH)
    assert [s.name for s in info.seats] == ["Ann", "Computer 1 (easy)", "Bob"]
    await run_line(service, ann, "/start")
    with pytest.raises(MalformedAction, match="not both"):
        await run_line(service, ann, "/game replace old:Bob computer:1")
    with pytest.raises(MalformedAction, match="name the new player"):
        await run_line(service, ann, "/game replace old:Bob")
    out = await run_line(service, ann, "/game kick Bob level:easy")
    assert "Computer 2 (easy) takes over Bob's seat" in out.public[0].text
    with pytest.raises(NotSeated, match="its computers: .*Computer 1 \\(easy\\)"):
        await run_line(service, ann, f"/game replace computer:computer9 new:{BOB}")
    out = await run_line(service, ann, f"/game replace computer:2 new:{BOB}")
    assert "takes over Computer 2 (easy)'s seat" in out.public[0].text
    info = await service.info(CH)
    assert info.settings.bots == {-1: "easy"}
    assert info.seat_of(BOB) is not None
