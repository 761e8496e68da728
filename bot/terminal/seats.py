"""Who sits at a terminal game: the players' names from the flags (``--players``, ``--names``,
``--bots``), checked before anything is opened, and whether a saved game fits the flags given.
Every refusal is one sentence in the terminal's language (``LocalError``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .. import i18n
from ..commands import excerpt
from ..service import GameInfo

NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve")
MIN_PLAYERS, MAX_PLAYERS = 2, 5
MAX_NAME = 32  # as long as a Discord display name

_NAME = re.compile(r"[^\W_][\w'.-]*")


class LocalError(ValueError):
    """The terminal game cannot start as asked; ``str()`` is one sentence for the user."""


def _say(key: str, lang: str | None, **params: object) -> str:
    return i18n.text(f"terminal.{key}", lang, **params)


def _players(count: int, lang: str | None) -> LocalError:
    return LocalError(_say("players", lang, low=MIN_PLAYERS, high=MAX_PLAYERS, count=count))


def people_names(players: int | None, names: Sequence[str] | None, bots: int,
                 lang: str | None = None) -> list[str]:
    """The people's names of a new terminal game with ``bots`` computers: ``players`` counts
    every seat (default 3, or the names and the computers). Without computers, every seat's
    (``seat_names``). The entry point checks the flags with it, and ``run_local`` seats them."""
    if not bots:
        return seat_names(players, names, lang)
    total = (3 if names is None else len(names) + bots) if players is None else players
    if not MIN_PLAYERS <= total <= MAX_PLAYERS:
        raise _players(total, lang)
    people = total - bots
    if people < 1 or bots < 0:
        raise LocalError(_say("no_person", lang, bots=bots, total=total))
    if names is None:
        return list(NAMES[:people])
    padding = [f"Seat{i}" for i in range(len(names), MIN_PLAYERS)]  # seat_names wants two
    chosen = seat_names(None, [*names, *padding], lang)[:len(names)]
    if len(chosen) != people:
        raise LocalError(_say("bots_names", lang, total=total, bots=bots, people=people,
                              named=len(chosen)))
    return chosen


def seat_names(players: int | None, names: Sequence[str] | None,
               lang: str | None = None) -> list[str]:
    """The players' names of a new terminal game: ``names`` if given (then ``players``, if also
    given, must match their number), else the first ``players`` default names (3 if neither).

    Raises LocalError naming what is wrong: a count outside 2-5, a count that does not match
    the names, an empty or duplicate name, or one that ``/as NAME`` could not address."""
    if names is None:
        count = 3 if players is None else players
        if not MIN_PLAYERS <= count <= MAX_PLAYERS:
            raise _players(count, lang)
        return list(NAMES[:count])
    chosen = [n.strip() for n in names]
    if not MIN_PLAYERS <= len(chosen) <= MAX_PLAYERS:
        one = len(chosen) == 1
        counted = i18n.text(f"count.names.{'one' if one else 'other'}", lang, count=len(chosen))
        raise LocalError(_say("names_count", lang, names=counted, low=MIN_PLAYERS,
                              high=MAX_PLAYERS))
    if players is not None and players != len(chosen):
        raise LocalError(_say("names_players", lang, players=players, count=len(chosen),
                              names=", ".join(map(short_name, chosen))))
    seen: dict[str, str] = {}
    for name in chosen:
        if not name:
            raise LocalError(_say("empty_name", lang))
        if len(name) > MAX_NAME or not _NAME.fullmatch(name):
            raise LocalError(_say("bad_name", lang, name=excerpt(name), max=MAX_NAME))
        if name.casefold() in seen:
            raise LocalError(_say("same_names", lang, first=excerpt(seen[name.casefold()]),
                                  second=excerpt(name)))
        seen[name.casefold()] = name
    return chosen


def short_name(name: str) -> str:
    """A name as typed, or an excerpt of it when it is longer than a name may be."""
    return name if len(name) <= MAX_NAME else excerpt(name)


def flag_text(flag: str, value: object) -> str:
    """A flag as typed: ``--players 4``, ``--names Al,Bo``, ``--holdem``."""
    if value is True:
        return flag
    if isinstance(value, list | tuple):
        return f"{flag} {','.join(map(str, value))}"
    return f"{flag} {value}"


def matches(info: GameInfo, flag: str, value: object) -> bool:
    """Whether the saved game already is what new-game ``flag`` asks for."""
    by_user = [s.name for s in sorted(info.seats, key=lambda s: s.user_id)]
    if flag == "--players":
        return value == len(info.seats)
    if flag == "--names":
        return isinstance(value, list | tuple) and list(value) == by_user
    if flag == "--holdem":
        return value == info.settings.holdem
    return False  # --seed: the saved game's seed is not known here


def not_fitting(info: GameInfo, asked: dict[str, object], lang: str | None) -> LocalError | None:
    """Why a saved game cannot resume with the new-game flags ``asked`` (by flag), or None."""
    ignored = [flag_text(flag, value) for flag, value in asked.items()
               if not matches(info, flag, value)]
    if not ignored:
        return None
    one = len(ignored) == 1
    return LocalError(_say(
        "saved_game", lang, id=info.game_id, names=", ".join(s.name for s in info.seats),
        flags=" ".join(ignored), verb=_say("does" if one else "do", lang),
        them=_say("it" if one else "them", lang)))
