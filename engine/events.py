"""What happened, for the log, the images (highlights) and the players."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .constants import Age
from .words import elide, english


class Event(BaseModel):
    """One thing that happened. ``text`` is a sentence for players (English); ``key`` and
    ``params`` word it in other languages (``describe``; empty in events stored before they
    existed). ``squares`` (indexes) on ``age`` are what the images highlight."""

    model_config = ConfigDict(extra="forbid")

    kind: str
    text: str
    seat: int | None = None
    age: Age | None = None
    squares: list[int] = Field(default_factory=list)
    amount: int | None = None
    adventurer: int | None = None  # travel: which adventurer moved (0 or 1)
    breakdown: list[str] = Field(default_factory=list)  # income per domain, final scores
    key: str = ""
    params: dict[str, Any] = Field(default_factory=dict)
    lines: list[dict[str, Any]] = Field(default_factory=list)  # the breakdown as phrases


# False while ``apply(..., worded=False)`` runs (in this thread or task): events are made
# without their English ``text`` and ``breakdown``.
WORDED: ContextVar[bool] = ContextVar("worded", default=True)
_new = object.__new__
_set = object.__setattr__


def event(kind: str, key: str, params: dict[str, Any], **fields: Any) -> Event:
    """An event worded from the catalogue: its English ``text`` now, ``key``/``params`` kept.
    Under ``apply(..., worded=False)`` the ``text`` is empty and the ``breakdown`` left out
    (not validated either: the search that asks for this never reads its events' words)."""
    lines: list[dict[str, Any]] = fields.pop("lines", [])
    if not WORDED.get():
        return _unworded(kind, key, params, lines, fields)
    return Event(
        kind=kind,
        text=english(key, params),
        key=key,
        params=params,
        lines=lines,
        breakdown=[english(p["key"], p["params"]) for p in lines],
        **fields,
    )


def _unworded(
    kind: str, key: str, params: dict[str, Any], lines: list[dict[str, Any]], fields: Any
) -> Event:
    """``Event(kind=kind, text="", ...)`` built as ``model_construct`` would, without its cost
    (it inspects the signature of each default factory, every time)."""
    e = _new(Event)
    d: dict[str, Any] = {
        "kind": kind,
        "text": "",
        "seat": None,
        "age": None,
        "squares": [],
        "amount": None,
        "adventurer": None,
        "breakdown": [],
        "key": key,
        "params": params,
        "lines": lines,
    }
    d.update(fields)
    _set(e, "__dict__", d)
    _set(e, "__pydantic_fields_set__", {"kind", "text", "key", "params", "lines", *fields})
    _set(e, "__pydantic_extra__", None)
    _set(e, "__pydantic_private__", None)
    return e


def format_text(text: str, names: dict[int, str] | list[str], lang: str = "en") -> str:
    """Replace the seat tokens ``{P0}``, ``{P1}`` … in an engine sentence with players' names
    (in French, "de {P0}" becomes "d'Ann" before a name that begins with a vowel)."""
    items = names.items() if isinstance(names, dict) else enumerate(names)
    by_seat = dict(items)
    out = elide(text, lambda token: by_seat.get(int(token[1:])) if token[:1] == "P"
                and token[1:].isdigit() else None, lang)
    items = by_seat.items()
    for seat, name in items:
        out = out.replace(f"{{P{seat}}}", name)
    return out
