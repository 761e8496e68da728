"""Whole games by random players through the service: the log and seed rebuild the state."""

from __future__ import annotations

import random

import pytest

import engine
from bot.service import GameService, GameSettings, ServiceError, UndoRefused
from engine import NotYourTurn
from tests.storage.postgres.backend import AnyStorage

from .conftest import random_move, started_game


@pytest.mark.parametrize(("players", "holdem", "seed"),
                         [(2, False, 1), (3, True, 2), (5, False, 3)])
async def test_rebuild_from_the_log_equals_the_saved_state(
    service: GameService, storage: AnyStorage, players: int, holdem: bool, seed: int
) -> None:
    channel = 500 + seed
    await started_game(service, channel, players, seed=seed,
                       settings=GameSettings(holdem=holdem))
    chooser = random.Random(seed)
    undos = 0
    for _ in range(3000):
        info, state = await service.snapshot(channel)
        if state.over:
            break
        if chooser.random() < 0.08:
            user = info.user_of(state.turn)
            assert user is not None
            try:
                await service.undo(channel, user)
                undos += 1
            except (UndoRefused, NotYourTurn):
                pass
            continue
        await random_move(service, channel, chooser)
    info, final = await service.snapshot(channel)
    assert final.over and info.status == "over"
    assert undos > 0
    assert engine.invariant_problems(final) == []
    assert await service.replayed_state(channel) == final
    with pytest.raises(ServiceError, match="not damaged"):  # defect 10: healthy, refused
        await service.rebuild(channel, info.seats[0].user_id)
    async with storage.write() as tx:  # damage it: an Ecu out of thin air breaks nothing
        broken = final.model_copy(deep=True)  # of §9, but the log does not give it
        broken.players[0].ecus += 1
        game = await tx.game(info.game_id)
        assert game is not None
        await tx.update_game(game.id, game.version, now=0.0, state=broken.model_dump_json())
    out = await service.rebuild(channel, info.seats[0].user_id)
    assert out.game is not None and out.game.status == "over"
    _, rebuilt = await service.snapshot(channel)
    assert rebuilt == final
    history = await service.history_entries(channel)
    assert sum(1 for h in history if h.kind == "undo") == undos


async def test_r1_the_log_stores_the_one_name_of_a_building(
    service: GameService, storage: AnyStorage
) -> None:
    """R1: a move typed with another spelling of its square (``c4`` for C4, or any square of a
    larger building) is stored under the name ``legal_actions`` gives it, so the log, replays
    and the history show one name per building."""
    channel = 640
    await started_game(service, channel, 2, seed=5)
    info, state = await service.snapshot(channel)
    seat = engine.current_seat(state)
    assert seat is not None
    built = next(a for a in engine.legal_actions(state, seat)
                 if isinstance(a, engine.Construct) and len(a.square) == 2)
    typed = built.model_copy(update={"square": built.square.lower()})
    assert engine.canonical_action(state, typed) == built
    user = info.user_of(seat)
    assert user is not None
    await service.act(channel, user, typed)
    async with storage.write() as tx:
        moves = await tx.moves(info.game_id)
    assert engine.parse_action(moves[-1].action) == built
    assert await service.replayed_state(channel) == (await service.snapshot(channel))[1]
