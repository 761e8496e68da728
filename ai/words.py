"""The coach's sentences in English, French and German (``ai/locales/*.toml``).

A hint carries its sentences as phrases, ``{"key": ..., "params": ...}``, like the engine's
events: the coach decides what to say, the bot words it in each player's language with ``say``.
A ``coach.*`` key is worded from this package's catalogue; any other key (``phrase.tile``: a
building as the engine names it) from the engine's. Placeholders are the engine's
(docs/i18n.md): ``{name}``, ``{name:cap}``, ``{name:cards}``, ``{name:section}`` (a game term
of the engine's catalogue, or a counted phrase for a number), ``{name:form}`` on a nested
phrase (the engine's ``<key>_<form>`` where the language has one), and ``.cap`` after a form.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Mapping
from importlib import resources
from typing import Any

from engine.words import LANGS, catalogue, word

_FIELD = re.compile(r"\{(\w+)(?::([\w.]+))?\}")
Phrase = dict[str, Any]


def phrase(key: str, **params: Any) -> Phrase:
    """A sentence or part of one, kept as data so that each language words it."""
    return {"key": key, "params": params}


def _flatten(table: Mapping[str, Any], prefix: str, out: dict[str, str]) -> None:
    for name, value in table.items():
        if isinstance(value, Mapping):
            _flatten(value, f"{prefix}{name}.", out)
        else:
            out[f"{prefix}{name}"] = str(value)


@functools.cache
def coach_catalogue(lang: str) -> dict[str, str]:
    """The flat catalogue of the coach's sentences in ``lang`` (``"coach.do.travel"`` → …)."""
    text = resources.files("ai").joinpath("locales", f"{lang}.toml").read_text("utf-8")
    out: dict[str, str] = {}
    _flatten(tomllib.loads(text), "", out)
    return out


def _lookup(lang: str, key: str) -> str:
    found = catalogue(lang).get(key)
    return catalogue("en")[key] if found is None else found


def _term(lang: str, section: str, value: Any) -> str:
    if isinstance(value, bool):
        raise TypeError(value)
    if isinstance(value, int):
        form = "one" if value == 1 else "other"  # as the engine counts (engine/words.py)
        return _lookup(lang, f"terms.{section}.{form}").replace("{n}", str(value))
    if section == "cards":
        return _cards(lang, value)
    return _lookup(lang, f"terms.{section}.{value}")


def _cards(lang: str, codes: list[str]) -> str:
    """Family codes as cards ("2 military + 1 civil cards"), with the engine's terms."""
    terms = catalogue(lang)
    parts = []
    for family in ("military", "religious", "civil"):
        n = codes.count(family)
        if n:
            label = terms[f"terms.cards_{'one' if n == 1 else 'other'}.{family}"]
            part = terms["terms.cards.part"].replace("{n}", str(n))
            parts.append(part.replace("{family}", label))
    joined = terms["terms.cards.join"].join(parts)
    return terms[f"terms.cards.{'one' if len(codes) == 1 else 'other'}"].replace("{parts}", joined)


def _nested(lang: str, value: Phrase, form: str | None) -> str:
    key = value["key"]
    if form and not key.startswith("coach."):
        variant = f"{key}_{form}"
        if variant in catalogue(lang):
            key = variant
    return say(value if key == value["key"] else phrase(key, **value["params"]), lang)


def _field(lang: str, value: Any, spec: str | None) -> str:
    cap = spec is not None and (spec == "cap" or spec.endswith(".cap"))
    if cap:
        assert spec is not None
        spec = spec[:-4] or None
    if isinstance(value, dict):
        out = _nested(lang, value, spec)
    elif spec is None:
        out = str(value)
    else:
        out = _term(lang, spec, value)
    return out[:1].upper() + out[1:] if cap else out


def say(sentence: Phrase, lang: str = "en") -> str:
    """``sentence`` worded in ``lang`` ("en", "fr", "de"; anything else: English), seat tokens
    such as ``{P1}`` kept for the bot's names (``engine.format_text``)."""
    if lang not in LANGS:
        lang = "en"
    key, params = sentence["key"], sentence["params"]
    if not key.startswith("coach."):
        return word(lang, key, params)
    template = coach_catalogue(lang).get(key) or coach_catalogue("en")[key]
    out: list[str] = []
    pos = 0
    for m in _FIELD.finditer(template):
        out.append(template[pos : m.start()])
        out.append(_field(lang, params[m[1]], m[2]))
        pos = m.end()
    out.append(template[pos:])
    return "".join(out)
