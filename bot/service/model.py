"""The service's vocabulary: a game's status, the kinds of timers and move-log entries, a
game's settings (stored as JSON beside the state), computer seats, and the limits."""

from __future__ import annotations

import json
from collections.abc import Sequence
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine import (
    Event,
    GameState,
)

from ..storage.api import GameRow
from .texts import (
    say,
)

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
    """A timer's ``kind`` column."""

    REMINDER = "reminder"
    WARNING = "deadline_warning"
    DEADLINE = "deadline"
    COMPUTER = "computer"  # a computer seat's next action (docs/ai.md)


class MoveKind(StrEnum):
    """A move-log entry's ``kind`` column: an action, or an undo naming the entry it cancels."""

    ACTION = "action"
    UNDO = "undo"


def stored_language(game: GameRow) -> str:
    """The game's language as stored, or English when its settings do not validate (a
    damaged game is still told of its damage in its players' language when that survives)."""
    try:
        return GameSettings.model_validate_json(game.settings).language
    except (ValidationError, ValueError):
        return "en"


def turn_key(state: GameState) -> str:
    """The key of the turn ``state`` is in, ``"<round>:<seat>"``: a seat plays once a round
    (its table message, its hand DM and its deadline are the turn's)."""
    return f"{state.round}:{state.turn}"


def events_of(text: str, lang: str | None = None) -> list[Event]:
    """A log entry's events; a damaged record reads as one event saying so (never a crash)."""
    try:
        return [Event.model_validate(e) for e in json.loads(text)]
    except (ValidationError, ValueError, TypeError):
        return [Event(kind="damaged", text=say("history.damaged_entry", lang))]


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
    # computer seats: their reserved negative user id -> level (easy, normal, hard); docs/ai.md
    bots: dict[int, str] = Field(default_factory=dict)
    # /hint: None until a keeper sets it: then on exactly when a computer is seated
    hints: bool | None = None

    @property
    def hints_on(self) -> bool:
        """Whether /hint answers in this game: as set, else on with a computer seat (a game
        against computers is practice; between people a coach would be a third player)."""
        return bool(self.bots) if self.hints is None else self.hints


BOT_LEVELS = ("easy", "normal", "hard")


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
