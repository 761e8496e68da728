"""What happened, for the log, the images (highlights) and the players (style 6)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .constants import Age


class Event(BaseModel):
    """One thing that happened. ``text`` is a sentence for players; ``squares`` (indexes) on
    ``age`` are what the images highlight."""

    model_config = ConfigDict(extra="forbid")

    kind: str
    text: str
    seat: int | None = None
    age: Age | None = None
    squares: list[int] = Field(default_factory=list)
    amount: int | None = None
    adventurer: int | None = None  # travel: which adventurer moved (0 or 1)
    breakdown: list[str] = Field(default_factory=list)  # income per domain, final scores


def format_text(text: str, names: dict[int, str] | list[str]) -> str:
    """Replace the seat tokens ``{P0}``, ``{P1}`` … in an engine sentence with players' names."""
    out = text
    items = names.items() if isinstance(names, dict) else enumerate(names)
    for seat, name in items:
        out = out.replace(f"{{P{seat}}}", name)
    return out
