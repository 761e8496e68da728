"""Actions: a closed union of small models told apart by ``kind``.

Squares are given as names (``"C4"``) so that actions read well in the move log.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from .constants import Age, BuildingType, Family


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Exchange(_Action):
    """R9: discard these cards and draw back to 4, for 2 Ecus."""

    kind: Literal["exchange"] = "exchange"
    discard: tuple[Family, ...]


class HoldemSwap(_Action):
    """R10: take face-up cards of one family, put back as many cards from the hand."""

    kind: Literal["holdem"] = "holdem"
    take: tuple[Family, ...]
    give: tuple[Family, ...]


class Travel(_Action):
    """R13: move adventurer 0 or 1 (None: the best one) to another age, for 1 Ecu."""

    kind: Literal["travel"] = "travel"
    to: Age
    adventurer: int | None = Field(default=None, ge=0, le=1)


class Construct(_Action):
    """R15: build ``building`` with its top-left on ``square`` of ``age``."""

    kind: Literal["construct"] = "construct"
    age: Age
    building: BuildingType
    square: str
    surcharge: tuple[Family, ...] | None = None  # R18 cards; None lets the engine choose


class Upgrade(_Action):
    """R16: replace the building at ``square`` by a bigger ``to`` whose top-left is ``at``."""

    kind: Literal["upgrade"] = "upgrade"
    age: Age
    square: str
    to: BuildingType
    at: str | None = None  # None: the only legal placement
    surcharge: tuple[Family, ...] | None = None


class Demolish(_Action):
    """R22: remove a size-1 tile for 1 Ecu and 1 card of its family."""

    kind: Literal["demolish"] = "demolish"
    age: Age
    square: str


class Populate(_Action):
    """R41: put ``count`` of your cubes on a civil building on Reason (1 civil card each)."""

    kind: Literal["populate"] = "populate"
    square: str
    count: int = Field(default=1, ge=1, le=4)


class Renovate(_Action):
    """R42: pay ``cards`` towards renovating a ruin on Reason (None: all that is still owed)."""

    kind: Literal["renovate"] = "renovate"
    square: str
    cards: int | None = Field(default=None, ge=1, le=2)


class EndTurn(_Action):
    """R12: discard these cards (optional), draw up to 4, collect income in rounds 4 and 7."""

    kind: Literal["end_turn"] = "end_turn"
    discard: tuple[Family, ...] = ()


class Choose(_Action):
    """R37: answer the pending decision with the index of an option."""

    kind: Literal["choose"] = "choose"
    option: int = Field(ge=0)


Action = Annotated[
    Exchange
    | HoldemSwap
    | Travel
    | Construct
    | Upgrade
    | Demolish
    | Populate
    | Renovate
    | EndTurn
    | Choose,
    Field(discriminator="kind"),
]

ACTION_ADAPTER = cast("TypeAdapter[Action]", TypeAdapter(cast(Any, Action)))


def parse_action(data: object) -> Action:
    """Validate a dict (or JSON string) into an action; raises pydantic.ValidationError."""
    if isinstance(data, str | bytes):
        return ACTION_ADAPTER.validate_json(data)
    return ACTION_ADAPTER.validate_python(data)


def dump_action(action: Action) -> dict[str, object]:
    return action.model_dump(mode="json")


A = TypeVar("A", bound=_Action)
_KIND: dict[type[_Action], str] = {}
_set = object.__setattr__


def listed_action(cls: type[A], fields: dict[str, Any]) -> A:
    """``cls.model_construct(**fields)`` for the actions the engine lists itself, whose
    ``fields`` name every field but ``kind``, in the class's order: the same object (the same
    ``__dict__`` in the same order, the same ``model_fields_set``), about three times faster,
    which matters when every legal action of a position is built."""
    kind = _KIND.get(cls)
    if kind is None:
        kind = _KIND[cls] = str(cls.model_fields["kind"].default)
    action = cls.__new__(cls)
    values = {"kind": kind}
    values.update(fields)
    _set(action, "__dict__", values)
    _set(action, "__pydantic_fields_set__", set(fields))
    _set(action, "__pydantic_extra__", None)
    _set(action, "__pydantic_private__", None)
    return action
