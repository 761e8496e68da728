"""Durable timers: firing reminders, deadline warnings and deadlines exactly once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import engine
from engine import (
    EngineError,
    GameState,
)

from ..storage.api import GameRow, Queries, TimerRow, Tx
from .model import (
    HOUR,
    OFFLINE_MARGIN,
    GameSettings,
    GameStatus,
    TimerKind,
    events_of,
    stored_language,
)
from .moves import MovesMixin
from .outbox import outboxed, undelivered
from .results import Direct, GameInfo, Image, Outcome, Post, SeatInfo
from .schedule import payload_of
from .texts import (
    cards_text,
    event_prompt,
    event_sentence,
    format_names,
    hand_text,
    hours_text,
    say,
    when,
)

OFFLINE_TAG = "offline"  # the outbox row of a "while the bot was offline" note


@dataclass
class _Firing:
    """A due timer of an active game's current seat, with what firing it needs."""

    tx: Tx
    timer: TimerRow
    game: GameRow
    info: GameInfo
    state: GameState
    seat: int
    me: SeatInfo
    payload: dict[str, Any]
    now: float
    deadline: TimerRow | None
    out: Outcome

    @property
    def deadline_due(self) -> bool:
        return self.deadline is not None and self.deadline.due_at <= self.now


class TimersMixin(MovesMixin):
    """Reminders, warnings and deadlines, fired exactly once."""

    async def due_timers(self, now: float | None = None) -> list[int]:
        """Ids of the timers due now, oldest first (for the dispatcher)."""
        async with self.storage.read() as q:
            rows = await q.due_timers(self.clock() if now is None else now)
        return [r.id for r in rows]

    async def next_timer_due(self) -> float | None:
        async with self.storage.read() as q:
            return await q.next_due()

    async def postpone_timer(self, timer_id: int, seconds: float) -> None:
        """Move a timer that failed to fire ``seconds`` later (the dispatcher's safety net)."""
        async with self.storage.write() as tx:
            if await tx.timer(timer_id) is not None:
                await tx.reschedule_timer(timer_id, self.clock() + seconds)

    @outboxed
    async def fire_timer(self, timer_id: int) -> Outcome | None:
        """Handle one due timer in one transaction, exactly once: the timer is rescheduled
        (reminder) or deleted (warning, deadline) in the same transaction, so a second
        attempt, by this process or another, finds nothing due and returns None.

        A reminder DMs the player (game, since when, the opponents' moves since his last
        one, his hand) and comes back after ``reminder_hours``; a warning DMs the deadline; a
        deadline plays the R37 default of his pending choices and ends his turn, posted like a
        move. A timer that fires more than ``OFFLINE_MARGIN`` late was missed while the bot
        was down: the first such timer of a game adds one short note for its channel.
        Returns None when there is nothing to say."""
        now = self.clock()
        async with self.storage.write() as tx:
            timer = await tx.timer(timer_id)
            if timer is None or timer.due_at > now:
                return None
            firing = await self._firing(tx, timer, now)
            if not isinstance(firing, _Firing):
                return firing
            fire = {
                TimerKind.REMINDER.value: self._fire_reminder,
                TimerKind.WARNING.value: self._fire_warning,
                TimerKind.DEADLINE.value: self._fire_deadline,
            }.get(timer.kind)
            if fire is None:  # a kind this part does not handle: it goes, with its note
                await tx.delete_timer(timer_id)
                return firing.out if firing.out.public else None
            return await fire(firing)

    async def _firing(self, tx: Tx, timer: TimerRow, now: float) -> _Firing | Outcome | None:
        """What a due timer needs to fire, or what to say instead (or None) when its game is
        gone, over, paused, damaged or has moved on to another seat (the timer is deleted)."""
        game = await tx.game(timer.game_id)
        if game is None or game.status != GameStatus.ACTIVE or game.paused_at is not None:
            await tx.delete_timer(timer.id)
            return None
        seats = await tx.seats(game.id)
        try:
            info = self._info(game, seats)
            state = self._state(game, info)
        except EngineError:
            # a damaged game waits for /rebuild; its channel hears it once (the notice is
            # the one the Discord adapter stores when a command meets the damage)
            await tx.delete_timer(timer.id)
            if not await tx.notice_once(game.id, 0, "damaged", now):
                return None
            lang = stored_language(game)
            return Outcome(game=self._info(game, seats, settings=GameSettings(language=lang)),
                           public=[Post(say("notice.damaged", lang))])
        seat = engine.current_seat(state)
        me = info.seat_info(seat) if seat is not None else None
        if seat is None or seat != timer.seat or me is None:
            await tx.delete_timer(timer.id)
            return None
        timers = await tx.timers(game.id)
        payload = payload_of(timer)
        notes = await self._offline_note(tx, info, timer, timers, payload, now)
        deadline = next((t for t in timers if t.kind == TimerKind.DEADLINE), None)
        return _Firing(tx=tx, timer=timer, game=game, info=info, state=state, seat=seat, me=me,
                       payload=payload, now=now, deadline=deadline,
                       out=Outcome(game=info, public=notes))

    async def _fire_reminder(self, f: _Firing) -> Outcome | None:
        """DM the player whose turn it is (unless muted, away or past his deadline) and come
        back after ``reminder_hours``."""
        me, now = f.me, f.now
        rest = {k: v for k, v in f.payload.items() if k != "noted"}
        due = now + max(f.info.settings.reminder_hours * HOUR, (me.away_until or now) - now)
        quiet = (me.muted or (me.away_until or 0.0) > now or f.deadline_due
                 # his last reminder is not out yet (deliveries stalled, or the bot was
                 # down): reminders do not pile up, he gets that one
                 or await undelivered(f.tx, f.info.game_id, kind="direct", user_id=me.user_id,
                                      direct_kind="reminder"))
        if not quiet:
            rest["count"] = int(f.payload.get("count", 0)) + 1
        await f.tx.reschedule_timer(f.timer.id, due, rest)
        if not quiet:
            since = float(f.payload.get("since", f.timer.created_at))
            f.out.direct.append(await self._reminder_dm(
                f.tx, f.info, f.state, f.seat, since, first=int(f.payload.get("count", 0)) == 0))
        return f.out if f.out.public or f.out.direct else None

    async def _fire_warning(self, f: _Firing) -> Outcome | None:
        """DM the player when his turn (or his pending choice) will end by default."""
        await f.tx.delete_timer(f.timer.id)
        if f.deadline is None or f.deadline_due:
            return f.out if f.out.public else None
        lang = f.info.settings.language
        mine = f.state.pending is not None and f.state.pending.seat == f.seat
        what = say("timers.default_choice" if mine else "timers.turn_ends", lang)
        at = when(f.deadline.due_at)
        f.out.direct.append(Direct(
            f.me.user_id, "deadline_warning",
            say("timers.warning", lang, channel=f"<#{f.info.channel_id}>", due=at,
                what=what, link=f.info.link),
            fallback=say("timers.warning_here", lang, name=f.me.shown, due=at, what=what)))
        return f.out

    async def _fire_deadline(self, f: _Firing) -> Outcome | None:
        """Play the R37 default of his pending choices and end his turn, posted like a move."""
        await f.tx.delete_timer(f.timer.id)
        lang = f.info.settings.language
        hours = hours_text(f.info.settings.deadline_hours or 0)
        intro = say("timers.time_up", lang, name=f.me.shown, hours=hours)
        moved = await self._play(f.tx, f.game, f.info, f.state, f.now, timed_out=f.seat,
                                 intro=intro)
        moved.public[:0] = f.out.public
        return moved

    async def _offline_note(self, tx: Tx, info: GameInfo, timer: TimerRow,
                            timers: Sequence[TimerRow], payload: dict[str, object],
                            now: float) -> list[Post]:
        """One short note per game for timers that came due while the bot was down; the
        game's other overdue timers are marked so that they do not repeat it, and no note is
        added while the last one is not delivered (a second outage before it went out)."""
        if now - timer.due_at <= OFFLINE_MARGIN or payload.get("noted"):
            return []
        overdue = [t for t in timers if t.due_at <= now]
        for t in overdue:
            if t.id != timer.id:
                await tx.reschedule_timer(t.id, t.due_at, {**payload_of(t), "noted": True})
        if await undelivered(tx, info.game_id, kind="post", tag=OFFLINE_TAG):
            return []
        lang = info.settings.language

        def word(kind: str) -> str:
            known = ("reminder", "deadline_warning", "deadline", "computer")
            return say(f"timers.kind.{kind}" if kind in known else "timers.kind.other", lang)

        kinds = [word(t.kind) for t in overdue]
        name = info.names.get(timer.seat if timer.seat is not None else -1,
                              say("timers.a_player", lang))
        what = say("hand.and", lang).join(dict.fromkeys(kinds)) or word(timer.kind)
        return [Post(say("timers.offline", lang, what=what, name=name,
                         due=when(min(t.due_at for t in overdue))), tag=OFFLINE_TAG)]

    async def _reminder_dm(self, q: Queries, info: GameInfo, state: GameState, seat: int,
                           since: float, *, first: bool) -> Direct:
        names = info.names
        lang = info.settings.language
        me = info.seat_info(seat)
        assert me is not None
        if state.pending is not None and state.pending.seat == seat:
            waiting = say("timers.waits_choice", lang,
                          prompt=format_names(event_prompt(state, lang), names, lang))
        else:
            waiting = say("timers.waits_turn", lang, round=state.round)
        lines = [
            say("timers.reminder", lang, channel=f"<#{info.channel_id}>", waiting=waiting)
            + ("" if waiting.endswith((".", "?", "!")) else "."),
            say("timers.since", lang, since=when(since), link=info.link),
            hand_text(state, seat, lang),
        ]
        changes = await self._since_last_move(q, info, seat)
        if changes:
            lines.append(say("timers.changes", lang))
            lines.extend(changes)
        lines.append(say("timers.how_often", lang,
                         hours=hours_text(info.settings.reminder_hours)))
        image = Image("hand", state, info.plain_names, (),
                      say("image.hand_alt", lang,
                          cards=cards_text(state.players[seat].hand, lang)),
                      seat=seat, lang=lang)
        decision = (self._decision(info, state)
                    if state.pending is not None and state.pending.seat == seat else None)
        fallback = (say("timers.reminder_here", lang, name=me.shown, since=when(since))
                    if first else None)
        return Direct(me.user_id, "reminder", "\n".join(lines), image, decision, fallback)

    @staticmethod
    async def _since_last_move(q: Queries, info: GameInfo, seat: int,
                               limit: int = 8) -> list[str]:
        """The other players' log entries since the seat's last one, in words."""
        last = await q.last_seq_of_seat(info.game_id, seat)
        moves = [m for m in await q.moves(info.game_id, after_seq=last) if m.seat != seat]
        lang = info.settings.language
        lines = []
        for m in moves:
            events = events_of(m.events, lang)
            text = " ".join(format_names(event_sentence(e, lang), info.names, lang)
                            for e in events)
            lines.append("- " + (text[:180] + "…" if len(text) > 180 else text))
        if len(lines) > limit:
            lines = ["- … " + say("timers.earlier", lang, count=len(lines) - limit),
                     *lines[-limit:]]
        return lines
