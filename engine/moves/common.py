"""What the moves share: the plan a check hands to its effect, squares and buildings named by
players, paying cards (R14, R18) and drawing them (R7)."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .. import rng
from ..actions import Action
from ..board import parse_square, square_name
from ..constants import ADVENTURERS, HAND_SIZE, Age, Family
from ..domains import Building
from ..errors import IllegalAction, MalformedAction
from ..rules import (
    FAMILY_ORDER,
    Ctx,
    Placement,
    age_code,
    allowance,
    default_surcharge,
    surcharge_options,
)
from ..state import GameState

# An action as (class, fields): cheap to count, built only when needed.
Spec = tuple[type[Action], dict[str, Any]]
Specs = Iterator[Spec]


@dataclass
class Plan:
    """What a checked action will do; built by a move's check and carried out by its effect."""

    action: Action
    seat: int
    cards: tuple[Family, ...] = ()
    age: Age | None = None
    building: Building | None = None
    placement: Placement | None = None
    adventurer: int | None = None
    count: int = 0


@dataclass(frozen=True)
class Option:
    """One answer of the autocomplete queries: a square and what playing there costs."""

    square: str
    cards: int
    extra: int
    label: str


def square(text: str) -> int:
    """A square named by a player; MalformedAction if it is not one of the grid."""
    try:
        return parse_square(text)
    except ValueError as exc:
        key = "refusal.square_outside" if "outside" in str(exc) else "refusal.not_a_square"
        raise MalformedAction.say(key, text=repr(text)) from exc


def building_at(ctx: Ctx, age: Age, text: str) -> Building:
    """The building covering the named square (any of its squares) on ``age``."""
    sq = square(text)
    building = ctx.index(age).at(sq)
    if building is None:
        raise IllegalAction.say("refusal.no_building", "R1", at=square_name(sq), age=age_code(age))
    return building


def sorted_cards(cards: Sequence[Family]) -> list[Family]:
    return sorted(cards, key=FAMILY_ORDER.index)


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# --- paying (R14, R18) -----------------------------------------------------------------------


def chosen_payment(
    state: GameState, seat: int, place: Placement, chosen: Sequence[Family] | None
) -> tuple[Family, ...]:
    """The cards a construct or upgrade at ``place`` is paid with: the base cost, plus the
    surcharge the player named or, unnamed, the engine's default (rules.default_surcharge)."""
    base = (place.family,) * place.base
    if chosen is None:
        extra = default_surcharge(state.players[seat].hand, base, place.extra)
        if len(extra) < place.extra:
            extra = extra + (place.family,) * (place.extra - len(extra))  # payment_problem says why
    else:
        if len(chosen) != place.extra:
            raise MalformedAction.say(
                "refusal.surcharge_count", "R18", extra=place.extra, named=len(chosen)
            )
        extra = tuple(chosen)
    return base + extra


def payments(hand: Sequence[Family], place: Placement, room: int) -> list[tuple[Family, ...]]:
    """The distinct surcharges with which ``hand`` pays ``place`` within the adventurers'
    ``room`` (R14, R18); empty when it cannot be paid."""
    if place.total > room or hand.count(place.family) < place.base:
        return []
    left = [hand.count(f) for f in FAMILY_ORDER]
    left[FAMILY_ORDER.index(place.family)] -= place.base
    return _surcharges((left[0], left[1], left[2]), place.extra)


@functools.lru_cache(maxsize=256)
def _surcharges(left: tuple[int, int, int], n: int) -> list[tuple[Family, ...]]:
    hand = [f for f, k in zip(FAMILY_ORDER, left, strict=True) for _ in range(k)]
    return surcharge_options(hand, (), n)


def pay(state: GameState, seat: int, age: Age, cards: Sequence[Family]) -> None:
    """Cards leave the hand for the discard pile and count against the adventurers on ``age``
    (R14): tied to the one adventurer there, or shared when both stand there (``allowance``)."""
    player = state.players[seat]
    for card in cards:
        player.hand.remove(card)
    state.discard.extend(cards)
    here = [i for i in range(ADVENTURERS) if player.adventurers[i] is age]
    assert here and len(cards) <= allowance(player, age)
    if len(here) == ADVENTURERS:
        player.shared += len(cards)
    else:
        player.used[here[0]] += len(cards)


# --- drawing (R7, R9, R12) --------------------------------------------------------------------


def draw(state: GameState, n: int) -> list[Family]:
    """R7: draw ``n`` cards, reshuffling the discard pile when the draw pile runs out."""
    out: list[Family] = []
    for _ in range(n):
        if not state.draw_pile:
            if not state.discard:
                break
            state.draw_pile = state.discard
            state.discard = []
            state.rng = rng.shuffle(state.rng, state.draw_pile)
        out.append(state.draw_pile.pop())
    return out


def refill(state: GameState, seat: int) -> int:
    """Draw the hand of ``seat`` back up to 4; returns how many cards were drawn."""
    player = state.players[seat]
    drawn = draw(state, max(0, HAND_SIZE - len(player.hand)))
    player.hand = sorted_cards(player.hand + drawn)
    return len(drawn)


def submultisets(cards: Sequence[Family], min_size: int = 0) -> list[tuple[Family, ...]]:
    """Every distinct sub-multiset of ``cards`` (family order) with at least ``min_size``."""
    c = Counter(cards)
    out: list[tuple[Family, ...]] = [()]
    for f in (f for f in FAMILY_ORDER if c[f]):
        out = [prev + (f,) * k for prev in out for k in range(c[f] + 1)]
    return [o for o in out if len(o) >= min_size]
