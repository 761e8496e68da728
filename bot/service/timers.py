"""Durable timers (style 11): firing reminders, deadline warnings and deadlines exactly once."""

from __future__ import annotations

import json
from collections.abc import Sequence

import engine
from engine import (
    EngineError,
    GameState,
)

from ..storage import TimerRow
from ..storage_api import QueriesAPI as Queries
from ..storage_api import TxAPI as Tx
from .core import (
    DAMAGED_NOTICE,
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
)
from .moves import MovesMixin
from .outbox import outboxed
from .texts import (
    cards_text,
    format_names,
    hand_text,
    hours_text,
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
                return Outcome(game=self._info(game, seats, settings=GameSettings()),
                               public=[Post(DAMAGED_NOTICE)])
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
                what = ("your choice takes its default (R37)" if mine
                        else "your turn ends by itself (cards kept, hand refilled)")
                out.direct.append(Direct(
                    me.user_id, "deadline_warning",
                    f"The deadline of your game of Khronos in <#{info.channel_id}> is "
                    f"{when(deadline.due_at)}: act before then, or {what}.\n{info.link}",
                    fallback=f"{me.name}, your deadline is {when(deadline.due_at)}: act before "
                             f"then, or {what}."))
                return out
            if timer.kind != TimerKind.DEADLINE:
                return out if out.public else None
            hours = hours_text(info.settings.deadline_hours or 0)
            intro = (f"Time is up for {me.name} (deadline {hours}): the bot plays "
                     f"automatically for {me.name}: pending choices take their default (R37), "
                     "then the turn ends (cards kept, hand refilled).")
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
        words = {"reminder": "a reminder", "deadline_warning": "a deadline warning",
                 "deadline": "the deadline"}
        kinds = [words.get(t.kind, t.kind) for t in overdue]
        name = info.names.get(timer.seat if timer.seat is not None else -1, "a player")
        what = " and ".join(dict.fromkeys(kinds)) or words.get(timer.kind, "a timer")
        return [f"While the bot was offline, {what} for {name} came due "
                f"({when(min(t.due_at for t in overdue))}); handled now."]

    async def _reminder_dm(self, q: Queries, info: GameInfo, state: GameState, seat: int,
                           since: float, *, first: bool) -> Direct:
        names = info.names
        me = info.seat_info(seat)
        assert me is not None
        if state.pending is not None and state.pending.seat == seat:
            waiting = ("waits for your choice: "
                       + format_names(state.pending.prompt, names))
        else:
            waiting = f"waits for your turn (round {state.round} of 7)"
        lines = [
            f"Reminder: your game of Khronos in <#{info.channel_id}> {waiting}"
            + ("" if waiting.endswith((".", "?", "!")) else "."),
            f"Waiting for you since {when(since)}: {info.link}",
            hand_text(state, seat),
        ]
        changes = await self._since_last_move(q, info, seat)
        if changes:
            lines.append("Since your last move:")
            lines.extend(changes)
        lines.append(f"(At most one reminder every {hours_text(info.settings.reminder_hours)}; "
                     "/mute stops them for this game.)")
        image = Image("hand", state, names, (),
                      f"Your hand: {cards_text(state.players[seat].hand)}", seat=seat,
                      lang=info.settings.language)
        decision = (self._decision(info, state)
                    if state.pending is not None and state.pending.seat == seat else None)
        fallback = (f"{me.name}, the game has been waiting for you since {when(since)}. (Your "
                    "direct messages are closed, so this is said here, once this turn.)"
                    if first else None)
        return Direct(me.user_id, "reminder", "\n".join(lines), image, decision, fallback)

    @staticmethod
    async def _since_last_move(q: Queries, info: GameInfo, seat: int,
                               limit: int = 8) -> list[str]:
        """The other players' log entries since the seat's last one, in words."""
        last = await q.last_seq_of_seat(info.game_id, seat)
        moves = [m for m in await q.moves(info.game_id, after_seq=last) if m.seat != seat]
        lines = []
        for m in moves:
            events = events_of(m.events)
            text = " ".join(format_names(e.text, info.names) for e in events)
            lines.append("- " + (text[:180] + "…" if len(text) > 180 else text))
        if len(lines) > limit:
            lines = [f"- … {len(lines) - limit} earlier moves", *lines[-limit:]]
        return lines
