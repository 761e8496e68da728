"""A turn's deadline is fixed when the turn starts; an absence extends it
by what is really taken, at most two weeks; another seat's choice and /undo do not renew it."""

from __future__ import annotations

from bot.service import HOUR, MAX_AWAY_HOURS, GameService, GameSettings
from engine import Age, BuildingType, Construct
from engine.builder import position
from tests.service.conftest import Clock, current_user, started_game
from tests.storage.postgres.backend import AnyStorage


async def deadline_of(storage: AnyStorage, service: GameService, channel: int) -> float:
    info = await service.info(channel)
    async with storage.read() as q:
        (due,) = [t.due_at for t in await q.timers(info.game_id) if t.kind == "deadline"]
    return due


async def test_away_then_back_repeated_does_not_push_the_deadline_back(
        service: GameService, clock: Clock, storage: AnyStorage) -> None:
    await started_game(service, 1, players=2, seed=3,
                       settings=GameSettings(reminder_hours=12, deadline_hours=24))
    user, _ = await current_user(service, 1)
    first = await deadline_of(storage, service, 1)
    for _ in range(20):
        await service.away(1, user, MAX_AWAY_HOURS)
        clock.now += 60  # a minute away, really
        await service.back(1, user)
    due = await deadline_of(storage, service, 1)
    assert due <= first + 20 * 60 + 1, (due - first) / HOUR
    # one long absence extends it, but never beyond two weeks in all
    await service.away(1, user, MAX_AWAY_HOURS)
    await service.away(1, user, MAX_AWAY_HOURS)
    due = await deadline_of(storage, service, 1)
    assert due <= first + MAX_AWAY_HOURS * HOUR + 1


async def test_a_choice_for_another_seat_then_undo_keeps_the_turns_deadline(
        service: GameService, clock: Clock, storage: AnyStorage) -> None:
    """R32/R33/R37: the build hands a choice to seat 1; undoing it, again and again, gives
    seat 0 back the deadline his turn started with."""
    out = await started_game(service, 2, players=2, seed=4,
                             settings=GameSettings(reminder_hours=100, deadline_hours=48))
    assert out.game is not None
    info = out.game
    prepared = position(2, might="Keep F4 0; Watchtower F6 0; Keep I4 1",
                        faith="Keep I4 1 copy", reason="Keep I4 ruin copy",
                        hands={0: "ccmr"}, turn=0)
    async with storage.write() as tx:
        game = await tx.game(info.game_id)
        assert game is not None
        await tx.update_game(game.id, game.version, now=clock.now,
                             state=prepared.model_dump_json(),
                             checkpoint=prepared.model_dump_json())
        await tx.cancel_timers(game.id)
    red = info.user_of(0)
    assert red is not None
    await service.act(2, red, Construct(age=Age.MIGHT, building=BuildingType.HAMLET,
                                        square="H4"))
    await service.undo(2, red)
    first = await deadline_of(storage, service, 2)
    for _ in range(5):
        clock.now += HOUR
        await service.act(2, red, Construct(age=Age.MIGHT, building=BuildingType.HAMLET,
                                            square="H4"))
        clock.now += HOUR
        await service.undo(2, red)
        assert await deadline_of(storage, service, 2) == first
