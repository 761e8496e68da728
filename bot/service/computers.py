"""Computer seats (docs/ai.md): adding and removing them in the lobby, handing a seat to one,
and playing their actions through the same path as a person's moves.

A computer seat has a reserved negative user id (-1, -2 …, unique in its game) and its level in
the game's settings (``GameSettings.bots``); no storage column marks it. When the game waits
for it, ``_schedule`` gives it a ``computer`` timer a few seconds ahead instead of reminders
and deadlines. Firing that timer reads the game, thinks off the event loop (``ai.think``),
then plays the action in a write transaction if the game has not moved meanwhile (else the
timer stays due and it thinks again). A restart loses nothing: the timer is in storage and the
seed comes from the game and its step, so it finds the same move again.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

import engine
from ai import think
from ai.work import Stopping
from engine import Action, Choose, EndTurn, EngineError, PlayerView

from .core import people_staying
from .errors import LobbyError
from .lobby import LobbyMixin, check_level
from .model import (
    MARK,
    GameSettings,
    GameStatus,
    TimerKind,
    computer_name,
    is_computer,
    next_bot_id,
)
from .outbox import outboxed
from .results import Outcome, Post
from .texts import say, shown_name, tell
from .timers import TimersMixin

log = logging.getLogger("khronos.computers")



def computer_seed(game_seed: int, step: int) -> int:
    """The seed of a computer's decision: the same game at the same step decides the same."""
    return (game_seed * 1_000_003 + step * 7919) & ((1 << 63) - 1)


@dataclass(frozen=True)
class _Plan:
    game_id: int
    version: int
    seat: int
    user_id: int
    view: PlayerView
    level: str
    seed: int


class ComputersMixin(LobbyMixin, TimersMixin):
    """/addbot, /removebot, seats handed to a computer, and the computers' moves."""

    # --- lobby ---------------------------------------------------------------------------

    @outboxed
    async def add_bot(self, channel_id: int, user_id: int, level: str = "normal", *,
                      is_admin: bool = False) -> Outcome:
        """Seat a computer of ``level`` in the lobby (creator or admin)."""
        level = check_level(level)
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id, live_only=True)
            if game.status != GameStatus.LOBBY:
                raise LobbyError(tell("computers.add_started"))
            self._may_manage(game, user_id, is_admin, "addbot")
            return await self._add_bots(tx, game.id, 1, level, now)

    @outboxed
    async def remove_bot(self, channel_id: int, user_id: int, *,
                         is_admin: bool = False) -> Outcome:
        """Remove the last computer seated in the lobby (creator or admin)."""
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id, live_only=True)
            if game.status != GameStatus.LOBBY:
                raise LobbyError(tell("computers.remove_started"))
            self._may_manage(game, user_id, is_admin, "removebot")
            seats = await tx.seats(game.id)
            bots = [s for s in seats if is_computer(s.user_id)]
            if not bots:
                raise LobbyError(tell("computers.none"))
            last = max(bots, key=lambda s: s.seat)
            await tx.remove_seat(game.id, last.user_id)
            settings = GameSettings.model_validate_json(game.settings)
            settings = settings.model_copy(update={
                "bots": {k: v for k, v in settings.bots.items() if k != last.user_id}})
            version = await tx.update_game(game.id, game.version, now=now,
                                           settings=settings.model_dump_json())
            game = await self._reload(tx, game.id)
            seats = await tx.seats(game.id)
        info = self._info(game, seats, version)
        return Outcome(game=info, public=[Post(
            say("computers.leaves", info.settings.language, name=shown_name(last.name),
                count=len(seats)))])

    # --- a seat handed to a computer, or taken back by a person -----------------------------

    @outboxed
    async def seat_to_computer(self, channel_id: int, user_id: int, target_user_id: int,
                               level: str = "normal", *, is_admin: bool = False) -> Outcome:
        """Give ``target_user_id``'s seat to a computer of ``level`` (creator or admin): it
        keeps the seat's cards, Ecus, cubes and buildings and plays from now on."""
        level = check_level(level)
        now = self.clock()
        async with self.storage.write() as tx:
            game, info, seat = await self._managed_seat(
                tx, channel_id, user_id, target_user_id, is_admin,
                "to_computer")
            if is_computer(target_user_id):
                raise LobbyError(tell("computers.already", name=info.names[seat]))
            if not people_staying(info.seats, target_user_id):  # never computers alone
                raise LobbyError(tell("seat.last_person", name=info.names[seat]))
            settings = info.settings
            uid = next_bot_id(await tx.seats(game.id), settings)
            old_name = info.names[seat]
            name = computer_name(-uid, level)
            await tx.update_seat(game.id, seat, user_id=uid, name=name, muted=1,
                                 away_until=None, removed=0, hints=0)
            settings = settings.model_copy(update={"bots": {**settings.bots, uid: level}})
            await tx.update_game(game.id, game.version, now=now,
                                 settings=settings.model_dump_json())
            game = await self._reload(tx, game.id)
            game, told = await self._hand_on(tx, game, target_user_id, now)
            info = self._info(game, await tx.seats(game.id))
            lang = info.settings.language
            await tx.add_note(game.id, await tx.last_seq(game.id),
                              say("replace.note", lang, new=name, old=old_name), now, user_id)
            if game.status != GameStatus.ACTIVE:
                return Outcome(game=info, public=[Post(
                    f"{MARK} " + say("replace.takes_over", lang, new=name, old=old_name) + told)])
            state = self._state(game, info)
            text = (f"{MARK} " + say("replace.takes_over_game", lang, new=name, old=old_name)
                    + told)
            if engine.current_seat(state) == seat and game.paused_at is None:
                await self._schedule(tx, info, state, now, fresh=True)
        return Outcome(game=info, public=[Post(text)])

    # --- playing -----------------------------------------------------------------------------

    async def fire_timer(self, timer_id: int) -> Outcome | None:
        """Fire a timer: a computer's first thinks (outside any transaction), then plays; any
        other goes to ``TimersMixin.fire_timer``."""
        plan = await self._computer_plan(timer_id)
        if plan is None:
            return await super().fire_timer(timer_id)
        try:
            action = await think(plan.view, plan.level, self.computer_budget, plan.seed,
                                 self.ai_executor)
        except Stopping:  # the bot stops (PoolClosed, or STOP in threads): the timer stays due,
            # the next start thinks again
            raise
        except Exception:  # never stall the game on a bug of the search: play the default
            log.exception("game %s: the computer could not decide; it plays the default",
                          plan.game_id)
            action = self._fallback(plan.view)
        return await self._computer_move(timer_id, plan, action)

    async def play_computers(
        self, game_id: int, limit: int = 500,
        each: Callable[[Outcome], Awaitable[None]] | None = None,
    ) -> list[Outcome]:
        """Play every computer action now while a computer must act (the terminal, which has
        no dispatcher); returns their outcomes. ``each`` is awaited with every outcome as soon
        as its move is stored (before the next computer thinks)."""
        outs: list[Outcome] = []
        for _ in range(limit):
            async with self.storage.read() as q:
                timers = [t for t in await q.timers(game_id) if t.kind == TimerKind.COMPUTER]
            if not timers:
                break
            async with self.storage.write() as tx:  # due now, whatever the delay
                await tx.reschedule_timer(timers[0].id, self.clock())
            out = await self.fire_timer(timers[0].id)
            if out is not None:
                outs.append(out)
                if each is not None:
                    await each(out)
        return outs

    @staticmethod
    def _fallback(view: PlayerView) -> Action:
        if view.pending is not None:
            return Choose(option=view.pending.default)
        return EndTurn()

    async def _computer_plan(self, timer_id: int) -> _Plan | None:
        """What a due computer timer must decide, or None (not a computer's, not due, or a
        game that is not waiting for it: the ordinary path deletes such a timer)."""
        now = self.clock()
        async with self.storage.read() as q:
            timer = await q.timer(timer_id)
            if timer is None or timer.kind != TimerKind.COMPUTER or timer.due_at > now:
                return None
            game = await q.game(timer.game_id)
            if game is None or game.status != GameStatus.ACTIVE or game.paused_at is not None:
                return None
            try:
                info = self._info(game, await q.seats(game.id))
                state = self._state(game, info)
            except EngineError:
                return None
        seat = engine.current_seat(state)
        if seat is None or seat != timer.seat:
            return None
        uid = info.user_of(seat)
        if uid is None or not is_computer(uid) or uid not in info.settings.bots:
            return None
        return _Plan(game.id, game.version, seat, uid, engine.player_view(state, seat),
                     info.settings.bots[uid], computer_seed(game.seed, state.step))

    @outboxed
    async def _computer_move(self, timer_id: int, plan: _Plan, action: Action) -> Outcome | None:
        now = self.clock()
        async with self.storage.write() as tx:
            timer = await tx.timer(timer_id)
            if timer is None:
                return None
            game = await tx.game(plan.game_id)
            if game is None or game.version != plan.version:
                return None  # the game moved while it thought: the timer fires again
            await tx.delete_timer(timer_id)
            info = self._info(game, await tx.seats(game.id))
            state = self._state(game, info)
            try:
                engine.apply(state, plan.seat, action)
            except EngineError:
                log.exception("game %s: the computer chose an illegal action; it plays the "
                              "default", game.id)
                action = self._fallback(plan.view)
            out = await self._play(tx, game, info, state, now,
                                   first=(plan.seat, plan.user_id, action))
        if out.public:
            first = out.public[0]
            out.public[0] = replace(first, text=f"{MARK} {first.text}")
        return out


__all__ = ["MARK", "ComputersMixin", "check_level", "computer_seed"]
