"""The game service's core: what every part uses (loading a game and a seat, checking who may
act, the turn's notices: pings, choices, hands). The vocabulary is in ``model``, the refusals
in ``errors``, the results in ``results``, the timers in ``schedule``."""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import replace
from typing import TypeVar

from pydantic import ValidationError

import engine
from engine import (
    Event,
    GameState,
)

from ..storage.api import GameRow, Queries, SeatRow, Storage, Tx
from .errors import (
    GamePaused,
    NoGameHere,
    NotSeated,
    NotStarted,
    PermissionDenied,
    damaged,
)
from .model import GameSettings, GameStatus, is_computer, stored_language, turn_key
from .results import DecisionInfo, Direct, GameInfo, Image, ImageKind, Outcome, Ping, SeatInfo
from .texts import (
    cards_text,
    choice_label,
    event_prompt,
    format_names,
    hand_text,
    say,
    shown_name,
    tell,
    when,
)

log = logging.getLogger("khronos.service")

Seat = TypeVar("Seat", SeatRow, SeatInfo)


def people_staying(seats: Sequence[Seat], leaving: int) -> list[Seat]:
    """The persons (not computers, not removed) who keep a seat when ``leaving`` goes."""
    return [s for s in seats
            if s.user_id != leaving and not is_computer(s.user_id) and not s.removed]


def heir(seats: Sequence[SeatRow], leaving: int) -> SeatRow | None:
    """Who takes the creator's rights when the creator ``leaving`` goes: the person seated
    longest among those who stay (the earliest ``joined_at``, then the first seat); None when
    no person stays."""
    return min(people_staying(seats, leaving), key=lambda s: (s.joined_at, s.seat),
               default=None)


def shape_problems(state: GameState) -> list[str]:
    """What in a state does not fit its own game (RULES.md section 9's invariants do not look
    at it): its player count, the players' seat numbers, and every seat it names (whose
    turn, who starts, who must choose, who provoked a chain, the winners, the owners of
    tiles and cubes) inside it. Cheap: checked at every load."""
    n = len(state.players)
    seats = {state.turn, state.first_seat, *state.winners}
    seats |= {state.pending.seat} if state.pending is not None else set()
    seats |= {state.provoker} if state.provoker is not None else set()
    for board in state.boards:
        seats |= {t.owner for t in board.tiles if t.owner is not None}
        seats |= set(board.hamlet_cubes.values())
    out = []
    if state.options.players != n or [p.seat for p in state.players] != list(range(n)):
        out.append(f"{n} players numbered {[p.seat for p in state.players]} in a game of "
                   f"{state.options.players}")
    out += [f"seat {s} named, of {n}" for s in sorted(seats) if not 0 <= s < n]
    return out


def missing_seats(state: GameState, seats: Sequence[SeatInfo]) -> list[int]:
    """The seats of the game's players that have no seat row (a row deleted by hand)."""
    have = {s.seat for s in seats}
    return [p.seat for p in state.players if p.seat not in have]


class ServiceCore:
    """Plain async methods; each returns an ``Outcome`` or raises an ``EngineError``.

    ``clock`` gives Unix seconds (for the log and timers); ``seeds`` gives a new game's seed.
    """

    def __init__(
        self,
        storage: Storage,
        *,
        clock: Callable[[], float] = time.time,
        seeds: Callable[[], int] | None = None,
        outbox: bool = True,
        computer_delay: float = 3.0,
        computer_budget: float = 1.0,
        ai_executor: Executor | None = None,
    ) -> None:
        self.storage = storage
        # a computer acts this many seconds after the game waits for it (the table sees the
        # order of events); it thinks ``computer_budget`` seconds in ``ai_executor``
        self.computer_delay = computer_delay
        self.computer_budget = computer_budget
        self.ai_executor = ai_executor
        # commands store what they say in the outbox (a deliverer sends it); the terminal,
        # which shows an outcome at once and has no deliverer, turns it off
        self.use_outbox = outbox
        # game id -> hash of the state text last checked (or written) here: unchanged text is
        # not checked for the invariants again
        self._checked: dict[int, int] = {}
        self.clock = clock
        self.seeds = seeds or (lambda: secrets.randbits(63))

    # --- loading --------------------------------------------------------------------------

    async def _game(self, q: Queries, channel_id: int, *, live_only: bool = False) -> GameRow:
        game = await q.game_for_channel(channel_id, live_only=live_only)
        if game is None:
            raise NoGameHere(tell("refusal.no_game"))
        if game.status == GameStatus.ABANDONED:
            raise NoGameHere(tell("refusal.abandoned"))
        return game

    @staticmethod
    def _info(game: GameRow, seats: Sequence[SeatRow], version: int | None = None, *,
              settings: GameSettings | None = None) -> GameInfo:
        """The game's description; settings that do not validate make it a DamagedGame
        (unless ``settings`` is given: the rebuild's stand-in)."""
        if settings is None:
            try:
                settings = GameSettings.model_validate_json(game.settings)
            except (ValidationError, ValueError) as exc:
                raise damaged(game.id, "settings") from exc
        return GameInfo(
            game_id=game.id,
            channel_id=game.channel_id,
            guild_id=game.guild_id,
            creator_id=game.creator_id,
            status=game.status,
            version=game.version if version is None else version,
            settings=settings,
            seats=tuple(SeatInfo(s.seat, s.user_id, s.name, s.muted, s.away_until, s.removed,
                                 s.hints) for s in seats),
            paused_at=game.paused_at,
        )

    def _trust(self, game_id: int, state_json: str) -> None:
        """Note a state this process wrote from ``engine.apply`` (which keeps the invariants,
        as the property tests check): loading that same text again skips the invariant
        check. Any other text, changed by anyone, is checked."""
        if len(self._checked) > 50_000:
            self._checked.clear()
        self._checked[game_id] = hash(state_json)

    def _state(self, game: GameRow, info: GameInfo | None = None) -> GameState:
        """The stored state, validated (a DamagedGame names what does not hold): it reads,
        fits its game (``shape_problems``) and keeps RULES.md section 9's invariants; with
        ``info``, every player of it has his seat row."""
        if game.status == GameStatus.LOBBY:
            raise NotStarted(tell("refusal.not_started"))
        if game.state is None:
            raise damaged(game.id)
        try:
            state = GameState.model_validate_json(game.state)
        except (ValidationError, ValueError) as exc:
            raise damaged(game.id) from exc
        if self._checked.get(game.id) != hash(game.state):
            problems = shape_problems(state) or engine.invariant_problems(state)  # ~0.6 ms
            if problems:
                log.warning("game %s: the stored state does not hold: %s", game.id,
                            "; ".join(problems[:5]))
                raise damaged(game.id)
            self._checked[game.id] = hash(game.state)
        missing = missing_seats(state, info.seats) if info is not None else []
        if missing:
            raise damaged(game.id, "seats", seat=", ".join(str(s + 1) for s in missing))
        return state

    async def _seated(self, q: Queries, channel_id: int, user_id: int, *,
                      live_only: bool = False) -> tuple[GameRow, GameInfo, int]:
        """The channel's game, its description and the user's seat: the one way a command
        loads "my game" (refusals: no game, damaged, not seated or removed)."""
        game = await self._game(q, channel_id, live_only=live_only)
        info = self._info(game, await q.seats(game.id))
        return game, info, self._seat(info, user_id)

    @staticmethod
    def _check_running(game: GameRow, state: GameState) -> None:
        if game.paused_at is not None and not state.over:
            raise GamePaused(tell("refusal.paused", since=when(game.paused_at)))

    @staticmethod
    def _seat(info: GameInfo, user_id: int) -> int:
        """The user's seat; a user without one, or removed from it (/kick), is refused: the
        seat's hand and moves are no longer his."""
        seat = info.seat_of(user_id)
        if seat is None:
            raise NotSeated(tell("refusal.not_seated"))
        me = info.seat_info(seat)
        if me is not None and me.removed:
            raise NotSeated(tell("refusal.removed"))
        return seat

    @staticmethod
    async def _reload(q: Queries, game_id: int) -> GameRow:
        """The game's row again, after an update inside the same transaction."""
        game = await q.game(game_id)
        if game is None:
            raise NoGameHere(tell("refusal.game_gone"))
        return game

    async def _managed_seat(
        self, tx: Tx, channel_id: int, user_id: int, target_user_id: int, is_admin: bool,
        what: str,
    ) -> tuple[GameRow, GameInfo, int]:
        """The live game, its seats and ``target_user_id``'s seat, once ``user_id`` has been
        checked to be its creator or an admin (``what`` names the act: ``manage.<what>`` is
        its refusal in the catalogue)."""
        game = await self._game(tx, channel_id, live_only=True)
        self._may_manage(game, user_id, is_admin, what)
        info = self._info(game, await tx.seats(game.id))
        seat = info.seat_of(target_user_id)
        if seat is None:
            raise NotSeated(tell("refusal.user_not_seated"))
        return game, info, seat

    async def _leave_lobby(self, tx: Tx, game: GameRow, leaving: SeatRow,
                           now: float) -> tuple[GameInfo, str]:
        """Free ``leaving``'s place in the lobby (he left, or was removed): the creator's rights
        pass to the person seated longest; a lobby left without a person (nobody, or only
        computers) ends, so that a new game can be created in its channel. Returns the game
        and what the channel is told after "X leaves"."""
        await tx.remove_seat(game.id, leaving.user_id)
        seats = await tx.seats(game.id)
        lang = stored_language(game)
        fields: dict[str, object] = {}
        told = ""
        successor = heir(seats, leaving.user_id) if leaving.user_id == game.creator_id else None
        if not people_staying(seats, leaving.user_id):
            fields["status"] = GameStatus.ABANDONED
            told = say("lobby.closed" if not seats else "lobby.closed_computers", lang)
        elif successor is not None:
            fields["creator_id"] = successor.user_id
            told = say("lobby.heir", lang, name=shown_name(successor.name))
        version = await tx.update_game(game.id, game.version, now=now, **fields)
        game = await self._reload(tx, game.id)
        return self._info(game, seats, version), told

    async def _hand_on(self, tx: Tx, game: GameRow, leaving: int, now: float) -> tuple[
            GameRow, str]:
        """In a game under way: when the creator ``leaving`` leaves his seat (removed, or given
        to a computer), his rights pass to the person seated longest. Returns the game and
        what the channel is told of it ("" when nothing changes)."""
        if leaving != game.creator_id:
            return game, ""
        successor = heir(await tx.seats(game.id), leaving)
        if successor is None:
            return game, ""
        await tx.update_game(game.id, game.version, now=now, creator_id=successor.user_id)
        told = say("lobby.heir", stored_language(game), name=shown_name(successor.name))
        return await self._reload(tx, game.id), told

    @staticmethod
    def _may_manage(game: GameRow, user_id: int, is_admin: bool, what: str) -> None:
        if user_id != game.creator_id and not is_admin:
            raise PermissionDenied(tell(f"manage.{what}"))

    @staticmethod
    def _who(info: GameInfo, user_id: int) -> str:
        """Who did it, for the channel (in the game's language)."""
        seat = info.seat_of(user_id)
        if seat is not None:
            return info.names[seat]
        lang = info.settings.language
        return say("who.creator" if user_id == info.creator_id else "who.admin", lang)

    async def game_language(self, game_id: int) -> str:
        """The language of game ``game_id`` (English if it is gone or its settings are
        damaged), for what an adapter says in its channel outside any command's outcome."""
        async with self.storage.read() as q:
            game = await q.game(game_id)
        return stored_language(game) if game is not None else "en"

    async def _by_id(self, q: Queries, game_id: int) -> GameRow:
        game = await q.game(game_id)
        if game is None or game.status == GameStatus.ABANDONED:
            raise NoGameHere(tell("refusal.game_gone"))
        return game

    def _turn_notice(
        self, out: Outcome, info: GameInfo, old: GameState | None, new: GameState, *,
        table: bool = False,
    ) -> None:
        """Ping whoever must act now if that changed; send a pending decision to its chooser.
        With ``table`` (the outcome carries the turns' table messages): the player whose turn
        it is is mentioned by the table message, so his ping is ``in_table``, and his "your
        turn" DM (with his hand) opens the turn's hand DM; a chooser of another seat (R37) is
        pinged by a message of its own, as always."""
        names = info.names
        lang = info.settings.language
        if new.pending is not None:
            decision = self._decision(info, new)
            out.decision = decision
            if old is None or old.pending != new.pending:
                prompt = format_names(event_prompt(new, lang), names, lang)
                if decision.user_id is not None and not is_computer(decision.user_id):
                    out.direct.append(
                        Direct(decision.user_id, "choice",
                               say("turn.choice_dm", lang, prompt=prompt), decision=decision)
                    )
        if new.over:
            return
        now_seat = engine.current_seat(new)
        before = engine.current_seat(old) if old is not None else None
        if now_seat is None or now_seat == before:
            return
        user = info.user_of(now_seat)
        if user is None or is_computer(user):
            return
        if new.pending is not None and new.pending.seat == now_seat:
            text = say("turn.ping_choice", lang)
        else:
            text = say("turn.ping", lang, round=new.round)
        out.pings.append(Ping(user, text, in_table=table and now_seat == new.turn))
        if new.pending is None and not any(  # his turn's hand DM already says it
                d.user_id == user and d.turn == turn_key(new) for d in out.direct):
            hand = self._hand_dm(new, now_seat, info)
            out.direct.append(replace(hand, kind="your_turn") if table else Direct(
                user, "your_turn", say("turn.your_turn_dm", lang) + hand_text(new, now_seat, lang)))

    def _decision(self, info: GameInfo, state: GameState) -> DecisionInfo:
        assert state.pending is not None
        names = info.names
        d = state.pending
        return DecisionInfo(
            game_id=info.game_id, version=info.version, seat=d.seat, user_id=info.user_of(d.seat),
            prompt=format_names(event_prompt(state, info.settings.language), names,
                                info.settings.language),
            # a button's label reads no markdown: the names as they are
            options=tuple(format_names(choice_label(o, info.settings.language),
                                       info.plain_names, info.settings.language)
                          for o in d.options),
            default=d.default,
        )

    @staticmethod
    def _boards(state: GameState, names: dict[int, str], events: Sequence[Event],
                kind: ImageKind = "boards", *, lang: str = "en") -> Image:
        """The boards after a move (``move``: the moved age large) or all three (``boards``);
        ``names`` as drawn (``GameInfo.plain_names``)."""
        alt = say("image.boards_alt", lang, round=state.round, name=names.get(state.turn, "?"))
        return Image(kind, state, names, events, alt, lang=lang)

    @staticmethod
    def _hand_dm(state: GameState, seat: int, info: GameInfo) -> Direct:
        """The seat's hand by DM (text and picture). During his own turn it is the turn's
        hand DM (``turn``): it says that it is his turn and is edited in place."""
        user = info.user_of(seat)
        assert user is not None
        lang = info.settings.language
        image = Image("hand", state, info.plain_names, (),
                      say("image.hand_alt", lang, cards=cards_text(state.players[seat].hand, lang)),
                      seat=seat, lang=lang)
        text = hand_text(state, seat, lang)
        if state.turn == seat and not state.over:
            return Direct(user, "hand", say("turn.your_turn_dm", lang) + text, image,
                          turn=turn_key(state))
        return Direct(user, "hand", text, image)
