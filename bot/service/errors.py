"""The service's refusals: ``EngineError`` subclasses, each with a sentence for the player."""

from __future__ import annotations

from engine import (
    CorruptState,
    EngineError,
)

from .texts import (
    say,
    tell,
)


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


DAMAGED_NOTICE = say("notice.damaged", None)  # in English; say("notice.damaged", lang)
