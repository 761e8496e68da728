"""The terrain surcharge of a construct or upgrade (R18), in words: which terrain costs how
many extra cards ("+1: forest"), which cards paid it, and which others ``pay`` could name.
The result of a move, the refusal of one and the suggestions of a square all say it
(``bot/service/moves.py``, ``bot/suggestions.py``); the engine only counts the cards.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import engine
from engine import Action, BuildingType, Construct, Event, Family, GameState, Terrain, Upgrade
from engine.board import FOOTPRINTS
from engine.constants import forest_surcharge, mountain_surcharge
from engine.rules import surcharge_options

from . import i18n

# the engine's refusals where a surcharge may be the reason a move cannot be paid
PAYMENT_REFUSALS = ("refusal.cards_short", "refusal.card_limit", "refusal.surcharge_count")


@dataclass(frozen=True)
class Surcharge:
    """Extra cards of any family under a footprint (R18), by terrain."""

    forest: int = 0
    mountain: int = 0

    @property
    def total(self) -> int:
        return self.forest + self.mountain


def of_cells(cells: Iterable[int], players: int) -> Surcharge:
    """The surcharge of a footprint covering ``cells`` in a game of ``players``."""
    under = {engine.TERRAIN[c] for c in cells}
    return Surcharge(forest_surcharge(players) if Terrain.FOREST in under else 0,
                     mountain_surcharge(players) if Terrain.MOUNTAIN in under else 0)


def at_square(btype: BuildingType, square: str, players: int) -> Surcharge:
    """The surcharge of ``btype`` with its top-left on ``square`` (none off the grid)."""
    try:
        fp = FOOTPRINTS[engine.BUILDINGS[btype].size][engine.parse_square(square)]
    except ValueError:
        return Surcharge()
    return Surcharge() if fp is None else of_cells(fp.cells, players)


def terrain_words(surcharge: Surcharge, lang: str | None) -> str:
    """"+1: forest", "+3: forest, mountain" in ``lang`` (empty without a surcharge)."""
    if not surcharge.total:
        return ""
    names = [i18n.text(f"terrain.{t}", lang) for t, n in
             (("forest", surcharge.forest), ("mountain", surcharge.mountain)) if n]
    return i18n.text("surcharge.terrain", lang, count=surcharge.total, terrain=", ".join(names))


@dataclass(frozen=True)
class Paid:
    """A move's surcharge: its terrain, the cards that paid it, whether the player named them
    (``pay``), and the other sets of cards his hand could have paid it with."""

    surcharge: Surcharge
    cards: tuple[Family, ...]
    named: bool
    others: tuple[tuple[Family, ...], ...]


def _base(action: Construct | Upgrade, state: GameState) -> tuple[Family, int]:
    """The family and number of cards a construct or upgrade costs before its surcharge."""
    to = action.building if isinstance(action, Construct) else action.to
    spec = engine.BUILDINGS[to]
    if isinstance(action, Construct):
        return spec.family, spec.value
    board = state.boards[action.age]
    named = engine.canonical_action(state, action)
    assert isinstance(named, Upgrade)
    square = engine.parse_square(named.square)
    old = next((t for t in board.tiles if t.at == square), None)
    if old is not None:
        old_value = engine.BUILDINGS[old.type].value
    else:  # a printed hamlet
        old_value = engine.BUILDINGS[BuildingType.HAMLET].value
    return spec.family, spec.value - old_value


def paid(before: GameState, seat: int, action: Action, events: Sequence[Event]) -> Paid | None:
    """The surcharge a construct or upgrade just paid (read from its event: the footprint's
    squares and the cards), or None when it paid none."""
    if not isinstance(action, Construct | Upgrade):
        return None
    kinds = ("built",) if isinstance(action, Construct) else ("upgraded",)
    event = next((e for e in events if e.kind in kinds and e.seat == seat), None)
    if event is None:
        return None
    surcharge = of_cells(event.squares, before.options.players)
    if not surcharge.total:
        return None
    family, base = _base(action, before)
    cards = Counter(Family(c) for c in event.params.get("cards", []))
    cards[family] -= base
    extra = tuple(sorted(cards.elements(), key=list(Family).index))
    options = surcharge_options(before.players[seat].hand, (family,) * base, surcharge.total)
    others = tuple(o for o in dict.fromkeys(tuple(o) for o in options) if Counter(o) != cards)
    return Paid(surcharge, extra, action.surcharge is not None, others)


def logged(events: Sequence[Event], seat: int, players: int, lang: str | None) -> str:
    """The sentence of ``paid_sentence`` for a move read back from the log, from its event
    alone (the footprint's squares, the building's family, the cards it took: those beyond
    the building's own count paid the surcharge), for a reader without the state before the
    move such as the turn's table message; empty when it paid none."""
    event = next((e for e in events if e.kind in ("built", "upgraded") and e.seat == seat), None)
    if event is None:
        return ""
    surcharge = of_cells(event.squares, players)
    if not surcharge.total:
        return ""
    built = BuildingType(event.params["type" if event.kind == "built" else "to"])
    cards = Counter(Family(c) for c in event.params.get("cards", []))
    cards[engine.BUILDINGS[built].family] -= cards.total() - surcharge.total
    extra = tuple(sorted(cards.elements(), key=list(Family).index))
    return paid_sentence(Paid(surcharge, extra, True, ()), lang)


def refused(state: GameState, action: Action) -> Surcharge:
    """The surcharge of the footprint a refused construct (or an upgrade placed with ``at``)
    would have covered: the reason of a refusal for cards, said beside it."""
    if isinstance(action, Construct):
        return at_square(action.building, action.square, state.options.players)
    if isinstance(action, Upgrade) and action.at is not None:
        return at_square(action.to, action.at, state.options.players)
    return Surcharge()


def _letters(cards: Sequence[Family]) -> str:
    return "".join({Family.MILITARY: "m", Family.RELIGIOUS: "r", Family.CIVIL: "c"}[f]
                   for f in cards)


def _cards(cards: Sequence[Family], lang: str | None) -> str:
    """"1 civil (c)" in ``lang``."""
    counts = Counter(cards)
    words = ", ".join(i18n.text("cards.count", lang, count=n,
                                family=i18n.text(f"families.{f.value}", lang))
                      for f, n in sorted(counts.items(), key=lambda fn: list(Family).index(fn[0])))
    return i18n.text("cards.list", lang, words=words, letters=_letters(cards))


def paid_sentence(p: Paid, lang: str | None) -> str:
    """For everyone: "Terrain surcharge (R18) +1: forest, paid with 1 civil (c)."."""
    return i18n.text("surcharge.paid", lang, terrain=terrain_words(p.surcharge, lang),
                     cards=_cards(p.cards, lang))


def default_note(p: Paid, lang: str | None, *, previewed: bool = False) -> str:
    """For the player, when the engine chose the cards: which ones, why, and how to name
    others (``pay``): after the move (/undo, then again), or in its preview (cancel, then
    again); empty when he named them or his hand had no other way to pay."""
    if p.named or not p.others:
        return ""
    pay = i18n.lookup("options.pay", lang) or "pay"
    ways = i18n.text("surcharge.or", lang).join(f"{pay} {_letters(o)}" for o in p.others[:3])
    key = "surcharge.will_take" if previewed else "surcharge.default"
    return i18n.text(key, lang, cards=_cards(p.cards, lang), ways=ways,
                     terrain=terrain_words(p.surcharge, lang))


def refusal_note(surcharge: Surcharge, lang: str | None) -> str:
    """Beside a refusal for cards: " This footprint costs +1: forest (R18) …"."""
    if not surcharge.total:
        return ""
    return i18n.text("surcharge.refusal", lang, terrain=terrain_words(surcharge, lang))
