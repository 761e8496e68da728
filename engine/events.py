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
    breakdown: list[str] = Field(default_factory=list)  # income per domain, final scores
