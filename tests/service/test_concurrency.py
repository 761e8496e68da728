"""Concurrent commands: no lost update, no duplicate log entry, versions strictly increasing."""

from __future__ import annotations

import asyncio

import engine
from bot.service import GameService
from engine import Age, EndTurn, EngineError, NotYourTurn, StaleState, Travel
from tests.storage.postgres.backend import AnyStorage, another

from .conftest import current_user, started_game


async def _check_log(service: GameService, storage: AnyStorage, channel: int,
                     applied: int) -> None:
    info, state = await service.snapshot(channel)
    async with storage.read() as q:
        moves = await q.moves(info.game_id)
    assert len(moves) == applied  # one entry per applied command, none twice
    assert [m.seq for m in moves] == list(range(1, applied + 1))
    versions = [m.version for m in moves]
    assert versions == sorted(set(versions))  # strictly increasing
    assert not moves or versions[-1] == info.version
    assert state.step == applied
    assert await service.replayed_state(channel) == state  # nothing lost, nothing half-applied


async def test_many_concurrent_commands_on_several_games(service: GameService,
                                                         storage: AnyStorage) -> None:
    channels = list(range(100, 108))
    for ch in channels:
        await started_game(service, ch, players=2 + ch % 3, seed=ch)
    tasks = []
    owner: list[int] = []
    for ch in channels:
        user, _ = await current_user(service, ch)
        info = await service.info(ch)
        for i in range(10):
            to = (Age.FAITH, Age.REASON, Age.MIGHT)[i % 3]
            tasks.append(service.act(ch, user, Travel(to=to, adventurer=i % 2)))
            owner.append(ch)
        for s in info.seats:  # the others try too, and are refused
            if s.user_id != user:
                tasks.append(service.act(ch, s.user_id, EndTurn()))
                owner.append(ch)
    results = await asyncio.gather(*tasks, return_exceptions=True)
    for r in results:
        assert not isinstance(r, Exception) or isinstance(r, EngineError), r
    for ch in channels:
        ok = sum(1 for r, c in zip(results, owner, strict=True)
                 if c == ch and not isinstance(r, Exception))
        assert 1 <= ok <= 4  # 4 Ecus: at most four journeys
        _, state = await service.snapshot(ch)
        assert state.players[state.turn].ecus == 4 - ok  # no lost update
        await _check_log(service, storage, ch, ok)


async def test_double_submission_applies_once(service: GameService, storage: AnyStorage) -> None:
    await started_game(service, 110, players=3, seed=110)
    user, _ = await current_user(service, 110)
    results = await asyncio.gather(service.act(110, user, EndTurn()),
                                   service.act(110, user, EndTurn()), return_exceptions=True)
    assert sum(1 for r in results if not isinstance(r, Exception)) == 1
    assert sum(1 for r in results if isinstance(r, NotYourTurn)) == 1
    await _check_log(service, storage, 110, 1)
    # a double click on a button carrying the version: the second is stale
    user, _ = await current_user(service, 110)
    version = (await service.info(110)).version
    results = await asyncio.gather(
        *(service.act(110, user, Travel(to=Age.FAITH, adventurer=0), expect_version=version),
          service.act(110, user, Travel(to=Age.FAITH, adventurer=0), expect_version=version)),
        return_exceptions=True)
    assert sum(1 for r in results if isinstance(r, StaleState)) == 1
    await _check_log(service, storage, 110, 2)


async def test_two_connections_on_one_file_do_not_lose_updates(service: GameService,
                                                               storage: AnyStorage) -> None:
    """As if a second process shared the database: BEGIN IMMEDIATE serializes the writers on
    SQLite, the channel's lock on PostgreSQL."""
    await started_game(service, 120, players=2, seed=120)
    other_storage = await another(storage).open()
    try:
        other = GameService(other_storage)
        user, _ = await current_user(service, 120)
        tasks = []
        for i in range(6):
            svc = service if i % 2 else other
            tasks.append(svc.act(120, user, Travel(to=(Age.FAITH, Age.REASON)[i % 2],
                                                   adventurer=i % 2)))
        results = await asyncio.gather(*tasks, return_exceptions=True)
        ok = sum(1 for r in results if not isinstance(r, Exception))
        for r in results:
            assert not isinstance(r, Exception) or isinstance(r, EngineError), r
        _, state = await service.snapshot(120)
        assert state.players[state.turn].ecus == 4 - ok
        await _check_log(service, storage, 120, ok)
    finally:
        await other_storage.close()


async def test_reads_see_only_committed_states(service: GameService) -> None:
    await started_game(service, 130, players=2, seed=130)
    user, start = await current_user(service, 130)

    async def reader() -> list[int]:
        steps = []
        for _ in range(30):
            _, st = await service.snapshot(130)
            steps.append(st.step)
            await asyncio.sleep(0)
        return steps

    async def writer() -> None:
        for to in (Age.FAITH, Age.REASON, Age.MIGHT, Age.FAITH):
            await service.act(130, user, Travel(to=to, adventurer=0))

    steps, _ = await asyncio.gather(reader(), writer())
    assert steps == sorted(steps) and set(steps) <= {0, 1, 2, 3, 4}
    assert engine.current_seat(start) is not None
