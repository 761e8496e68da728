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
    """Something of this game's saved data does not hold (other games are unaffected):
    ``part`` names what, one of ``DAMAGE_PARTS`` (``damage.<part>`` in the catalogue says it);
    ``game_id`` names the game."""

    game_id: int | None = None
    part: str = "state"


# what can be damaged (a row edited by hand, a failing disk), each named in the refusal:
# the state (unreadable, breaking an invariant, or a turn, a pending choice or a player count
# that do not fit the game), its seats (one without a row), the undo point (checkpoint), the
# version (behind the move log: no move could be saved), the settings; /game rebuild repairs
# them all from the seed and the move log. A log that does not replay cannot be repaired.
DAMAGE_PARTS = ("state", "seats", "checkpoint", "version", "settings", "log", "broken_log")
REPAIRABLE = DAMAGE_PARTS[:5]


def damaged(game_id: int, part: str = "state", **params: object) -> DamagedGame:
    """The refusal for game ``game_id`` whose ``part`` is damaged (``params`` fill its
    sentence), in the reader's language, saying what to do."""
    assert part in DAMAGE_PARTS, part
    what = tell(f"damage.{part}", **params)
    exc = DamagedGame(what + tell("damage.repair") if part in REPAIRABLE else what)
    exc.game_id = game_id
    exc.part = part
    return exc


DAMAGED_NOTICE = say("notice.damaged", None)  # in English; say("notice.damaged", lang)
