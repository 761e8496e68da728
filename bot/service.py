"""The game service: between the engine and any chat front end; knows nothing of discord.py.

Every command is one write transaction (style 9): load the channel's game, check who may do
it, apply, append to the move log, save with ``version = version + 1`` where the version is
still the one read, reschedule the timers, commit. Only after the commit is an ``Outcome``
built: what to post publicly, what to send privately and whom to ping (style 6).

Refusals are ``EngineError`` subclasses with a sentence for the user (style 5): the engine's
own (``IllegalAction``, ``NotYourTurn``, ``GameOver``, ``StaleState`` …) with seat tokens turned
into names, and the service's below.
"""

from __future__ import annotations

import json
import random
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

import engine
from engine import (
    Action,
    Choose,
    CorruptState,
    EndTurn,
    EngineError,
    Event,
    GameOver,
    GameState,
    MalformedAction,
    NotYourTurn,
    PlayerView,
    PublicView,
    StaleState,
)

from .storage import GameRow, MoveRow, Queries, SeatRow, Storage, TimerRow, Tx

MIN_PLAYERS = 2
MAX_PLAYERS = 5
DRAW_KINDS = ("exchange", "holdem", "end_turn")  # actions that draw or reveal cards
HOUR = 3600.0
OFFLINE_MARGIN = 300.0  # a timer fired later than this after its due time was missed offline
MAX_AWAY_HOURS = 336.0  # two weeks


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
    """This game's stored state does not validate; other games are unaffected."""


# --- settings of one game (stored as JSON beside the state) ------------------------------------


class GameSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seats: int | None = Field(default=None, ge=MIN_PLAYERS, le=MAX_PLAYERS)  # start when full
    holdem: bool = False
    reminder_hours: float = Field(default=24.0, gt=0)
    deadline_hours: float | None = Field(default=None, gt=0)


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


class Image:
    """An image to render: ``boards`` → ``render.boards_png(view, names, highlights)`` with
    ``render.highlights_from_events(events)``; ``hand`` → ``render.hand_png(view, names)``.
    ``view`` (the public view, or ``seat``'s player view) is computed when first asked for."""

    __slots__ = ("_before", "_state", "_view", "age", "alt", "events", "kind", "names", "seat")

    def __init__(
        self,
        kind: Literal["boards", "hand", "compare"],
        state: GameState | None = None,
        names: dict[int, str] | None = None,
        events: Sequence[Event] = (),
        alt: str = "",
        *,
        seat: int | None = None,
        age: engine.Age | None = None,
        view: PublicView | PlayerView | None = None,
        before: GameState | None = None,
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
        return Image(self.kind, self._state, self.names, self.events, self.alt, seat=self.seat,
                     age=age, view=self._view)

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


@dataclass(frozen=True)
class HistoryEntry:
    seq: int
    seat: int
    name: str
    kind: str  # action or undo
    text: str
    at: float


# --- replay: the move log and the seed rebuild any state exactly (style 7) --------------------


def effective_moves(moves: Sequence[MoveRow]) -> list[MoveRow]:
    """The log's actions still in effect: each ``undo`` entry cancels the action it names."""
    stack: list[MoveRow] = []
    for m in moves:
        if m.kind == "undo":
            undone = json.loads(m.action)["undoes"]
            if not stack or stack[-1].seq != undone:
                raise CorruptState(f"undo entry {m.seq} does not match the log", "")
            stack.pop()
        else:
            stack.append(m)
    return stack


def replay(
    options: engine.Options, seed: int, moves: Sequence[MoveRow]
) -> tuple[GameState, GameState, int]:
    """Replay a move log from the seed. Returns (state, checkpoint state, checkpoint seq): the
    checkpoint is the state after the last card draw (the undo floor)."""
    state = engine.new_game(options, seed)
    checkpoint, checkpoint_seq = state, 0
    for m in effective_moves(moves):
        action = engine.parse_action(m.action)
        state, _ = engine.apply(state, m.seat, action)
        if action.kind in DRAW_KINDS:
            checkpoint, checkpoint_seq = state, m.seq
    return state, checkpoint, checkpoint_seq


# --- texts ------------------------------------------------------------------------------------


def channel_link(guild_id: int | None, channel_id: int) -> str:
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}"


def when(t: float, style: str = "R") -> str:
    """A Discord timestamp: each reader sees it in his own time zone (``R``: "in 3 hours")."""
    return f"<t:{int(t)}:{style}>"


def hours_text(hours: float) -> str:
    return f"{hours:g} h"


_FAMILY_LETTER = {"military": "m", "religious": "r", "civil": "c"}


def cards_text(cards: Sequence[engine.Family]) -> str:
    if not cards:
        return "no cards"
    counts = {f: sum(1 for c in cards if c is f) for f in engine.Family}
    words = ", ".join(f"{n} {f.value}" for f, n in counts.items() if n)
    letters = "".join(_FAMILY_LETTER[c.value] for c in cards)
    return f"{words} ({letters})"


def hand_text(state: GameState, seat: int) -> str:
    p = state.players[seat]
    where = " and ".join(a.label for a in p.adventurers)
    text = (
        f"Your hand: {cards_text(p.hand)}. {p.ecus} Ecus, {p.cubes} cubes, "
        f"adventurers on {where}."
    )
    if state.options.holdem:
        text += f" Face-up (Hold'em): {cards_text(state.reserve)}."
    return text


def status_text(state: GameState, names: dict[int, str], status: str) -> str:
    lines = []
    if state.over:
        lines.append("The game is over. Final fortunes:")
    elif status == "abandoned":
        lines.append("This game was abandoned.")
    else:
        lines.append(f"Round {state.round} of 7: {names.get(state.turn, '?')}'s turn.")
    for p in state.players:
        mark = "▶ " if p.seat == state.turn and not state.over else "  "
        where = "/".join(a.label for a in p.adventurers)
        lines.append(
            f"{mark}{names.get(p.seat, '?')}: {p.ecus} Ecus, {len(p.hand)} cards, "
            f"{p.cubes} cubes, adventurers {where}"
        )
    if state.options.holdem:
        lines.append(f"Face-up cards: {cards_text(state.reserve)}")
    if state.pending is not None:
        who = names.get(state.pending.seat, "?")
        prompt = engine.format_text(state.pending.prompt, names)
        lines.append(f"Waiting for {who} to choose: {prompt}")
    if state.over:
        lines.append("Winner: " + " and ".join(names.get(s, "?") for s in state.winners))
    return "\n".join(lines)


def events_text(events: Sequence[Event], names: dict[int, str]) -> str:
    lines = []
    for ev in events:
        lines.append(engine.format_text(ev.text, names))
        lines.extend("  " + engine.format_text(b, names) for b in ev.breakdown)
    return "\n".join(lines)


def _rename(exc: EngineError, names: dict[int, str]) -> EngineError:
    """The engine writes seats as ``{P0}``; the user reads names."""
    exc.message = engine.format_text(exc.message, names)
    exc.args = (exc.message,)
    return exc


# --- the service -------------------------------------------------------------------------------


class GameService:
    """Plain async methods; each returns an ``Outcome`` or raises an ``EngineError``.

    ``clock`` gives Unix seconds (for the log and timers); ``seeds`` gives a new game's seed.
    """

    def __init__(
        self,
        storage: Storage,
        *,
        clock: Callable[[], float] = time.time,
        seeds: Callable[[], int] | None = None,
    ) -> None:
        self.storage = storage
        self.clock = clock
        self.seeds = seeds or (lambda: secrets.randbits(63))

    # --- loading --------------------------------------------------------------------------

    async def _game(self, q: Queries, channel_id: int, *, live_only: bool = False) -> GameRow:
        game = await q.game_for_channel(channel_id, live_only=live_only)
        if game is None:
            raise NoGameHere("There is no game in this channel. Create one with /create.")
        if game.status == "abandoned":
            raise NoGameHere(
                "The game in this channel was abandoned. Create a new one with /create."
            )
        return game

    @staticmethod
    def _info(game: GameRow, seats: Sequence[SeatRow], version: int | None = None) -> GameInfo:
        return GameInfo(
            game_id=game.id,
            channel_id=game.channel_id,
            guild_id=game.guild_id,
            creator_id=game.creator_id,
            status=game.status,
            version=game.version if version is None else version,
            settings=GameSettings.model_validate_json(game.settings),
            seats=tuple(SeatInfo(s.seat, s.user_id, s.name, s.muted, s.away_until, s.removed)
                        for s in seats),
            paused_at=game.paused_at,
        )

    @staticmethod
    def _state(game: GameRow) -> GameState:
        """The stored state, validated; a row that does not validate is a DamagedGame."""
        if game.status == "lobby":
            raise NotStarted("The game has not started yet: join it, then the creator uses /start.")
        if game.state is None:
            raise DamagedGame(_DAMAGED)
        try:
            return GameState.model_validate_json(game.state)
        except (ValidationError, ValueError) as exc:
            raise DamagedGame(_DAMAGED) from exc

    @staticmethod
    def _check_running(game: GameRow, state: GameState) -> None:
        if game.paused_at is not None and not state.over:
            raise GamePaused(
                f"The game is paused (since {when(game.paused_at)}): moves wait until the "
                "creator or a server admin uses /resume."
            )

    @staticmethod
    def _seat(info: GameInfo, user_id: int) -> int:
        seat = info.seat_of(user_id)
        if seat is None:
            raise NotSeated("You are not playing in this game; only its players may do that.")
        return seat

    # --- lobby ---------------------------------------------------------------------------

    async def create_game(
        self,
        channel_id: int,
        user_id: int,
        name: str,
        *,
        guild_id: int | None = None,
        settings: GameSettings | None = None,
        seed: int | None = None,
    ) -> Outcome:
        """Open a lobby in the channel; the creator takes the first place."""
        settings = settings or GameSettings()
        now = self.clock()
        async with self.storage.write() as tx:
            if await tx.game_for_channel(channel_id, live_only=True) is not None:
                raise GameExists(
                    "This channel already has a game. Finish or abandon it first, or open a "
                    "thread for a new one."
                )
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
        info = self._info(game, seats)
        wanted = f"{settings.seats} players" if settings.seats else "2-5 players"
        extra = " with Hold'em" if settings.holdem else ""
        return Outcome(
            game=info,
            public=[
                Post(
                    f"{name} opens a game of Khronos for {wanted}{extra}. Join with /join; "
                    f"{name} starts it with /start"
                    + (" (or it starts when full)." if settings.seats else ".")
                )
            ],
        )

    async def join(self, channel_id: int, user_id: int, name: str) -> Outcome:
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id, live_only=True)
            if game.status != "lobby":
                raise LobbyError("This game has already started; wait for the next one.")
            seats = await tx.seats(game.id)
            settings = GameSettings.model_validate_json(game.settings)
            if any(s.user_id == user_id for s in seats):
                raise LobbyError("You have already joined this game.")
            limit = settings.seats or MAX_PLAYERS
            if len(seats) >= limit:
                raise LobbyError(f"This game is full ({limit} players).")
            await tx.add_seat(game.id, max(s.seat for s in seats) + 1 if seats else 0,
                              user_id, name, now)
            version = await tx.update_game(game.id, game.version, now=now)
            seats = await tx.seats(game.id)
            if settings.seats is not None and len(seats) == settings.seats:
                game = await self._reload(tx, game.id)
                return await self._start(tx, game, seats, now, f"{name} joins; the game is full.")
        info = self._info(game, seats, version)
        return Outcome(game=info, public=[Post(f"{name} joins the game ({len(seats)} seated).")])

    async def leave(self, channel_id: int, user_id: int) -> Outcome:
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id, live_only=True)
            if game.status != "lobby":
                raise LobbyError(
                    "The game has started: nobody can leave it now. The creator or a server "
                    "admin can /abandon it."
                )
            seats = await tx.seats(game.id)
            me = next((s for s in seats if s.user_id == user_id), None)
            if me is None:
                raise NotSeated("You have not joined this game.")
            await tx.remove_seat(game.id, user_id)
            seats = await tx.seats(game.id)
            status = "lobby" if seats else "abandoned"
            version = await tx.update_game(game.id, game.version, now=now, status=status)
            game = await self._reload(tx, game.id)
        text = f"{me.name} leaves the game."
        if not seats:
            text += " Nobody is left; the game is closed."
        return Outcome(game=self._info(game, seats, version), public=[Post(text)])

    async def start(self, channel_id: int, user_id: int, *, is_admin: bool = False) -> Outcome:
        """Start the lobby's game (its creator or a server admin): seats in random order,
        first player from the engine's seeded RNG."""
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id, live_only=True)
            if game.status != "lobby":
                raise LobbyError("This game has already started.")
            if user_id != game.creator_id and not is_admin:
                raise PermissionDenied("Only the game's creator or a server admin can start it.")
            seats = await tx.seats(game.id)
            if len(seats) < MIN_PLAYERS:
                raise LobbyError("Khronos needs at least 2 players; ask someone to /join.")
            return await self._start(tx, game, seats, now, "")

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
            game.id, game.version, now=now, status="active", state=state_json,
            checkpoint=state_json, checkpoint_seq=0,
        )
        info = self._info(game, new_seats, version)
        info = replace(info, status="active")
        await self._schedule(tx, info, state, now)
        names = info.names
        order_text = ", ".join(s.name for s in new_seats)
        text = (
            f"{intro + ' ' if intro else ''}The game begins. Seat order: {order_text}. "
            f"{names[state.turn]} plays first."
        )
        out = Outcome(game=info, public=[Post(text, self._boards(state, names, ()))])
        for s in new_seats:
            out.direct.append(self._hand_dm(state, s.seat, info))
        self._turn_notice(out, info, None, state)
        return out

    async def abandon(self, channel_id: int, user_id: int, *, is_admin: bool = False) -> Outcome:
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id, live_only=True)
            if user_id != game.creator_id and not is_admin:
                raise PermissionDenied(
                    "Only the game's creator or a server admin can abandon the game."
                )
            version = await tx.update_game(game.id, game.version, now=now, status="abandoned",
                                           paused_at=None)
            await tx.cancel_timers(game.id)
            await tx.add_note(game.id, await tx.last_seq(game.id), "The game was abandoned.",
                              now, user_id)
            seats = await tx.seats(game.id)
            game = await self._reload(tx, game.id)
        info = self._info(game, seats, version)
        text = "The game is abandoned. A new one can be created with /create."
        if game.state is None:  # abandoned in its lobby
            return Outcome(game=info, public=[Post(text)])
        try:
            state = self._state(game)
        except EngineError:
            return Outcome(game=info, public=[Post(text)])
        summary = status_text(state, info.names, "abandoned").split("\n", 1)
        standing = summary[1] if len(summary) > 1 else ""
        text = (f"The game is abandoned in round {state.round} of 7. Standing when it stopped:\n"
                f"{standing}\nA new game can be created with /create.")
        return Outcome(game=info, public=[Post(text, self._boards(state, info.names, ()))])

    # --- moves -----------------------------------------------------------------------------

    async def act(
        self, channel_id: int, user_id: int, action: Action, *, expect_version: int | None = None
    ) -> Outcome:
        """Play ``action`` (any engine action) as the user's seat in the channel's game."""
        return await self._act(channel_id, None, user_id, action, expect_version)

    async def act_in_game(
        self, game_id: int, user_id: int, action: Action, *, expect_version: int | None = None
    ) -> Outcome:
        """``act`` for a game named by its id (buttons in DMs know the game, not the channel)."""
        return await self._act(None, game_id, user_id, action, expect_version)

    async def choose(
        self, channel_id: int, user_id: int, option: int, *, expect_version: int | None = None
    ) -> Outcome:
        """Answer the pending decision with option ``option`` (0-based index)."""
        return await self._act(channel_id, None, user_id, _choose(option), expect_version)

    async def choose_in_game(
        self, game_id: int, user_id: int, option: int, *, expect_version: int | None = None
    ) -> Outcome:
        return await self._act(None, game_id, user_id, _choose(option), expect_version)

    async def _by_id(self, q: Queries, game_id: int) -> GameRow:
        game = await q.game(game_id)
        if game is None or game.status == "abandoned":
            raise NoGameHere("That game no longer exists.")
        return game

    async def _act(
        self,
        channel_id: int | None,
        game_id: int | None,
        user_id: int,
        action: Action,
        expect_version: int | None,
    ) -> Outcome:
        now = self.clock()
        async with self.storage.write() as tx:
            if game_id is not None:
                game = await self._by_id(tx, game_id)
            else:
                assert channel_id is not None
                game = await self._game(tx, channel_id)
            seats = await tx.seats(game.id)
            info = self._info(game, seats)
            seat = self._seat(info, user_id)
            state = self._state(game)
            self._check_running(game, state)
            if expect_version is not None and expect_version != game.version:
                raise StaleState(
                    "The game has moved on since this was shown to you; look again and retry."
                )
            return await self._move(tx, game, info, state, seat, user_id, action, now)

    async def preview(
        self, channel_id: int, user_id: int, action: Action
    ) -> tuple[GameInfo, PublicView, dict[int, str], list[Event]]:
        """What ``action`` would do, stored nowhere: the public view after it and its events.
        Raises the same refusals as ``act``."""
        info, state, seat = await self.seat_state(channel_id, user_id)
        if seat is None:
            raise NotSeated("You are not playing in this game; only its players may do that.")
        try:
            after, events = engine.preview(state, seat, action)
        except EngineError as exc:
            raise _rename(exc, info.names) from None
        return info, engine.public_view(after), info.names, events

    async def seat_state(
        self, channel_id: int, user_id: int
    ) -> tuple[GameInfo, GameState, int | None]:
        """The channel's game, its full state and the user's seat (None if not seated), for
        autocomplete. The state holds hidden cards: never show it as it is."""
        info, state = await self.snapshot(channel_id)
        return info, state, info.seat_of(user_id)

    async def _move(
        self,
        tx: Tx,
        game: GameRow,
        info: GameInfo,
        state: GameState,
        seat: int,
        user_id: int | None,
        action: Action,
        now: float,
    ) -> Outcome:
        """Play ``action`` for ``seat``, then whatever removed seats must play by default."""
        return await self._play(tx, game, info, state, now, first=(seat, user_id, action))

    async def _record(
        self, tx: Tx, game_id: int, version: int, state: GameState, seat: int,
        user_id: int | None, action: Action, names: dict[int, str], now: float,
    ) -> tuple[GameState, list[Event], int]:
        """Apply one action, append it to the log and save; returns (state, events, version)."""
        try:
            new, events = engine.apply(state, seat, action)
        except EngineError as exc:
            raise _rename(exc, names) from None
        seq = await tx.last_seq(game_id) + 1
        fields: dict[str, object] = {"state": new.model_dump_json()}
        if action.kind in DRAW_KINDS:
            fields["checkpoint"] = fields["state"]
            fields["checkpoint_seq"] = seq
        if new.over:
            fields["status"] = "over"
        await tx.append_move(
            game_id=game_id, seq=seq, version=version + 1, seat=seat, user_id=user_id,
            kind="action", action=json.dumps(engine.dump_action(action)),
            events=json.dumps([e.model_dump(mode="json") for e in events]),
            step=new.step, now=now,
        )
        version = await tx.update_game(game_id, version, now=now, **fields)
        return new, events, version

    async def _play(
        self,
        tx: Tx,
        game: GameRow,
        info: GameInfo,
        state: GameState,
        now: float,
        *,
        first: tuple[int, int | None, Action] | None = None,
        timed_out: int | None = None,
        intro: str = "",
    ) -> Outcome:
        """One command's moves in its transaction: ``first`` (a player's action), then the
        automatic ones: while ``timed_out`` (a seat whose deadline passed) still must act, its
        pending choices take their R37 default and its turn ends (cards kept, hand refilled);
        a removed seat does the same at once whenever the game waits for it. Each automatic
        action is its own log entry with ``user_id`` NULL."""
        names = info.names
        version = game.version
        new = state
        events: list[Event] = []
        texts: list[str] = [intro] if intro else []
        actor = -1
        if first is not None:
            actor, user_id, action = first
            new, evs, version = await self._record(tx, game.id, version, new, actor, user_id,
                                                   action, names, now)
            events += evs
            texts.append(events_text(evs, names))
        removed = {s.seat for s in info.seats if s.removed}
        told: set[int] = set()
        for _ in range(500):  # a seat's turn is a few actions; the bound only guards bugs
            seat = engine.current_seat(new)
            if seat is None:
                break
            if seat != timed_out:
                timed_out = None  # its turn passed: the deadline's work is done
            if seat != timed_out and seat not in removed:
                break
            if seat in removed and seat not in told:
                told.add(seat)
                texts.append(f"({names.get(seat, '?')} has left the game: the bot plays the "
                             "default for that seat.)")
            auto: Action
            if new.pending is not None:
                auto = Choose(option=engine.default_choice(new))
            else:
                auto = EndTurn()
            new, evs, version = await self._record(tx, game.id, version, new, seat, None, auto,
                                                   names, now)
            events += evs
            texts.append(events_text(evs, names))
        info = replace(info, version=version, status="over" if new.over else info.status)
        await self._schedule(tx, info, new, now)
        return self._after_move(info, state, new, events, actor, "\n".join(t for t in texts if t))

    def _after_move(
        self, info: GameInfo, old: GameState, new: GameState, events: list[Event], actor: int,
        text: str | None = None,
    ) -> Outcome:
        names = info.names
        if text is None:
            text = events_text(events, names)
        out = Outcome(
            game=info,
            public=[Post(text, self._boards(new, names, events))],
            events=list(events),
        )
        gone = {s.seat for s in info.seats if s.removed}
        for p_old, p_new in zip(old.players, new.players, strict=True):
            if p_new.seat in gone:
                continue
            if p_old.hand != p_new.hand or (p_new.seat == actor and p_old.ecus != p_new.ecus):
                out.direct.append(self._hand_dm(new, p_new.seat, info))
        self._turn_notice(out, info, old, new)
        return out

    def _turn_notice(
        self, out: Outcome, info: GameInfo, old: GameState | None, new: GameState
    ) -> None:
        """Ping whoever must act now if that changed; send a pending decision to its chooser."""
        names = info.names
        if new.pending is not None:
            decision = self._decision(info, new)
            out.decision = decision
            if old is None or old.pending != new.pending:
                prompt = engine.format_text(new.pending.prompt, names)
                if decision.user_id is not None:
                    out.direct.append(
                        Direct(decision.user_id, "choice", f"You have a choice to make: {prompt}",
                               decision=decision)
                    )
        if new.over:
            return
        now_seat = engine.current_seat(new)
        before = engine.current_seat(old) if old is not None else None
        if now_seat is None or now_seat == before:
            return
        user = info.user_of(now_seat)
        if user is None:
            return
        if new.pending is not None and new.pending.seat == now_seat:
            text = f"{names[now_seat]}, the game waits for your choice (R37)."
        else:
            text = f"{names[now_seat]}, it is your turn (round {new.round} of 7)."
        out.pings.append(Ping(user, text))
        if new.pending is None:
            out.direct.append(
                Direct(user, "your_turn", "It is your turn. " + hand_text(new, now_seat))
            )

    def _decision(self, info: GameInfo, state: GameState) -> DecisionInfo:
        assert state.pending is not None
        names = info.names
        d = state.pending
        return DecisionInfo(
            game_id=info.game_id, version=info.version, seat=d.seat, user_id=info.user_of(d.seat),
            prompt=engine.format_text(d.prompt, names),
            options=tuple(engine.format_text(o.label, names) for o in d.options),
            default=d.default,
        )

    @staticmethod
    def _boards(state: GameState, names: dict[int, str], events: Sequence[Event]) -> Image:
        alt = f"The three boards, round {state.round}, {names.get(state.turn, '?')} to play."
        return Image("boards", state, names, events, alt)

    @staticmethod
    def _hand_dm(state: GameState, seat: int, info: GameInfo) -> Direct:
        user = info.user_of(seat)
        assert user is not None
        image = Image("hand", state, info.names, (),
                      f"Your hand: {cards_text(state.players[seat].hand)}", seat=seat)
        return Direct(user, "hand", hand_text(state, seat), image)

    # --- undo -------------------------------------------------------------------------------

    async def undo(self, channel_id: int, user_id: int) -> Outcome:
        """Take back the user's last action of his current turn. Never across a card draw
        (exchange, Hold'em swap, end of turn) or another player's move."""
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id)
            seats = await tx.seats(game.id)
            info = self._info(game, seats)
            seat = self._seat(info, user_id)
            state = self._state(game)
            names = info.names
            if state.over:
                raise GameOver("The game is over: nothing can be undone (R50).")
            self._check_running(game, state)
            if seat != state.turn:
                raise NotYourTurn(
                    f"Undo works only in your own turn; it is {names[state.turn]}'s turn."
                )
            entries = await tx.moves(game.id, after_seq=game.checkpoint_seq)
            stack = effective_moves(entries)
            if not stack:
                raise UndoRefused(await self._floor_reason(tx, game))
            last = stack[-1]
            if last.seat != seat:
                raise UndoRefused(
                    f"{names.get(last.seat, '?')} has answered a choice since your last action; "
                    "undo cannot take back another player's move."
                )
            if game.checkpoint is None:
                raise DamagedGame(_DAMAGED)
            try:
                base = GameState.model_validate_json(game.checkpoint)
            except (ValidationError, ValueError) as exc:
                raise DamagedGame(_DAMAGED) from exc
            restored = base
            for m in stack[:-1]:
                restored, _ = engine.apply(restored, m.seat, engine.parse_action(m.action))
            undone_events = [Event.model_validate(e) for e in json.loads(last.events)]
            what = events_text(undone_events, names) or "the last action"
            text = f"{names[seat]} takes back: {what}"
            undo_event = Event(kind="undo", text=text, seat=seat)
            seq = await tx.last_seq(game.id) + 1
            await tx.append_move(
                game_id=game.id, seq=seq, version=game.version + 1, seat=seat, user_id=user_id,
                kind="undo", action=json.dumps({"undoes": last.seq}),
                events=json.dumps([undo_event.model_dump(mode="json")]),
                step=restored.step, now=now,
            )
            version = await tx.update_game(
                game.id, game.version, now=now, state=restored.model_dump_json()
            )
            info = replace(info, version=version)
            await self._schedule(tx, info, restored, now)
        out = Outcome(game=info, public=[Post(text, self._boards(restored, names, ()))],
                      events=[undo_event])
        out.direct.append(self._hand_dm(restored, seat, info))
        self._turn_notice(out, info, state, restored)
        return out

    @staticmethod
    async def _floor_reason(q: Queries, game: GameRow) -> str:
        if game.checkpoint_seq == 0:
            return "Nothing to undo: your turn has only just started."
        rows = await q.moves(game.id, after_seq=game.checkpoint_seq - 1)
        kind = json.loads(rows[0].action).get("kind") if rows else None
        if kind == "exchange":
            return ("You drew cards with your exchange (R9); undo never goes back across a card "
                    "draw.")
        if kind == "holdem":
            return ("You took face-up cards with Hold'em (R10); undo never goes back across a "
                    "card draw.")
        return "Nothing to undo: your turn has only just started."

    # --- reading -----------------------------------------------------------------------------

    async def info(self, channel_id: int) -> GameInfo:
        async with self.storage.read() as q:
            game = await self._game(q, channel_id)
            seats = await q.seats(game.id)
        return self._info(game, seats)

    async def snapshot(self, channel_id: int) -> tuple[GameInfo, GameState]:
        """The full state (hidden cards included) for autocomplete and local tools; never
        show it to users as it is."""
        async with self.storage.read() as q:
            game = await self._game(q, channel_id)
            seats = await q.seats(game.id)
        return self._info(game, seats), self._state(game)

    async def status(self, channel_id: int) -> Outcome:
        async with self.storage.read() as q:
            game = await self._game(q, channel_id)
            seats = await q.seats(game.id)
            timers = await q.timers(game.id)
        info = self._info(game, seats)
        if game.status == "lobby":
            names = ", ".join(s.name for s in seats) or "nobody"
            return Outcome(game=info, reply=Reply(
                f"The game is waiting for players: {names}. Join with /join.", ephemeral=False))
        state = self._state(game)
        text = status_text(state, info.names, game.status)
        if game.status == "active":
            if game.paused_at is not None:
                text += f"\nPaused since {when(game.paused_at)}; /resume starts it again."
            for t in timers:
                if t.kind == "deadline" and t.seat is not None:
                    text += f"\nDeadline for {info.names.get(t.seat, '?')}: {when(t.due_at)}."
            away = [s for s in info.seats if s.away_until and s.away_until > self.clock()]
            for s in away:
                assert s.away_until is not None
                text += f"\n{s.name} is away until {when(s.away_until, 'f')}."
            gone = [s.name for s in info.seats if s.removed]
            if gone:
                text += "\nRemoved (played by default): " + ", ".join(gone) + "."
        out = Outcome(game=info, reply=Reply(text, self._boards(state, info.names, ()), False))
        if state.pending is not None:
            out.decision = self._decision(info, state)
        return out

    async def hand(self, channel_id: int, user_id: int) -> Outcome:
        """The user's own hand, for him only."""
        async with self.storage.read() as q:
            game = await self._game(q, channel_id)
            seats = await q.seats(game.id)
        info = self._info(game, seats)
        seat = self._seat(info, user_id)
        state = self._state(game)
        dm = self._hand_dm(state, seat, info)
        return Outcome(game=info, reply=Reply(hand_text(state, seat), dm.image, True))

    async def history(self, channel_id: int, limit: int = 15) -> Outcome:
        entries = await self.history_entries(channel_id, limit)
        info = await self.info(channel_id)
        async with self.storage.read() as q:
            notes = await q.notes(info.game_id)
        # the moves, with the notes (replacements, pauses …) after the move they follow
        keyed = [((e.seq, 0, i), f"#{e.seq} {e.text}") for i, e in enumerate(entries)]
        first = entries[0].seq if entries else 0
        keyed += [((n.after_seq, 1, n.id), f"  ({n.text})") for n in notes
                  if n.after_seq >= first - 1 or not entries]
        lines = [text for _, text in sorted(keyed)][-limit:]
        text = "\n".join(lines) if lines else "No moves yet."
        return Outcome(game=info, reply=Reply(text, None, True))

    async def history_entries(self, channel_id: int, limit: int = 1000) -> list[HistoryEntry]:
        async with self.storage.read() as q:
            game = await self._game(q, channel_id)
            seats = await q.seats(game.id)
            moves = await q.last_moves(game.id, limit)
        names = {s.seat: s.name for s in seats}
        out = []
        for m in moves:
            events = [Event.model_validate(e) for e in json.loads(m.events)]
            text = events_text(events, names).replace("\n", " ")
            out.append(HistoryEntry(m.seq, m.seat, names.get(m.seat, "?"), m.kind, text,
                                    m.created_at))
        return out

    # --- damage and rebuild ------------------------------------------------------------------

    async def rebuild(self, channel_id: int, user_id: int, *, is_admin: bool = False) -> Outcome:
        """Rebuild the channel's game from its seed and move log (a player of the game, its
        creator or a server admin). Works whether or not the stored state still validates."""
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id)
            if game.status == "lobby":
                raise NotStarted("The game has not started; there is nothing to rebuild.")
            seats = await tx.seats(game.id)
            info = self._info(game, seats)
            if (user_id != game.creator_id and not is_admin
                    and info.seat_of(user_id) is None):
                raise PermissionDenied(
                    "Only the game's players, its creator or a server admin can rebuild it."
                )
            state, checkpoint, checkpoint_seq = await self._replayed(tx, game, len(seats))
            version = await tx.update_game(
                game.id, game.version, now=now, state=state.model_dump_json(),
                checkpoint=checkpoint.model_dump_json(), checkpoint_seq=checkpoint_seq,
                status="over" if state.over else "active",
            )
            info = replace(info, version=version, status="over" if state.over else "active")
            await self._schedule(tx, info, state, now)
        text = f"The game was rebuilt from its move log ({state.step} moves)."
        out = Outcome(game=info, public=[Post(text, self._boards(state, info.names, ()))])
        self._turn_notice(out, info, None, state)
        return out

    async def _replayed(self, q: Queries, game: GameRow, players: int) -> tuple[
            GameState, GameState, int]:
        settings = GameSettings.model_validate_json(game.settings)
        moves = await q.moves(game.id)
        options = engine.Options(players=players, holdem=settings.holdem)
        try:
            return replay(options, game.seed, moves)
        except (EngineError, ValidationError, ValueError) as exc:
            raise DamagedGame(
                "This game's move log cannot be replayed; it cannot be rebuilt automatically."
            ) from exc

    async def move_comparison(self, channel_id: int, seq: int | None = None) -> Outcome:
        """The boards before and after move ``seq`` (its number in /history; the last move when
        None), rebuilt from the seed and the move log. Stores nothing."""
        async with self.storage.read() as q:
            game = await self._game(q, channel_id)
            seats = await q.seats(game.id)
            moves = await q.moves(game.id)
        info = self._info(game, seats)
        if game.status == "lobby":
            raise NotStarted("The game has not started yet: there is no move to show.")
        live = effective_moves(moves)
        if seq is None and not live:
            raise ServiceError("No move has been played yet.")
        target = live[-1] if seq is None else next((m for m in live if m.seq == seq), None)
        if target is None:
            if any(m.seq == seq for m in moves):
                raise ServiceError(
                    f"Move {seq} was taken back or is an undo; pick another number from /history."
                )
            raise ServiceError(f"There is no move {seq}; /history lists the moves' numbers.")
        settings = GameSettings.model_validate_json(game.settings)
        options = engine.Options(players=len(seats), holdem=settings.holdem)
        try:
            before = engine.new_game(options, game.seed)
            for m in live:
                if m.seq == target.seq:
                    break
                before, _ = engine.apply(before, m.seat, engine.parse_action(m.action))
            after, events = engine.apply(before, target.seat, engine.parse_action(target.action))
        except (EngineError, ValidationError, ValueError) as exc:
            raise DamagedGame(_DAMAGED) from exc
        names = info.names
        what = events_text(events, names).split("\n")[0]
        title = f"Move {target.seq}: {what}"
        image = Image("compare", after, names, events, title, before=before)
        return Outcome(game=info, reply=Reply(f"{title}\nBefore (left) and after (right).",
                                              image), events=list(events))

    async def replayed_state(self, channel_id: int) -> GameState:
        """The state the move log and seed give (for checks and tests)."""
        async with self.storage.read() as q:
            game = await self._game(q, channel_id)
            seats = await q.seats(game.id)
            state, _, _ = await self._replayed(q, game, len(seats))
        return state

    # --- timers (style 11): rows created and cancelled in the move's transaction ------------

    async def _schedule(
        self, tx: Tx, info: GameInfo, state: GameState, now: float, *, fresh: bool = False
    ) -> None:
        """The timers of whoever must act now, in the caller's transaction.

        If the same player is still to act (he moved within his turn), his reminder moves to
        ``reminder_hours`` from now and his deadline stays where it was. Otherwise (or when
        ``fresh``) the game's timers are replaced: a reminder and, with ``deadline_hours``, a
        warning and a deadline, all pushed back by what remains of his declared absence. A
        paused, finished or unstarted game, or a removed seat, has none."""
        seat = engine.current_seat(state)
        me = info.seat_info(seat) if seat is not None else None
        if (state.over or info.status != "active" or info.paused or me is None
                or me.removed):
            await tx.cancel_timers(info.game_id)
            return
        assert seat is not None
        s = info.settings
        away = max(0.0, (me.away_until or 0.0) - now)
        remind_at = now + max(s.reminder_hours * HOUR, away)
        existing = [] if fresh else await tx.timers(info.game_id)
        reminder = next((t for t in existing if t.kind == "reminder"), None)
        if reminder is not None and all(
                t.seat == seat and t.user_id == me.user_id for t in existing):
            payload = {k: v for k, v in json.loads(reminder.payload).items() if k != "noted"}
            await tx.reschedule_timer(reminder.id, remind_at, payload)
            return
        await tx.cancel_timers(info.game_id)
        await tx.add_timer(game_id=info.game_id, kind="reminder", seat=seat, user_id=me.user_id,
                           due_at=remind_at, now=now, payload={"since": now})
        if s.deadline_hours is not None:
            due = now + s.deadline_hours * HOUR + away
            warn = due - min(HOUR, s.deadline_hours * HOUR / 4)
            await tx.add_timer(game_id=info.game_id, kind="deadline_warning", seat=seat,
                               user_id=me.user_id, due_at=warn, now=now)
            await tx.add_timer(game_id=info.game_id, kind="deadline", seat=seat,
                               user_id=me.user_id, due_at=due, now=now)

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
            if game is None or game.status != "active" or game.paused_at is not None:
                await tx.delete_timer(timer_id)
                return None
            seats = await tx.seats(game.id)
            info = self._info(game, seats)
            try:
                state = self._state(game)
            except EngineError:
                await tx.delete_timer(timer_id)  # a damaged game waits for /rebuild
                return None
            seat = engine.current_seat(state)
            me = info.seat_info(seat) if seat is not None else None
            if seat is None or seat != timer.seat or me is None:
                await tx.delete_timer(timer_id)
                return None
            timers = await tx.timers(game.id)
            payload = json.loads(timer.payload)
            notes = await self._offline_note(tx, info, timer, timers, payload, now)
            out = Outcome(game=info, public=[Post(n) for n in notes])
            deadline = next((t for t in timers if t.kind == "deadline"), None)
            deadline_due = deadline is not None and deadline.due_at <= now
            mine = state.pending is not None and state.pending.seat == seat

            if timer.kind == "reminder":
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
            if timer.kind == "deadline_warning":
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
            if timer.kind != "deadline":
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
                       + engine.format_text(state.pending.prompt, names))
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
                      f"Your hand: {cards_text(state.players[seat].hand)}", seat=seat)
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
            events = [Event.model_validate(e) for e in json.loads(m.events)]
            text = " ".join(engine.format_text(e.text, info.names) for e in events)
            lines.append("- " + (text[:180] + "…" if len(text) > 180 else text))
        if len(lines) > limit:
            lines = [f"- … {len(lines) - limit} earlier moves", *lines[-limit:]]
        return lines

    # --- keeping games moving: settings, pause, absence, mute, replacement, removal -------

    @staticmethod
    def _may_manage(game: GameRow, user_id: int, is_admin: bool, what: str) -> None:
        if user_id != game.creator_id and not is_admin:
            raise PermissionDenied(f"Only the game's creator or a server admin can {what}.")

    @staticmethod
    def _who(info: GameInfo, user_id: int) -> str:
        seat = info.seat_of(user_id)
        if seat is not None:
            return info.names[seat]
        return "The creator" if user_id == info.creator_id else "A server admin"

    @staticmethod
    def settings_text(settings: GameSettings) -> str:
        deadline = (f"a deadline of {hours_text(settings.deadline_hours)} per turn"
                    if settings.deadline_hours else "no deadline")
        return (f"reminders after {hours_text(settings.reminder_hours)} without a move, "
                f"{deadline}")

    async def update_settings(
        self, channel_id: int, user_id: int, *, reminder_hours: float | None = None,
        deadline_hours: float | None = None, is_admin: bool = False,
    ) -> Outcome:
        """Change the reminder period and the deadline (``deadline_hours=0``: none); creator
        or admin. The current player's timers start again from now. Without values: show
        the settings (to anyone)."""
        if reminder_hours is None and deadline_hours is None:
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
            try:
                settings = GameSettings.model_validate(values)
            except ValidationError:
                raise MalformedAction("Hours must be more than 0.") from None
            await tx.update_game(game.id, game.version, now=now,
                                 settings=settings.model_dump_json())
            game = await self._reload(tx, game.id)
            info = self._info(game, await tx.seats(game.id))
            if game.status == "active":
                await self._schedule(tx, info, self._state(game), now, fresh=True)
            text = f"{self._who(info, user_id)} sets {self.settings_text(settings)}."
            await tx.add_note(game.id, await tx.last_seq(game.id), text, now, user_id)
        return Outcome(game=info, public=[Post(text)])

    async def pause(self, channel_id: int, user_id: int, *, is_admin: bool = False) -> Outcome:
        """Pause the game (creator or admin): its timers are cancelled and moves wait."""
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id, live_only=True)
            if game.status != "active":
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
            await self._schedule(tx, info, state, now, fresh=True)
        out = Outcome(game=info, public=[Post(text)])
        self._turn_notice(out, info, None, state)
        return out

    async def set_muted(self, channel_id: int, user_id: int, muted: bool) -> Outcome:
        """Turn the user's reminder DMs in this game off or on (deadlines still apply)."""
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id, live_only=True)
            info = self._info(game, await tx.seats(game.id))
            seat = self._seat(info, user_id)
            await tx.update_seat(game.id, seat, muted=int(muted))
        if muted:
            text = ("Reminders for this game are off for you. Deadlines, if the game has one, "
                    "still apply; /unmute turns reminders back on.")
        else:
            text = "Reminders for this game are on again for you."
        return Outcome(game=info, reply=Reply(text))

    async def away(self, channel_id: int, user_id: int, hours: float) -> Outcome:
        """Declare an absence of ``hours``: no reminders until it ends, and the user's
        deadlines are extended by it (at once if it is his turn, else when his turn comes)."""
        if not 0 < hours <= MAX_AWAY_HOURS:
            raise MalformedAction(
                f"An absence lasts more than 0 and at most {MAX_AWAY_HOURS:g} hours (two weeks)."
            )
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id, live_only=True)
            info = self._info(game, await tx.seats(game.id))
            seat = self._seat(info, user_id)
            me = info.seat_info(seat)
            assert me is not None
            until = now + hours * HOUR
            extra = max(0.0, until - max(now, me.away_until or now))
            await tx.update_seat(game.id, seat, away_until=until)
            if game.status == "active" and game.paused_at is None:
                state = self._state(game)
                if engine.current_seat(state) == seat:
                    for t in await tx.timers(game.id):
                        if t.seat != seat:
                            continue
                        if t.kind in ("deadline", "deadline_warning"):
                            await tx.reschedule_timer(t.id, t.due_at + extra)
                        elif t.kind == "reminder":
                            await tx.reschedule_timer(t.id, max(t.due_at, until))
            text = f"{me.name} is away until {when(until, 'f')} ({when(until)}): no reminders"
            if info.settings.deadline_hours:
                text += f", and {me.name}'s deadlines are extended by the absence"
            text += "."
            await tx.add_note(game.id, await tx.last_seq(game.id), f"{me.name} declared an "
                              f"absence of {hours_text(hours)}.", now, user_id)
        return Outcome(game=info, public=[Post(text)],
                       reply=Reply(f"Noted: away for {hours_text(hours)}. /back ends it sooner."))

    async def back(self, channel_id: int, user_id: int) -> Outcome:
        """End the user's declared absence (deadlines already extended stay extended)."""
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id, live_only=True)
            info = self._info(game, await tx.seats(game.id))
            seat = self._seat(info, user_id)
            me = info.seat_info(seat)
            assert me is not None
            if me.away_until is None or me.away_until <= now:
                raise ServiceError("You are not away in this game.")
            await tx.update_seat(game.id, seat, away_until=None)
            for t in await tx.timers(game.id):
                if t.kind == "reminder" and t.seat == seat:
                    await tx.reschedule_timer(
                        t.id, now + info.settings.reminder_hours * HOUR)
        return Outcome(game=info, public=[Post(f"{me.name} is back.")],
                       reply=Reply("Welcome back: reminders are on again."))

    @staticmethod
    async def _reload(q: Queries, game_id: int) -> GameRow:
        """The game's row again, after an update inside the same transaction."""
        game = await q.game(game_id)
        if game is None:
            raise NoGameHere("This game no longer exists.")
        return game

    async def _managed_seat(
        self, tx: Tx, channel_id: int, user_id: int, target_user_id: int, is_admin: bool,
        what: str,
    ) -> tuple[GameRow, GameInfo, int]:
        """The live game, its seats and ``target_user_id``'s seat, once ``user_id`` has been
        checked to be its creator or an admin (``what`` names the act in the refusal)."""
        game = await self._game(tx, channel_id, live_only=True)
        self._may_manage(game, user_id, is_admin, what)
        info = self._info(game, await tx.seats(game.id))
        seat = info.seat_of(target_user_id)
        if seat is None:
            raise NotSeated("That user is not playing in this game.")
        return game, info, seat

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
            old_name = info.names[seat]
            await tx.update_seat(game.id, seat, user_id=new_user_id, name=new_name, muted=0,
                                 away_until=None, removed=0)
            fields: dict[str, object] = {}
            if game.creator_id == old_user_id:
                fields["creator_id"] = new_user_id
            await tx.update_game(game.id, game.version, now=now, **fields)
            game = await self._reload(tx, game.id)
            info = self._info(game, await tx.seats(game.id))
            await tx.add_note(game.id, await tx.last_seq(game.id),
                              f"{new_name} replaced {old_name}.", now, user_id)
            state = self._state(game) if game.status == "active" else None
            if state is not None and engine.current_seat(state) == seat:
                await self._schedule(tx, info, state, now, fresh=True)
        text = f"{new_name} takes over {old_name}'s seat"
        text += ": cards, Ecus, cubes and buildings stay with it." if state else "."
        out = Outcome(game=info, public=[Post(text)])
        if state is not None and not state.over:
            out.direct.append(self._hand_dm(state, seat, info))
            if engine.current_seat(state) == seat:
                self._turn_notice(out, info, None, state)
        return out

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
            if game.status == "lobby":
                await tx.remove_seat(game.id, target_user_id)
                seats = await tx.seats(game.id)
                status = "lobby" if seats else "abandoned"
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
            info = self._info(game, seats)
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
        if game.status == "lobby":
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


def _choose(option: int) -> Choose:
    if option < 0:
        raise MalformedAction("Choose one of the options by its number.", "R37")
    return Choose(option=option)


_DAMAGED = (
    "This game's saved state is damaged. A player, the creator or an admin can try /rebuild "
    "to restore it from the move log."
)

__all__ = [
    "DRAW_KINDS",
    "DamagedGame",
    "DecisionInfo",
    "Direct",
    "GameExists",
    "GameInfo",
    "GamePaused",
    "GameService",
    "GameSettings",
    "HistoryEntry",
    "Image",
    "LobbyError",
    "NoGameHere",
    "NotSeated",
    "NotStarted",
    "Outcome",
    "PermissionDenied",
    "Ping",
    "Post",
    "Reply",
    "SeatInfo",
    "ServiceError",
    "UndoRefused",
    "effective_moves",
    "replay",
]
