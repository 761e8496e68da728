"""Defects seen in the service and the command parser (each fails before its fix)."""

from __future__ import annotations

import threading

import pytest

import engine
from bot.commands import Context, parse_line, run_line
from bot.service import DamagedGame, GameService, GameSettings, NotSeated, PermissionDenied
from engine import MalformedAction
from tests.service.conftest import Clock, current_user, started_game
from tests.storage.postgres.backend import AnyStorage, execute_raw


async def test_a_player_named_like_a_seat_token_keeps_his_own_name(
        service: GameService) -> None:
    """A display name "{P1}" at seat 0 must not make his moves read as seat 1's (Bob's)."""
    channel = 0
    for seed in range(1, 50):  # a seed that seats "{P1}" first
        channel += 1
        await service.create_game(channel, 11, "{P1}", seed=seed)
        await service.join(channel, 12, "Bob")
        info = (await service.start(channel, 11)).game
        assert info is not None
        if info.seat_of(11) == 0:
            break
    user, _ = await current_user(service, channel)
    if user != 11:
        await service.act(channel, user, engine.EndTurn())
    out = await service.act(channel, 11, engine.EndTurn())
    first_line = out.public[0].text.split("\n")[0]
    assert "{P1}" in first_line and "Bob" not in first_line, first_line


async def test_a_kicked_player_cannot_read_his_old_seats_hand(
        service: GameService) -> None:
    await service.create_game(2, 21, "Ann", seed=3)
    await service.join(2, 22, "Bob")
    await service.join(2, 23, "Cid")
    await service.start(2, 21)
    assert (await service.hand(2, 23)).reply is not None
    await service.kick(2, 21, 23)
    with pytest.raises(NotSeated, match="removed"):
        await service.hand(2, 23)


@pytest.mark.parametrize(("line", "words"), [
    ("/create reminder:nan", "finite"),
    ("/create reminder:inf", "finite"),
    ("/create 6", "between 2 and 5"),
    ("/replace Bob 99999999999999999999999", "not a Discord user id"),
    ("/away 1e999", "finite"),
])
def test_bad_numbers_and_misplaced_words_are_refused(line: str, words: str) -> None:
    with pytest.raises(MalformedAction, match=words):
        parse_line(line)


def test_a_refusal_repeats_only_a_short_excerpt_of_what_was_typed() -> None:
    with pytest.raises(MalformedAction) as err:
        parse_line("/build " + "x" * 5000 + " C4 might")
    assert len(err.value.message) < 400


async def test_terminal_commands_with_bad_numbers_change_nothing(
        service: GameService) -> None:
    ctx = Context(channel_id=3, user_id=31, user_name="Ann", guild_id=1, is_admin=False)
    for line in ("/create reminder:nan", "/create 6"):
        with pytest.raises(MalformedAction):
            await run_line(service, ctx, line)
    with pytest.raises(engine.EngineError):
        await service.info(3)  # no game was created


async def test_a_state_breaking_an_invariant_is_damaged_and_contained(
        service: GameService, storage: AnyStorage) -> None:
    """RULES.md §9 (cubes on boards + in supply = 25): a state that breaks it is noticed on
    load; the game refuses with DamagedGame and can be rebuilt; another game plays on."""
    await started_game(service, 4, players=2, seed=4)
    await started_game(service, 5, players=2, seed=5)
    info, good = await service.snapshot(4)
    broken = good.model_copy(deep=True)
    broken.players[0].cubes += 3
    assert engine.invariant_problems(broken)
    async with storage.write() as tx:
        game = await tx.game(info.game_id)
        assert game is not None
        await tx.update_game(game.id, game.version, now=0.0, state=broken.model_dump_json())
    user, _ = await current_user(service, 5)
    with pytest.raises(DamagedGame):
        await service.status(4)
    await service.act(5, user, engine.EndTurn())  # the other game is not affected
    await service.rebuild(4, info.seats[0].user_id)
    assert (await service.snapshot(4))[1] == good


async def test_damaged_settings_or_events_never_crash_other_commands(
        service: GameService, storage: AnyStorage) -> None:
    await started_game(service, 6, players=2, seed=6)  # users 61, 62
    await service.create_game(7, 61, "Ann", seed=7)  # 61 plays in both games
    await service.join(7, 72, "Bob")
    await service.start(7, 61)
    info6 = await service.info(6)
    user, _ = await current_user(service, 6)
    await service.act(6, user, engine.EndTurn())
    await execute_raw(storage, "UPDATE games SET settings = '{\"reminder_hours\": -1}' "
                      "WHERE id = ?", info6.game_id)
    await execute_raw(storage, "UPDATE moves SET events = 'not json' WHERE game_id = ?",
                      info6.game_id)
    with pytest.raises(DamagedGame):
        await service.status(6)
    # /mygames of a player of both games lists both, the damaged one as such
    out = await service.my_games(61)
    assert out.reply is not None and "damaged" in out.reply.text
    assert out.reply.text.count("https://discord.com/channels/") == 2
    # rebuilt: the settings are written again (Hold'em found from the log), the log readable
    await service.rebuild(6, info6.seats[0].user_id)
    assert (await service.info(6)).settings.holdem is False
    entries = await service.history_entries(6)
    assert entries and "damaged" in entries[0].text


async def test_a_kicked_player_cannot_rebuild_and_a_rebuild_keeps_the_deadline(
        service: GameService, storage: AnyStorage) -> None:
    await started_game(service, 8, players=3, seed=8,
                       settings=GameSettings(deadline_hours=24))
    info, state = await service.snapshot(8)
    turn_user = info.user_of(state.turn)
    other = next(s.user_id for s in info.seats if s.user_id not in (turn_user, 81))
    await service.kick(8, 81, other)
    async with storage.read() as q:
        (due,) = [t.due_at for t in await q.timers(info.game_id) if t.kind == "deadline"]
    await execute_raw(storage, "UPDATE games SET state = 'garbage' WHERE id = ?", info.game_id)
    with pytest.raises(PermissionDenied):
        await service.rebuild(8, other)
    await service.rebuild(8, 81)
    async with storage.read() as q:
        (again,) = [t.due_at for t in await q.timers(info.game_id) if t.kind == "deadline"]
    assert again == due


async def test_replays_for_board_move_run_off_the_event_loop(
        service: GameService, monkeypatch: pytest.MonkeyPatch) -> None:
    """/board move:N replays the game from its seed; that must not run on the loop's thread
    (40 at once blocked every other interaction). Timing is measured in benchmarks/."""
    await started_game(service, 9, players=2, seed=9)
    for _ in range(4):
        user, _ = await current_user(service, 9)
        await service.act(9, user, engine.EndTurn())
    threads: list[int] = []
    real_apply = engine.apply

    def spy(state: engine.GameState, seat: int, action: engine.Action, *,
            worded: bool = True) -> tuple[engine.GameState, list[engine.Event]]:
        threads.append(threading.get_ident())
        return real_apply(state, seat, action, worded=worded)

    monkeypatch.setattr(engine, "apply", spy)
    out = await service.move_comparison(9, 3)
    assert out.reply is not None and out.reply.image is not None
    await service.replayed_state(9)
    assert threads and threading.get_ident() not in threads


async def test_a_damaged_game_tells_its_channel_once_when_its_timers_come_due(
        service: GameService, storage: AnyStorage, clock: Clock) -> None:
    """Damaged settings used to make every due timer raise (retried every 10 minutes,
    forever); now the timers of a damaged game are dropped and the channel hears it once."""
    out = await started_game(service, 10, players=2, seed=10,
                             settings=GameSettings(reminder_hours=1, deadline_hours=4))
    assert out.game is not None
    await execute_raw(storage, "UPDATE games SET settings = 'garbage' WHERE id = ?",
                      out.game.game_id)
    clock.now += 10 * 3600
    outs = [await service.fire_timer(t) for t in await service.due_timers()]
    said = [o for o in outs if o is not None]
    assert len(outs) >= 2 and len(said) == 1
    assert "damaged" in said[0].public[0].text and said[0].outbox
    assert await service.due_timers() == []
