"""The bot's words in English, French and German, from catalogues a translator can edit.

``bot/locales/<language>.toml`` holds one catalogue per language; nested tables make dotted
keys (``[suggest] build = "..."`` is the key ``suggest.build``). English is the default: a key
missing in French or German falls back to it. The English of the slash commands' names,
descriptions and choices is the command table itself (``textcommands.COMMANDS``); their French
and German are in the catalogues under ``commands.*``, ``options.*``, ``groups.*`` and
``choices.*`` (see docs/discord.md).

``text(key, locale, **params)`` is the one call for a sentence: ``locale`` is a Discord locale
(``"fr"``, ``"de"``, ``"en-US"``...) or None; ``{name}`` placeholders are filled from
``params``.
"""

from __future__ import annotations

import string
import tomllib
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

DEFAULT = "en"
LANGUAGES = ("en", "fr", "de")
LOCALES_DIR = Path(__file__).with_name("locales")


def language(locale: str | None) -> str:
    """The catalogue's language for a Discord locale: ``"fr"`` and ``"de"`` for theirs
    (``"fr-CA"`` too), English for every other one."""
    lang = (locale or DEFAULT).split("-")[0].split("_")[0].lower()
    return lang if lang in LANGUAGES else DEFAULT


def _flatten(table: Mapping[str, Any], prefix: str, out: dict[str, str]) -> None:
    for key, value in table.items():
        if isinstance(value, Mapping):
            _flatten(value, f"{prefix}{key}.", out)
        elif isinstance(value, str):
            out[f"{prefix}{key}"] = value
        else:
            raise ValueError(f"catalogue entry {prefix}{key} is not text: {value!r}")


@cache
def catalogue(lang: str) -> Mapping[str, str]:
    """Every entry of one language's file, by dotted key."""
    if lang not in LANGUAGES:
        raise KeyError(f"no catalogue for {lang!r}")
    with (LOCALES_DIR / f"{lang}.toml").open("rb") as fh:
        data = tomllib.load(fh)
    out: dict[str, str] = {}
    _flatten(data, "", out)
    return out


def lookup(key: str, locale: str | None) -> str | None:
    """The entry of ``key`` in the language of ``locale`` itself, without falling back."""
    return catalogue(language(locale)).get(key)


def text(key: str, locale: str | None = None, **params: Any) -> str:
    """The sentence ``key`` in the language of ``locale`` (English when it has none), with its
    placeholders filled. An unknown key is a programming error (KeyError)."""
    entry = lookup(key, locale)
    if entry is None:
        entry = catalogue(DEFAULT)[key]
    return entry.format(**params)


def placeholders(entry: str) -> set[str]:
    """The ``{name}`` fields of an entry (what a translation must keep)."""
    return {field for _, field, _, _ in string.Formatter().parse(entry) if field}
