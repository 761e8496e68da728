"""What the moves share: the plan a check hands to its effect, squares and buildings named by
players, paying cards (R14, R18) and drawing them (R7)."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .. import rng
from ..actions import Action
from ..board import parse_square, square_name
from ..constants import (
    ADVENTURERS,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    Age,
    Family,
    forest_surcharge,
    mountain_surcharge,
)
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


class Block:
    """A run of legal actions of one kind (``kind``: the action's ``kind``, or None for the
    populations and renovations of Reason, listed together building by building), counted
    before it is listed: ``count`` is known at once, ``specs()`` lists them on first use, and
    ``spec(i)`` gives one of them, through ``pick`` (when given) without listing the others."""

    __slots__ = ("_make", "_pick", "_specs", "count", "kind")

    def __init__(
        self,
        kind: str | None,
        count: int,
        make: Callable[[], list[Spec]] | list[Spec],
        pick: Callable[[int], Spec] | None = None,
    ) -> None:
        self.kind = kind
        self.count = count
        self._pick = pick
        if isinstance(make, list):
            self._specs: list[Spec] | None = make
            self._make: Callable[[], list[Spec]] | None = None
        else:
            self._specs = None
            self._make = make

    @classmethod
    def listed(cls, kind: str | None, specs: list[Spec]) -> Block:
        return cls(kind, len(specs), specs)

    def specs(self) -> list[Spec]:
        """The block's actions as (class, fields), in the order ``legal_actions`` gives them
        (the same list at every call: callers must not change it)."""
        if self._specs is None:
            assert self._make is not None
            self._specs = self._make()
            assert len(self._specs) == self.count
        return self._specs

    def spec(self, i: int) -> Spec:
        """The ``i``-th action of the block (``0 <= i < count``)."""
        if self._specs is None and self._pick is not None:
            return self._pick(i)
        return self.specs()[i]


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


# R18: the largest surcharge of a footprint (forest and mountain, at any number of players)
MAX_EXTRA = max(
    forest_surcharge(n) + mountain_surcharge(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)
)
# Per surcharge 0..MAX_EXTRA, the distinct surcharges that pay it (empty: it cannot be paid).
PayTable = tuple[tuple[tuple[Family, ...], ...], ...]


def hand_counts(hand: Sequence[Family]) -> tuple[int, int, int]:
    """Cards of each family in ``FAMILY_ORDER``."""
    m, r, c = FAMILY_ORDER
    return hand.count(m), hand.count(r), hand.count(c)


@functools.lru_cache(maxsize=4096)
def pay_table(counts: tuple[int, int, int], family: Family, base: int, room: int) -> PayTable:
    """The ways to pay a placement costing ``base`` cards of ``family`` plus a surcharge, for
    each surcharge at once: entry ``e`` lists the distinct surcharges (multisets of ``e`` cards
    of any family) with which a hand of ``counts`` (``hand_counts``) pays ``base`` plus ``e``
    cards within the adventurers' ``room`` (R14, R18); empty when it cannot."""
    left = list(counts)
    i = FAMILY_ORDER.index(family)
    if left[i] < base:
        return ((),) * (MAX_EXTRA + 1)
    left[i] -= base
    rest = (left[0], left[1], left[2])
    return tuple(
        tuple(_surcharges(rest, e)) if base + e <= room else () for e in range(MAX_EXTRA + 1)
    )


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
    return list(_submultisets(tuple(cards), min_size))


@functools.lru_cache(maxsize=512)
def _submultisets(cards: tuple[Family, ...], min_size: int) -> tuple[tuple[Family, ...], ...]:
    c = Counter(cards)
    out: list[tuple[Family, ...]] = [()]
    for f in (f for f in FAMILY_ORDER if c[f]):
        out = [prev + (f,) * k for prev in out for k in range(c[f] + 1)]
    return tuple(o for o in out if len(o) >= min_size)
