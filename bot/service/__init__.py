"""The game service: between the engine and any chat front end; knows nothing of discord.py.

Every command is one write transaction: load the channel's game, check who may do
it, apply, append to the move log, save with ``version = version + 1`` where the version is
still the one read, reschedule the timers, write what to post publicly, what to send
privately and whom to ping into the outbox (``outbox.py``), commit. The ``Outcome`` is
returned only after the commit, and the outbox's rows are what the adapters deliver, so a
stored move is always announced and a refused one never is.

Refusals are ``EngineError`` subclasses with a sentence for the user: the engine's
own (``IllegalAction``, ``NotYourTurn``, ``GameOver``, ``StaleState`` …) with seat tokens turned
into names, and the service's (``core.py``).

The parts: ``model`` (statuses, kinds, a game's settings, limits), ``errors`` (refusals),
``results`` (``GameInfo``, ``Outcome`` and what it carries), ``core`` (loading a game and a
seat, permissions, the turn's notices), ``schedule`` (the timers of whoever must act),
``texts`` (sentences), ``table`` (the turns' table messages), ``moves`` (moves, the one
replay), ``undo``, ``lobby``, ``reading`` (status, hand, history, /mygames), ``timers``
(firing reminders and deadlines), ``admin`` (rebuild, settings, pause, replacement, removal),
``absence`` (mute, away, back), ``computers``, ``outbox`` (the rows and their deliverer),
``dispatcher`` (the task that fires timers); the community: ``fairplay`` (the seal, the
deals, the ratings, written by the transactions that start, deal and end a game),
``ratings`` and ``record`` (pure), ``community`` (/stats, /leaderboard, /game export,
/game verify); ``hints`` (/hint, the coach).
"""

from __future__ import annotations

from .absence import AbsenceMixin
from .admin import AdminMixin
from .community import CommunityMixin, duration_text, verdict_text
from .computers import MARK, ComputersMixin, computer_seed
from .errors import (
    DAMAGED_NOTICE,
    DamagedGame,
    GameExists,
    GamePaused,
    LobbyError,
    NoGameHere,
    NotSeated,
    NotStarted,
    PermissionDenied,
    ServiceError,
    UndoRefused,
)
from .hints import HintRefused, HintsMixin, hint_seed, hints_text
from .model import (
    BOT_LEVELS,
    DRAW_KINDS,
    HOUR,
    LANGUAGE_NAMES,
    LANGUAGES,
    MAX_AWAY_HOURS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    OFFLINE_MARGIN,
    GameSettings,
    GameStatus,
    MoveKind,
    TimerKind,
    computer_name,
    is_computer,
)
from .results import (
    Attachment,
    DecisionInfo,
    Direct,
    DirectKind,
    GameInfo,
    HistoryEntry,
    Image,
    Outcome,
    Ping,
    Post,
    Reply,
    SeatInfo,
    Table,
)
from .states import effective_moves, replay
from .texts import (
    cards_text,
    channel_link,
    events_text,
    format_names,
    hand_text,
    hours_text,
    status_text,
    when,
)
from .undo import UndoMixin


class GameService(ComputersMixin, AdminMixin, AbsenceMixin, CommunityMixin, UndoMixin,
                  HintsMixin):
    """Plain async methods; each returns an ``Outcome`` or raises an ``EngineError``.

    ``clock`` gives Unix seconds (for the log and timers); ``seeds`` gives a new game's seed.
    """


__all__ = [
    "BOT_LEVELS",
    "DAMAGED_NOTICE",
    "DRAW_KINDS",
    "HOUR",
    "LANGUAGES",
    "LANGUAGE_NAMES",
    "MARK",
    "MAX_AWAY_HOURS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "OFFLINE_MARGIN",
    "Attachment",
    "DamagedGame",
    "DecisionInfo",
    "Direct",
    "DirectKind",
    "GameExists",
    "GameInfo",
    "GamePaused",
    "GameService",
    "GameSettings",
    "GameStatus",
    "HintRefused",
    "HistoryEntry",
    "Image",
    "LobbyError",
    "MoveKind",
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
    "Table",
    "TimerKind",
    "UndoRefused",
    "cards_text",
    "channel_link",
    "computer_name",
    "computer_seed",
    "duration_text",
    "effective_moves",
    "events_text",
    "format_names",
    "hand_text",
    "hint_seed",
    "hints_text",
    "hours_text",
    "is_computer",
    "replay",
    "status_text",
    "verdict_text",
    "when",
]
