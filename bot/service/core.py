"""The game service's core: errors, settings, the results it returns, and the helpers every
part uses (loading a game and a seat, building messages, scheduling the timers)."""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

import engine
from engine import (
    CorruptState,
    EngineError,
    Event,
    GameState,
    PlayerView,
    PublicView,
)

from ..storage.api import GameRow, Queries, SeatRow, Storage, Tx
from .texts import (
    cards_text,
    channel_link,
    choice_label,
    event_prompt,
    format_names,
    hand_text,
    say,
    tell,
    when,
)

log = logging.getLogger("khronos.service")

MIN_PLAYERS = 2
MAX_PLAYERS = 5
DRAW_KINDS = ("exchange", "holdem", "end_turn")  # actions that draw or reveal cards
HOUR = 3600.0
OFFLINE_MARGIN = 300.0  # a timer fired later than this after its due time was missed offline
MAX_AWAY_HOURS = 336.0  # two weeks


class GameStatus(StrEnum):
    """A game's ``status`` column."""

    LOBBY = "lobby"
    ACTIVE = "active"
    OVER = "over"
    ABANDONED = "abandoned"


class TimerKind(StrEnum):
    """A timer's ``kind`` column (style 11)."""

    REMINDER = "reminder"
    WARNING = "deadline_warning"
    DEADLINE = "deadline"
    COMPUTER = "computer"  # a computer seat's next action (docs/ai.md)


class MoveKind(StrEnum):
    """A move-log entry's ``kind`` column: an action, or an undo naming the entry it cancels."""

    ACTION = "action"
    UNDO = "undo"


# --- errors: every refusal carries a sentence for the user ------------------------------------


class ServiceError(EngineError):
    """A refusal by the service (not by the rules)."""


class NoGameHere(ServiceError):
    """There is no game (or no live game) in this channel."""


class GameExists(ServiceError):
    """The channel already has a game in its lobby or under way."""


class NotSeated(ServiceError):
    """The user is not a player of this game."""


class PermissionDenied(ServiceError):
    """The user may not do this (creator or admin only, your own turn only …)."""


class LobbyError(ServiceError):
    """Joining, leaving or starting is not possible now."""


class NotStarted(ServiceError):
    """The game is still in its lobby."""


class UndoRefused(ServiceError):
    """Nothing of the player's own turn can be undone (turn start, card draw, other's move)."""


class GamePaused(ServiceError):
    """The game is paused: moves wait until the creator or an admin resumes it."""


class DamagedGame(CorruptState):
    """This game's stored state, settings or log does not validate, or its state breaks an
    invariant of RULES.md section 9; other games are unaffected. ``game_id`` names it."""

    game_id: int | None = None


def damaged(game_id: int, message: str | None = None) -> DamagedGame:
    exc = DamagedGame(message or tell("refusal.damaged"))
    exc.game_id = game_id
    return exc


def stored_language(game: GameRow) -> str:
    """The game's language as stored, or English when its settings do not validate (a
    damaged game is still told of its damage in its players' language when that survives)."""
    try:
        return GameSettings.model_validate_json(game.settings).language
    except (ValidationError, ValueError):
        return "en"


def events_of(text: str, lang: str | None = None) -> list[Event]:
    """A log entry's events; a damaged record reads as one event saying so (never a crash)."""
    try:
        return [Event.model_validate(e) for e in json.loads(text)]
    except (ValidationError, ValueError, TypeError):
        return [Event(kind="damaged", text=say("history.damaged_entry", lang))]


# --- settings of one game (stored as JSON beside the state) ------------------------------------


Language = Literal["en", "fr", "de"]
LANGUAGES: tuple[Language, ...] = ("en", "fr", "de")
LANGUAGE_NAMES = {"en": "English", "fr": "Français", "de": "Deutsch"}  # each in its own words


class GameSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seats: int | None = Field(default=None, ge=MIN_PLAYERS, le=MAX_PLAYERS)  # start when full
    holdem: bool = False
    reminder_hours: float = Field(default=24.0, gt=0)
    deadline_hours: float | None = Field(default=None, gt=0)
    # of the game's pictures and of what the bot posts, pings and DMs (docs/discord.md)
    language: Language = "en"
    # computer seats: their reserved negative user id -> level (easy, normal); docs/ai.md
    bots: dict[int, str] = Field(default_factory=dict)


BOT_LEVELS = ("easy", "normal")


def is_computer(user_id: int | None) -> bool:
    """A computer seat's user id: negative, reserved, unique in its game (-1, -2 …)."""
    return user_id is not None and user_id < 0


MARK = "🤖"  # a computer's move post, and a computer joining, start with it


def next_bot_id(seats: Sequence[Any], settings: GameSettings) -> int:
    """The next free computer user id of a game (-1, -2 …); ``seats`` are its seat rows."""
    used = {s.user_id for s in seats if is_computer(s.user_id)} | set(settings.bots)
    n = 1
    while -n in used:
        n += 1
    return -n


def computer_name(number: int, level: str) -> str:
    return f"Computer {number} ({level})"


# --- results -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatInfo:
    seat: int
    user_id: int
    name: str
    muted: bool = False  # no reminder DMs
    away_until: float | None = None  # declared absence (deadlines extended, no reminders)
    removed: bool = False  # kicked: his turns end and his choices take the default at once


@dataclass(frozen=True)
class GameInfo:
    game_id: int
    channel_id: int
    guild_id: int | None
    creator_id: int
    status: str  # lobby, active, over, abandoned
    version: int
    settings: GameSettings
    seats: tuple[SeatInfo, ...]
    paused_at: float | None = None

    @property
    def paused(self) -> bool:
        return self.paused_at is not None

    @property
    def link(self) -> str:
        """The channel's address: ``https://discord.com/channels/<guild>/<channel>``."""
        return channel_link(self.guild_id, self.channel_id)

    @property
    def names(self) -> dict[int, str]:
        return {s.seat: s.name for s in self.seats}

    def seat_info(self, seat: int) -> SeatInfo | None:
        return next((s for s in self.seats if s.seat == seat), None)

    def user_of(self, seat: int) -> int | None:
        return next((s.user_id for s in self.seats if s.seat == seat), None)

    def seat_of(self, user_id: int) -> int | None:
        return next((s.seat for s in self.seats if s.user_id == user_id), None)


ImageKind = Literal["boards", "move", "hand", "compare", "summary"]


class Image:
    """An image to render (``bot.images.render_image``): ``move`` → the moved age large and the
    others small (``render.move_png``), the post after a move; ``boards`` → every age large
    (``render.boards_png``), or one age (``age``); ``hand`` → ``render.hand_png``; ``compare``
    → before and after a move; ``summary`` → the end-of-game picture, from the seed and the
    effective move log (``moves``: ``(seat, action JSON)`` pairs).
    ``view`` (the public view, or ``seat``'s player view) is computed when first asked for.
    ``to_json``/``from_json`` store an image in the outbox (it needs its state)."""

    __slots__ = ("_before", "_state", "_view", "age", "alt", "events", "kind", "lang", "moves",
                 "names", "seat", "seed")

    def __init__(
        self,
        kind: ImageKind,
        state: GameState | None = None,
        names: dict[int, str] | None = None,
        events: Sequence[Event] = (),
        alt: str = "",
        *,
        seat: int | None = None,
        age: engine.Age | None = None,
        view: PublicView | PlayerView | None = None,
        before: GameState | None = None,
        seed: int | None = None,
        moves: Sequence[tuple[int, str]] = (),
        lang: str = "en",
    ) -> None:
        if state is None and view is None:
            raise ValueError("an Image needs a state or a view")
        self.kind = kind
        self._state = state
        self.names = dict(names or {})
        self.events = tuple(events)
        self.alt = alt  # a plain fallback; render.alt_text(view, names, events) says more
        self.seat = seat
        self.age = age  # one board shown large (/board might); None: all three
        self._view: PublicView | PlayerView | None = view
        self._before = before  # "compare": the state before the move (``alt`` is the title)
        self.seed = seed  # "summary": the game's seed
        self.moves = tuple(moves)  # "summary": the effective move log
        self.lang = lang  # the game's language (GameSettings.language)

    @property
    def state(self) -> GameState | None:
        return self._state

    @property
    def before_view(self) -> PublicView:
        """The public view before the move, for a ``compare`` image."""
        assert self._before is not None
        return engine.public_view(self._before)

    @property
    def view(self) -> PublicView | PlayerView:
        if self._view is None:
            assert self._state is not None
            if self.kind == "hand":
                assert self.seat is not None
                self._view = engine.player_view(self._state, self.seat)
            else:
                self._view = engine.public_view(self._state)
        return self._view

    def with_age(self, age: engine.Age | None) -> Image:
        kind: ImageKind = "boards" if self.kind == "move" else self.kind
        return Image(kind, self._state, self.names, self.events, self.alt, seat=self.seat,
                     age=age, view=self._view, before=self._before, seed=self.seed,
                     moves=self.moves, lang=self.lang)

    def to_json(self, dumped: dict[int, Any] | None = None) -> dict[str, Any]:
        """The image as JSON for the outbox. Raises ValueError for an image of a view only.
        ``dumped`` caches the JSON of states by identity (one move's images share one)."""
        if self._state is None:
            raise ValueError("only an image of a state can be stored")
        cache = {} if dumped is None else dumped
        state = cache.get(id(self._state))
        if state is None:
            state = cache[id(self._state)] = self._state.model_dump(mode="json")
        return {
            "kind": self.kind,
            "state": state,
            "names": {str(k): v for k, v in self.names.items()},
            "events": [e.model_dump(mode="json") for e in self.events],
            "alt": self.alt,
            "seat": self.seat,
            "age": self.age.name if self.age is not None else None,
            "before": self._before.model_dump(mode="json") if self._before else None,
            "seed": self.seed,
            "moves": [list(m) for m in self.moves],
            "lang": self.lang,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Image:
        before = data.get("before")
        age = data.get("age")
        return cls(
            data["kind"],
            GameState.model_validate(data["state"]),
            {int(k): v for k, v in data["names"].items()},
            [Event.model_validate(e) for e in data["events"]],
            data["alt"],
            seat=data["seat"],
            age=engine.Age[age] if age else None,
            before=GameState.model_validate(before) if before else None,
            seed=data.get("seed"),
            moves=[(int(s), str(a)) for s, a in data.get("moves", [])],
            lang=str(data.get("lang", "en")),
        )

    def __repr__(self) -> str:
        return f"Image({self.kind!r}, seat={self.seat}, age={self.age}, events={len(self.events)})"


@dataclass(frozen=True)
class DecisionInfo:
    """A pending choice (R32, R33, R36, R37), for buttons: ``choose(..., option=index)``."""

    game_id: int
    version: int
    seat: int
    user_id: int | None
    prompt: str
    options: tuple[str, ...]
    default: int  # index of the R37 default


@dataclass(frozen=True)
class Post:
    """A public message in the game's channel; it mentions nobody."""

    text: str
    image: Image | None = None


@dataclass(frozen=True)
class Ping:
    """A new channel message that mentions only ``user_id`` (the turn ping)."""

    user_id: int
    text: str


DirectKind = Literal["hand", "choice", "your_turn", "reminder", "deadline_warning", "notice"]


@dataclass(frozen=True)
class Direct:
    """A private message (DM) to ``user_id``. ``fallback``: if the DM cannot be delivered
    (closed DMs), post this in the game's channel mentioning only him (reminders, warnings)."""

    user_id: int
    kind: DirectKind
    text: str
    image: Image | None = None
    decision: DecisionInfo | None = None
    fallback: str | None = None


@dataclass(frozen=True)
class Reply:
    """The answer to the command's author; ``ephemeral`` means only he should see it."""

    text: str
    image: Image | None = None
    ephemeral: bool = True


@dataclass
class Outcome:
    """What a command did, to be delivered after the commit: ``reply`` to the author,
    ``public`` posts, ``direct`` messages, ``pings``; ``events`` are the engine's, raw."""

    game: GameInfo | None  # None only for answers outside any game (/help)
    reply: Reply | None = None
    public: list[Post] = field(default_factory=list)
    direct: list[Direct] = field(default_factory=list)
    pings: list[Ping] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    decision: DecisionInfo | None = None
    # outbox rows written for it in the command's own transaction (empty for reads)
    outbox: list[int] = field(default_factory=list)
    reply_row: int | None = None  # the row of ``reply``, delivered after the others


@dataclass(frozen=True)
class HistoryEntry:
    seq: int
    seat: int
    name: str
    kind: str  # action or undo
    text: str
    at: float



DAMAGED_NOTICE = say("notice.damaged", None)  # in English; say("notice.damaged", lang)


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
                raise damaged(game.id) from exc
        return GameInfo(
            game_id=game.id,
            channel_id=game.channel_id,
            guild_id=game.guild_id,
            creator_id=game.creator_id,
            status=game.status,
            version=game.version if version is None else version,
            settings=settings,
            seats=tuple(SeatInfo(s.seat, s.user_id, s.name, s.muted, s.away_until, s.removed)
                        for s in seats),
            paused_at=game.paused_at,
        )

    def _trust(self, game_id: int, state_json: str) -> None:
        """Note a state this process wrote from ``engine.apply`` (which keeps the invariants,
        as the property tests check): loading that same text again skips the invariant
        check. Any other text, changed by anyone, is checked."""
        if len(self._checked) > 50_000:
            self._checked.clear()
        self._checked[game_id] = hash(state_json)

    def _state(self, game: GameRow) -> GameState:
        """The stored state, validated; a row that does not validate is a DamagedGame."""
        if game.status == GameStatus.LOBBY:
            raise NotStarted(tell("refusal.not_started"))
        if game.state is None:
            raise damaged(game.id)
        try:
            state = GameState.model_validate_json(game.state)
        except (ValidationError, ValueError) as exc:
            raise damaged(game.id) from exc
        if self._checked.get(game.id) == hash(game.state):
            return state
        problems = engine.invariant_problems(state)  # RULES.md section 9, ~0.6 ms
        if problems:
            log.warning("game %s: the stored state breaks invariants: %s", game.id,
                        "; ".join(problems[:5]))
            raise damaged(game.id)
        self._checked[game.id] = hash(game.state)
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
        self, out: Outcome, info: GameInfo, old: GameState | None, new: GameState
    ) -> None:
        """Ping whoever must act now if that changed; send a pending decision to its chooser."""
        names = info.names
        lang = info.settings.language
        if new.pending is not None:
            decision = self._decision(info, new)
            out.decision = decision
            if old is None or old.pending != new.pending:
                prompt = format_names(event_prompt(new, lang), names)
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
            text = say("turn.ping_choice", lang, name=names[now_seat])
        else:
            text = say("turn.ping", lang, name=names[now_seat], round=new.round)
        out.pings.append(Ping(user, text))
        if new.pending is None:
            out.direct.append(
                Direct(user, "your_turn",
                       say("turn.your_turn_dm", lang) + hand_text(new, now_seat, lang))
            )

    def _decision(self, info: GameInfo, state: GameState) -> DecisionInfo:
        assert state.pending is not None
        names = info.names
        d = state.pending
        return DecisionInfo(
            game_id=info.game_id, version=info.version, seat=d.seat, user_id=info.user_of(d.seat),
            prompt=format_names(event_prompt(state, info.settings.language), names),
            options=tuple(format_names(choice_label(o, info.settings.language), names)
                          for o in d.options),
            default=d.default,
        )

    @staticmethod
    def _boards(state: GameState, names: dict[int, str], events: Sequence[Event],
                kind: ImageKind = "boards", *, lang: str = "en") -> Image:
        """The boards after a move (``move``: the moved age large) or all three (``boards``)."""
        alt = say("image.boards_alt", lang, round=state.round, name=names.get(state.turn, "?"))
        return Image(kind, state, names, events, alt, lang=lang)

    @staticmethod
    def _hand_dm(state: GameState, seat: int, info: GameInfo) -> Direct:
        user = info.user_of(seat)
        assert user is not None
        lang = info.settings.language
        image = Image("hand", state, info.names, (),
                      say("image.hand_alt", lang, cards=cards_text(state.players[seat].hand, lang)),
                      seat=seat, lang=lang)
        return Direct(user, "hand", hand_text(state, seat, lang), image)

    # --- timers (style 11): rows created and cancelled in the move's transaction ------------

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
            payload = {k: v for k, v in json.loads(reminder.payload).items() if k != "noted"}
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
