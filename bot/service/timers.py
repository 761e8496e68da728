"""Durable timers (style 11): firing reminders, deadline warnings and deadlines exactly once."""

from __future__ import annotations

import json
from collections.abc import Sequence

import engine
from engine import (
    EngineError,
    GameState,
)

from ..storage.api import Queries, TimerRow, Tx
from .core import (
    HOUR,
    OFFLINE_MARGIN,
    Direct,
    GameInfo,
    GameSettings,
    GameStatus,
    Image,
    Outcome,
    Post,
    TimerKind,
    events_of,
    stored_language,
)
from .moves import MovesMixin
from .outbox import outboxed
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
            game = await tx.game(timer.game_id)
            if game is None or game.status != GameStatus.ACTIVE or game.paused_at is not None:
                await tx.delete_timer(timer_id)
                return None
            seats = await tx.seats(game.id)
            try:
                info = self._info(game, seats)
                state = self._state(game)
            except EngineError:
                # a damaged game waits for /rebuild; its channel hears it once (the notice is
                # the one the Discord adapter stores when a command meets the damage)
                await tx.delete_timer(timer_id)
                if not await tx.notice_once(game.id, 0, "damaged", now):
                    return None
                lang = stored_language(game)
                return Outcome(game=self._info(game, seats, settings=GameSettings(language=lang)),
                               public=[Post(say("notice.damaged", lang))])
            seat = engine.current_seat(state)
            me = info.seat_info(seat) if seat is not None else None
            if seat is None or seat != timer.seat or me is None:
                await tx.delete_timer(timer_id)
                return None
            timers = await tx.timers(game.id)
            payload = json.loads(timer.payload)
            notes = await self._offline_note(tx, info, timer, timers, payload, now)
            out = Outcome(game=info, public=[Post(n) for n in notes])
            deadline = next((t for t in timers if t.kind == TimerKind.DEADLINE), None)
            deadline_due = deadline is not None and deadline.due_at <= now
            mine = state.pending is not None and state.pending.seat == seat
            lang = info.settings.language

            if timer.kind == TimerKind.REMINDER:
                rest = {k: v for k, v in payload.items() if k != "noted"}
                due = now + max(info.settings.reminder_hours * HOUR,
                                (me.away_until or now) - now)
                quiet = me.muted or (me.away_until or 0.0) > now or deadline_due
                if not quiet:
                    rest["count"] = int(payload.get("count", 0)) + 1
                await tx.reschedule_timer(timer_id, due, rest)
                if not quiet:
                    since = float(payload.get("since", timer.created_at))
                    out.direct.append(await self._reminder_dm(
                        tx, info, state, seat, since, first=int(payload.get("count", 0)) == 0))
                return out if out.public or out.direct else None

            await tx.delete_timer(timer_id)
            if timer.kind == TimerKind.WARNING:
                if deadline is None or deadline_due:
                    return out if out.public else None
                what = say("timers.default_choice" if mine else "timers.turn_ends", lang)
                at = when(deadline.due_at)
                out.direct.append(Direct(
                    me.user_id, "deadline_warning",
                    say("timers.warning", lang, channel=f"<#{info.channel_id}>", due=at,
                        what=what, link=info.link),
                    fallback=say("timers.warning_here", lang, name=me.name, due=at,
                                 what=what)))
                return out
            if timer.kind != TimerKind.DEADLINE:
                return out if out.public else None
            hours = hours_text(info.settings.deadline_hours or 0)
            intro = say("timers.time_up", lang, name=me.name, hours=hours)
            moved = await self._play(tx, game, info, state, now, timed_out=seat, intro=intro)
            moved.public[:0] = out.public
            return moved

    async def _offline_note(self, tx: Tx, info: GameInfo, timer: TimerRow,
                            timers: Sequence[TimerRow], payload: dict[str, object],
                            now: float) -> list[str]:
        """One short note per game for timers that came due while the bot was down; the
        game's other overdue timers are marked so that they do not repeat it."""
        if now - timer.due_at <= OFFLINE_MARGIN or payload.get("noted"):
            return []
        overdue = [t for t in timers if t.due_at <= now]
        for t in overdue:
            if t.id != timer.id:
                await tx.reschedule_timer(t.id, t.due_at, {**json.loads(t.payload), "noted": True})
        lang = info.settings.language

        def word(kind: str) -> str:
            known = ("reminder", "deadline_warning", "deadline", "computer")
            return say(f"timers.kind.{kind}" if kind in known else "timers.kind.other", lang)

        kinds = [word(t.kind) for t in overdue]
        name = info.names.get(timer.seat if timer.seat is not None else -1,
                              say("timers.a_player", lang))
        what = say("hand.and", lang).join(dict.fromkeys(kinds)) or word(timer.kind)
        return [say("timers.offline", lang, what=what, name=name,
                    due=when(min(t.due_at for t in overdue)))]

    async def _reminder_dm(self, q: Queries, info: GameInfo, state: GameState, seat: int,
                           since: float, *, first: bool) -> Direct:
        names = info.names
        lang = info.settings.language
        me = info.seat_info(seat)
        assert me is not None
        if state.pending is not None and state.pending.seat == seat:
            waiting = say("timers.waits_choice", lang,
                          prompt=format_names(event_prompt(state, lang), names))
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
        image = Image("hand", state, names, (),
                      say("image.hand_alt", lang,
                          cards=cards_text(state.players[seat].hand, lang)),
                      seat=seat, lang=lang)
        decision = (self._decision(info, state)
                    if state.pending is not None and state.pending.seat == seat else None)
        fallback = (say("timers.reminder_here", lang, name=me.name, since=when(since))
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
            text = " ".join(format_names(event_sentence(e, lang), info.names) for e in events)
            lines.append("- " + (text[:180] + "…" if len(text) > 180 else text))
        if len(lines) > limit:
            lines = ["- … " + say("timers.earlier", lang, count=len(lines) - limit),
                     *lines[-limit:]]
        return lines
