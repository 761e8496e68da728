"""Errors the engine raises. Each carries the rule it enforces and a sentence for the player.

A refusal worded from the catalogue (``EngineError.say``) also carries its ``key`` and
``params``, so that ``explain`` can word it in French or German; ``str(error)`` and
``message`` are the English sentence."""

from __future__ import annotations

from typing import Any, Self

from .words import english


class EngineError(Exception):
    """Base class: ``rule`` names the rule (``"R20"``) or is empty; ``message`` is for players."""

    rule: str = ""

    def __init__(
        self,
        message: str | None = None,  # None: worded from ``key`` (also when unpickled)
        rule: str | None = None,
        *,
        key: str = "",
        params: dict[str, Any] | None = None,
    ) -> None:
        if rule is not None:
            self.rule = rule
        self._message = message
        self.key = key
        self.params: dict[str, Any] = params if params is not None else {}
        super().__init__(*(() if message is None else (message,)))

    @classmethod
    def say(cls, key: str, rule: str | None = None, **params: Any) -> Self:
        """The refusal ``key`` of the catalogue. Its English is worded when first read: the
        legality checks build refusals by the thousand and most are never read."""
        return cls(None, rule, key=key, params=params)

    @property
    def message(self) -> str:
        if self._message is None:
            self._message = english(self.key, self.params)
        return self._message

    @message.setter
    def message(self, text: str) -> None:  # the service puts players' names in
        self._message = text

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"


def refuse(problem: EngineError | None) -> None:
    """Raise ``problem``, if there is one. The checks that find a problem before raising it
    call this rather than ``raise problem``: a frame whose local holds the exception it raises
    is in that exception's traceback, a cycle that pins the frame (and the position it was
    checking) until the garbage collector runs; here the local is gone before the traceback
    leaves."""
    if problem is None:
        return
    try:
        raise problem
    finally:
        del problem


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
