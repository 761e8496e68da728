"""Every word drawn on an image (and the alt texts), in one catalogue with named placeholders.

``CATALOGUE`` is the English; ``render/locales/fr.py`` and ``de.py`` hold the same keys with
the same placeholder names in French and German (plain dictionaries: they ship with the
package like any module, and a translator edits one file per language). The game terms (ages,
buildings, families) are not here: they come from the engine's catalogue (``engine_terms``),
the one list the engine's sentences use too. Nothing else in ``render/`` spells out a word
for players. Counted phrases have a ``.one`` and an ``.other``
form, picked by ``say_n``.

The language is chosen per image: each public function of ``render`` takes ``lang`` and draws
inside ``speaking(lang)``, which sets it for the current thread or task only (a context
variable), so ``say`` deep in the layout code needs no extra argument and images of games in
different languages can be drawn at the same time. See docs/render.md.

Sentences the engine writes (events, the prompt of a pending choice) are worded in the image's
language by the engine (``engine.describe``, ``engine.describe_prompt``).
"""

from __future__ import annotations

import string
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

from engine import Age, BuildingType, Family, Terrain
from engine.words import catalogue as engine_catalogue
from engine.words import elide

from .locales import de, fr

CATALOGUE: dict[str, str] = {
    # names of things
    "age.title": "{numeral}. {age}",
    "family.letter.military": "M",
    "family.letter.religious": "R",
    "family.letter.civil": "C",
    # two-letter codes of size-1 tiles (and of any tile drawn too small for its name)
    "code.watchtower": "Wt",
    "code.keep": "Ke",
    "code.castle": "Ca",
    "code.chapel": "Ch",
    "code.monastery": "Mo",
    "code.abbey": "Ab",
    "code.hamlet": "Ha",
    "code.town": "To",
    "code.city": "Ci",
    "terrain.plain": "plain",
    "terrain.forest": "forest",
    "terrain.mountain": "mountain",
    "terrain.river": "river",
    "seat": "Seat {number}",
    "times": "\u00d7{count}",
    # boards
    "board.adventurers": "adventurers:",
    "board.nobody": "none",
    "tile.ruin": "RUIN",
    "tile.ruin_half_paid": "RUIN 1/2 paid",
    # panel
    "panel.round": "Round",
    "panel.income": "income",
    "panel.final_scores": "Final scores",
    "panel.player": "Player",
    "panel.ecus": "Ecus",
    "panel.cards": "Cards",
    "panel.cubes": "Cubes",
    "panel.adventurers_on": "Adventurers on",
    "panel.winner": "\u2605 winner",
    "panel.turn": "\u25c0 turn",
    "panel.stock": "Tiles in stock",
    "panel.stock_item": "{building} {count}",
    "panel.face_up": "Face-up",
    # what the player to move may still play this turn (R14), per board an adventurer is on
    "allowance.line": "This turn: {items}",
    "allowance.item.one": "{age}: {n} card left",
    "allowance.item.other": "{age}: {n} cards left",
    "allowance.total": "at most {n} in all",
    "legend.printed_hamlet": "printed hamlet",
    "legend.ruin": "ruin",
    "legend.room": "room for a cube",
    "legend.last_move": "last move",
    "legend.owner": "owner",
    "status.turn": "{name}'s turn",
    "status.over.one": "Game over: {names} wins with {ecus}",
    "status.over.other": "Game over: {names} win with {ecus}",
    "status.and": "{first} and {second}",
    "status.waiting": "Waiting for {name} to choose: {prompt}",
    "status.choosing": "Waiting for {name} to choose",
    "status.round": "Round {round}/{rounds}",
    "key.player": "{name} \u00b7 {ecus}",
    # the move image
    "move.round": "Round {round}/{rounds}",
    "move.more.one": "(+{n} more change, outlined on the boards.)",
    "move.more.other": "(+{n} more changes, outlined on the boards.)",
    # before and after
    "compare.before": "Before the move",
    "compare.after": "After the move",
    # the hand
    "hand.title.one": "{name}: your hand ({n} card)",
    "hand.title.other": "{name}: your hand ({n} cards)",
    "hand.line": "Round {round}/{rounds} \u00b7 {ecus} \u00b7 {cubes} cubes \u00b7 "
    "adventurers on {adventurers}",
    "hand.your_turn": "your turn",
    "hand.count": "{n} {family}",
    "hand.family.military": "military",
    "hand.family.religious": "religious",
    "hand.family.civil": "civil",
    "hand.none": "no cards",
    "hand.empty": "No cards in hand",
    "hand.face_up": "Hold'em face-up cards (shared)",
    # the end-of-game summary
    "summary.title": "Final scores",
    "summary.unfinished": "Scores after round {round} (game not over)",
    "summary.winners.one": "{names} wins with {ecus}",
    "summary.winners.other": "{names} share the victory with {ecus}",
    "summary.final": "Final",
    "summary.start": "Start",
    "summary.income": "Income round {round}",
    "summary.bonus": "Build bonuses",
    "summary.spent": "Spent",
    "summary.chart": "Ecus at the end of each round",
    "summary.chart_start": "Start",
    "summary.income_round": "income",
    # alt texts (read aloud, never drawn)
    "alt.boards": "Khronos boards, round {round} of {rounds}{income}. {status}.",
    "alt.income_round": " (an income round)",
    "alt.waiting": "Waiting for {name} to choose.",
    "alt.last_move": "Last move, outlined on the boards: {sentences}",
    "alt.players": "Players: {players}.",
    "alt.player": "{name} ({colour} {shape}) {ecus}, {cards}, {cubes}, {adventurers}",
    "alt.cards.one": "{n} card",
    "alt.cards.other": "{n} cards",
    "alt.cubes.one": "{n} cube",
    "alt.cubes.other": "{n} cubes",
    "alt.adventurers_both": "both adventurers on {age}",
    "alt.adventurers": "adventurers on {ages}",
    "alt.board_empty": "{age}: no tiles, {hamlets}.",
    "alt.board": "{age}: {tiles}; {hamlets}{controlled}{population}.",
    "alt.hamlets.one": "{n} printed hamlet",
    "alt.hamlets.other": "{n} printed hamlets",
    "alt.count": "{n} {building}",
    "alt.ruins.one": "{n} {building} ruin",
    "alt.ruins.other": "{n} {building} ruins",
    "alt.controlled": "; controlled: {owners}",
    "alt.population": "; population cubes: {owners}",
    "alt.owner": "{name} {n}",
    "alt.face_up": "Face-up cards: {cards}.",
    "alt.options": "Numbered on {age}: {options}.",
    "alt.option": "{number}, {label}",
    "alt.left_out.one": "(1 more sentence left out.)",
    "alt.left_out.other": "({n} more sentences left out.)",
    "alt.summary_left_out.one": "; 1 more player left out",
    "alt.summary_left_out.other": "; {n} more players left out",
    "alt.table": "Khronos table, round {round} of {rounds}{income}. {status}.",
    "alt.table_focus": "{age} is shown large ({window}), the two other ages small.",
    "alt.window": "columns {first} to {last}, rows {top} to {bottom}",
    "alt.whole_board": "the whole board",
    "alt.turn_outlined": "The turn's earlier changes are outlined too, on {ages}.",
    "colour.indigo": "indigo",
    "colour.pale_yellow": "pale yellow",
    "colour.wine": "wine",
    "colour.light_cyan": "light cyan",
    "colour.white": "white",
    "shape.circle": "circle",
    "shape.square": "square",
    "shape.triangle": "triangle",
    "shape.diamond": "diamond",
    "shape.star": "star",
    "alt.summary": "Final scores of the Khronos game. {winners}. {players}",
    "alt.summary_player": "{name}: {final} (start {start}, income round 4 {income4}, "
    "income round 7 {income7}, bonuses {bonus}, spent {spent})",
    "ecus.one": "{n} Ecu",
    "ecus.other": "{n} Ecus",
}


DEFAULT = "en"
LANGUAGES = ("en", "fr", "de")
_LANG: ContextVar[str] = ContextVar("render_lang", default=DEFAULT)


def engine_terms(lang: str) -> dict[str, str]:
    """The game terms images share with the engine's sentences, read from the engine's
    catalogue (engine/locales) so that the two never drift: ages, buildings (and their
    plurals), families."""
    words = engine_catalogue(lang)
    out = {f"age.{a.name.lower()}": words[f"terms.age.{a.name.lower()}"] for a in Age}
    for b in BuildingType:
        out[f"building.{b.value}"] = words[f"terms.building.{b.value}"]
        out[f"plural.{b.value}"] = words[f"terms.building_plural.{b.value}"]
    for f in Family:
        out[f"family.{f.value}"] = words[f"terms.family_label.{f.value}"]
    return out


CATALOGUE.update(engine_terms("en"))
_CATALOGUES: dict[str, Mapping[str, str]] = {
    "en": CATALOGUE,
    "fr": {**fr.CATALOGUE, **engine_terms("fr")},
    "de": {**de.CATALOGUE, **engine_terms("de")},
}


def language(lang: str | None) -> str:
    """The catalogue's language for ``lang``: ``"fr"``, ``"de"`` (also a Discord locale such
    as ``"fr-CA"``), English for any other."""
    code = (lang or DEFAULT).split("-")[0].split("_")[0].lower()
    return code if code in LANGUAGES else DEFAULT


def catalogue(lang: str) -> Mapping[str, str]:
    """Every entry of one language by dotted key."""
    return _CATALOGUES[lang]


@contextmanager
def speaking(lang: str | None) -> Iterator[None]:
    """Draw in ``lang`` (see ``language``) until the block ends, in this thread or task only."""
    token = _LANG.set(language(lang))
    try:
        yield
    finally:
        _LANG.reset(token)


def current_language() -> str:
    """The language ``say`` speaks now (part of the keys of cached layers that hold words)."""
    return _LANG.get()


def say(key: str, /, **values: object) -> str:
    """The text for ``key`` in the current language (English where a translation lacks it),
    with its named placeholders filled in."""
    lang = _LANG.get()
    entry = catalogue(lang).get(key)
    return elide(CATALOGUE[key] if entry is None else entry, values.get, lang).format(**values)


def say_n(key: str, n: int, /, **values: object) -> str:
    """``say`` of the ``.one`` or ``.other`` form of ``key`` by the count ``n`` (also ``{n}``)."""
    return say(f"{key}.{'one' if n == 1 else 'other'}", n=n, **values)


def placeholders(template: str) -> set[str]:
    """The placeholder names of a catalogue text (for the tests)."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def age_name(age: Age) -> str:
    return say(f"age.{age.name.lower()}")


def building_name(btype: BuildingType) -> str:
    return say(f"building.{btype.value}")


def building_plural(btype: BuildingType) -> str:
    return say(f"plural.{btype.value}")


def building_code(btype: BuildingType) -> str:
    return say(f"code.{btype.value}")


def family_name(family: Family) -> str:
    return say(f"family.{family.value}")


def family_letter(family: Family) -> str:
    return say(f"family.letter.{family.value}")


def terrain_name(terrain: Terrain) -> str:
    return say(f"terrain.{terrain.value}")


def joined(names: list[str]) -> str:
    """``["A", "B", "C"]`` -> ``"A, B and C"``."""
    if not names:
        return ""
    if len(names) == 1:
        return names[0]
    return say("status.and", first=", ".join(names[:-1]), second=names[-1])
