"""The engine's sentences in English, French and German: the catalogues and their wording.

Every event and every refusal the engine writes carries a catalogue ``key`` and JSON-safe
``params``; its English ``text`` (or message) is worded from ``locales/en.toml`` when it
happens, and ``describe``/``explain`` word it again in French or German from ``fr.toml`` and
``de.toml``. A placeholder is ``{name}`` or ``{name:spec}``:

- ``{name}``: a number or a string as it is (seat tokens ``{P0}`` stay for ``format_text``), a
  nested phrase (a ``{"key": ..., "params": ...}`` dict, see ``phrase``) worded in the same
  language, or a list of those joined with the language's ``terms.list.and``;
- ``{name:cap}``: the same with its first letter in capitals (``{type:building_the.cap}``
  for any other form);
- ``{name:comma}``: a list joined with ``terms.list.comma`` rather than ``terms.list.and``;
- ``{name:cards}``: a list of family codes worded as cards ("2 military + 1 civil cards");
- ``{name:<section>}``: a game term. A string code is looked up as ``terms.<section>.<code>``
  (``{age:age}`` gives "Might", "Puissance", "Macht"); a list of codes is each looked up and
  joined with ``terms.list.comma``; a number picks ``terms.<section>.one`` or ``.other`` (the
  language's plural rule) with ``{n}`` in it;
- ``{name:<form>}`` on a nested phrase: the phrase's ``<key>_<form>`` where the language has
  one (German cases: ``phrase.tile_acc``), else the phrase itself.

See docs/i18n.md for how to add a sentence.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import Any

LANGS = ("en", "fr", "de")
FAMILY_CODES = ("military", "religious", "civil")  # the order cards are listed in

_FIELD = re.compile(r"\{(\w+)(?::([\w.]+))?\}")

_ELIDABLE = re.compile(r"\b([dD]|[qQ]u)e \{(\w+)\}")
VOWELS = frozenset("aeiouàâäéèêëîïôöùûüœæAEIOUÀÂÄÉÈÊËÎÏÔÖÙÛÜŒÆ")


def elide(template: str, value: Callable[[str], object], lang: str) -> str:
    """French élision before a placeholder: "de {name}" becomes "d'{name}" (and "que" becomes
    "qu'") when ``value(name)`` is a text that begins with a vowel ("au tour d'Ann"). Other
    languages, and other values, leave the template as it is."""
    if lang != "fr" or "e {" not in template:
        return template

    def sub(m: re.Match[str]) -> str:
        filled = value(m[2])
        if isinstance(filled, str) and filled[:1] in VOWELS:
            return f"{m[1]}'{{{m[2]}}}"
        return m[0]

    return _ELIDABLE.sub(sub, template)


def phrase(key: str, **params: Any) -> dict[str, Any]:
    """A nested sentence part, kept as data so that each language words it."""
    return {"key": key, "params": params}


def _flatten(table: Mapping[str, Any], prefix: str, out: dict[str, str]) -> None:
    for name, value in table.items():
        full = f"{prefix}{name}"
        if isinstance(value, Mapping):
            _flatten(value, f"{full}.", out)
        else:
            out[full] = str(value)


@functools.cache
def catalogue(lang: str) -> dict[str, str]:
    """The flat catalogue of ``lang`` (``"event.built"`` → its template)."""
    text = resources.files("engine").joinpath("locales", f"{lang}.toml").read_text("utf-8")
    out: dict[str, str] = {}
    _flatten(tomllib.loads(text), "", out)
    return out


def _template(lang: str, key: str) -> str:
    found = catalogue(lang).get(key)
    if found is None:
        return catalogue("en")[key]  # a missing translation falls back to English
    return found


def _one(lang: str, n: int) -> bool:
    """``.one`` for 1, ``.other`` for the rest, 0 included, in every language: as the images
    count (render/locales), so that one picture never says "0 écu" and "0 écus"."""
    return n == 1


def _counted(lang: str, section: str, n: int) -> str:
    """``terms.<section>.one`` or ``.other`` with ``{n}``; ``.zero`` for 0 where the section
    has one ("draws no card" rather than "draws 0 cards")."""
    if n == 0 and f"terms.{section}.zero" in catalogue(lang):
        return _template(lang, f"terms.{section}.zero")
    form = "one" if _one(lang, n) else "other"
    return _template(lang, f"terms.{section}.{form}").replace("{n}", str(n))


def _plain(lang: str, value: Any) -> str:
    if isinstance(value, dict):
        return word(lang, value["key"], value["params"])
    if isinstance(value, list):
        return _template(lang, "terms.list.and").join(_plain(lang, v) for v in value)
    return str(value)


def _cards(lang: str, codes: Sequence[str]) -> str:
    part = _template(lang, "terms.cards.part")
    parts = []
    for f in FAMILY_CODES:
        n = codes.count(f)
        if n:
            family = _template(lang, f"terms.cards_{'one' if _one(lang, n) else 'other'}.{f}")
            parts.append(part.replace("{n}", str(n)).replace("{family}", family))
    joined = _template(lang, "terms.cards.join").join(parts)
    form = "one" if _one(lang, len(codes)) else "other"
    return _template(lang, f"terms.cards.{form}").replace("{parts}", joined)


def _field(lang: str, value: Any, spec: str | None) -> str:
    if spec is None:
        return _plain(lang, value)
    if spec == "cap" or spec.endswith(".cap"):
        out = _field(lang, value, spec[:-4] or None)
        return out[:1].upper() + out[1:]
    if spec == "cards":
        return _cards(lang, value)
    if spec == "comma":
        return _template(lang, "terms.list.comma").join(_plain(lang, v) for v in value)
    if isinstance(value, dict):  # a phrase in a grammatical form: "phrase.tile" as "tile_acc"
        variant = f"{value['key']}_{spec}"
        key = variant if variant in catalogue(lang) else value["key"]
        return word(lang, key, value["params"])
    if isinstance(value, bool):
        raise TypeError(value)
    if isinstance(value, int):
        return _counted(lang, spec, value)
    if isinstance(value, list):
        return _template(lang, "terms.list.comma").join(
            _template(lang, f"terms.{spec}.{v}") for v in value
        )
    return _template(lang, f"terms.{spec}.{value}")


Piece = tuple[str, str, str | None]  # (literal text before, placeholder name or "", spec)


@functools.cache
def _pieces(lang: str, key: str) -> tuple[Piece, ...]:
    """A template cut at its placeholders once, so wording it is a join (``apply`` words
    every event it makes)."""
    template = _template(lang, key)
    out: list[Piece] = []
    pos = 0
    for m in _FIELD.finditer(template):
        out.append((template[pos : m.start()], m[1], m[2]))
        pos = m.end()
    out.append((template[pos:], "", None))
    return tuple(out)


def word(lang: str, key: str, params: Mapping[str, Any]) -> str:
    """The sentence ``key`` with ``params`` in ``lang`` (English for an unknown language)."""
    if lang not in LANGS:
        lang = "en"
    parts: list[str] = []
    for text, name, spec in _pieces(lang, key):
        parts.append(text)
        if name:
            value = params[name]
            if spec is None and type(value) is str:
                parts.append(value)
            else:
                parts.append(_field(lang, value, spec))
    return "".join(parts)


def english(key: str, params: Mapping[str, Any]) -> str:
    return word("en", key, params)
