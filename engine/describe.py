"""Wording events and refusals in a player's language (``describe``, ``explain``)."""

from __future__ import annotations

from typing import Any

from .errors import EngineError
from .events import Event
from .rules import choice_words, prompt_words
from .state import Choice, Decision
from .words import word


def describe(event: Event, lang: str = "en") -> str:
    """The event's sentence in ``lang`` ("en", "fr", "de"; anything else gives English), seat
    tokens kept. An event stored before events had keys is its English text."""
    if not event.key:
        return event.text
    return word(lang, event.key, event.params)


def describe_lines(event: Event, lang: str = "en") -> list[str]:
    """The event's breakdown (income per domain, final scores) in ``lang``."""
    if len(event.lines) != len(event.breakdown):
        return list(event.breakdown)
    return [word(lang, p["key"], p["params"]) for p in event.lines]


def explain(error: EngineError, lang: str = "en") -> str:
    """The refusal in ``lang`` ("en", "fr", "de"; anything else gives English)."""
    if not error.key:
        return str(error)
    return word(lang, error.key, error.params)


def _words(value: dict[str, Any] | str, lang: str) -> str:
    return value if isinstance(value, str) else word(lang, value["key"], value["params"])


def describe_prompt(decision: Decision, lang: str = "en") -> str:
    """A pending decision's prompt in ``lang``, seat tokens kept."""
    return _words(prompt_words(decision), lang)


def describe_choice(choice: Choice, lang: str = "en") -> str:
    """One option of a pending decision in ``lang``, seat tokens kept."""
    return _words(choice_words(choice), lang)
