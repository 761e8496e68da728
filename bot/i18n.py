"""The bot's words in English, French and German, from catalogues a translator can edit.

``bot/locales/<language>.toml`` holds one catalogue per language; nested tables make dotted
keys (``[suggest] build = "..."`` is the key ``suggest.build``). English is the default: a key
missing in French or German falls back to it. The English of the slash commands' names,
descriptions and choices is the command table itself (``bot.commands.COMMANDS``); their French
and German are in the catalogues under ``commands.*``, ``options.*``, ``groups.*`` and
``choices.*`` (see docs/discord.md).

``text(key, locale, **params)`` is the one call for a sentence: ``locale`` is a Discord locale
(``"fr"``, ``"de"``, ``"en-US"``...) or None; ``{name}`` placeholders are filled from
``params``.

Which language (docs/discord.md, "Languages"): what the bot says privately to the author of a
command (its reply, a refusal) follows his Discord client's locale; what it posts in the
channel, pings and DMs follows the game's language (``GameSettings.language``). The author's
locale travels with the command: ``reading(locale)`` makes it the reader's for the code that
runs inside it, and ``private(key, ...)`` says a sentence in the reader's language, so the
game service needs no locale argument on each of its methods.
"""

from __future__ import annotations

import string
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import Any

from engine.words import elide

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
    return elide(entry, params.get, language(locale)).format(**params)


def placeholders(entry: str) -> set[str]:
    """The ``{name}`` fields of an entry (what a translation must keep)."""
    return {field for _, field, _, _ in string.Formatter().parse(entry) if field}


_READER: ContextVar[str | None] = ContextVar("khronos_reader_locale", default=None)


@contextmanager
def reading(locale: str | None) -> Iterator[None]:
    """Within the block (and the tasks it awaits), ``private`` speaks ``locale``: the Discord
    locale of the user whose command runs."""
    token = _READER.set(locale)
    try:
        yield
    finally:
        _READER.reset(token)


def reader() -> str | None:
    """The locale of the user whose command runs now (None: English)."""
    return _READER.get()


def private(key: str, **params: Any) -> str:
    """The sentence ``key`` for the author of the running command (a reply, a refusal), in his
    Discord client's language."""
    return text(key, _READER.get(), **params)
