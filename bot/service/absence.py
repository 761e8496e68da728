"""A player's absence: mute and unmute reminders, declare an absence (no reminders, deadlines
extended) and come back."""

from __future__ import annotations

import engine
from engine import (
    MalformedAction,
)

from ..storage.api import Tx
from .errors import ServiceError
from .model import (
    HOUR,
    MAX_AWAY_HOURS,
    GameStatus,
    TimerKind,
)
from .outbox import outboxed
from .reading import ReadingMixin
from .results import GameInfo, Outcome, Post, Reply
from .texts import (
    hours_text,
    say,
    tell,
    when,
)


class AbsenceMixin(ReadingMixin):
    """/mute, /unmute, /away, /back."""

    async def _end_absence_credit(self, tx: Tx, info: GameInfo, seat: int, now: float) -> None:
        """/back in his own turn: the deadline keeps only the absence really taken (from the
        /away to now), never less than the warning's lead from now."""
        timing = await self._turn_timing(tx, info.game_id)
        if "away_start" not in timing or not timing.get("key", "").endswith(f":{seat}"):
            return
        real = max(0.0, now - float(timing["away_start"]))
        credit = min(MAX_AWAY_HOURS * HOUR, float(timing.get("credit_before", 0.0)) + real)
        back_by = max(0.0, float(timing.get("credit", 0.0)) - credit)
        timing = {k: v for k, v in timing.items() if k not in ("away_start", "credit_before")}
        timing["credit"] = credit
        hours = info.settings.deadline_hours or 0.0
        lead = min(HOUR, hours * HOUR / 4)
        if "due" in timing:
            timing["due"] = max(float(timing["due"]) - back_by, now + lead)
        await tx.set_turn_timing(info.game_id, timing)
        for t in await tx.timers(info.game_id):
            if t.seat == seat and t.kind in (TimerKind.DEADLINE, TimerKind.WARNING):
                await tx.reschedule_timer(t.id, max(t.due_at - back_by, now + (
                    lead if t.kind == TimerKind.DEADLINE else 0.0)))

    @outboxed
    async def set_muted(self, channel_id: int, user_id: int, muted: bool) -> Outcome:
        """Turn the user's reminder DMs in this game off or on (deadlines still apply)."""
        async with self.storage.write() as tx:
            game, info, seat = await self._seated(tx, channel_id, user_id, live_only=True)
            await tx.update_seat(game.id, seat, muted=int(muted))
        text = tell("mute.off" if muted else "mute.on")
        return Outcome(game=info, reply=Reply(text))

    @outboxed
    async def away(self, channel_id: int, user_id: int, hours: float) -> Outcome:
        """Declare an absence of ``hours``: no reminders until it ends, and the user's
        deadlines are extended by it (at once if it is his turn, else when his turn comes)."""
        if not 0 < hours <= MAX_AWAY_HOURS:
            raise MalformedAction(tell("away.bad_hours", hours=f"{MAX_AWAY_HOURS:g}"))
        now = self.clock()
        async with self.storage.write() as tx:
            game, info, seat = await self._seated(tx, channel_id, user_id, live_only=True)
            me = info.seat_info(seat)
            assert me is not None
            until = now + hours * HOUR
            extra = max(0.0, until - max(now, me.away_until or now))
            await tx.update_seat(game.id, seat, away_until=until)
            if game.status == GameStatus.ACTIVE and game.paused_at is None:
                state = self._state(game, info)
                if engine.current_seat(state) == seat:
                    if seat == state.turn:
                        # the turn's deadline: at most MAX_AWAY_HOURS of absence in all, and
                        # only the absence really taken counts once he is /back
                        timing = await self._turn_timing(tx, game.id)
                        credit = float(timing.get("credit", 0.0))
                        extra = max(0.0, min(extra, MAX_AWAY_HOURS * HOUR - credit))
                        if "away_start" not in timing:
                            timing.update(away_start=now, credit_before=credit)
                        timing["credit"] = credit + extra
                        if "due" in timing:
                            timing["due"] = float(timing["due"]) + extra
                        await tx.set_turn_timing(game.id, timing)
                    for t in await tx.timers(game.id):
                        if t.seat != seat:
                            continue
                        if t.kind in (TimerKind.DEADLINE, TimerKind.WARNING):
                            await tx.reschedule_timer(t.id, t.due_at + extra)
                        elif t.kind == TimerKind.REMINDER:
                            await tx.reschedule_timer(t.id, max(t.due_at, until))
            lang = info.settings.language
            key = "away.post_deadline" if info.settings.deadline_hours else "away.post"
            text = say(key, lang, name=me.shown, until=when(until, "f"), again=when(until))
            await tx.add_note(game.id, await tx.last_seq(game.id),
                              say("away.note", lang, name=me.shown, hours=hours_text(hours)),
                              now, user_id)
        return Outcome(game=info, public=[Post(text)],
                       reply=Reply(tell("away.noted", hours=hours_text(hours))))

    @outboxed
    async def back(self, channel_id: int, user_id: int) -> Outcome:
        """End the user's declared absence (deadlines already extended stay extended)."""
        now = self.clock()
        async with self.storage.write() as tx:
            game, info, seat = await self._seated(tx, channel_id, user_id, live_only=True)
            me = info.seat_info(seat)
            assert me is not None
            if me.away_until is None or me.away_until <= now:
                raise ServiceError(tell("away.not_away"))
            await tx.update_seat(game.id, seat, away_until=None)
            await self._end_absence_credit(tx, info, seat, now)
            for t in await tx.timers(game.id):
                if t.kind == TimerKind.REMINDER and t.seat == seat:
                    await tx.reschedule_timer(
                        t.id, now + info.settings.reminder_hours * HOUR)
        return Outcome(game=info, public=[Post(say("away.back", info.settings.language,
                                                   name=me.shown))],
                       reply=Reply(tell("away.welcome")))
