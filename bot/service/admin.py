"""A game's administration (its creator or a server admin): settings, pause and resume,
replacing a player, removing one; the rebuild from the move log is ``repair.py``."""

from __future__ import annotations

from dataclasses import replace

from pydantic import ValidationError

import engine
from engine import (
    MalformedAction,
)

from .. import i18n
from .core import people_staying
from .errors import GamePaused, LobbyError, NotStarted
from .model import (
    LANGUAGE_NAMES,
    LANGUAGES,
    GameSettings,
    GameStatus,
    is_computer,
)
from .outbox import outboxed
from .repair import RepairMixin
from .results import Outcome, Post, Reply
from .texts import (
    hours_text,
    say,
    shown_name,
    tell,
    when,
)


class AdminMixin(RepairMixin):
    """/game settings, pause, resume, replace, kick (and rebuild: ``RepairMixin``)."""

    @staticmethod
    def settings_text(settings: GameSettings, lang: str | None = None) -> str:
        deadline = (say("settings.deadline", lang, hours=hours_text(settings.deadline_hours))
                    if settings.deadline_hours else say("settings.no_deadline", lang))
        hints = say("settings.hints_on" if settings.hints_on else "settings.hints_off", lang)
        return say("settings.text", lang, hours=hours_text(settings.reminder_hours),
                   deadline=deadline, language=LANGUAGE_NAMES[settings.language], hints=hints)

    @outboxed
    async def update_settings(
        self, channel_id: int, user_id: int, *, reminder_hours: float | None = None,
        deadline_hours: float | None = None, language: str | None = None,
        hints: bool | None = None, is_admin: bool = False,
    ) -> Outcome:
        """Change the reminder period, the deadline (``deadline_hours=0``: none), the language
        of the game's pictures or whether /hint answers; creator or admin. When the hours
        change, the current player's timers start again from now. Without values: show the
        settings (to anyone)."""
        if language is not None and language not in LANGUAGES:
            raise MalformedAction(tell("settings.bad_language", languages=", ".join(LANGUAGES)))
        if reminder_hours is None and deadline_hours is None and language is None and (
                hints is None):
            info = await self.info(channel_id)
            lang = i18n.reader()
            return Outcome(game=info, reply=Reply(
                tell("settings.show", settings=self.settings_text(info.settings, lang))))
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id, live_only=True)
            self._may_manage(game, user_id, is_admin, "settings")
            values = GameSettings.model_validate_json(game.settings).model_dump()
            if reminder_hours is not None:
                values["reminder_hours"] = reminder_hours
            if deadline_hours is not None:
                values["deadline_hours"] = deadline_hours or None
            if language is not None:
                values["language"] = language
            if hints is not None:
                values["hints"] = hints
            try:
                settings = GameSettings.model_validate(values)
            except ValidationError:
                raise MalformedAction(tell("settings.bad_hours")) from None
            await tx.update_game(game.id, game.version, now=now,
                                 settings=settings.model_dump_json())
            game = await self._reload(tx, game.id)
            info = self._info(game, await tx.seats(game.id))
            hours_changed = reminder_hours is not None or deadline_hours is not None
            if game.status == GameStatus.ACTIVE and hours_changed:
                await self._schedule(tx, info, self._state(game, info), now, fresh=True,
                                     reset_deadline=True)
            lang = settings.language  # a new language speaks at once
            text = say("settings.sets", lang, who=self._who(info, user_id),
                       settings=self.settings_text(settings, lang))
            await tx.add_note(game.id, await tx.last_seq(game.id), text, now, user_id)
        return Outcome(game=info, public=[Post(text)])

    @outboxed
    async def pause(self, channel_id: int, user_id: int, *, is_admin: bool = False) -> Outcome:
        """Pause the game (creator or admin): its timers are cancelled and moves wait."""
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id, live_only=True)
            if game.status != GameStatus.ACTIVE:
                raise NotStarted(tell("pause.not_active"))
            self._may_manage(game, user_id, is_admin, "pause")
            if game.paused_at is not None:
                raise GamePaused(tell("pause.already"))
            await tx.update_game(game.id, game.version, now=now, paused_at=now)
            await tx.cancel_timers(game.id)
            game = await self._reload(tx, game.id)
            info = self._info(game, await tx.seats(game.id))
            who = self._who(info, user_id)
            lang = info.settings.language
            await tx.add_note(game.id, await tx.last_seq(game.id),
                              say("pause.note", lang, who=who), now, user_id)
            tables = await self._turn_tables(tx, info, self._state(game))  # "paused since"
        return Outcome(game=info, public=[Post(say("pause.post", lang, who=who))], tables=tables)

    @outboxed
    async def resume(self, channel_id: int, user_id: int, *, is_admin: bool = False) -> Outcome:
        """Resume a paused game (creator or admin): whoever must act gets fresh timers."""
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id, live_only=True)
            self._may_manage(game, user_id, is_admin, "resume")
            if game.paused_at is None:
                raise GamePaused(tell("pause.not_paused"))
            paused_at = game.paused_at
            await tx.update_game(game.id, game.version, now=now, paused_at=None)
            game = await self._reload(tx, game.id)
            info = self._info(game, await tx.seats(game.id))
            who = self._who(info, user_id)
            lang = info.settings.language
            await tx.add_note(game.id, await tx.last_seq(game.id),
                              say("pause.resumed_note", lang, who=who), now, user_id)
            state = self._state(game, info)
            text = say("pause.resumes", lang, who=who, since=when(paused_at))
            seat = engine.current_seat(state)
            me = info.seat_info(seat) if seat is not None else None
            if me is not None and me.removed:
                return await self._play(tx, game, info, state, now, intro=text)
            await self._schedule(tx, info, state, now, fresh=True, shift=now - paused_at)
            tables = await self._turn_tables(tx, info, state)  # its deadline moved on
        out = Outcome(game=info, public=[Post(text)], tables=tables)
        self._turn_notice(out, info, None, state)
        return out


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
                tx, channel_id, user_id, old_user_id, is_admin, "replace")
            shown = shown_name(new_name)
            if info.seat_of(new_user_id) is not None:
                raise LobbyError(tell("replace.seated", name=shown))
            if is_computer(new_user_id):
                raise LobbyError(tell("replace.computer_user"))
            old_name = info.names[seat]
            await tx.update_seat(game.id, seat, user_id=new_user_id, name=new_name, muted=0,
                                 away_until=None, removed=0, joined_at=now,  # seated now
                                 hints=0)  # the hints asked were the old player's
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
            lang = info.settings.language
            await tx.add_note(game.id, await tx.last_seq(game.id),
                              say("replace.note", lang, new=shown, old=old_name), now,
                              user_id)
            state = self._state(game, info) if game.status == GameStatus.ACTIVE else None
            if state is not None and engine.current_seat(state) == seat:
                await self._schedule(tx, info, state, now, fresh=True, reset_deadline=True)
        text = say("replace.takes_over_game" if state else "replace.takes_over", lang,
                   new=shown, old=old_name)
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
                tx, channel_id, user_id, target_user_id, is_admin, "kick")
            name = info.names[seat]
            lang = info.settings.language
            if game.status == GameStatus.LOBBY:
                row = next(s for s in await tx.seats(game.id) if s.seat == seat)
                info, told = await self._leave_lobby(tx, game, row, now)
                return Outcome(game=info, public=[Post(say("kick.lobby", lang, name=name) + told)])
            me = info.seat_info(seat)
            assert me is not None
            if me.removed:
                raise LobbyError(tell("kick.already", name=name))
            if not people_staying(info.seats, target_user_id):
                raise LobbyError(tell("seat.last_person", name=name))
            await tx.update_seat(game.id, seat, removed=1, muted=1, away_until=None)
            await tx.add_note(game.id, await tx.last_seq(game.id),
                              say("kick.note", lang, name=name), now, user_id)
            game, told = await self._hand_on(tx, game, target_user_id, now)
            info = self._info(game, await tx.seats(game.id))
            state = self._state(game, info)
            text = say("kick.game", lang, name=name) + told
            if game.paused_at is None and engine.current_seat(state) == seat:
                return await self._play(tx, game, info, state, now, intro=text)
            version = await tx.update_game(game.id, game.version, now=now)
            info = replace(info, version=version)
        return Outcome(game=info, public=[Post(text)])


