"""What an option may be, for the player to act: the legal squares of a build, an upgrade, a
demolition, a populate or a renovation, each with its cost, and the cards a cards option may
name. Built from the engine's own legality generators (never a copy of the rules), worded in
the reader's language; the Discord autocomplete shows them (``bot/discord/slash.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import engine
from engine import Age, BuildingType

from . import i18n
from .surcharge import Surcharge, at_square, terrain_words

BOARD_AGES = (Age.MIGHT, Age.FAITH)  # R40


def localized(key: str, english: str, locale: str | None) -> str:
    """A command string in the user's language (the table's English when it has none)."""
    return i18n.lookup(key, locale) or english


def _cost(family: engine.Family, base: int, terrain: Surcharge, locale: str | None) -> str:
    """The cards of the family ("military" times 2), then the terrain
    surcharge (R18) and what pays it."""
    fam = i18n.text(f"families.{family.value}", locale)
    text = i18n.text("suggest.cards", locale, family=fam, count=base)
    if terrain.total:
        form = "one" if terrain.total == 1 else "other"
        text += i18n.text(f"suggest.extra.{form}", locale,
                          terrain=terrain_words(terrain, locale))
    return text


def _age_of(text: str | None, allowed: Sequence[Age]) -> list[Age]:
    """The ages an age option stands for: the one filled in, else every one it allows."""
    for age in allowed:
        if text and text.lower() == age.label.lower():
            return [age]
    return list(allowed)


def _building_of(text: str | None) -> BuildingType | None:
    try:
        return BuildingType(text) if text else None
    except ValueError:
        return None


def square_suggestions(state: engine.GameState, seat: int, command: str, param: str,
                       filled: Mapping[str, str], locale: str | None = None
                       ) -> list[tuple[str, str]]:
    """(square, label) pairs the player may submit for ``command``'s ``param``, given the
    options already ``filled`` (raw values by name). An option another depends on that is
    still empty stands for everything it allows: no age yet gives the squares of both ages,
    each labelled with its age, interleaved so that both show among Discord's 25."""
    per_age: dict[Age, list[tuple[str, str]]] = {}
    players = state.options.players

    def add(age: Age, square: str, what: str) -> None:
        name = localized(f"choices.age.{age.label.lower()}", age.label, locale)
        label = i18n.text("suggest.label", locale, square=square, age=name, what=what)
        pairs = per_age.setdefault(age, [])
        if (square, label) not in pairs:
            pairs.append((square, label))

    def btype_name(btype: BuildingType) -> str:
        return localized(f"choices.building.{btype.value}", btype.label, locale)

    if command == "build":
        wanted = _building_of(filled.get("building"))
        for age in _age_of(filled.get("age"), BOARD_AGES):
            for btype in [wanted] if wanted else list(BuildingType):
                family = engine.BUILDINGS[btype].family
                for o in engine.construct_options(state, seat, age, btype):
                    terrain = at_square(btype, o.square, players)
                    add(age, o.square, f"{btype_name(btype)}, "
                                       f"{_cost(family, o.cards - o.extra, terrain, locale)}")
    elif command == "upgrade":
        to = _building_of(filled.get("to"))
        square = (filled.get("square") or "").strip().upper()
        for age in _age_of(filled.get("age"), BOARD_AGES):
            for sq, target, o in engine.upgrade_options(state, seat, age):
                if to is not None and target is not to:
                    continue
                family = engine.BUILDINGS[target].family
                terrain = at_square(target, o.square, players)
                cost = _cost(family, o.cards - o.extra, terrain, locale)
                if param == "square":
                    add(age, sq, f"→ {btype_name(target)}, {cost}")
                elif not square or sq == square:
                    add(age, o.square, f"{sq} → {btype_name(target)}, {cost}")
    elif command in ("demolish", "populate", "renovate"):
        allowed = BOARD_AGES if command == "demolish" else (Age.REASON,)
        ages = _age_of(filled.get("age"), allowed)
        for act in engine.legal_actions(state, seat):
            if isinstance(act, engine.Demolish | engine.Populate | engine.Renovate) and (
                    act.kind == command):
                age = act.age if isinstance(act, engine.Demolish) else Age.REASON
                if age in ages:
                    add(age, act.square, i18n.text(f"suggest.{command}", locale))
    lists = [per_age[a] for a in Age if a in per_age]
    out: list[tuple[str, str]] = []
    for i in range(max((len(x) for x in lists), default=0)):
        out.extend(x[i] for x in lists if i < len(x))
    return out


_LETTER = {engine.Family.MILITARY: "m", engine.Family.RELIGIOUS: "r", engine.Family.CIVIL: "c"}


def _same(filled: Mapping[str, str], name: str, value: str) -> bool:
    """True when option ``name`` is empty or says ``value`` (case and spaces aside)."""
    given = filled.get(name, "").strip().lower()
    return not given or given == value.lower()


def _hand_subsets(hand: Sequence[engine.Family]) -> list[tuple[engine.Family, ...]]:
    """Every distinct set of cards from ``hand``, smallest first."""
    out: list[tuple[engine.Family, ...]] = [()]
    for fam in _LETTER:
        out = [prev + (fam,) * k for prev in out for k in range(hand.count(fam) + 1)]
    return sorted((o for o in out if o), key=len)


def cards_suggestions(state: engine.GameState, seat: int, command: str, param: str,
                      filled: Mapping[str, str], locale: str | None = None
                      ) -> list[tuple[str, str]]:
    """(letters, label) pairs for a cards option: the surcharges of the legal builds and
    upgrades matching the options filled so far (R18), the exchanges (R9) and Hold'em swaps
    (R10) the engine allows, or the cards of the hand one may discard at the end (R12)."""
    sets: list[tuple[engine.Family, ...]] = []
    if command == "end":
        sets = _hand_subsets(state.players[seat].hand) if seat == state.turn else []
    else:
        for act in engine.legal_actions(state, seat):
            match act:
                case engine.Construct() if command == "build" and (
                        _same(filled, "age", act.age.label) and
                        _same(filled, "building", act.building.value) and
                        _same(filled, "square", act.square)):
                    sets.append(act.surcharge or ())
                case engine.Upgrade() if command == "upgrade" and (
                        _same(filled, "age", act.age.label) and
                        _same(filled, "square", act.square) and
                        _same(filled, "to", act.to.value) and
                        _same(filled, "at", act.at or "")):
                    sets.append(act.surcharge or ())
                case engine.Exchange() if command == "exchange":
                    sets.append(act.discard)
                case engine.HoldemSwap() if command == "holdem":
                    take = "".join(_LETTER[f] for f in act.take)
                    if param == "take":
                        sets.append(act.take)
                    elif _same(filled, "take", take):
                        sets.append(act.give)
    out: list[tuple[str, str]] = []
    for cards in dict.fromkeys(s for s in sets if s):
        letters = "".join(_LETTER[f] for f in cards)
        names = ", ".join(i18n.text(f"families.{f.value}", locale) for f in cards)
        pair = (letters, i18n.text("suggest.cards_label", locale, letters=letters, cards=names))
        out.append(pair)
    return out
