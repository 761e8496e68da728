"""The service: lobby, moves, results, permissions, undo, damage and rebuild, timers."""

from __future__ import annotations

import random

import pytest

import engine
from bot.service import (
    DamagedGame,
    GameExists,
    GameService,
    GameSettings,
    LobbyError,
    NoGameHere,
    NotSeated,
    NotStarted,
    PermissionDenied,
    UndoRefused,
)
from engine import (
    Age,
    Choose,
    EndTurn,
    Exchange,
    GameOver,
    IllegalAction,
    NotYourTurn,
    StaleState,
    Travel,
)
from tests.storage.postgres.backend import AnyStorage, execute_raw

from .conftest import Clock, current_user, random_move, started_game

# --- lobby and start ---


async def test_create_join_start_seats_users_in_seeded_random_order(service: GameService) -> None:
    out = await started_game(service, 1, players=4, seed=42)
    info = out.game
    assert info is not None and info.status == "active"
    users = [11, 12, 13, 14]
    expected = users[:]
    random.Random(42).shuffle(expected)
    assert [s.user_id for s in info.seats] == expected
    _, state = await service.snapshot(1)
    assert state == engine.new_game(engine.Options(players=4), 42)
    # every player gets his hand privately, the first player with "your turn"; only he is
    # mentioned, by the first turn's table message (no ping message of its own)
    first = info.user_of(state.first_seat)
    assert sorted(d.user_id for d in out.direct if d.kind == "hand") == sorted(
        u for u in users if u != first)
    assert [(d.user_id, d.turn) for d in out.direct if d.kind == "your_turn"] == [
        (first, f"1:{state.first_seat}")]
    assert [p.user_id for p in out.pings] == [first] and out.pings[0].in_table
    assert [(t.turn, t.user_id, t.closed) for t in out.tables] == [
        (f"1:{state.first_seat}", first, False)]
    table_image = out.tables[0].image
    assert table_image is not None and table_image.kind == "table"
    assert f"<@{first}>" in out.tables[0].header
    assert out.public[1].image is not None and out.public[1].image.kind == "move"
    assert out.public[1].in_table and not out.public[0].in_table
    assert "{P" not in out.public[0].text


async def test_game_starts_by_itself_when_full(service: GameService) -> None:
    await service.create_game(2, 21, "Ann", settings=GameSettings(seats=2))
    out = await service.join(2, 22, "Bob")
    assert out.game is not None and out.game.status == "active"
    assert "full" in out.public[0].text


async def test_lobby_refusals(service: GameService) -> None:
    with pytest.raises(NoGameHere):
        await service.join(3, 31, "Ann")
    await service.create_game(3, 31, "Ann")
    with pytest.raises(GameExists):
        await service.create_game(3, 32, "Bob")
    with pytest.raises(LobbyError, match="already joined"):
        await service.join(3, 31, "Ann")
    with pytest.raises(LobbyError, match="at least 2"):
        await service.start(3, 31)
    await service.join(3, 32, "Bob")
    with pytest.raises(NotStarted):
        await service.act(3, 31, Travel(to=Age.FAITH))
    with pytest.raises(PermissionDenied):
        await service.start(3, 32)
    for u in (33, 34, 35):
        await service.join(3, u, f"P{u}")
    with pytest.raises(LobbyError, match="full"):
        await service.join(3, 36, "Six")
    await service.leave(3, 35)
    with pytest.raises(NotSeated):
        await service.leave(3, 35)
    await service.start(3, 32, is_admin=True)
    with pytest.raises(LobbyError, match="started"):
        await service.leave(3, 31)
    with pytest.raises(LobbyError, match="started"):
        await service.join(3, 36, "Six")


async def test_last_player_leaving_closes_the_lobby(service: GameService) -> None:
    await service.create_game(4, 41, "Ann")
    out = await service.leave(4, 41)
    assert out.game is not None and out.game.status == "abandoned"
    await service.create_game(4, 42, "Bob")  # the channel is free again


# --- moves and their results ---


async def test_a_move_is_stored_logged_and_reported(service: GameService,
                                                    storage: AnyStorage) -> None:
    start = await started_game(service, 5, players=3, seed=7)
    assert start.game is not None
    user, state = await current_user(service, 5)
    out = await service.act(5, user, Travel(to=Age.FAITH))
    assert out.game is not None and out.game.version == start.game.version + 1
    assert "travels from Might to Faith" in out.public[0].text
    assert out.pings == []  # mid-turn: nobody is pinged
    assert [d.user_id for d in out.direct] == [user]  # his Ecus changed: his hand panel again
    _, after = await service.snapshot(5)
    assert after.step == state.step + 1
    async with storage.read() as q:
        (move,) = await q.moves(start.game.game_id)
    assert move.user_id == user and move.kind == "action" and move.version == out.game.version
    assert engine.parse_action(move.action) == Travel(to=Age.FAITH)
    # end of turn: the next player is pinged and gets "your turn" privately
    out = await service.act(5, user, EndTurn())
    assert out.game is not None
    nxt = out.game.user_of(engine.current_seat((await service.snapshot(5))[1]) or 0)
    assert [p.user_id for p in out.pings] == [nxt]
    assert any(d.kind == "your_turn" and d.user_id == nxt for d in out.direct)


async def test_engine_refusals_name_players_not_seats(service: GameService) -> None:
    await started_game(service, 6, players=2, seed=3)
    user, state = await current_user(service, 6)
    other = next(u for u in (61, 62) if u != user)
    with pytest.raises(NotYourTurn) as err:
        await service.act(6, other, EndTurn())
    assert "{P" not in err.value.message
    assert any(n in err.value.message for n in ("Ann", "Bob"))
    with pytest.raises(IllegalAction) as err2:
        await service.choose(6, user, 0)
    assert err2.value.rule == "R37"
    _, after = await service.snapshot(6)
    assert after == state  # refusals change nothing


# --- who may do what ---


async def test_permission_refusals(service: GameService) -> None:
    await started_game(service, 7, players=3, seed=9)
    user, _ = await current_user(service, 7)
    with pytest.raises(NoGameHere):
        await service.act(8, user, EndTurn())
    with pytest.raises(NotSeated):  # only seated players act
        await service.act(7, 999, EndTurn())
    with pytest.raises(NotSeated):  # only a player sees his own hand
        await service.hand(7, 999)
    own = await service.hand(7, user)
    assert own.reply is not None and own.reply.ephemeral and own.public == []
    assert own.reply.image is not None and own.reply.image.kind == "hand"
    with pytest.raises(PermissionDenied):  # only the creator or an admin abandons
        await service.abandon(7, 72)
    with pytest.raises(PermissionDenied):
        await service.rebuild(7, 999)
    info = await service.info(7)
    await service.abandon(7, 999, is_admin=True)
    with pytest.raises(NoGameHere, match="abandoned"):
        await service.act(7, user, EndTurn())
    assert info.creator_id == 71


async def test_stale_button_is_refused(service: GameService) -> None:
    out = await started_game(service, 9, players=2, seed=5)
    assert out.game is not None
    user, _ = await current_user(service, 9)
    await service.act(9, user, Travel(to=Age.FAITH), expect_version=out.game.version)
    with pytest.raises(StaleState):
        await service.act(9, user, Travel(to=Age.REASON), expect_version=out.game.version)


# --- undo ---


async def test_undo_goes_back_to_the_turn_start(service: GameService) -> None:
    await started_game(service, 10, players=3, seed=11)
    user, start = await current_user(service, 10)
    await service.act(10, user, Travel(to=Age.FAITH))
    await service.act(10, user, Travel(to=Age.REASON))
    out = await service.undo(10, user)
    assert "takes back" in out.public[0].text
    _, mid = await service.snapshot(10)
    assert mid.players[mid.turn].adventurers.count(Age.FAITH) == 1
    await service.undo(10, user)
    _, back = await service.snapshot(10)
    assert back == start
    with pytest.raises(UndoRefused, match="just started"):
        await service.undo(10, user)
    assert await service.replayed_state(10) == back


async def test_undo_never_crosses_a_card_draw(service: GameService) -> None:
    await started_game(service, 11, players=2, seed=12)
    user, state = await current_user(service, 11)
    card = state.players[state.turn].hand[0]
    await service.act(11, user, Exchange(discard=(card,)))
    _, after_draw = await service.snapshot(11)
    await service.act(11, user, Travel(to=Age.FAITH))
    await service.undo(11, user)
    _, back = await service.snapshot(11)
    assert back == after_draw
    with pytest.raises(UndoRefused, match="draw"):
        await service.undo(11, user)
    await service.act(11, user, EndTurn())
    nxt, _ = await current_user(service, 11)
    with pytest.raises(NotYourTurn):  # the previous player: not his turn any more
        await service.undo(11, user)
    with pytest.raises(UndoRefused, match="just started"):  # the end of turn drew cards
        await service.undo(11, nxt)
    assert await service.replayed_state(11) == (await service.snapshot(11))[1]


async def test_pending_choice_goes_to_its_chooser_and_can_be_undone(
    service: GameService,
) -> None:
    # seed 11 with 5 players and this chooser reaches a downsize choice (R32)
    await started_game(service, 12, players=5, seed=11)
    chooser = random.Random(11)
    for _ in range(300):
        out = await random_move(service, 12, chooser)
        if out.decision is not None:
            break
    info, state = await service.snapshot(12)
    assert state.pending is not None
    decider = info.user_of(state.pending.seat)
    assert out.decision is not None and out.decision.user_id == decider
    assert any(d.kind == "choice" and d.user_id == decider for d in out.direct)
    others = [s.user_id for s in info.seats if s.user_id != decider]
    with pytest.raises(NotYourTurn):
        await service.choose(12, others[0], 0)
    assert decider is not None
    with pytest.raises(IllegalAction, match="R37"):
        await service.act(12, decider, EndTurn())
    await service.undo(12, decider)  # takes back the move that caused the choice
    _, undone = await service.snapshot(12)
    assert undone.pending is None
    moves = await service.history_entries(12)
    assert moves[-1].kind == "undo"
    assert await service.replayed_state(12) == undone  # the log replays the undo exactly


async def test_choose_answers_the_decision(service: GameService) -> None:
    await started_game(service, 13, players=5, seed=11)
    chooser = random.Random(11)
    for _ in range(300):
        if (await random_move(service, 13, chooser)).decision is not None:
            break
    info, state = await service.snapshot(13)
    assert state.pending is not None
    user = info.user_of(state.pending.seat)
    assert user is not None
    out = await service.choose(13, user, state.pending.default)
    assert "chooses" in out.public[0].text
    _, after = await service.snapshot(13)
    assert after.pending is None or after.pending != state.pending
    assert Choose(option=state.pending.default) == engine.parse_action(
        {"kind": "choose", "option": state.pending.default})


# --- damage and rebuild ---


async def test_a_damaged_row_is_contained_and_rebuilt(service: GameService,
                                                      storage: AnyStorage) -> None:
    await started_game(service, 20, players=3, seed=20)
    await started_game(service, 21, players=2, seed=21)
    chooser = random.Random(5)
    for _ in range(12):
        await random_move(service, 20, chooser)
    info, good = await service.snapshot(20)
    await execute_raw(storage, "UPDATE games SET state = ? WHERE id = ?",
                      '{"schema_version": 1, "round": 99}', info.game_id)
    for call in (service.status(20), service.hand(20, 201),
                 service.act(20, 201, EndTurn()), service.undo(20, 201)):
        with pytest.raises(DamagedGame, match="damaged"):
            await call
    # every other game works
    user, _ = await current_user(service, 21)
    await service.act(21, user, Travel(to=Age.FAITH))
    out = await service.rebuild(20, 201)
    assert "rebuilt" in out.public[0].text
    info2, rebuilt = await service.snapshot(20)
    assert rebuilt == good
    assert info2.version > info.version
    user, _ = await current_user(service, 20)
    await service.act(20, user, Travel(to=Age.FAITH))  # and the game goes on


# --- timers ---


async def test_reminders_are_rows_rescheduled_in_the_move(
        service: GameService, storage: AnyStorage, clock: Clock) -> None:
    out = await started_game(service, 30, players=2, seed=30,
                             settings=GameSettings(reminder_hours=24, deadline_hours=48))
    assert out.game is not None
    user, _ = await current_user(service, 30)
    async with storage.read() as q:
        timers = await q.timers(out.game.game_id)
    assert sorted(t.kind for t in timers) == ["deadline", "deadline_warning", "reminder"]
    assert all(t.user_id == user for t in timers)
    assert await service.due_timers() == []
    clock.now += 25 * 3600
    (due,) = await service.due_timers()
    fired = await service.fire_timer(due)
    assert fired is not None and fired.direct[0].kind == "reminder"
    assert fired.direct[0].user_id == user
    assert await service.fire_timer(due) is None  # rescheduled: not due twice
    clock.now += 22.5 * 3600  # the warning an hour before the deadline, then the deadline
    ids = await service.due_timers()
    outs = [await service.fire_timer(t) for t in ids]
    kinds = [o.direct[0].kind if o and o.direct else None for o in outs]
    assert "deadline_warning" in kinds
    clock.now += 3600
    for t in await service.due_timers():
        await service.fire_timer(t)
    nxt, _ = await current_user(service, 30)
    assert nxt != user  # the deadline ended the turn
    async with storage.read() as q:
        moves = await q.moves(out.game.game_id)
        timers = await q.timers(out.game.game_id)
    assert moves[-1].user_id is None and engine.parse_action(moves[-1].action) == EndTurn()
    assert {t.user_id for t in timers} == {nxt}


async def test_game_over_refuses_moves_and_undo(service: GameService) -> None:
    await started_game(service, 40, players=2, seed=40)
    chooser = random.Random(40)
    for _ in range(2000):
        _, state = await service.snapshot(40)
        if state.over:
            break
        await random_move(service, 40, chooser)
    info, state = await service.snapshot(40)
    assert state.over and info.status == "over"
    with pytest.raises(GameOver):
        await service.act(40, info.seats[0].user_id, EndTurn())
    with pytest.raises(GameOver):
        await service.undo(40, info.seats[0].user_id)
    status = await service.status(40)
    assert status.reply is not None and "Winner" in status.reply.text
    assert await service.replayed_state(40) == state
    history = await service.history(40, 5)
    assert history.reply is not None and "game is over" in history.reply.text
    await service.create_game(40, 1, "Ann")  # a finished game frees the channel


async def test_by_game_id_preview_and_seat_state(service: GameService) -> None:
    out = await started_game(service, 50, players=2, seed=50)
    assert out.game is not None
    user, state = await current_user(service, 50)
    info, full, seat = await service.seat_state(50, user)
    assert seat == state.turn and full == state
    assert (await service.seat_state(50, 999))[2] is None
    _, view, names, events = await service.preview(50, user, Travel(to=Age.FAITH))
    assert events[0].kind and view.step == state.step + 1 and names == info.names
    assert (await service.snapshot(50))[1] == state  # a preview stores nothing
    with pytest.raises(NotSeated):
        await service.preview(50, 999, EndTurn())
    done = await service.act_in_game(out.game.game_id, user, Travel(to=Age.FAITH),
                                     expect_version=out.game.version)
    assert done.game is not None and done.game.version == out.game.version + 1
    with pytest.raises(IllegalAction, match="R37"):
        await service.choose_in_game(out.game.game_id, user, 0)
    with pytest.raises(NoGameHere):
        await service.act_in_game(12345, user, EndTurn())
