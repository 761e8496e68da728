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

from .storage import GameRow, MoveRow, Queries, SeatRow, Storage, Tx

MIN_PLAYERS = 2
MAX_PLAYERS = 5
DRAW_KINDS = ("exchange", "holdem", "end_turn")  # actions that draw or reveal cards
HOUR = 3600.0


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

    @property
    def names(self) -> dict[int, str]:
        return {s.seat: s.name for s in self.seats}

    def user_of(self, seat: int) -> int | None:
        return next((s.user_id for s in self.seats if s.seat == seat), None)

    def seat_of(self, user_id: int) -> int | None:
        return next((s.seat for s in self.seats if s.user_id == user_id), None)


class Image:
    """An image to render: ``boards`` → ``render.boards_png(view, names, highlights)`` with
    ``render.highlights_from_events(events)``; ``hand`` → ``render.hand_png(view, names)``.
    ``view`` (the public view, or ``seat``'s player view) is computed when first asked for."""

    __slots__ = ("_state", "_view", "age", "alt", "events", "kind", "names", "seat")

    def __init__(
        self,
        kind: Literal["boards", "hand"],
        state: GameState | None = None,
        names: dict[int, str] | None = None,
        events: Sequence[Event] = (),
        alt: str = "",
        *,
        seat: int | None = None,
        age: engine.Age | None = None,
        view: PublicView | PlayerView | None = None,
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
    """A private message (DM) to ``user_id``."""

    user_id: int
    kind: DirectKind
    text: str
    image: Image | None = None
    decision: DecisionInfo | None = None


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
            seats=tuple(SeatInfo(s.seat, s.user_id, s.name) for s in seats),
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
                game = await tx.game(game.id)
                assert game is not None
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
            game = await tx.game(game.id)
            assert game is not None
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
        new_seats = [
            SeatRow(game.id, i, s.user_id, s.name, s.joined_at) for i, s in enumerate(order)
        ]
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
            version = await tx.update_game(game.id, game.version, now=now, status="abandoned")
            await tx.cancel_timers(game.id)
            seats = await tx.seats(game.id)
            game = await tx.game(game.id)
            assert game is not None
        return Outcome(
            game=self._info(game, seats, version),
            public=[Post("The game is abandoned. A new one can be created with /create.")],
        )

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
        names = info.names
        try:
            new, events = engine.apply(state, seat, action)
        except EngineError as exc:
            raise _rename(exc, names) from None
        seq = await tx.last_seq(game.id) + 1
        fields: dict[str, object] = {"state": new.model_dump_json()}
        if action.kind in DRAW_KINDS:
            fields["checkpoint"] = fields["state"]
            fields["checkpoint_seq"] = seq
        if new.over:
            fields["status"] = "over"
        await tx.append_move(
            game_id=game.id, seq=seq, version=game.version + 1, seat=seat, user_id=user_id,
            kind="action", action=json.dumps(engine.dump_action(action)),
            events=json.dumps([e.model_dump(mode="json") for e in events]),
            step=new.step, now=now,
        )
        version = await tx.update_game(game.id, game.version, now=now, **fields)
        info = replace(info, version=version, status="over" if new.over else info.status)
        await self._schedule(tx, info, new, now)
        return self._after_move(info, state, new, events, seat)

    def _after_move(
        self, info: GameInfo, old: GameState, new: GameState, events: list[Event], actor: int
    ) -> Outcome:
        names = info.names
        text = events_text(events, names)
        out = Outcome(
            game=info,
            public=[Post(text, self._boards(new, names, events))],
            events=list(events),
        )
        for p_old, p_new in zip(old.players, new.players, strict=True):
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
        info = self._info(game, seats)
        if game.status == "lobby":
            names = ", ".join(s.name for s in seats) or "nobody"
            return Outcome(game=info, reply=Reply(
                f"The game is waiting for players: {names}. Join with /join.", ephemeral=False))
        state = self._state(game)
        text = status_text(state, info.names, game.status)
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
        lines = [f"#{e.seq} {e.text}" for e in entries]
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

    async def replayed_state(self, channel_id: int) -> GameState:
        """The state the move log and seed give (for checks and tests)."""
        async with self.storage.read() as q:
            game = await self._game(q, channel_id)
            seats = await q.seats(game.id)
            state, _, _ = await self._replayed(q, game, len(seats))
        return state

    # --- timers (style 11): rows created and cancelled in the move's transaction ------------

    async def _schedule(self, tx: Tx, info: GameInfo, state: GameState, now: float) -> None:
        await tx.cancel_timers(info.game_id)
        if state.over or info.status not in ("active",):
            return
        seat = engine.current_seat(state)
        if seat is None:
            return
        user = info.user_of(seat)
        s = info.settings
        await tx.add_timer(game_id=info.game_id, kind="reminder", seat=seat, user_id=user,
                           due_at=now + s.reminder_hours * HOUR, now=now)
        if s.deadline_hours is not None:
            due = now + s.deadline_hours * HOUR
            warn = due - min(HOUR, s.deadline_hours * HOUR / 4)
            await tx.add_timer(game_id=info.game_id, kind="deadline_warning", seat=seat,
                               user_id=user, due_at=warn, now=now)
            await tx.add_timer(game_id=info.game_id, kind="deadline", seat=seat, user_id=user,
                               due_at=due, now=now)

    async def due_timers(self, now: float | None = None) -> list[int]:
        """Ids of the timers due now, oldest first (for the dispatcher)."""
        async with self.storage.read() as q:
            rows = await q.due_timers(self.clock() if now is None else now)
        return [r.id for r in rows]

    async def next_timer_due(self) -> float | None:
        async with self.storage.read() as q:
            return await q.next_due()

    async def fire_timer(self, timer_id: int) -> Outcome | None:
        """Handle one due timer in one transaction: a reminder DMs the player and comes back
        after ``reminder_hours``; a deadline plays the R37 default choice or ends the turn.
        Returns None when the timer no longer applies (already handled or cancelled)."""
        now = self.clock()
        async with self.storage.write() as tx:
            timer = await tx.timer(timer_id)
            if timer is None or timer.due_at > now:
                return None
            game = await tx.game(timer.game_id)
            if game is None or game.status != "active":
                await tx.delete_timer(timer_id)
                return None
            seats = await tx.seats(game.id)
            info = self._info(game, seats)
            if timer.kind == "reminder":
                await tx.reschedule_timer(timer_id, now + info.settings.reminder_hours * HOUR)
                assert timer.user_id is not None
                return Outcome(game=info, direct=[Direct(
                    timer.user_id, "reminder",
                    "Reminder: the game is waiting for you.")])
            await tx.delete_timer(timer_id)
            if timer.kind == "deadline_warning":
                assert timer.user_id is not None
                return Outcome(game=info, direct=[Direct(
                    timer.user_id, "deadline_warning",
                    "The deadline is near: act soon, or your turn "
                    "ends (or your choice is made) automatically.")])
            state = self._state(game)
            seat = engine.current_seat(state)
            if seat is None or seat != timer.seat:
                return None
            action: Action
            if state.pending is not None:
                action = Choose(option=engine.default_choice(state))
            else:
                action = EndTurn()
            return await self._move(tx, game, info, state, seat, None, action, now)


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
