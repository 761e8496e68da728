"""The lobby: create, join, leave, start; and abandon."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

import engine
from engine import (
    EngineError,
    MalformedAction,
)

from ..storage.api import GameRow, SeatRow, Tx
from .errors import GameExists, LobbyError, NotSeated, PermissionDenied
from .fairplay import seal_game
from .model import (
    BOT_LEVELS,
    MARK,
    MAX_PLAYERS,
    MIN_PLAYERS,
    GameSettings,
    GameStatus,
    computer_name,
    is_computer,
    next_bot_id,
)
from .moves import MovesMixin
from .outbox import outboxed
from .results import Outcome, Post
from .texts import (
    say,
    shown_name,
    status_text,
    tell,
)


def check_level(level: str) -> str:
    """A computer's level as typed, checked: easy, normal or hard."""
    key = level.strip().lower()
    if key not in BOT_LEVELS:
        raise MalformedAction(tell("lobby.bad_level", levels=", ".join(BOT_LEVELS),
                                   level=repr(level[:20])))
    return key


class LobbyMixin(MovesMixin):
    """Create, join, leave, start and abandon."""

    # --- lobby ---------------------------------------------------------------------------

    @outboxed
    async def create_game(
        self,
        channel_id: int,
        user_id: int,
        name: str,
        *,
        guild_id: int | None = None,
        settings: GameSettings | None = None,
        seed: int | None = None,
        bots: int = 0,
        bot_level: str = "normal",
    ) -> Outcome:
        """Open a lobby in the channel; the creator takes the first place, then ``bots``
        computers of ``bot_level``."""
        settings = settings or GameSettings()
        if bots:
            bot_level = check_level(bot_level)
        now = self.clock()
        async with self.storage.write() as tx:
            live = await tx.game_for_channel(channel_id, live_only=True)
            if live is not None and not await self._deserted_lobby(tx, live, now):
                raise GameExists(tell("lobby.exists"))
            game_id = await tx.insert_game(
                guild_id=guild_id,
                channel_id=channel_id,
                creator_id=user_id,
                settings=settings.model_dump_json(),
                seed=self.seeds() if seed is None else seed,
                now=now,
            )
            await tx.add_seat(game_id, 0, user_id, name, now)
            game = await tx.game(game_id)
            assert game is not None
            seats = await tx.seats(game_id)
            added = await self._add_bots(tx, game_id, bots, bot_level, now) if bots else None
        info = self._info(game, seats)
        lang = settings.language
        wanted = (say("lobby.players", lang, count=settings.seats) if settings.seats
                  else say("lobby.players_any", lang))
        extra = say("lobby.holdem", lang) if settings.holdem else ""
        opened = Post(say("lobby.opens_full" if settings.seats else "lobby.opens", lang,
                          name=shown_name(name), wanted=wanted, holdem=extra))
        if added is not None:
            added.public.insert(0, opened)
            return added
        return Outcome(game=info, public=[opened])

    @staticmethod
    async def _deserted_lobby(tx: Tx, game: GameRow, now: float) -> bool:
        """Whether ``game`` is a lobby without a person (left so before lobbies ended by
        themselves): then it ends now, and a new game may be created in its channel."""
        if game.status != GameStatus.LOBBY or any(
                not is_computer(s.user_id) for s in await tx.seats(game.id)):
            return False
        await tx.update_game(game.id, game.version, now=now, status=GameStatus.ABANDONED)
        return True

    @outboxed
    async def join(self, channel_id: int, user_id: int, name: str) -> Outcome:
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id, live_only=True)
            if game.status != GameStatus.LOBBY:
                raise LobbyError(tell("lobby.started_wait"))
            seats = await tx.seats(game.id)
            settings = GameSettings.model_validate_json(game.settings)
            if any(s.user_id == user_id for s in seats):
                raise LobbyError(tell("lobby.already_joined"))
            limit = settings.seats or MAX_PLAYERS
            if len(seats) >= limit:
                raise LobbyError(tell("lobby.full", count=limit))
            await tx.add_seat(game.id, max(s.seat for s in seats) + 1 if seats else 0,
                              user_id, name, now)
            version = await tx.update_game(game.id, game.version, now=now)
            seats = await tx.seats(game.id)
            if settings.seats is not None and len(seats) == settings.seats:
                game = await self._reload(tx, game.id)
                return await self._start(tx, game, seats, now,
                                         say("lobby.joins_full", settings.language,
                                             name=shown_name(name)))
        info = self._info(game, seats, version)
        return Outcome(game=info, public=[Post(
            say("lobby.joins", settings.language, name=shown_name(name), count=len(seats)))])

    @outboxed
    async def leave(self, channel_id: int, user_id: int) -> Outcome:
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id, live_only=True)
            if game.status != GameStatus.LOBBY:
                raise LobbyError(tell("lobby.no_leaving"))
            seats = await tx.seats(game.id)
            me = next((s for s in seats if s.user_id == user_id), None)
            if me is None:
                raise NotSeated(tell("lobby.not_joined"))
            info, told = await self._leave_lobby(tx, game, me, now)
        text = say("lobby.leaves", info.settings.language, name=shown_name(me.name)) + told
        return Outcome(game=info, public=[Post(text)])

    @outboxed
    async def start(self, channel_id: int, user_id: int, *, is_admin: bool = False) -> Outcome:
        """Start the lobby's game (its creator or a server admin): seats in random order,
        first player from the engine's seeded RNG."""
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id, live_only=True)
            if game.status != GameStatus.LOBBY:
                raise LobbyError(tell("lobby.started"))
            if user_id != game.creator_id and not is_admin:
                raise PermissionDenied(tell("manage.start"))
            seats = await tx.seats(game.id)
            if len(seats) < MIN_PLAYERS:
                raise LobbyError(tell("lobby.too_few"))
            if all(is_computer(s.user_id) for s in seats):
                raise LobbyError(tell("lobby.no_person"))
            return await self._start(tx, game, seats, now, "")

    async def _add_bots(self, tx: Tx, game_id: int, count: int, level: str,
                        now: float) -> Outcome:
        game = await self._reload(tx, game_id)
        settings = GameSettings.model_validate_json(game.settings)
        seats = await tx.seats(game_id)
        limit = settings.seats or MAX_PLAYERS
        if len(seats) + count > limit:
            raise LobbyError(tell("lobby.full_computer", count=limit))
        bots = dict(settings.bots)
        names = []
        for _ in range(count):
            uid = next_bot_id(seats, GameSettings(bots=bots))
            name = computer_name(-uid, level)
            await tx.add_seat(game_id, max((s.seat for s in seats), default=-1) + 1, uid, name,
                              now)
            bots[uid] = level
            names.append(name)
            seats = await tx.seats(game_id)
        settings = settings.model_copy(update={"bots": bots})
        version = await tx.update_game(game_id, game.version, now=now,
                                       settings=settings.model_dump_json())
        game = await self._reload(tx, game_id)
        lang = settings.language
        added = say("hand.and", lang).join(names)
        if settings.seats is not None and len(seats) == settings.seats:
            return await self._start(tx, game, seats, now,
                                     say("lobby.joins_full", lang, name=added))
        info = self._info(game, seats, version)
        joins = "lobby.joins" if count == 1 else "lobby.join_several"
        return Outcome(game=info, public=[Post(
            f"{MARK} " + say(joins, lang, name=added, count=len(seats)))])

    async def _start(
        self, tx: Tx, game: GameRow, seats: Sequence[SeatRow], now: float, intro: str
    ) -> Outcome:
        settings = GameSettings.model_validate_json(game.settings)
        order = sorted(seats, key=lambda s: s.seat)
        random.Random(game.seed).shuffle(order)  # seat order from the game's seed, not global
        new_seats = [replace(s, seat=i) for i, s in enumerate(order)]
        await tx.replace_seats(game.id, new_seats)
        state = engine.new_game(
            engine.Options(players=len(new_seats), holdem=settings.holdem), game.seed
        )
        state_json = state.model_dump_json()
        version = await tx.update_game(
            game.id, game.version, now=now, status=GameStatus.ACTIVE, state=state_json,
            checkpoint=state_json, checkpoint_seq=0,
        )
        info = self._info(game, new_seats, version)
        info = replace(info, status=GameStatus.ACTIVE)
        await self._schedule(tx, info, state, now)
        sealed = await seal_game(tx, game, state, now)  # the deck's commitment (fair play)
        names = info.names
        # the order of play, from the first player on (R8): "Cid, Ann, Bob. Cid plays first."
        order_text = ", ".join(names[(state.turn + i) % len(new_seats)]
                               for i in range(len(new_seats)))
        text = (f"{intro + ' ' if intro else ''}"
                + say("lobby.begins", settings.language, order=order_text,
                      name=names[state.turn])
                + "\n" + say("community.sealed", settings.language, commitment=sealed))
        image = self._boards(state, info.plain_names, (), "move", lang=info.settings.language)
        # the words in the channel; the picture is the first turn's table message's (the
        # terminal shows it from here)
        out = Outcome(game=info, public=[Post(text), Post("", image, in_table=True)])
        for s in new_seats:
            if is_computer(s.user_id) or s.seat == state.turn:  # his "your turn" has his hand
                continue
            out.direct.append(self._hand_dm(state, s.seat, info))
        self._turn_notice(out, info, None, state, table=True)
        out.tables = await self._turn_tables(tx, info, state)
        return out

    @outboxed
    async def abandon(self, channel_id: int, user_id: int, *, is_admin: bool = False) -> Outcome:
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id, live_only=True)
            if user_id != game.creator_id and not is_admin:
                raise PermissionDenied(tell("manage.abandon"))
            version = await tx.update_game(game.id, game.version, now=now,
                                           status=GameStatus.ABANDONED, paused_at=None)
            await tx.cancel_timers(game.id)
            seats = await tx.seats(game.id)
            game = await self._reload(tx, game.id)
            info = self._info(game, seats, version)
            lang = info.settings.language
            await tx.add_note(game.id, await tx.last_seq(game.id),
                              say("lobby.abandoned_note", lang), now, user_id)
        text = say("lobby.abandoned", lang)
        if game.state is None:  # abandoned in its lobby
            return Outcome(game=info, public=[Post(text)])
        try:
            state = self._state(game)
        except EngineError:
            return Outcome(game=info, public=[Post(text)])
        summary = status_text(state, info.names, GameStatus.ABANDONED, lang).split("\n", 1)
        standing = summary[1] if len(summary) > 1 else ""
        text = say("lobby.abandoned_standing", lang, round=state.round, standing=standing)
        image = self._boards(state, info.plain_names, (), lang=info.settings.language)
        return Outcome(game=info, public=[Post(text, image)])
