"""Fixtures: a real database, SQLite in a temporary directory and PostgreSQL in a fresh schema
(when ``KHRONOS_TEST_DATABASE_URL`` names a server; tests/storage/postgres/backend.py), and a
service on it."""

from __future__ import annotations

import itertools
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import engine
from bot.service import GameService, GameSettings, Outcome
from engine.random_player import random_action
from tests.storage.postgres.backend import BACKENDS, AnyStorage, new_storage

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve"]


class Clock:
    """A clock the tests move by hand."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def storage(backend: str, tmp_path: Path) -> AsyncIterator[AnyStorage]:
    async with new_storage(backend, tmp_path) as s:
        yield s  # a Storage or a PgStorage: the same methods (bot/storage/api.py)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def service(storage: AnyStorage, clock: Clock) -> GameService:
    seeds = itertools.count(1000)
    return GameService(storage, clock=clock, seeds=lambda: next(seeds))


async def started_game(
    service: GameService,
    channel: int,
    players: int = 3,
    *,
    seed: int | None = None,
    holdem: bool = False,
    settings: GameSettings | None = None,
) -> Outcome:
    """Create, fill and start a game in ``channel``; users are channel*10 + 1 …"""
    users = [channel * 10 + i + 1 for i in range(players)]
    await service.create_game(channel, users[0], NAMES[0], guild_id=1,
                              settings=settings or GameSettings(holdem=holdem), seed=seed)
    for i, u in enumerate(users[1:], 1):
        await service.join(channel, u, NAMES[i])
    return await service.start(channel, users[0])


async def prepared_game(service: GameService, channel: int, state: engine.GameState) -> int:
    """A started 3-player game whose stored state is ``state``; the user of seat 0."""
    await started_game(service, channel, players=3)
    info, _ = await service.snapshot(channel)
    async with service.storage.write() as tx:
        game = await tx.game(info.game_id)
        assert game is not None
        text = state.model_dump_json()
        await tx.update_game(game.id, game.version, now=0.0, state=text, checkpoint=text,
                             checkpoint_seq=await tx.last_seq(game.id))
    user = info.user_of(0)
    assert user is not None
    return user


async def current_user(service: GameService, channel: int) -> tuple[int, engine.GameState]:
    info, state = await service.snapshot(channel)
    seat = engine.current_seat(state)
    assert seat is not None
    user = info.user_of(seat)
    assert user is not None
    return user, state


async def random_move(service: GameService, channel: int, chooser: random.Random) -> Outcome:
    info, state = await service.snapshot(channel)
    seat, action = random_action(state, chooser)
    user = info.user_of(seat)
    assert user is not None
    return await service.act(channel, user, action)
