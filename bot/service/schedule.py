"""The timers of whoever must act (reminders, deadline warnings, deadlines, a computer's turn),
created and cancelled in the transaction of the move that causes them."""

from __future__ import annotations

import json
import logging
from typing import Any

import engine
from engine import (
    GameState,
)

from ..storage.api import Queries, TimerRow, Tx
from .core import ServiceCore
from .model import HOUR, MAX_AWAY_HOURS, GameStatus, TimerKind, is_computer
from .results import GameInfo

log = logging.getLogger("khronos.service")


def payload_of(timer: TimerRow) -> dict[str, Any]:
    """A timer's payload (when its player's wait began, reminders sent, a note made); an
    unreadable one (edited by hand) reads as empty, and is written again by whoever
    reschedules the timer: it only refines what a reminder says."""
    try:
        data = json.loads(timer.payload)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        log.warning("game %s: timer %s has an unreadable payload; read as empty",
                    timer.game_id, timer.id)
        return {}
    return data


class ScheduleMixin(ServiceCore):
    """Timer scheduling (durable timers: rows in the move's transaction)."""

    async def _schedule(
        self, tx: Tx, info: GameInfo, state: GameState, now: float, *, fresh: bool = False,
        reset_deadline: bool = False, shift: float = 0.0,
    ) -> None:
        """The timers of whoever must act now, in the caller's transaction.

        If the same player is still to act (he moved within his turn), his reminder moves to
        ``reminder_hours`` from now and his deadline stays where it was. Otherwise (or when
        ``fresh``) the game's timers are replaced: a reminder and, with ``deadline_hours``, a
        warning and a deadline. A paused, finished or unstarted game, or a removed seat, has
        none.

        The turn's deadline is fixed when the turn starts (``games.turn_timing``): coming back
        to the turn's player (after another seat's choice, an undo, a rebuild) gives him the
        same deadline, moved only by ``shift`` (a pause's length) or, with ``reset_deadline``
        (an admin's settings change, a replacement), set afresh. An absence declared before
        the turn extends it by what remains of the absence, at most ``MAX_AWAY_HOURS``."""
        seat = engine.current_seat(state)
        me = info.seat_info(seat) if seat is not None else None
        if (state.over or info.status != GameStatus.ACTIVE or info.paused or me is None
                or me.removed):
            await tx.cancel_timers(info.game_id)
            if state.over or info.status != GameStatus.ACTIVE:
                await tx.set_turn_timing(info.game_id, None)
            return
        assert seat is not None
        if is_computer(me.user_id):  # no reminder, no deadline: it acts after a short delay
            await tx.cancel_timers(info.game_id)
            await tx.add_timer(game_id=info.game_id, kind=TimerKind.COMPUTER, seat=seat,
                               user_id=me.user_id, due_at=now + self.computer_delay, now=now)
            return
        s = info.settings
        away = min(max(0.0, (me.away_until or 0.0) - now), MAX_AWAY_HOURS * HOUR)
        remind_at = now + max(s.reminder_hours * HOUR, away)
        existing = [] if fresh else await tx.timers(info.game_id)
        reminder = next((t for t in existing if t.kind == TimerKind.REMINDER), None)
        if reminder is not None and all(
                t.seat == seat and t.user_id == me.user_id for t in existing):
            payload = {k: v for k, v in payload_of(reminder).items() if k != "noted"}
            await tx.reschedule_timer(reminder.id, remind_at, payload)
            return
        await tx.cancel_timers(info.game_id)
        await tx.add_timer(game_id=info.game_id, kind=TimerKind.REMINDER, seat=seat,
                           user_id=me.user_id, due_at=remind_at, now=now,
                           payload={"since": now})
        if s.deadline_hours is not None:
            due = now + s.deadline_hours * HOUR + away
            if seat == state.turn:  # the turn's own deadline, not a choice by another seat
                key = f"{state.round}:{state.turn}"
                timing = await self._turn_timing(tx, info.game_id)
                if timing.get("key") == key and not reset_deadline:
                    due = float(timing["due"]) + shift
                else:
                    timing = {"key": key, "credit": away}
                    if away:
                        timing.update(away_start=now, credit_before=0.0)
                timing["due"] = due
                timing["hours"] = s.deadline_hours  # what a rebuild keeps if settings are lost
                await tx.set_turn_timing(info.game_id, timing)
            warn = due - min(HOUR, s.deadline_hours * HOUR / 4)
            await tx.add_timer(game_id=info.game_id, kind=TimerKind.WARNING, seat=seat,
                               user_id=me.user_id, due_at=warn, now=now)
            await tx.add_timer(game_id=info.game_id, kind=TimerKind.DEADLINE, seat=seat,
                               user_id=me.user_id, due_at=due, now=now)

    @staticmethod
    async def _turn_timing(q: Queries, game_id: int) -> dict[str, Any]:
        """The current turn's deadline bookkeeping: ``key`` (round:seat), ``due``,
        ``credit`` (seconds of absence it was extended by), ``away_start`` and
        ``credit_before`` while an absence runs."""
        game = await q.game(game_id)
        if game is None or not game.turn_timing:
            return {}
        try:
            data = json.loads(game.turn_timing)
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}
