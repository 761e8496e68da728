"""Undo never crosses another player's answer to a choice (R37), nor the choice itself."""

from __future__ import annotations

import pytest

import engine
from bot.service import GameService, UndoRefused
from engine import Age, BuildingType, Choose, Construct
from engine.builder import position, tile_at

from .conftest import started_game


async def _junction_game(service: GameService, channel: int) -> tuple[int, int]:
    """A started game whose stored state is the rulebook's Hamlet junction, seat 0 to play."""
    await started_game(service, channel, players=2)
    info, _ = await service.snapshot(channel)
    prepared = position(2, might="Keep F4 0; Watchtower F6 0; Keep I4 1",
                        faith="Keep I4 1 copy", reason="Keep I4 ruin copy",
                        hands={0: "ccmr"}, turn=0)
    async with service.storage.write() as tx:
        game = await tx.game(info.game_id)
        assert game is not None
        await tx.update_game(game.id, game.version, now=0.0, state=prepared.model_dump_json(),
                             checkpoint=prepared.model_dump_json(),
                             checkpoint_seq=await tx.last_seq(game.id))
    red, white = info.user_of(0), info.user_of(1)
    assert red is not None and white is not None
    return red, white


async def test_undo_is_refused_after_another_player_answered_a_choice(
        service: GameService) -> None:
    red, white = await _junction_game(service, 71)
    hamlet = Construct(age=Age.MIGHT, building=BuildingType.HAMLET, square="H4")
    out = await service.act(71, red, hamlet)
    assert out.decision is not None and out.decision.user_id == white
    await service.act(71, white, Choose(option=0))
    _, before = await service.snapshot(71)
    with pytest.raises(UndoRefused) as info:
        await service.undo(71, red)
    assert "answered a choice" in info.value.message
    _, after = await service.snapshot(71)
    assert after == before
    kept = tile_at(after, Age.MIGHT, "I4")
    assert kept is not None and kept.type is BuildingType.WATCHTOWER


async def test_undo_before_the_answer_takes_the_whole_move_back(service: GameService) -> None:
    red, white = await _junction_game(service, 72)
    _, start = await service.snapshot(72)
    await service.act(72, red, Construct(age=Age.MIGHT, building=BuildingType.HAMLET,
                                         square="H4"))
    _, waiting = await service.snapshot(72)
    assert waiting.pending is not None and engine.current_seat(waiting) == 1
    # while the choice is pending it is still red's turn: he may take the move back
    await service.undo(72, red)
    _, back = await service.snapshot(72)
    assert back.pending is None and tile_at(back, Age.MIGHT, "H4") is None
    assert back.boards == start.boards and back.players == start.players
