"""Damage made outside the bot (a row edited by hand, a failing disk), on both backends: each
kind is met with a refusal that names what is damaged and what to do, /game rebuild repairs
it (or says why it cannot), the game then plays on, and another game is never affected."""

from __future__ import annotations

import json

import pytest

import engine
from bot.service import DamagedGame, GameService, GameSettings, NotSeated, ServiceError
from tests.service.conftest import Clock, current_user, started_game
from tests.storage.postgres.backend import AnyStorage, execute_raw, fetch_raw

HOUR = 3600.0


async def travel(service: GameService, channel: int) -> int:
    """The player to move travels (a move his /undo can take back); returns his user id."""
    user, state = await current_user(service, channel)
    here = state.players[state.turn].adventurers[0]
    to = engine.Age.FAITH if here is not engine.Age.FAITH else engine.Age.MIGHT
    await service.act(channel, user, engine.Travel(to=to, adventurer=0))
    return user


async def other_game_plays_on(service: GameService, channel: int) -> None:
    user, _ = await current_user(service, channel)
    await service.act(channel, user, engine.EndTurn())


async def game_id(service: GameService, channel: int) -> int:
    return (await service.info(channel)).game_id


async def test_a_turn_out_of_range_is_named_and_rebuilt(
        service: GameService, storage: AnyStorage) -> None:
    await started_game(service, 1, players=2, seed=1)
    await started_game(service, 2, players=2, seed=2)
    user = await travel(service, 1)
    state = json.loads((await service.snapshot(1))[1].model_dump_json())
    state["turn"] = 7
    await execute_raw(storage, "UPDATE games SET state = ? WHERE id = ?", json.dumps(state),
                      await game_id(service, 1))
    for command in (service.undo(1, user), service.act(1, user, engine.EndTurn())):
        with pytest.raises(DamagedGame, match="saved state is damaged.*/game rebuild"):
            await command
    await other_game_plays_on(service, 2)
    out = await service.rebuild(1, user)
    assert "Repaired: the saved state." in out.public[0].text
    assert "takes back" in (await service.undo(1, user)).public[0].text


async def test_an_unreadable_undo_point_is_named_and_rebuilt(
        service: GameService, storage: AnyStorage) -> None:
    await started_game(service, 3, players=2, seed=3)
    await started_game(service, 4, players=2, seed=4)
    user = await travel(service, 3)
    await execute_raw(storage, "UPDATE games SET checkpoint = 'garbage' WHERE id = ?",
                      await game_id(service, 3))
    with pytest.raises(DamagedGame, match="undo point .* is damaged"):
        await service.undo(3, user)
    await other_game_plays_on(service, 4)
    out = await service.rebuild(3, user)  # no longer "not damaged"
    assert "Repaired: the undo point." in out.public[0].text
    assert "takes back" in (await service.undo(3, user)).public[0].text
    with pytest.raises(ServiceError, match="not damaged"):
        await service.rebuild(3, user)


async def test_a_version_behind_the_log_is_named_and_rebuilt(
        service: GameService, storage: AnyStorage) -> None:
    await started_game(service, 5, players=2, seed=5)
    await started_game(service, 6, players=2, seed=6)
    user = await travel(service, 5)
    await execute_raw(storage, "UPDATE games SET version = version - 3 WHERE id = ?",
                      await game_id(service, 5))
    for command in (service.act(5, user, engine.EndTurn()), service.undo(5, user)):
        with pytest.raises(DamagedGame, match="version number is behind its move log"):
            await command  # not the database's IntegrityError
    await other_game_plays_on(service, 6)
    out = await service.rebuild(5, user)
    assert "Repaired: the version number." in out.public[0].text
    await service.act(5, user, engine.EndTurn())


async def test_an_unreadable_timer_payload_does_not_stop_the_game(
        service: GameService, storage: AnyStorage, clock: Clock) -> None:
    await started_game(service, 7, players=2, seed=7)
    user = await travel(service, 7)
    info = await service.info(7)
    await execute_raw(storage, "UPDATE timers SET payload = 'garbage' WHERE game_id = ?",
                      info.game_id)
    assert "takes back" in (await service.undo(7, user)).public[0].text  # no JSONDecodeError
    await execute_raw(storage, "UPDATE timers SET payload = '[1' WHERE game_id = ?",
                      info.game_id)
    clock.now += 25 * HOUR
    fired = [await service.fire_timer(t) for t in await service.due_timers()]
    assert any(out is not None and out.direct for out in fired)  # the reminder went out
    (payload,) = await fetch_raw(storage, "SELECT payload FROM timers WHERE game_id = ?",
                                 info.game_id)
    assert isinstance(json.loads(payload[0]), dict)  # written again, readable


async def test_a_deleted_seat_row_is_named_and_given_back_by_the_rebuild(
        service: GameService, storage: AnyStorage) -> None:
    await started_game(service, 8, players=3, seed=8)  # users 81 (creator), 82, 83
    await started_game(service, 9, players=2, seed=9)
    mover = await travel(service, 8)
    info = await service.info(8)
    lost = info.seat_of(mover)
    assert lost is not None
    await execute_raw(storage, "DELETE FROM seats WHERE game_id = ? AND seat = ?",
                      info.game_id, lost)
    with pytest.raises(DamagedGame, match=f"seat {lost + 1} has no player"):
        await service.status(8)
    with pytest.raises(DamagedGame, match=f"seat {lost + 1} has no player"):
        await service.undo(8, mover)  # not "you are not playing in this game"
    await other_game_plays_on(service, 9)
    out = await service.rebuild(8, 81)  # the creator (whether his row or another is lost)
    assert f"seat {lost + 1}, back to <@{mover}>" in out.public[0].text  # the log names him
    assert "takes back" in (await service.undo(8, mover)).public[0].text


async def test_a_seat_the_log_names_nobody_for_goes_to_a_computer(
        service: GameService, storage: AnyStorage) -> None:
    await started_game(service, 10, players=3, seed=10)  # users 101 (creator), 102, 103
    info, state = await service.snapshot(10)
    idle = next(s for s in info.seats if s.seat != state.turn and s.user_id != 101)
    await execute_raw(storage, "DELETE FROM seats WHERE game_id = ? AND seat = ?",
                      info.game_id, idle.seat)
    out = await service.rebuild(10, 101)
    assert f"seat {idle.seat + 1}, now played by Computer 1 (normal)" in out.public[0].text
    info = await service.info(10)
    assert info.settings.bots == {-1: "normal"}
    with pytest.raises(NotSeated):
        await service.hand(10, idle.user_id)


async def test_a_deadline_that_passed_while_damaged_ends_the_turn_after_the_rebuild(
        service: GameService, storage: AnyStorage, clock: Clock) -> None:
    """55 h into a 24 h turn, with the state and then the settings lost: the rebuilt game
    keeps the turn's deadline, which has passed: the turn ends at once."""
    await started_game(service, 11, players=2, seed=11,
                       settings=GameSettings(deadline_hours=24))
    info, state = await service.snapshot(11)
    player = info.user_of(state.turn)
    await execute_raw(storage, "UPDATE games SET state = 'garbage', settings = '{' "
                      "WHERE id = ?", info.game_id)
    clock.now += 30 * HOUR
    for timer in await service.due_timers():  # the deadline fires into the damage
        await service.fire_timer(timer)
    clock.now += 25 * HOUR
    out = await service.rebuild(11, 111)
    text = out.public[0].text
    assert "Repaired: the saved state, the settings." in text
    assert "Its settings could not be read" in text and "a deadline of 24 h" in text
    assert "deadline passed while the game was damaged" in text
    assert (await service.info(11)).settings.deadline_hours == 24
    fired = [await service.fire_timer(t) for t in await service.due_timers()]
    moved = [o for o in fired if o is not None and o.public]
    assert moved and "Time is up" in moved[-1].public[0].text
    assert not any("offline" in p.text for o in moved for p in o.public)  # it was damaged
    info, state = await service.snapshot(11)
    assert info.user_of(state.turn) != player  # no longer the same player's turn


async def test_a_log_that_does_not_replay_is_refused_with_what_to_do(
        service: GameService, storage: AnyStorage) -> None:
    await started_game(service, 12, players=2, seed=12)
    user = await travel(service, 12)
    gid = await game_id(service, 12)
    await execute_raw(storage, "UPDATE moves SET action = '{\"kind\": \"fly\"}' "
                      "WHERE game_id = ? AND seq = 1", gid)
    await execute_raw(storage, "UPDATE games SET state = 'garbage' WHERE id = ?", gid)
    with pytest.raises(DamagedGame, match="move log cannot be replayed .at entry 1.") as err:
        await service.rebuild(12, user)
    assert "/game abandon" in err.value.message
    await service.abandon(12, 121)  # what it says can be done
