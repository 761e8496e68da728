"""Errors the engine raises. Each carries the rule it enforces and a sentence for the player."""

from __future__ import annotations


class EngineError(Exception):
    """Base class: ``rule`` names the rule (``"R20"``) or is empty; ``message`` is for players."""

    rule: str = ""

    def __init__(self, message: str, rule: str | None = None) -> None:
        if rule is not None:
            self.rule = rule
        self.message = message
        super().__init__(message)


class MalformedAction(EngineError):
    """The action does not make sense at all (unknown square, bad option, wrong shape)."""


class IllegalAction(EngineError):
    """The action is well formed but the rules forbid it in this position."""


class NotYourTurn(EngineError):
    """Someone other than the player to act tried to act."""

    rule = "R8"


class GameOver(EngineError):
    """The game has ended; nothing more can be played."""

    rule = "R50"


class StaleState(EngineError):
    """The action was prepared against a state that has since changed."""


class CorruptState(EngineError):
    """A stored state does not validate or breaks an invariant."""
