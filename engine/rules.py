"""Legality in one place: the rule functions that ``check`` raises from and that
``legal_actions`` and the autocomplete queries filter with."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .board import Footprint, square_name
from .constants import (
    BUILDINGS,
    CARDS_PER_ADVENTURER,
    Age,
    BuildingType,
    Family,
    forest_surcharge,
    mountain_surcharge,
)
from .domains import BoardIndex, board_index
from .errors import IllegalAction
from .state import Choice, Decision, GameState, Player
from .words import phrase

FAMILY_ORDER = (Family.MILITARY, Family.RELIGIOUS, Family.CIVIL)


def who(seat: int) -> str:
    """A token the service replaces with the player's name (see ``events.format_text``)."""
    return f"{{P{seat}}}"


def codes(cards: Sequence[Family]) -> list[str]:
    """Cards as family codes, for the ``{cards:cards}`` placeholder of the catalogues."""
    return [str(f) for f in cards]


def age_code(age: Age) -> str:
    """``"might"``: an age as the catalogues' ``terms.age`` code."""
    return age.name.lower()


def prompt_words(decision: Decision) -> dict[str, Any] | str:
    """A pending decision's prompt as a phrase (its English text if stored before phrases)."""
    return decision.words if decision.words is not None else decision.prompt


def choice_words(choice: Choice) -> dict[str, Any] | str:
    """An option's label as a phrase (its English text if stored before phrases)."""
    return choice.words if choice.words is not None else choice.label


class Ctx:
    """Per-call cache of board indexes (each from ``board_index``, shared between states)."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self._idx: dict[Age, BoardIndex] = {}

    def index(self, age: Age) -> BoardIndex:
        idx = self._idx.get(age)
        if idx is None:
            idx = board_index(self.state.boards[age])
            self._idx[age] = idx
        return idx


# --- cards and adventurers (R13, R14) --------------------------------------------------------


def allowance(player: Player, age: Age) -> int:
    """Cards the player may still play on ``age`` this turn (R14).

    R14 is a matching: every card played this turn must be assignable to an adventurer that
    stood on its board when it was played, at most 2 per adventurer. With two adventurers the
    cards fall in three bins: those only adventurer 0 could pay (``used[0]``), only adventurer 1
    (``used[1]``), or either (``shared``). By Hall's theorem an assignment exists exactly when
    ``used[0] <= 2``, ``used[1] <= 2`` and the total is at most 4, so ``k`` more cards fit on a
    board where only adventurer ``i`` stands when ``used[i] + k <= 2`` and the total stays within
    4, and on a board where both stand when the total stays within 4."""
    here = [i for i, where in enumerate(player.adventurers) if where is age]
    if not here:
        return 0
    total_left = CARDS_PER_ADVENTURER * len(player.adventurers) - played(player)
    if len(here) == len(player.adventurers):
        return total_left
    return min(CARDS_PER_ADVENTURER - player.used[here[0]], total_left)


def adventurer_left(player: Player, i: int) -> int:
    """Cards adventurer ``i`` could still pay alone this turn (R14), wherever it goes."""
    total_left = CARDS_PER_ADVENTURER * len(player.adventurers) - played(player)
    return min(CARDS_PER_ADVENTURER - player.used[i], total_left)


def played(player: Player) -> int:
    """Cards played this turn on boards (R14)."""
    return sum(player.used) + player.shared


def has_cards(hand: Sequence[Family], cards: Iterable[Family]) -> bool:
    have = Counter(hand)
    need = Counter(cards)
    return all(have[f] >= n for f, n in need.items())


def surcharge(fp: Footprint, players: int) -> int:
    """R18: extra cards of any family for forest and mountain under the footprint."""
    extra = 0
    if fp.forest:
        extra += forest_surcharge(players)
    if fp.mountain:
        extra += mountain_surcharge(players)
    return extra


def default_surcharge(hand: Sequence[Family], base: Sequence[Family], n: int) -> tuple[Family, ...]:
    """The cards the engine pays a surcharge with when the player does not say: always from the
    family he holds most of after the base cost, so his hand stays as varied as it can."""
    left = Counter(hand)
    left.subtract(base)
    out: list[Family] = []
    for _ in range(n):
        fam = max(FAMILY_ORDER, key=lambda f: (left[f], -FAMILY_ORDER.index(f)))
        if left[fam] <= 0:
            break
        left[fam] -= 1
        out.append(fam)
    return tuple(sorted(out, key=FAMILY_ORDER.index))


def surcharge_options(
    hand: Sequence[Family], base: Sequence[Family], n: int
) -> list[tuple[Family, ...]]:
    """Every distinct multiset of ``n`` cards the hand can pay a surcharge with after ``base``."""
    if n == 0:
        return [()]
    left = Counter(hand)
    left.subtract(base)
    out: list[tuple[Family, ...]] = []

    def rec(i: int, k: int, acc: list[Family]) -> None:
        if k == 0:
            out.append(tuple(acc))
            return
        if i == len(FAMILY_ORDER):
            return
        fam = FAMILY_ORDER[i]
        for take in range(min(k, max(left[fam], 0)), -1, -1):
            rec(i + 1, k - take, acc + [fam] * take)

    rec(0, n, [])
    return out


def payment_problem(
    state: GameState,
    seat: int,
    age: Age,
    cards: Sequence[Family],
    what: dict[str, Any],
    *,
    rule: str,
) -> IllegalAction | None:
    """R14 and the hand: can ``seat`` pay ``cards`` on ``age`` now? ``what`` names the move
    (a catalogue phrase: "a Keep", "demolishing it"); ``rule`` is the move's own rule (R15
    construct, R16 upgrade, R22 demolish, R41 populate, R42 renovate), which a refusal for
    missing cards names."""
    player = state.players[seat]
    if age not in player.adventurers:
        return IllegalAction.say("refusal.no_adventurer", "R14", age=age_code(age))
    if not has_cards(player.hand, cards):
        need = Counter(cards)
        have = Counter(player.hand)
        short = [
            phrase(f"phrase.missing_{f}", n=n - have[f])
            for f, n in need.items()
            if have[f] < n
        ]
        return IllegalAction.say(
            "refusal.cards_short",
            rule,
            action_rule=rule,
            what=what,
            cards=codes(cards),
            short=short,
        )
    room = allowance(player, age)
    if len(cards) > room:
        return IllegalAction.say(
            "refusal.card_limit", "R14", what=what, n=len(cards), age=age_code(age), room=room
        )
    return None



# --- construct (R15, R18, R20, R21) ----------------------------------------------------------


@dataclass(frozen=True)
class Placement:
    """A legal footprint for a construct or upgrade, with its cost in cards."""

    at: int
    family: Family
    base: int  # cards of the family
    extra: int  # surcharge cards of any family

    @property
    def total(self) -> int:
        return self.base + self.extra


# A refusal without its sentence, for the generators that only need a yes or a no.
ILLEGAL = IllegalAction("", "")


Words = dict[str, Any]  # a catalogue phrase (engine/words.py)


def _text(name: Words | Callable[[], Words]) -> Words:
    return name if isinstance(name, dict) else name()


def joined_domains(idx: BoardIndex, fp: Footprint, own: set[int]) -> set[int]:
    """R20 Dominion's count: the domains (as ``idx`` has them: before the construction or
    upgrade) of the buildings other than ``own`` that share a side with ``fp``. Two or more
    and a military/religious building may not stand there.

    So a lone building may grow to touch one domain, as a new building there could; a building
    already in a domain may not grow to touch a second; and one that bridges two parts of its
    own domain may grow, since those parts are one domain before the upgrade."""
    label = idx.label
    return {label[k] for k in idx.neighbour_keys(fp.cells, fp.border) - own}


def hierarchy_problem(
    idx: BoardIndex,
    age: Age,
    btype: BuildingType,
    fp: Footprint,
    own: set[int],
    name: Words | Callable[[], Words],
    explain: bool = True,
) -> IllegalAction | None:
    """R20 Dominion and R21 Hierarchy for a military/religious footprint.

    ``own`` holds the key of the building the footprint replaces: the building being upgraded,
    or a copy's own earlier copy (R27). R20 counts ``joined_domains``; R21 compares the new
    value with the highest of that family in the one domain touched, ``own`` left out."""
    spec = BUILDINGS[btype]
    joined = joined_domains(idx, fp, own)
    if len(joined) >= 2:
        if not explain:
            return ILLEGAL
        return IllegalAction.say("refusal.dominion", "R20", name=_text(name))
    if not joined:
        return None
    dom = idx.domains[joined.pop()]
    if own:
        tops = idx.top_buildings([m for m in dom.members if m not in own], spec.family)
        top_value = tops[0].value if tops else 0
    else:
        top_value = dom.top.get(spec.family, (0, 0))[0]
    if top_value == spec.value:
        if not explain:
            return ILLEGAL
        rival = idx.top_buildings([m for m in dom.members if m not in own], spec.family)[0]
        return IllegalAction.say(
            "refusal.hierarchy",
            "R21",
            name=_text(name),
            type=str(rival.type),
            at=square_name(rival.at),
            family=str(spec.family),
        )
    return None


