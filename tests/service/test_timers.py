"""Durable timers with a controllable clock: reminder cadence, mute, deadline warning and
expiry (a pending choice defaulted), pause, absence, replacement, removal, and the restart case
(timers due while the bot was down fire exactly once, even with two dispatchers)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import engine
from bot.commands import Context, run_line
from bot.service import (
    HOUR,
    GamePaused,
    GameService,
    GameSettings,
    LobbyError,
    Outcome,
    PermissionDenied,
)
from bot.service.dispatcher import TimerDispatcher
from bot.storage.api import TimerRow
from bot.storage.sqlite import SqliteStorage
from engine import Age, BuildingType, Choose, Construct, EndTurn, Travel
from engine.builder import position
from tests.service.conftest import Clock, current_user, started_game
from tests.storage.postgres.backend import AnyStorage


async def timers_of(storage: AnyStorage, service: GameService, channel: int) -> list[TimerRow]:
    info = await service.info(channel)
    async with storage.read() as q:
        return await q.timers(info.game_id)


async def fire_due(service: GameService, *, delivered: bool = True) -> list[Outcome]:
    """Fire the due timers; what they said is then delivered (its rows marked sent, as the
    bot's deliverer does), unless ``delivered`` is False."""
    outs = [o for o in [await service.fire_timer(t) for t in await service.due_timers()]
            if o is not None]
    if delivered:
        await mark_delivered(service, outs)
    return outs


async def mark_delivered(service: GameService, outs: list[Outcome]) -> None:
    async with service.storage.write() as tx:
        for row in (r for o in outs for r in o.outbox):
            await tx.mark_sent(row, service.clock(), "sent")


def dms(outs: list[Outcome], kind: str) -> list[tuple[int, str]]:
    return [(d.user_id, d.text) for o in outs for d in o.direct if d.kind == kind]


# --- reminders ---------------------------------------------------------------------------------


async def test_reminder_cadence_text_and_what_changed(service: GameService, clock: Clock,
                                                      storage: AnyStorage) -> None:
    out = await started_game(service, 1, players=2, seed=1,
                             settings=GameSettings(reminder_hours=24))
    assert out.game is not None
    first, _ = await current_user(service, 1)
    await service.act(1, first, Travel(to=Age.FAITH))
    await service.act(1, first, EndTurn())
    second, _ = await current_user(service, 1)
    assert second != first
    turn_began = clock.now

    clock.now += 23.9 * HOUR
    assert await fire_due(service) == []
    clock.now += 0.2 * HOUR
    (rem,) = await fire_due(service)
    (dm,) = rem.direct
    assert dm.user_id == second and dm.kind == "reminder"
    info = rem.game
    assert info is not None
    assert f"https://discord.com/channels/1/{info.channel_id}" in dm.text
    assert f"<t:{int(turn_began)}:R>" in dm.text  # since when, in each reader's time zone
    assert "Your hand:" in dm.text
    assert "Since your last move:" in dm.text and "travels" in dm.text  # the opponent's moves
    assert dm.image is not None and dm.image.kind == "hand"
    assert dm.fallback is not None  # closed DMs: mention him in the channel, this once
    assert await fire_due(service) == []  # rescheduled in the same transaction

    clock.now += 23.9 * HOUR
    assert await fire_due(service) == []  # at most one reminder every N hours
    clock.now += 0.2 * HOUR
    (again,) = await fire_due(service)
    assert again.direct[0].user_id == second
    assert again.direct[0].fallback is None  # the channel mention is once per turn

    # acting restarts the count: the next reminder is N hours after his action
    await service.act(1, second, Travel(to=Age.FAITH))
    clock.now += 23 * HOUR
    assert await fire_due(service) == []
    clock.now += 1.1 * HOUR
    assert [u for u, _ in dms(await fire_due(service), "reminder")] == [second]


async def test_mute_and_unmute(service: GameService, clock: Clock) -> None:
    await started_game(service, 2, players=2, seed=2, settings=GameSettings(reminder_hours=12))
    user, _ = await current_user(service, 2)
    out = await service.set_muted(2, user, True)
    assert out.reply is not None and "off" in out.reply.text
    for _ in range(3):
        clock.now += 12.1 * HOUR
        assert dms(await fire_due(service), "reminder") == []
    await service.set_muted(2, user, False)
    clock.now += 12.1 * HOUR
    assert [u for u, _ in dms(await fire_due(service), "reminder")] == [user]


async def test_settings_are_changed_by_the_creator_only(service: GameService, clock: Clock,
                                                        storage: AnyStorage) -> None:
    out = await started_game(service, 3, players=2, seed=3)
    assert out.game is not None
    creator = out.game.creator_id
    other = next(s.user_id for s in out.game.seats if s.user_id != creator)
    with pytest.raises(PermissionDenied):
        await service.update_settings(3, other, reminder_hours=1)
    shown = await service.update_settings(3, other)
    assert shown.reply is not None and "24 h" in shown.reply.text
    done = await run_line(service, Context(3, creator, "Ann"), "/settings reminder:6 deadline:72")
    assert "6 h" in done.public[0].text and "72 h" in done.public[0].text
    kinds = {t.kind: t.due_at - clock.now for t in await timers_of(storage, service, 3)}
    assert kinds == {"reminder": 6 * HOUR, "deadline_warning": 71 * HOUR,
                     "deadline": 72 * HOUR}
    await run_line(service, Context(3, creator, "Ann"), "/settings deadline:off")
    assert [t.kind for t in await timers_of(storage, service, 3)] == ["reminder"]


# --- deadlines -----------------------------------------------------------------------------------


async def test_deadline_warning_then_a_pending_choice_takes_its_default(
        service: GameService, clock: Clock, storage: AnyStorage) -> None:
    out = await started_game(service, 4, players=2, seed=4,
                             settings=GameSettings(reminder_hours=100, deadline_hours=48))
    assert out.game is not None
    info = out.game
    # the rulebook's junction (R32/R33): seat 1's Keep loses against seat 0's power
    prepared = position(2, might="Keep F4 0; Watchtower F6 0; Keep I4 1",
                        faith="Keep I4 1 copy", reason="Keep I4 ruin copy",
                        hands={0: "ccmr"}, turn=0)
    async with storage.write() as tx:
        game = await tx.game(info.game_id)
        assert game is not None
        await tx.update_game(game.id, game.version, now=clock.now,
                             state=prepared.model_dump_json(),
                             checkpoint=prepared.model_dump_json())
    red, white = info.user_of(0), info.user_of(1)
    assert red is not None and white is not None
    await service.act(4, red, Construct(age=Age.MIGHT, building=BuildingType.HAMLET,
                                        square="H4"))
    _, state = await service.snapshot(4)
    assert state.pending is not None and state.pending.seat == 1
    default = state.pending.default
    chosen_at = clock.now

    clock.now += 46.9 * HOUR
    assert dms(await fire_due(service), "deadline_warning") == []
    clock.now += 0.2 * HOUR
    (warn,) = dms(await fire_due(service), "deadline_warning")
    assert warn[0] == white
    assert f"<t:{int(chosen_at + 48 * HOUR)}:R>" in warn[1] and "default" in warn[1]

    clock.now += 0.92 * HOUR  # just after the deadline (not late enough to be "offline")
    (moved,) = await fire_due(service)
    text = moved.public[0].text
    assert "Time is up for" in text and "automatically" in text
    assert moved.public[0].image is not None  # posted like any move, with the boards
    info2, state = await service.snapshot(4)
    assert state.pending is None and engine.current_seat(state) == 0
    async with storage.read() as q:
        last = (await q.moves(info.game_id))[-1]
    assert last.user_id is None and last.seat == 1
    assert engine.parse_action(last.action) == Choose(option=default)
    assert {t.user_id for t in await timers_of(storage, service, 4)} == {red}
    assert [p.user_id for p in moved.pings] == [red]


async def test_deadline_ends_the_turn_keeping_cards(service: GameService, clock: Clock,
                                                    storage: AnyStorage) -> None:
    await started_game(service, 5, players=2, seed=5,
                       settings=GameSettings(deadline_hours=24))
    user, before = await current_user(service, 5)
    seat = before.turn
    clock.now += 24.1 * HOUR
    outs = await fire_due(service)
    assert any("automatically" in p.text for o in outs for p in o.public)
    nxt, after = await current_user(service, 5)
    assert nxt != user
    assert sorted(after.players[seat].hand) == sorted(before.players[seat].hand)  # kept
    assert len(after.players[seat].hand) >= 4  # refilled


# --- pause, absence ------------------------------------------------------------------------------


async def test_pause_stops_timers_and_moves_resume_restarts_them(
        service: GameService, clock: Clock, storage: AnyStorage) -> None:
    out = await started_game(service, 6, players=2, seed=6,
                             settings=GameSettings(deadline_hours=48))
    assert out.game is not None
    creator = out.game.creator_id
    other = next(s.user_id for s in out.game.seats if s.user_id != creator)
    with pytest.raises(PermissionDenied):
        await service.pause(6, other)
    old = await service.due_timers(clock.now + 100 * HOUR)
    paused = await service.pause(6, creator)
    assert "pauses" in paused.public[0].text
    assert await timers_of(storage, service, 6) == []
    user, _ = await current_user(service, 6)
    with pytest.raises(GamePaused, match="paused"):
        await service.act(6, user, EndTurn())
    with pytest.raises(GamePaused):
        await service.pause(6, creator)
    clock.now += 200 * HOUR
    assert [await service.fire_timer(t) for t in old] == [None] * len(old)
    status = await service.status(6)
    assert status.reply is not None and "Paused since <t:" in status.reply.text
    resumed = await service.resume(6, other, is_admin=True)
    assert "resumes" in resumed.public[0].text and [p.user_id for p in resumed.pings] == [user]
    due = {t.kind: t.due_at - clock.now for t in await timers_of(storage, service, 6)}
    assert due["deadline"] == 48 * HOUR and due["reminder"] == 24 * HOUR
    await service.act(6, user, EndTurn())


async def test_absence_extends_deadlines_and_silences_reminders(
        service: GameService, clock: Clock, storage: AnyStorage) -> None:
    await started_game(service, 7, players=2, seed=7,
                       settings=GameSettings(reminder_hours=12, deadline_hours=24))
    user, _ = await current_user(service, 7)
    start = clock.now
    out = await run_line(service, Context(7, user, "X"), "/away 48")
    assert "away until <t:" in out.public[0].text and "extended" in out.public[0].text
    due = {t.kind: t.due_at - start for t in await timers_of(storage, service, 7)}
    assert due["deadline"] == 72 * HOUR  # 24 h + the 48 h absence
    assert due["reminder"] == 48 * HOUR  # none while away
    clock.now += 47 * HOUR
    assert await fire_due(service) == []
    clock.now += 1.5 * HOUR
    assert [u for u, _ in dms(await fire_due(service), "reminder")] == [user]
    clock.now += 24 * HOUR
    outs = await fire_due(service)
    assert any("automatically" in p.text for o in outs for p in o.public)

    # an absence declared out of turn extends the deadline when the turn comes
    other, _ = await current_user(service, 7)
    await run_line(service, Context(7, user, "X"), "/away 30")
    clock.now += 10 * HOUR
    await service.act(7, other, EndTurn())
    due = {t.kind: t.due_at - clock.now for t in await timers_of(storage, service, 7)}
    assert due["deadline"] == pytest.approx((24 + 20) * HOUR)
    await service.back(7, user)
    (rem,) = [t for t in await timers_of(storage, service, 7) if t.kind == "reminder"]
    assert rem.due_at - clock.now == 12 * HOUR


# --- replacement and removal ---------------------------------------------------------------------


async def test_replacement_moves_hand_and_reminders_to_the_new_user(
        service: GameService, clock: Clock, storage: AnyStorage) -> None:
    out = await started_game(service, 8, players=2, seed=8)
    assert out.game is not None
    creator = out.game.creator_id
    user, state = await current_user(service, 8)
    other = next(s.user_id for s in out.game.seats if s.user_id != user)
    with pytest.raises(PermissionDenied):
        await service.replace_player(8, 999, user, 777, "Zed")
    with pytest.raises(LobbyError, match="already sits"):
        await service.replace_player(8, creator, user, other, "Bob")
    done = await service.replace_player(8, creator, user, 777, "Zed")
    assert "Zed takes over" in done.public[0].text
    hand = [d for d in done.direct if d.kind == "hand"]
    assert [d.user_id for d in hand] == [777] and hand[0].image is not None
    assert [p.user_id for p in done.pings] == [777]  # it is his turn now
    assert {t.user_id for t in await timers_of(storage, service, 8)} == {777}
    clock.now += 24.1 * HOUR
    assert [u for u, _ in dms(await fire_due(service), "reminder")] == [777]
    info, after = await service.snapshot(8)
    assert after.players == state.players  # the seat keeps its state
    await service.act(8, 777, EndTurn())
    history = await service.history(8)
    assert history.reply is not None and "Zed replaced" in history.reply.text


async def test_a_removed_player_is_played_by_default(service: GameService, clock: Clock,
                                                     storage: AnyStorage) -> None:
    out = await started_game(service, 9, players=3, seed=9)
    assert out.game is not None
    creator = out.game.creator_id
    user, state = await current_user(service, 9)
    kicked_seat = state.turn
    done = await run_line(service, Context(9, creator, "Ann", is_admin=True),
                          f"/kick <@{user}>")
    assert "removed" in done.public[0].text and "ends the turn" in done.public[0].text
    info, state = await service.snapshot(9)
    assert engine.current_seat(state) != kicked_seat
    for _ in range(2):  # the others end their turns; the kicked seat passes at once
        nxt, _ = await current_user(service, 9)
        await service.act(9, nxt, EndTurn())
    info, state = await service.snapshot(9)
    assert engine.current_seat(state) != kicked_seat
    assert all(t.seat != kicked_seat for t in await timers_of(storage, service, 9))
    others = [s.user_id for s in info.seats if s.seat != kicked_seat]
    await service.kick(9, creator, others[0], is_admin=True)
    with pytest.raises(LobbyError, match="abandon"):
        await service.kick(9, creator, others[1], is_admin=True)
    status = await service.status(9)
    assert status.reply is not None and "Removed" in status.reply.text


async def test_abandon_gives_the_standing_and_my_games_lists_games(
        service: GameService) -> None:
    await started_game(service, 10, players=2, seed=10)
    await started_game(service, 11, players=2, seed=11)
    info10 = await service.info(10)
    user = info10.seats[0].user_id
    await service.create_game(12, 555, "Ann", guild_id=77)
    await service.join(12, user, "Bob")
    mine = await service.my_games(user)
    assert mine.reply is not None and mine.reply.ephemeral
    text = mine.reply.text
    assert "https://discord.com/channels/1/10" in text and "https://discord.com/channels/77/12" \
        in text and "lobby" in text
    assert "https://discord.com/channels/1/11" not in text  # he does not play there
    assert "your turn" in text or "'s turn" in text
    out = await service.abandon(10, info10.creator_id)
    assert "Standing" in out.public[0].text and "Ecus" in out.public[0].text
    mine = await service.my_games(user)
    assert mine.reply is not None and "/channels/1/10" not in mine.reply.text
    none = await service.my_games(4242)
    assert none.reply is not None and "not playing" in none.reply.text


# --- timers that do not pile up ----------------------------------------------------------------


async def unsent_outbox(service: GameService) -> None:
    """Mark everything the outbox holds as delivered (the bot's deliverer caught up)."""
    async with service.storage.write() as tx:
        for row in await tx.unsent(limit=10_000):
            await tx.mark_sent(row.id, service.clock(), "sent")


async def test_a_reminder_is_not_said_again_while_the_last_one_is_undelivered(
        service: GameService, clock: Clock) -> None:
    """Deliveries stall (Discord fails, another process holds the game): the reminder comes
    due every period but adds no DM until the one waiting is out; then it goes on."""
    await started_game(service, 30, players=2, seed=30,
                       settings=GameSettings(reminder_hours=1 / 60))  # one minute
    await unsent_outbox(service)
    user, _ = await current_user(service, 30)
    clock.now += 61
    assert len(dms(await fire_due(service, delivered=False), "reminder")) == 1
    for _ in range(12):  # twelve periods while it waits
        clock.now += 61
        assert dms(await fire_due(service, delivered=False), "reminder") == []
    assert (await service.next_timer_due() or 0) > clock.now, "rescheduled, not left due"
    await unsent_outbox(service)
    clock.now += 61
    assert [u for u, _ in dms(await fire_due(service), "reminder")] == [user]


async def test_after_outages_one_reminder_and_one_offline_note_per_game(
        service: GameService, clock: Clock) -> None:
    """Reminders every minute; the bot is down ten minutes, restarts, fires, and is killed
    again before delivering; ten minutes later it restarts again: the player has one
    reminder and the channel one note, not one per outage or per missed period."""
    for channel in (31, 32):
        await started_game(service, channel, players=2, seed=channel,
                           settings=GameSettings(reminder_hours=1 / 60))
    await unsent_outbox(service)
    said: list[Outcome] = []
    for _ in range(2):  # two outages; nothing delivered in between
        clock.now += 600
        said += await fire_due(service, delivered=False)
    reminders = dms(said, "reminder")
    assert sorted(u for u, _ in reminders) == sorted(
        [(await current_user(service, c))[0] for c in (31, 32)])
    notes = [p.text for o in said for p in o.public]
    assert len(notes) == 2 and all(n.startswith("While the bot was offline") for n in notes)
    await unsent_outbox(service)  # delivered at last; the next period is on time: no note
    clock.now += 61
    again = await fire_due(service)
    assert len(dms(again, "reminder")) == 2 and not [p for o in again for p in o.public]


# --- restarts and the dispatcher ---------------------------------------------------------------


async def test_timers_due_while_down_fire_exactly_once(tmp_path: Path) -> None:
    clock = Clock()
    first = SqliteStorage.in_dir(tmp_path)
    await first.open()
    service = GameService(first, clock=clock)
    await started_game(service, 20, players=2, seed=20,
                       settings=GameSettings(reminder_hours=24, deadline_hours=72))
    await started_game(service, 21, players=2, seed=21)
    await first.close()  # the bot stops

    clock.now += 30 * HOUR  # one reminder per game came due while it was down
    a, b = SqliteStorage.in_dir(tmp_path), SqliteStorage.in_dir(tmp_path)  # two processes restart
    await a.open()
    await b.open()
    try:
        delivered: list[Outcome] = []
        service_a = GameService(a, clock=clock)

        async def deliver(out: Outcome) -> None:
            delivered.append(out)
            await mark_delivered(service_a, [out])

        one = TimerDispatcher(service_a, deliver)
        two = TimerDispatcher(GameService(b, clock=clock), deliver)
        await asyncio.gather(one.run_once(), two.run_once(), one.run_once())
        reminders = dms(delivered, "reminder")
        assert len(reminders) == 2 and len({u for u, _ in reminders}) == 2
        notes = [p.text for o in delivered for p in o.public]
        assert len(notes) == 2 and all(n.startswith("While the bot was offline") for n in notes)
        assert await one.run_once() == 0 and await two.run_once() == 0
        clock.now += 24 * HOUR  # and the next period is not late: no note
        await one.run_once()
        assert len(dms(delivered, "reminder")) == 4
        assert len([p for o in delivered for p in o.public]) == 2
    finally:
        await a.close()
        await b.close()


async def test_a_deadline_missed_while_down_is_played_once_without_a_late_warning(
        service: GameService, clock: Clock, storage: AnyStorage) -> None:
    await started_game(service, 22, players=2, seed=22,
                       settings=GameSettings(reminder_hours=100, deadline_hours=24))
    user, _ = await current_user(service, 22)
    clock.now += 30 * HOUR
    outs = await asyncio.gather(*(service.fire_timer(t) for t in await service.due_timers()
                                  for _ in range(2)))
    done = [o for o in outs if o is not None]
    texts = [p.text for o in done for p in o.public]
    assert sum("While the bot was offline" in t for t in texts) == 1
    assert sum("Time is up" in t for t in texts) == 1
    assert dms(done, "deadline_warning") == []  # too late to warn
    nxt, _ = await current_user(service, 22)
    assert nxt != user


async def test_the_dispatcher_sleeps_until_the_next_timer(service: GameService,
                                                          clock: Clock) -> None:
    await started_game(service, 23, players=2, seed=23, settings=GameSettings(reminder_hours=24))
    user, _ = await current_user(service, 23)
    start = clock.now
    got: list[tuple[float, Outcome]] = []
    slept: list[float] = []
    enough = asyncio.Event()

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)
        clock.now += seconds
        await asyncio.sleep(0)

    async def deliver(out: Outcome) -> None:
        got.append((clock.now - start, out))
        await mark_delivered(service, [out])
        if len(got) >= 3:
            enough.set()
            await asyncio.sleep(3600)  # hold the loop here until stopped

    dispatcher = TimerDispatcher(service, deliver, sleep=fake_sleep, max_sleep=6 * HOUR)
    dispatcher.start()
    await asyncio.wait_for(enough.wait(), 10)
    await dispatcher.stop()
    assert [round(t / HOUR) for t, _ in got] == [24, 48, 72]
    assert all(o.direct[0].user_id == user for _, o in got)
    assert max(slept) <= 6 * HOUR  # capped, so that a jump of the clock is noticed


async def test_wake_notices_a_new_earlier_timer(service: GameService, clock: Clock,
                                                storage: AnyStorage) -> None:
    got: list[Outcome] = []

    async def deliver(out: Outcome) -> None:
        got.append(out)

    dispatcher = TimerDispatcher(service, deliver)  # real sleep: it would sleep 5 minutes
    dispatcher.start()
    try:
        await asyncio.sleep(0.05)
        out = await started_game(service, 24, players=2, seed=24)
        assert out.game is not None
        async with storage.write() as tx:
            await tx.add_timer(game_id=out.game.game_id, kind="reminder",
                               seat=engine.current_seat((await service.snapshot(24))[1]),
                               due_at=clock.now, now=clock.now,
                               payload=json.loads('{"since": 0}'))
        dispatcher.wake()
        for _ in range(100):
            if got:
                break
            await asyncio.sleep(0.02)
        assert got and got[0].direct[0].kind == "reminder"
    finally:
        await dispatcher.stop()
