"""The words a player may type for a value, in English, French or German: buildings
(``donjon``, ``Bergfried``), ages (``puissance``, ``Glaube``), levels, yes and no, and the
option names (``case:C4``, ``payer``). A typed word is compared without case, accents,
spaces, hyphens or apostrophes (``tour de guet``, ``Tour-de-guet`` and ``tourdeguet`` are one
word, ``chateau`` is ``château``); ``local_word`` gives the word to show a reader (one token,
spaces as hyphens). English is always understood, whatever the reader's language.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from functools import cache

from engine import Age, BuildingType, Family

from .. import i18n
from ..service import BOT_LEVELS, LANGUAGES

_SEPARATORS = str.maketrans("", "", " -_'\u2019.")  # \u2019: the typographic apostrophe


def normalize(word: str) -> str:
    """The form typed words are compared in: no case, accents, spaces, hyphens, apostrophes."""
    plain = unicodedata.normalize("NFKD", word.strip())
    plain = "".join(ch for ch in plain if not unicodedata.combining(ch))
    return plain.casefold().translate(_SEPARATORS)


def token(text: str) -> str:
    """A name as one typed word: lower case, spaces as hyphens (``tour-de-guet``)."""
    return "-".join(text.lower().split())


TOPICS = ("commands", "rules", "buildings")  # the help's fixed topics (and command names)

# the values a kind of word may take, by their English spelling (their catalogue code)
_VALUES: dict[str, tuple[str, ...]] = {
    "topic": TOPICS,
    "building": tuple(b.value for b in BuildingType),
    "age": tuple(a.label.lower() for a in Age),
    "level": tuple(BOT_LEVELS),
    "language": tuple(LANGUAGES),
    "family": tuple(f.value for f in Family),
}


def _key(kind: str, code: str) -> str:
    """The catalogue key of a value's name (``choices.building.keep``, ``families.civil``)."""
    return f"families.{code}" if kind == "family" else f"choices.{kind}.{code}"
_YES = ("yes", "true", "on", "1", "oui", "vrai", "ja", "wahr", "an")
_NO = ("no", "false", "off", "0", "non", "faux", "nein", "falsch", "aus")


@cache
def spellings(kind: str) -> dict[str, str]:
    """Every typed form of ``kind``'s values in every language (normalized) → its code."""
    out: dict[str, str] = {}
    for code in _VALUES[kind]:
        out.setdefault(normalize(code), code)
        for lang in i18n.LANGUAGES:
            local = i18n.lookup(_key(kind, code), lang)
            if local:
                out.setdefault(normalize(local), code)
    return out


def read_word(kind: str, text: str, *, prefix: bool = True) -> str | None:
    """The code (English spelling) of ``kind`` that ``text`` names in any language, or None.
    ``prefix``: a unique beginning is enough (``wat``, ``tour``), as an exact word wins."""
    key = normalize(text)
    if not key:
        return None
    forms = spellings(kind)
    if key in forms:
        return forms[key]
    if not prefix:
        return None
    hits = {code for form, code in forms.items() if form.startswith(key)}
    return hits.pop() if len(hits) == 1 else None


def read_flag(text: str, name: str) -> bool | None:
    """yes/no in any language (``oui``, ``ja``), or the option's own name: True, False, None."""
    key = normalize(text)
    if key in _YES or key == normalize(name):
        return True
    if key in _NO:
        return False
    return None


def local_word(kind: str, code: str, locale: str | None) -> str:
    """The word the reader types for value ``code`` of ``kind`` (``donjon``, ``puissance``)."""
    return token(i18n.lookup(_key(kind, code), locale) or code)


def local_words(kind: str, locale: str | None,
                only: Sequence[str] | None = None) -> list[str]:
    """The reader's words for every value of ``kind`` (or those of ``only``)."""
    return [local_word(kind, code, locale) for code in (only or _VALUES[kind])]


def option_word(name: str, locale: str | None) -> str:
    """An option's name as the reader's Discord client shows it (``case``, ``feld``)."""
    return i18n.lookup(f"options.{name}", locale) or name


def read_option(word: str, names: Iterable[str]) -> str | None:
    """Which of the options ``names`` the typed ``word`` names, in any language, or None."""
    key = normalize(word)
    for name in names:
        if key == normalize(name) or any(
                key == normalize(i18n.lookup(f"options.{name}", lang) or name)
                for lang in i18n.LANGUAGES):
            return name
    return None


@cache
def name_index(kind: str, names: tuple[str, ...],
               aliases: tuple[tuple[str, str], ...] = ()) -> dict[str, str]:
    """Every typed name of the commands (``kind`` "commands") or groups ("groups") ``names``:
    English, the ``aliases``, French and German (normalized) → the English name. A name of
    one language never takes the place of another command's English name or alias."""
    out: dict[str, str] = {normalize(n): n for n in names}
    for alias, name in aliases:
        out.setdefault(normalize(alias), name)
    for lang in i18n.LANGUAGES:
        for name in names:
            local = i18n.lookup(f"{kind}.{name}.name", lang)
            if local:
                out.setdefault(normalize(local), name)
    return out
