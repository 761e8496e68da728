"""The parameters of the command table: their kinds, and one parser per kind that turns what a
player typed (or Discord submitted) into the value a command needs, or refuses it with a
sentence in the reader's language that repeats at most a short excerpt of what was typed."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import engine
from engine import Age, BuildingType, Family

from .. import i18n
from ..service import BOT_LEVELS, LANGUAGES
from . import words

ParamKind = Literal["building", "square", "age", "cards", "int", "flag", "number", "topic", "hours",
                    "user", "language", "level", "seat"]

HELP_TOPICS = words.TOPICS  # and every command's name
MAX_SNOWFLAKE = 2**63  # Discord ids are 64-bit; SQLite integers are signed 64-bit
EXCERPT = 40  # characters of what the user typed that a refusal may repeat


@dataclass(frozen=True)
class UserRef:
    """A user named in a command: by id (a Discord mention ``<@123>``, or the user option's
    object, whose display name the adapter passes along) or, in the terminal, by a seated
    player's name."""

    id: int | None
    name: str | None = None

    @property
    def label(self) -> str:
        return self.name or (f"<@{self.id}>" if self.id is not None else "?")


# the fixed choices of a kind (a slash command's choices; empty when free or autocompleted)
KIND_CHOICES: dict[str, Callable[[], tuple[str, ...]]] = {
    "building": lambda: tuple(b.value for b in BuildingType),
    "age": lambda: tuple(a.label.lower() for a in Age),
    "language": lambda: LANGUAGES,
    "level": lambda: BOT_LEVELS,
}


@dataclass(frozen=True)
class Param:
    name: str
    kind: ParamKind
    description: str
    required: bool = True
    minimum: int | None = None
    maximum: int | None = None
    only: tuple[str, ...] = ()  # a subset of the kind's choices (the ages one may build on)

    @property
    def choices(self) -> tuple[str, ...]:
        """Fixed choices for a slash-command option (empty when free or autocompleted)."""
        every = KIND_CHOICES[self.kind]() if self.kind in KIND_CHOICES else ()
        return tuple(c for c in every if c in self.only) if self.only else every


class OutOfRange(ValueError):
    """A value of the parameter's kind, outside its range: a refusal, never a reason to read
    the word as the next parameter (``/create 6`` is not "reminder 6 h")."""


def excerpt(text: str) -> str:
    """What the user typed, quoted and cut to a short excerpt."""
    return repr(text if len(text) <= EXCERPT else text[:EXCERPT] + "…")


def _option_name(param: Param) -> str:
    """The option's name as the reader's Discord client shows it (``joueurs``, ``spieler``)."""
    return i18n.lookup(f"options.{param.name}", i18n.reader()) or param.name


# --- one parser per kind: (param, stripped text, raw text) -> value, or ValueError ------------

LETTERS = {"m": Family.MILITARY, "r": Family.RELIGIOUS, "c": Family.CIVIL}


def parse_cards(text: str) -> tuple[Family, ...]:
    """``"mmr"`` or ``"military,military,religious"`` -> families."""
    raw = text.strip().lower()
    if not raw or raw in ("-", "none"):
        return ()
    names = [w for w in raw.replace(",", " ").split() if w]
    out: list[Family] = []
    for w in names:
        code = words.read_word("family", w, prefix=False)  # "military", "civile", "Zivil"
        if code is not None:
            out.append(Family(code))
            continue
        for ch in w:
            if ch not in LETTERS:
                raise ValueError(i18n.private("parse.cards", value=excerpt(text)))
            out.append(LETTERS[ch])
    return tuple(out)


def _building(param: Param, t: str, text: str) -> BuildingType:
    """A building in any language, or a unique beginning of its name (``wat``, ``donj``)."""
    code = words.read_word("building", t)
    if code is None:
        names = ", ".join(words.local_words("building", i18n.reader()))
        raise ValueError(i18n.private("parse.building", value=excerpt(text), names=names))
    return BuildingType(code)


def _square(param: Param, t: str, text: str) -> str:
    try:
        engine.parse_square(t)
    except ValueError:  # the engine's English, said again in the reader's language
        on_grid = re.fullmatch(r"\s*[A-Ta-t]\s*\d{1,2}\s*", t)
        raise ValueError(i18n.private("parse.outside" if on_grid else "parse.square",
                                      value=excerpt(t))) from None
    return t.upper()


def _age(param: Param, t: str, text: str) -> Age:
    """An age in any language, or a beginning of its name (``f``, ``puis``)."""
    code = None if t.isdigit() else words.read_word("age", t)
    if code is None:
        raise ValueError(i18n.private("parse.age", value=excerpt(text)))
    return Age[code.upper()]


def _int(param: Param, t: str, text: str) -> int:
    if not t.lstrip("-").isdigit() or len(t) > 12:
        raise ValueError(i18n.private("parse.int", name=_option_name(param), value=excerpt(text)))
    value = int(t)
    if (param.minimum is not None and value < param.minimum) or (
        param.maximum is not None and value > param.maximum
    ):
        raise OutOfRange(i18n.private("parse.range", name=_option_name(param),
                                      minimum=param.minimum, maximum=param.maximum))
    return value


def _number(param: Param, t: str, text: str) -> float:
    if param.kind == "hours" and t.lower() in ("off", "none", "no"):
        return 0.0
    try:
        value = float(t)
    except ValueError:
        raise ValueError(i18n.private("parse.number", name=_option_name(param),
                                      value=excerpt(text))) from None
    if not math.isfinite(value):
        raise OutOfRange(i18n.private("parse.finite", name=_option_name(param)))
    if value < 0 or (value == 0 and param.kind == "number"):
        raise OutOfRange(i18n.private("parse.positive", name=_option_name(param)))
    if param.maximum is not None and value > param.maximum:
        raise OutOfRange(i18n.private("parse.at_most", name=_option_name(param),
                                      maximum=param.maximum))
    return value


def _user(param: Param, t: str, text: str) -> UserRef:
    match = re.fullmatch(r"<@!?(\d+)>|(\d+)", t)
    if match:
        uid = int(match.group(1) or match.group(2))
        if not 0 < uid < MAX_SNOWFLAKE:
            raise OutOfRange(i18n.private("parse.user_id", name=_option_name(param),
                                          value=excerpt(text)))
        return UserRef(uid)
    if not t:
        raise ValueError(i18n.private("parse.user", name=_option_name(param)))
    return UserRef(None, t.lstrip("@"))


def _one_of(key: str, names: tuple[str, ...]) -> Callable[[Param, str, str], str]:
    """A parser for a closed word list, in any language (refusal ``parse.<key>`` lists the
    words in the reader's)."""

    def parse(param: Param, t: str, text: str) -> str:
        word = words.read_word(key, t, prefix=False)
        if word is None or word not in names:
            shown = ", ".join(names if key == "language" else  # typed as codes: fr, de
                              words.local_words(key, i18n.reader(), names))
            raise ValueError(i18n.private(f"parse.{key}", value=excerpt(text), names=shown))
        return word

    return parse


def _topic(param: Param, t: str, text: str) -> str:
    """A help topic: one word (``rules``, ``buildings``, a command's name, in any language),
    which the help command reads (and refuses, listing the topics, when it knows none)."""
    if not t or len(t) > EXCERPT or len(t.split()) > 1:
        raise ValueError(i18n.private("parse.topic_word", value=excerpt(text)))
    return t


def _seat(param: Param, t: str, text: str) -> str:
    if not t:
        raise ValueError(i18n.private("parse.seat", name=_option_name(param)))
    return t


def _flag(param: Param, t: str, text: str) -> bool:
    value = words.read_flag(t, param.name)
    if value is None:
        raise ValueError(i18n.private("parse.flag", name=_option_name(param),
                                      value=excerpt(text)))
    return value


PARSERS: dict[str, Callable[[Param, str, str], Any]] = {
    "building": _building,
    "square": _square,
    "age": _age,
    "cards": lambda param, t, text: parse_cards(t),
    "int": _int,
    "number": _number,
    "hours": _number,
    "user": _user,
    "language": _one_of("language", LANGUAGES),
    "topic": _topic,
    "level": _one_of("level", BOT_LEVELS),
    "seat": _seat,
    "flag": _flag,
}


def convert(param: Param, text: str) -> Any:
    """One value from text; raises ValueError with a sentence for the user."""
    return PARSERS[param.kind](param, text.strip(), text)


def format_value(param: Param, value: Any) -> str:
    """The text ``convert(param, text)`` reads back as ``value``."""
    match value:
        case BuildingType():
            return value.value
        case Age():
            return value.label.lower()
        case tuple():
            letters = {f: k for k, f in LETTERS.items()}
            return "".join(letters[f] for f in value) or "-"
        case bool():
            return "yes" if value else "no"
        case UserRef():
            return f"<@{value.id}>" if value.id is not None else f"@{value.name}"
    return str(value)
