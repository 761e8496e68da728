"""/board move:N shows the boards before and after a move, rebuilt from the log."""

from __future__ import annotations

import random

import pytest

import engine
from bot.commands import Context, run_line
from bot.service import GameService, NotStarted, ServiceError

from .conftest import current_user, random_move, started_game


async def test_before_and_after_a_move_come_from_the_log(service: GameService) -> None:
    await started_game(service, 81, players=3)
    chooser = random.Random(3)
    for _ in range(6):
        await random_move(service, 81, chooser)
    entries = await service.history_entries(81)
    target = entries[2]
    out = await service.move_comparison(81, target.seq)
    assert out.reply is not None and out.reply.image is not None
    image = out.reply.image
    assert image.kind == "compare" and f"Move {target.seq}" in out.reply.text
    assert image.view.step == image.before_view.step + 1
    replayed = await service.replayed_state(81)
    assert image.view.step <= replayed.step
    last = await service.move_comparison(81)
    assert last.reply is not None and last.reply.image is not None
    assert last.reply.image.view == engine.public_view(replayed)


async def test_unknown_or_undone_moves_are_refused(service: GameService) -> None:
    with pytest.raises(ServiceError):
        await service.move_comparison(82)  # no game here
    await service.create_game(82, 821, "Ann", guild_id=1)
    with pytest.raises(NotStarted):
        await service.move_comparison(82)
    await started_game(service, 83, players=2)
    user, state = await current_user(service, 83)
    await service.act(83, user, engine.Travel(to=engine.Age.FAITH))
    await service.undo(83, user)
    entries = await service.history_entries(83)
    undone = [e for e in entries if e.kind == "action"][-1].seq
    with pytest.raises(ServiceError) as info:
        await service.move_comparison(83, undone)
    assert "taken back" in info.value.message
    with pytest.raises(ServiceError):
        await service.move_comparison(83, 999)


async def test_the_board_command_takes_a_move_number(service: GameService) -> None:
    await started_game(service, 84, players=2)
    user, _ = await current_user(service, 84)
    await service.act(84, user, engine.EndTurn())
    seq = (await service.history_entries(84))[-1].seq
    out = await run_line(service, Context(84, user, "Ann"), f"/board move:{seq}")
    assert out.reply is not None and out.reply.image is not None
    assert out.reply.image.kind == "compare" and out.reply.ephemeral
