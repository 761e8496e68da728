"""What the service returns: a game's description (``GameInfo``), the images to render, and
the ``Outcome`` of a command (what to post, whom to ping, what to send privately, the reply)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import engine
from engine import (
    Event,
    GameState,
    PlayerView,
    PublicView,
)

from .model import GameSettings
from .texts import (
    channel_link,
    plain_name,
    shown_name,
)


@dataclass(frozen=True)
class SeatInfo:
    seat: int
    user_id: int
    name: str
    muted: bool = False  # no reminder DMs
    away_until: float | None = None  # declared absence (deadlines extended, no reminders)
    removed: bool = False  # kicked: his turns end and his choices take the default at once
    hints: int = 0  # /hint answers this seat was given in this game

    @property
    def shown(self) -> str:
        """His name as the bot's texts show it (``shown_name``: markdown and mentions
        escaped); ``name`` is as he set it."""
        return shown_name(self.name)


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
        """Each seat's name as the bot's texts show it (``shown_name``), by seat."""
        return {s.seat: s.shown for s in self.seats}

    @property
    def plain_names(self) -> dict[int, str]:
        """Each seat's name as an image draws it, or a button or an alt text says it
        (``plain_name``: nothing escaped, nothing invisible), by seat."""
        return {s.seat: plain_name(s.name) for s in self.seats}

    def seat_info(self, seat: int) -> SeatInfo | None:
        return next((s for s in self.seats if s.seat == seat), None)

    def user_of(self, seat: int) -> int | None:
        return next((s.user_id for s in self.seats if s.seat == seat), None)

    def seat_of(self, user_id: int) -> int | None:
        return next((s.seat for s in self.seats if s.user_id == user_id), None)


ImageKind = Literal["boards", "move", "hand", "compare", "summary", "table"]
TURN_FIELDS = {"kind", "age", "squares"}  # what a table image keeps of its turn's events


class Image:
    """An image to render (``bot.images.render_image``): ``move`` → the moved age large and the
    others small (``render.move_png``), the post after a move; ``table`` → the picture of the
    turn's table message (``render.table_png``: made for the chat preview; ``events`` are the
    last move's, ``turn`` the events of every change of a board the turn made, all outlined:
    ``render.turn_highlights``); ``boards`` → every age large
    (``render.boards_png``), or one age (``age``); ``hand`` → ``render.hand_png``; ``compare``
    → before and after a move; ``summary`` → the end-of-game picture, from the seed and the
    effective move log (``moves``: ``(seat, action JSON)`` pairs).
    ``view`` (the public view, or ``seat``'s player view) is computed when first asked for.
    ``to_ref_json``/``from_json`` store an image in the outbox by naming its state's place in
    the log (``to_json``: with a copy of the state, for a state the log does not give)."""

    __slots__ = ("_before", "_state", "_view", "age", "alt", "events", "kind", "lang", "moves",
                 "names", "seat", "seed", "turn")

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
        turn: Sequence[Event] = (),
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
        # "table": the events of the turn's moves in effect that changed a board, in order
        self.turn = tuple(turn)

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
                     moves=self.moves, lang=self.lang, turn=self.turn)

    def to_json(self, dumped: dict[int, Any] | None = None) -> dict[str, Any]:
        """The image as JSON with a copy of its state (and of the state before, the seed and
        the moves it needs). Raises ValueError for an image of a view only. ``dumped`` caches
        the JSON of states by identity (one move's images share one)."""
        if self._state is None:
            raise ValueError("only an image of a state can be stored")
        cache = {} if dumped is None else dumped
        state = cache.get(id(self._state))
        if state is None:
            state = cache[id(self._state)] = self._state.model_dump(mode="json")
        return {
            **self._words(),
            "state": state,
            "before": self._before.model_dump(mode="json") if self._before else None,
            "seed": self.seed,
            "moves": [list(m) for m in self.moves],
        }

    def to_ref_json(self, at: dict[str, int]) -> dict[str, Any]:
        """The image as JSON naming its state instead of copying it: ``at`` is a position in
        the game's log (``states.StateRef``); the outbox reads the state, the seed and the
        moves back from the log when it sends the row (``from_json(data, state=…)``)."""
        return {**self._words(), "at": at}

    def _words(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "names": {str(k): v for k, v in self.names.items()},
            "events": [e.model_dump(mode="json") for e in self.events],
            "alt": self.alt,
            "seat": self.seat,
            "age": self.age.name if self.age is not None else None,
            "lang": self.lang,
            # of the turn's events, what an outline needs (their words are in the log)
            **({"turn": [e.model_dump(mode="json", include=TURN_FIELDS) for e in self.turn]}
               if self.turn else {}),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], *, state: GameState | None = None,
                  seed: int | None = None, moves: Sequence[tuple[int, str]] = ()) -> Image:
        """The image stored by ``to_json``, or by ``to_ref_json`` with the ``state`` (and for
        a summary the ``seed`` and ``moves``) read back from the log."""
        before = data.get("before")
        age = data.get("age")
        if state is None:
            state = GameState.model_validate(data["state"])
            seed = data.get("seed")
            moves = [(int(s), str(a)) for s, a in data.get("moves", [])]
        return cls(
            data["kind"],
            state,
            {int(k): v for k, v in data["names"].items()},
            [Event.model_validate(e) for e in data["events"]],
            data["alt"],
            seat=data["seat"],
            age=engine.Age[age] if age else None,
            before=GameState.model_validate(before) if before else None,
            seed=seed,
            moves=moves,
            lang=str(data.get("lang", "en")),
            turn=[Event.model_validate({"text": "", **e}) for e in data.get("turn", [])],
        )

    @property
    def has_before(self) -> bool:
        return self._before is not None

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
    """A public message in the game's channel; it mentions nobody. ``tag`` names a post
    that must not pile up (``offline``: the note after an outage), kept in its outbox row.
    ``in_table``: the turn's table message shows it (a move's words and picture): a front end
    with table messages (Discord) does not post it, one without (the terminal) shows it."""

    text: str
    image: Image | None = None
    tag: str = ""
    in_table: bool = False


@dataclass(frozen=True)
class Ping:
    """A new channel message that mentions only ``user_id`` (the turn ping). ``in_table``:
    the table message that opens the turn mentions him instead (no message of its own)."""

    user_id: int
    text: str
    in_table: bool = False


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
    # the turn (``Table.turn``) whose hand DM this is: a ``your_turn`` DM opens it (a new
    # message), a ``hand`` DM during that turn edits it in place; None: a new message
    turn: str | None = None


@dataclass(frozen=True)
class Table:
    """A turn's table message in the channel: posted when the turn opens, mentioning only
    the player to act (``user_id``; None for a computer or a removed seat: nobody), then
    edited after every move of the turn, and kept as its record once ``closed``."""

    turn: str  # the turn's key, "<round>:<seat>" (one message per turn)
    seat: int  # whose turn (the container's colour)
    user_id: int | None
    header: str  # round, whose turn, the deadline
    lines: tuple[str, ...]  # the turn's moves in words, oldest first (one entry per move)
    pending: str  # what the game waits for (or who is next, or the winners)
    # kind "table": the state after the turn's last move (None in a row being delivered: the
    # row's image is the picture)
    image: Image | None
    closed: bool = False


@dataclass(frozen=True)
class Attachment:
    """A file that is not an image, sent with a reply (a game's record): name and text."""

    name: str
    text: str


@dataclass(frozen=True)
class Reply:
    """The answer to the command's author; ``ephemeral`` means only he should see it;
    ``file``, a file attached to it."""

    text: str
    image: Image | None = None
    ephemeral: bool = True
    file: Attachment | None = None


@dataclass
class Outcome:
    """What a command did, to be delivered after the commit: ``reply`` to the author,
    ``public`` posts, ``tables`` (each turn's living message), ``direct`` messages,
    ``pings``; ``events`` are the engine's, raw."""

    game: GameInfo | None  # None only for answers outside any game (/help)
    reply: Reply | None = None
    public: list[Post] = field(default_factory=list)
    direct: list[Direct] = field(default_factory=list)
    pings: list[Ping] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    decision: DecisionInfo | None = None
    tables: list[Table] = field(default_factory=list)  # the turns' table messages it changes
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
