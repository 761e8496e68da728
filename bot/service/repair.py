"""/game rebuild: a game whose saved data was damaged outside the bot (a row edited by hand, a
failing disk) restored from its seed and its move log, which it never rewrites.

What it finds and repairs, each named in the channel's post: the saved state (unreadable,
not fitting its game, breaking an invariant, or not what the log replays to), the undo point
(the state after the last card draw), the version (behind the log, so that no move could be
saved), a seat without its row (given back to the user the log names for it, else to a
computer that a person can take back with ``/game replace``), and the settings (back to
their defaults, but the deadline, which the turn's record keeps). The turn keeps its
deadline; one that passed while the game was damaged ends the turn as soon as the game is
repaired. A log that does not replay is not repaired: the refusal says what can be done.
"""

from __future__ import annotations

from dataclasses import replace

from pydantic import ValidationError

import engine
from engine import GameState

from ..storage.api import GameRow, Queries, SeatRow, Tx
from .core import shape_problems
from .errors import DamagedGame, NotStarted, PermissionDenied, ServiceError
from .model import GameSettings, GameStatus, TimerKind, computer_name, is_computer, next_bot_id
from .outbox import outboxed
from .reading import ReadingMixin
from .results import GameInfo, Outcome, Post
from .schedule import payload_of
from .texts import hours_text, say, tell


def readable_settings(game: GameRow) -> GameSettings | None:
    try:
        return GameSettings.model_validate_json(game.settings)
    except (ValidationError, ValueError):
        return None


def readable_state(text: str | None) -> GameState | None:
    """A saved state that reads and fits its own game, else None."""
    try:
        state = GameState.model_validate_json(text or "")
    except (ValidationError, ValueError):
        return None
    return None if shape_problems(state) else state


class RepairMixin(ReadingMixin):
    """/game rebuild."""

    @outboxed
    async def rebuild(self, channel_id: int, user_id: int, *, is_admin: bool = False) -> Outcome:
        """Repair the channel's damaged game from its seed and move log (a player of the game,
        its creator or a server admin). A game with nothing to repair is refused; so is one
        whose log does not replay (``DamagedGame`` says what can be done)."""
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id)
            if game.status == GameStatus.LOBBY:
                raise NotStarted(tell("rebuild.not_started"))
            seats = await tx.seats(game.id)
            settings = readable_settings(game)
            info = self._info(game, seats, settings=settings or GameSettings())
            seat = info.seat_of(user_id)
            me = info.seat_info(seat) if seat is not None else None
            if user_id != game.creator_id and not is_admin and (me is None or me.removed):
                raise PermissionDenied(tell("rebuild.not_allowed"))
            players = self._player_count(game, seats)
            state, checkpoint, checkpoint_seq, holdem = await self._replay_any(
                tx, game, players, [settings.holdem] if settings else [False, True])
            parts = await self._damage(tx, game, settings, state, checkpoint, checkpoint_seq)
            missing = [n for n in range(players) if n not in {s.seat for s in seats}]
            if not parts and not missing:
                raise ServiceError(tell("rebuild.healthy"))
            lang = (settings or GameSettings()).language
            repaired = [say(f"rebuild.part.{p}", lang) for p in parts]
            if settings is None:  # the computers keep playing (at the normal level)
                settings = await self._recovered_settings(tx, game, seats, holdem)
            settings, told = await self._restore_seats(tx, game, missing, settings, now)
            repaired += told
            game = await self._catch_up_version(tx, game, now)
            status = GameStatus.OVER if state.over else GameStatus.ACTIVE
            version = await tx.update_game(
                game.id, game.version, now=now, state=state.model_dump_json(),
                checkpoint=checkpoint.model_dump_json(), checkpoint_seq=checkpoint_seq,
                status=status, settings=settings.model_dump_json())
            info = replace(self._info(game, await tx.seats(game.id), settings=settings),
                           version=version, status=status)
            await tx.forget_notice(game.id, 0, "damaged")
            await self._schedule(tx, info, state, now, fresh=True)
            passed = await self._overdue(tx, info, now)
        text = say("rebuild.done", lang, count=state.step) + say(
            "rebuild.repaired", lang, parts=", ".join(repaired))
        if "settings" in parts:
            text += self._settings_lost(info.settings)
        if passed is not None:
            text += say("rebuild.deadline_passed", lang, name=info.names.get(passed, "?"))
        image = self._boards(state, info.plain_names, (), lang=info.settings.language)
        out = Outcome(game=info, public=[Post(text, image)])
        self._turn_notice(out, info, None, state)
        return out

    @staticmethod
    def _player_count(game: GameRow, seats: list[SeatRow]) -> int:
        """How many players the game has: as its state says, or its undo point, or (both
        unreadable) its seat rows."""
        for text in (game.state, game.checkpoint):
            state = readable_state(text)
            if state is not None:
                return len(state.players)
        return max((s.seat for s in seats), default=-1) + 1

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

    async def _damage(self, q: Queries, game: GameRow, settings: GameSettings | None,
                      state: GameState, checkpoint: GameState, checkpoint_seq: int) -> list[str]:
        """What of the saved game differs from what its log replays to (``rebuild.part.*``):
        the state, the undo point, the version, the settings (seats apart)."""
        parts = []
        saved = readable_state(game.state)
        if saved != state or (saved is not None and engine.invariant_problems(saved)):
            parts.append("state")
        if readable_state(game.checkpoint) != checkpoint or game.checkpoint_seq != checkpoint_seq:
            parts.append("checkpoint")
        last = await q.last_moves(game.id, 1)
        if last and last[-1].version > game.version:
            parts.append("version")
        if settings is None:
            parts.append("settings")
        return parts

    async def _recovered_settings(self, q: Queries, game: GameRow, seats: list[SeatRow],
                                  holdem: bool) -> GameSettings:
        """Settings in place of unreadable ones: Hold'em as the log replays, the computers at
        the normal level, and the deadline the turn's record keeps; the rest the defaults."""
        hours = (await self._turn_timing(q, game.id)).get("hours")
        return GameSettings(
            holdem=holdem, deadline_hours=hours if isinstance(hours, int | float) else None,
            bots={s.user_id: "normal" for s in seats if is_computer(s.user_id)})

    @staticmethod
    def _settings_lost(settings: GameSettings) -> str:
        lang = settings.language
        deadline = (say("settings.deadline", lang, hours=hours_text(settings.deadline_hours))
                    if settings.deadline_hours else say("settings.no_deadline", lang))
        return say("rebuild.settings_lost", lang, hours=hours_text(settings.reminder_hours),
                   deadline=deadline)

    async def _restore_seats(self, tx: Tx, game: GameRow, missing: list[int],
                             settings: GameSettings, now: float) -> tuple[GameSettings, list[str]]:
        """A row for each seat that lost it: the user the log names for the seat (its last
        entry played by someone); else the creator, when he has no seat and only this one is
        left unnamed; else a new computer. Returns the settings (with any computer) and what
        the channel is told of each seat."""
        lang = settings.language
        told = []
        moves = await tx.moves(game.id)
        named = {n: [m.user_id for m in moves if m.seat == n and m.user_id is not None]
                 for n in missing}
        unnamed = [n for n in missing if not named[n]]
        if len(unnamed) == 1 and game.creator_id not in {
                s.user_id for s in await tx.seats(game.id)} | {u[-1] for u in named.values() if u}:
            named[unnamed[0]] = [game.creator_id]  # the creator's seat: his row is the one lost
        for number in missing:
            seats = await tx.seats(game.id)
            user = named[number][-1] if named[number] else None
            if user is None or any(s.user_id == user for s in seats) or (
                    is_computer(user) and user not in settings.bots):
                user = next_bot_id(seats, settings)
                settings = settings.model_copy(update={"bots": {**settings.bots, user: "normal"}})
            if is_computer(user):
                name = computer_name(-user, settings.bots[user])
                told.append(say("rebuild.seat_computer", lang, seat=number + 1, name=name))
            else:
                name = say("rebuild.seat_name", lang, number=number + 1)
                told.append(say("rebuild.seat_given", lang, seat=number + 1, user=user,
                                name=name))
            await tx.add_seat(game.id, number, user, name, now)
            if is_computer(user):
                await tx.update_seat(game.id, number, muted=1)
        return settings, told

    async def _catch_up_version(self, tx: Tx, game: GameRow, now: float) -> GameRow:
        """The game with its version past its log's last entry (a version set back by hand
        would make every next entry collide with one already there)."""
        last = await tx.last_moves(game.id, 1)
        version = game.version
        while last and version < last[-1].version:
            version = await tx.update_game(game.id, version, now=now)
        return await self._reload(tx, game.id) if version != game.version else game

    @staticmethod
    async def _overdue(tx: Tx, info: GameInfo, now: float) -> int | None:
        """After the timers are made again: those already due fire at once, without the note
        of a bot that was offline (it was the game that was damaged). Returns the seat whose
        turn deadline passed, if one did."""
        passed = None
        for timer in await tx.timers(info.game_id):
            if timer.due_at <= now:
                await tx.reschedule_timer(timer.id, timer.due_at,
                                          {**payload_of(timer), "noted": True})
                if timer.kind == TimerKind.DEADLINE:
                    passed = timer.seat
        return passed
