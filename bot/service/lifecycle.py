"""Keeping games moving: rebuild, settings, pause, mute, absence, replacement, removal."""

from __future__ import annotations

from dataclasses import replace

from pydantic import ValidationError

import engine
from engine import (
    EngineError,
    GameState,
    MalformedAction,
)

from ..storage import GameRow
from ..storage_api import QueriesAPI as Queries
from ..storage_api import TxAPI as Tx
from .core import (
    HOUR,
    LANGUAGE_NAMES,
    LANGUAGES,
    MAX_AWAY_HOURS,
    DamagedGame,
    GameInfo,
    GamePaused,
    GameSettings,
    GameStatus,
    LobbyError,
    NotStarted,
    Outcome,
    PermissionDenied,
    Post,
    Reply,
    ServiceError,
    TimerKind,
    is_computer,
)
from .outbox import outboxed
from .reading import ReadingMixin
from .texts import (
    channel_link,
    hours_text,
    when,
)


class LifecycleMixin(ReadingMixin):
    """Rebuild, settings, pause, mute, absence, replacement, removal, /mygames."""

    # --- damage and rebuild ------------------------------------------------------------------

    @outboxed
    async def rebuild(self, channel_id: int, user_id: int, *, is_admin: bool = False) -> Outcome:
        """Rebuild the channel's damaged game from its seed and move log (a player of the game,
        its creator or a server admin). A healthy game (its state validates, keeps the
        invariants and is what the log replays to) is refused: nothing to rebuild. The turn's
        deadline is the one it had (``turn_timing``)."""
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id)
            if game.status == GameStatus.LOBBY:
                raise NotStarted("The game has not started; there is nothing to rebuild.")
            seats = await tx.seats(game.id)
            try:
                settings: GameSettings | None = GameSettings.model_validate_json(game.settings)
            except (ValidationError, ValueError):
                settings = None  # damaged too: rebuilt below
            info = self._info(game, seats, settings=settings or GameSettings())
            seat = info.seat_of(user_id)
            me = info.seat_info(seat) if seat is not None else None
            if (user_id != game.creator_id and not is_admin
                    and (me is None or me.removed)):
                raise PermissionDenied(
                    "Only the game's players, its creator or a server admin can rebuild it."
                )
            holdems = [settings.holdem] if settings else [False, True]
            state, checkpoint, checkpoint_seq, holdem = await self._replay_any(
                tx, game, len(seats), holdems)
            if settings is not None:
                try:
                    current = self._state(game)
                except DamagedGame:
                    current = None
                if current == state:
                    raise ServiceError("This game is not damaged: its saved state is what its "
                                       "move log gives. There is nothing to rebuild.")
            status = GameStatus.OVER if state.over else GameStatus.ACTIVE
            fields: dict[str, object] = {}
            if settings is None:  # computer seats keep playing (at the normal level)
                settings = GameSettings(holdem=holdem, bots={
                    s.user_id: "normal" for s in seats if is_computer(s.user_id)})
                fields["settings"] = settings.model_dump_json()
            version = await tx.update_game(
                game.id, game.version, now=now, state=state.model_dump_json(),
                checkpoint=checkpoint.model_dump_json(), checkpoint_seq=checkpoint_seq,
                status=status, **fields,
            )
            info = replace(info, version=version, status=status, settings=settings)
            await tx.forget_notice(game.id, 0, "damaged")
            await self._schedule(tx, info, state, now)
        text = f"The game was rebuilt from its move log ({state.step} moves)."
        image = self._boards(state, info.names, (), lang=info.settings.language)
        out = Outcome(game=info, public=[Post(text, image)])
        self._turn_notice(out, info, None, state)
        return out

    async def _replay_any(self, q: Queries, game: GameRow, players: int,
                          holdems: list[bool]) -> tuple[GameState, GameState, int, bool]:
        """Replay the log with the first Hold'em option that replays it (settings lost)."""
        last: DamagedGame | None = None
        for holdem in holdems:
            try:
                state, checkpoint, seq = await self._replayed(q, game, players, holdem=holdem)
            except DamagedGame as exc:
                last = exc
                continue
            return state, checkpoint, seq, holdem
        assert last is not None
        raise last

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

    @staticmethod
    def settings_text(settings: GameSettings) -> str:
        deadline = (f"a deadline of {hours_text(settings.deadline_hours)} per turn"
                    if settings.deadline_hours else "no deadline")
        return (f"reminders after {hours_text(settings.reminder_hours)} without a move, "
                f"{deadline}, pictures in {LANGUAGE_NAMES[settings.language]}")

    @outboxed
    async def update_settings(
        self, channel_id: int, user_id: int, *, reminder_hours: float | None = None,
        deadline_hours: float | None = None, language: str | None = None,
        is_admin: bool = False,
    ) -> Outcome:
        """Change the reminder period, the deadline (``deadline_hours=0``: none) or the language
        of the game's pictures; creator or admin. When the hours change, the current player's
        timers start again from now. Without values: show the settings (to anyone)."""
        if language is not None and language not in LANGUAGES:
            raise MalformedAction(f"The language must be one of {', '.join(LANGUAGES)}.")
        if reminder_hours is None and deadline_hours is None and language is None:
            info = await self.info(channel_id)
            return Outcome(game=info, reply=Reply(
                f"This game has {self.settings_text(info.settings)}."))
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id, live_only=True)
            self._may_manage(game, user_id, is_admin, "change the game's settings")
            values = GameSettings.model_validate_json(game.settings).model_dump()
            if reminder_hours is not None:
                values["reminder_hours"] = reminder_hours
            if deadline_hours is not None:
                values["deadline_hours"] = deadline_hours or None
            if language is not None:
                values["language"] = language
            try:
                settings = GameSettings.model_validate(values)
            except ValidationError:
                raise MalformedAction("Hours must be more than 0.") from None
            await tx.update_game(game.id, game.version, now=now,
                                 settings=settings.model_dump_json())
            game = await self._reload(tx, game.id)
            info = self._info(game, await tx.seats(game.id))
            hours_changed = reminder_hours is not None or deadline_hours is not None
            if game.status == GameStatus.ACTIVE and hours_changed:
                await self._schedule(tx, info, self._state(game), now, fresh=True,
                                     reset_deadline=True)
            text = f"{self._who(info, user_id)} sets {self.settings_text(settings)}."
            await tx.add_note(game.id, await tx.last_seq(game.id), text, now, user_id)
        return Outcome(game=info, public=[Post(text)])

    @outboxed
    async def pause(self, channel_id: int, user_id: int, *, is_admin: bool = False) -> Outcome:
        """Pause the game (creator or admin): its timers are cancelled and moves wait."""
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id, live_only=True)
            if game.status != GameStatus.ACTIVE:
                raise NotStarted("Only a game under way can be paused.")
            self._may_manage(game, user_id, is_admin, "pause the game")
            if game.paused_at is not None:
                raise GamePaused("The game is already paused; /resume starts it again.")
            await tx.update_game(game.id, game.version, now=now, paused_at=now)
            await tx.cancel_timers(game.id)
            game = await self._reload(tx, game.id)
            info = self._info(game, await tx.seats(game.id))
            who = self._who(info, user_id)
            await tx.add_note(game.id, await tx.last_seq(game.id), f"{who} paused the game.",
                              now, user_id)
        return Outcome(game=info, public=[Post(
            f"{who} pauses the game: no moves, reminders or deadlines until /resume.")])

    @outboxed
    async def resume(self, channel_id: int, user_id: int, *, is_admin: bool = False) -> Outcome:
        """Resume a paused game (creator or admin): whoever must act gets fresh timers."""
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id, live_only=True)
            self._may_manage(game, user_id, is_admin, "resume the game")
            if game.paused_at is None:
                raise GamePaused("The game is not paused.")
            paused_at = game.paused_at
            await tx.update_game(game.id, game.version, now=now, paused_at=None)
            game = await self._reload(tx, game.id)
            info = self._info(game, await tx.seats(game.id))
            who = self._who(info, user_id)
            await tx.add_note(game.id, await tx.last_seq(game.id), f"{who} resumed the game.",
                              now, user_id)
            state = self._state(game)
            text = f"{who} resumes the game (paused {when(paused_at)})."
            seat = engine.current_seat(state)
            me = info.seat_info(seat) if seat is not None else None
            if me is not None and me.removed:
                return await self._play(tx, game, info, state, now, intro=text)
            await self._schedule(tx, info, state, now, fresh=True, shift=now - paused_at)
        out = Outcome(game=info, public=[Post(text)])
        self._turn_notice(out, info, None, state)
        return out

    @outboxed
    async def set_muted(self, channel_id: int, user_id: int, muted: bool) -> Outcome:
        """Turn the user's reminder DMs in this game off or on (deadlines still apply)."""
        async with self.storage.write() as tx:
            game, info, seat = await self._seated(tx, channel_id, user_id, live_only=True)
            await tx.update_seat(game.id, seat, muted=int(muted))
        if muted:
            text = ("Reminders for this game are off for you. Deadlines, if the game has one, "
                    "still apply; /unmute turns reminders back on.")
        else:
            text = "Reminders for this game are on again for you."
        return Outcome(game=info, reply=Reply(text))

    @outboxed
    async def away(self, channel_id: int, user_id: int, hours: float) -> Outcome:
        """Declare an absence of ``hours``: no reminders until it ends, and the user's
        deadlines are extended by it (at once if it is his turn, else when his turn comes)."""
        if not 0 < hours <= MAX_AWAY_HOURS:
            raise MalformedAction(
                f"An absence lasts more than 0 and at most {MAX_AWAY_HOURS:g} hours (two weeks)."
            )
        now = self.clock()
        async with self.storage.write() as tx:
            game, info, seat = await self._seated(tx, channel_id, user_id, live_only=True)
            me = info.seat_info(seat)
            assert me is not None
            until = now + hours * HOUR
            extra = max(0.0, until - max(now, me.away_until or now))
            await tx.update_seat(game.id, seat, away_until=until)
            if game.status == GameStatus.ACTIVE and game.paused_at is None:
                state = self._state(game)
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
            text = f"{me.name} is away until {when(until, 'f')} ({when(until)}): no reminders"
            if info.settings.deadline_hours:
                text += f", and {me.name}'s deadlines are extended by the absence"
            text += "."
            await tx.add_note(game.id, await tx.last_seq(game.id), f"{me.name} declared an "
                              f"absence of {hours_text(hours)}.", now, user_id)
        return Outcome(game=info, public=[Post(text)],
                       reply=Reply(f"Noted: away for {hours_text(hours)}. /back ends it sooner."))

    @outboxed
    async def back(self, channel_id: int, user_id: int) -> Outcome:
        """End the user's declared absence (deadlines already extended stay extended)."""
        now = self.clock()
        async with self.storage.write() as tx:
            game, info, seat = await self._seated(tx, channel_id, user_id, live_only=True)
            me = info.seat_info(seat)
            assert me is not None
            if me.away_until is None or me.away_until <= now:
                raise ServiceError("You are not away in this game.")
            await tx.update_seat(game.id, seat, away_until=None)
            await self._end_absence_credit(tx, info, seat, now)
            for t in await tx.timers(game.id):
                if t.kind == TimerKind.REMINDER and t.seat == seat:
                    await tx.reschedule_timer(
                        t.id, now + info.settings.reminder_hours * HOUR)
        return Outcome(game=info, public=[Post(f"{me.name} is back.")],
                       reply=Reply("Welcome back: reminders are on again."))

    @outboxed
    async def replace_player(
        self, channel_id: int, user_id: int, old_user_id: int, new_user_id: int,
        new_name: str, *, is_admin: bool = False,
    ) -> Outcome:
        """Give a seat to another user (creator or admin): the seat keeps its cards, Ecus,
        cubes and buildings; the new player gets the hand by DM (and the turn, if it is the
        seat's). A replaced creator hands the creator's rights on too."""
        now = self.clock()
        async with self.storage.write() as tx:
            game, info, seat = await self._managed_seat(
                tx, channel_id, user_id, old_user_id, is_admin, "replace a player")
            if info.seat_of(new_user_id) is not None:
                raise LobbyError(f"{new_name} already sits in this game; choose someone else.")
            if is_computer(new_user_id):
                raise LobbyError("A computer takes a seat with /game replace level:… or "
                                 "/game kick level:…, not as a user.")
            old_name = info.names[seat]
            await tx.update_seat(game.id, seat, user_id=new_user_id, name=new_name, muted=0,
                                 away_until=None, removed=0)
            fields: dict[str, object] = {}
            if game.creator_id == old_user_id:
                fields["creator_id"] = new_user_id
            if old_user_id in info.settings.bots:  # a person takes a computer's seat back
                bots = {k: v for k, v in info.settings.bots.items() if k != old_user_id}
                fields["settings"] = info.settings.model_copy(
                    update={"bots": bots}).model_dump_json()
            await tx.update_game(game.id, game.version, now=now, **fields)
            game = await self._reload(tx, game.id)
            info = self._info(game, await tx.seats(game.id))
            await tx.add_note(game.id, await tx.last_seq(game.id),
                              f"{new_name} replaced {old_name}.", now, user_id)
            state = self._state(game) if game.status == GameStatus.ACTIVE else None
            if state is not None and engine.current_seat(state) == seat:
                await self._schedule(tx, info, state, now, fresh=True, reset_deadline=True)
        text = f"{new_name} takes over {old_name}'s seat"
        text += ": cards, Ecus, cubes and buildings stay with it." if state else "."
        out = Outcome(game=info, public=[Post(text)])
        if state is not None and not state.over:
            out.direct.append(self._hand_dm(state, seat, info))
            if engine.current_seat(state) == seat:
                self._turn_notice(out, info, None, state)
        return out

    @outboxed
    async def kick(self, channel_id: int, user_id: int, target_user_id: int, *,
                   is_admin: bool = False) -> Outcome:
        """Remove a player (creator or admin), e.g. one who left the server. In the lobby his
        place is freed; in a game under way his seat stays, and from now on his turns end at
        once and his choices take their R37 default (no timers, no DMs)."""
        now = self.clock()
        async with self.storage.write() as tx:
            game, info, seat = await self._managed_seat(
                tx, channel_id, user_id, target_user_id, is_admin, "remove a player")
            name = info.names[seat]
            if game.status == GameStatus.LOBBY:
                await tx.remove_seat(game.id, target_user_id)
                seats = await tx.seats(game.id)
                status = GameStatus.LOBBY if seats else GameStatus.ABANDONED
                await tx.update_game(game.id, game.version, now=now, status=status)
                game = await self._reload(tx, game.id)
                return Outcome(game=self._info(game, seats),
                               public=[Post(f"{name} is removed from the game.")])
            me = info.seat_info(seat)
            assert me is not None
            if me.removed:
                raise LobbyError(f"{name} has already been removed.")
            if sum(1 for s in info.seats if not s.removed) <= 1:
                raise LobbyError("Nobody would be left to play: /abandon the game instead.")
            await tx.update_seat(game.id, seat, removed=1, muted=1, away_until=None)
            await tx.add_note(game.id, await tx.last_seq(game.id),
                              f"{name} was removed from the game.", now, user_id)
            info = self._info(game, await tx.seats(game.id))
            state = self._state(game)
            text = (f"{name} is removed from the game: the seat stays, and the bot ends its "
                    "turns at once and takes the default of its choices (R37).")
            if game.paused_at is None and engine.current_seat(state) == seat:
                return await self._play(tx, game, info, state, now, intro=text)
            version = await tx.update_game(game.id, game.version, now=now)
            info = replace(info, version=version)
        return Outcome(game=info, public=[Post(text)])

    async def my_games(self, user_id: int) -> Outcome:
        """Every live game the user sits in, on any server: where, whose turn, a link."""
        async with self.storage.read() as q:
            rows = [(g, await q.seats(g.id)) for g in await q.games_of_user(user_id)]
        lines = []
        for game, seats in rows[:25]:
            try:
                info = self._info(game, seats)
            except DamagedGame:  # one damaged game never hides the others
                link = channel_link(game.guild_id, game.channel_id)
                lines.append(f"- <#{game.channel_id}> {link}: its saved data is damaged "
                             "(/rebuild)")
                continue
            what = self._game_line(game, info, user_id)
            lines.append(f"- <#{game.channel_id}> {info.link}: {what}")
        if not lines:
            text = "You are not playing in any game right now. Open one with /create."
        else:
            text = "Your games:\n" + "\n".join(lines)
            if len(rows) > 25:
                text += f"\n… and {len(rows) - 25} more."
        return Outcome(game=None, reply=Reply(text))

    def _game_line(self, game: GameRow, info: GameInfo, user_id: int) -> str:
        if game.status == GameStatus.LOBBY:
            return f"waiting in the lobby ({len(info.seats)} seated)"
        try:
            state = self._state(game)
        except EngineError:
            return "its saved state is damaged (/rebuild)"
        seat = engine.current_seat(state)
        if seat is None:
            return "finished"
        choice = state.pending is not None
        if info.user_of(seat) == user_id:
            who = "**your choice**" if choice else "**your turn**"
        else:
            who = f"{info.names.get(seat, '?')}'s {'choice' if choice else 'turn'}"
        line = f"round {state.round} of 7, {who} since {when(game.updated_at)}"
        if game.paused_at is not None:
            line += " (paused)"
        return line
