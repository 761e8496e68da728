"""Sentences and Discord timestamps built from the state; no storage, no Discord."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Any

import engine
from engine import (
    EngineError,
    Event,
    GameState,
)
from engine.state import Choice
from engine.words import elide

from .. import i18n

# --- texts ------------------------------------------------------------------------------------


# --- display names: what a player calls himself, shown as text ------------------------------
# A display name is the player's own text, pasted into the bot's posts, pings and DMs, where
# Discord reads markdown and mentions: "<@1234>" would show another member's mention, "**"
# bold, a right-to-left override would turn the rest of the line around. In a text the bot
# writes, a name is ``shown_name``: without invisible characters, every character Discord
# reads as markdown or as the start of a mention escaped with a backslash (Discord shows the
# character itself). Where nothing is read as markdown (an image, its alt text, a button's
# label), a name is ``plain_name``: the same without the backslashes.

_ZWJ = "\u200d"
_BLANKS = {"\u115f", "\u1160", "\u3164", "\uffa0", "\u2800", "\u034f"}  # look like nothing
_MARKDOWN = re.compile(r"([\\*_~|`<>\[\]@]|:(?=//))")  # and a link's scheme
_LINE_START = re.compile(r"^(?:([#>-])|(\d+)\.)")  # a heading, quote or list if first


def _invisible(name: str, i: int) -> bool:
    """Whether ``name[i]`` shows nothing or changes how the text around it reads: a control
    or format character (zero-width, direction), a line or paragraph separator, or a blank
    filler; a zero-width joiner between two symbols (an emoji sequence) is kept."""
    ch = name[i]
    if ch == _ZWJ:
        return not (0 < i < len(name) - 1 and ord(name[i - 1]) > 0x2000
                    and ord(name[i + 1]) > 0x2000)
    return ch in _BLANKS or unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")


def plain_name(name: str) -> str:
    """A display name as drawn or read out: invisible characters left out, line breaks and
    tabs as spaces; "?" when nothing visible is left."""
    spaced = "".join(" " if ch in "\n\r\t" else ch for ch in name)
    kept = "".join(ch for i, ch in enumerate(spaced) if not _invisible(spaced, i))
    return " ".join(kept.split()) or "?"


def shown_name(name: str) -> str:
    """A display name as the bot's texts show it: ``plain_name``, with every character
    Discord would read as markdown, a mention, an emoji or a link escaped, so that it shows
    as typed and notifies or formats nothing."""
    escaped = _MARKDOWN.sub(r"\\\1", plain_name(name))
    return _LINE_START.sub(lambda m: f"\\{m[1]}" if m[1] else f"{m[2]}\\.", escaped)


_SEAT_TOKEN = re.compile(r"\{P(\d+)\}")


def format_names(text: str, names: dict[int, str], lang: str | None = None) -> str:
    """Replace the engine's seat tokens (``{P0}``, ``{P1}`` …) with names in one pass, so that
    a name that itself looks like a token (a player called ``{P1}``) stays as it is. In
    French, "de {P0}" becomes "d'Ann" before a name that begins with a vowel."""
    text = elide(text, lambda token: names.get(int(token[1:])) if token[:1] == "P"
                 and token[1:].isdigit() else None, i18n.language(lang))
    return _SEAT_TOKEN.sub(lambda m: names.get(int(m[1]), m[0]), text)


def channel_link(guild_id: int | None, channel_id: int) -> str:
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}"


def when(t: float, style: str = "R") -> str:
    """A Discord timestamp: each reader sees it in his own time zone (``R``: "in 3 hours")."""
    return f"<t:{int(t)}:{style}>"


def hours_text(hours: float) -> str:
    return f"{hours:g} h"


# --- the words of the game, in a language -----------------------------------------------------
# ``lang`` is a language or Discord locale ("fr", "de", "en-US"; None is English): the game's
# (GameSettings.language) for what the table reads, the reader's (i18n.reader()) for a reply.


def say(key: str, lang: str | None, **params: Any) -> str:
    """The catalogue's sentence ``key`` in ``lang`` (bot/locales)."""
    return i18n.text(key, lang, **params)


def tell(key: str, **params: Any) -> str:
    """The sentence ``key`` for the author of the running command, in his client's language."""
    return i18n.private(key, **params)


def counted(key: str, count: int, lang: str | None, **params: Any) -> str:
    """A counted sentence: ``key.one`` for 1 (and 0 in French: "0 carte"), ``key.other`` for
    any other count."""
    one = count in (0, 1) if i18n.language(lang) == "fr" else count == 1
    return say(f"{key}.{'one' if one else 'other'}", lang, count=count, **params)


def age_name(age: engine.Age, lang: str | None) -> str:
    """Might, Faith, Reason in ``lang`` (Puissance, Foi, Raison; Macht, Glaube, Vernunft)."""
    return i18n.lookup(f"choices.age.{age.label.lower()}", lang) or age.label


_FAMILY_LETTER = {"military": "m", "religious": "r", "civil": "c"}


def cards_text(cards: Sequence[engine.Family], lang: str | None = None) -> str:
    if not cards:
        return say("cards.none", lang)
    counts = {f: sum(1 for c in cards if c is f) for f in engine.Family}
    words = ", ".join(say("cards.count", lang, count=n, family=say(f"families.{f.value}", lang))
                      for f, n in counts.items() if n)
    letters = "".join(_FAMILY_LETTER[c.value] for c in cards)
    return say("cards.list", lang, words=words, letters=letters)


def allowance_text(state: GameState, seat: int, lang: str | None = None) -> str:
    """What ``seat`` may still pay this turn on each board where an adventurer stands (R14),
    e.g. "Might: 2 cards left, Faith: 1 card left"; both adventurers on one board say it once,
    with what they may pay there together; "at most N in all" where the total binds."""
    p = state.players[seat]
    per_board = {age: engine.allowance(p, age) for age in p.adventurers}
    text = ", ".join(counted("hand.allowance", n, lang, age=age_name(age, lang))
                     for age, n in per_board.items())
    total = 2 * len(p.adventurers) - sum(p.used) - p.shared  # R14: 2 cards per adventurer
    if sum(per_board.values()) > total:
        text += say("hand.allowance_total", lang, count=max(total, 0))
    return text


def count_text(what: str, count: int, lang: str | None = None) -> str:
    """"1 Ecu", "2 Ecus", "1 card", "3 cubes" in ``lang``."""
    return counted(f"count.{what}", count, lang)


def hand_text(state: GameState, seat: int, lang: str | None = None) -> str:
    p = state.players[seat]
    ages = list(dict.fromkeys(p.adventurers))
    where = (say("hand.both", lang, age=age_name(ages[0], lang)) if len(ages) == 1
             else say("hand.and", lang).join(age_name(a, lang) for a in ages))
    text = say("hand.hand", lang, cards=cards_text(p.hand, lang),
               ecus=count_text("ecus", p.ecus, lang), cubes=count_text("cubes", p.cubes, lang),
               where=where)
    if state.turn == seat and not state.over:
        text += say("hand.this_turn", lang, allowance=allowance_text(state, seat, lang))
    if state.options.holdem:
        text += say("hand.holdem", lang, cards=cards_text(state.reserve, lang))
    return text


def status_text(state: GameState, names: dict[int, str], status: str,
                lang: str | None = None) -> str:
    lines = []
    if state.over:
        lines.append(say("status.over", lang))
    elif status == "abandoned":  # GameStatus.ABANDONED (texts.py comes before core.py)
        lines.append(say("status.abandoned", lang))
    else:
        lines.append(say("status.round", lang, round=state.round,
                         name=names.get(state.turn, "?")))
    for p in state.players:
        mark = "▶ " if p.seat == state.turn and not state.over else "  "
        where = "/".join(age_name(a, lang) for a in p.adventurers)
        lines.append(mark + say("status.player", lang, name=names.get(p.seat, "?"),
                                ecus=count_text("ecus", p.ecus, lang),
                                cards=count_text("cards", len(p.hand), lang),
                                cubes=count_text("cubes", p.cubes, lang), where=where))
        if p.seat == state.turn and not state.over:
            lines.append(say("status.this_turn", lang,
                             allowance=allowance_text(state, p.seat, lang)))
    if state.options.holdem:
        lines.append(say("status.holdem", lang, cards=cards_text(state.reserve, lang)))
    if state.pending is not None:
        who = names.get(state.pending.seat, "?")
        prompt = format_names(event_prompt(state, lang), names, lang)
        lines.append(say("status.waiting", lang, name=who, prompt=prompt))
    if state.over:
        winners = say("hand.and", lang).join(names.get(s, "?") for s in state.winners)
        lines.append(say("status.winner", lang, names=winners))
    return "\n".join(lines)


# --- the engine's sentences, in a language (engine.describe, engine.explain) ------------------


def event_sentence(event: Event, lang: str | None) -> str:
    """The event's sentence in ``lang``, seat tokens ({P0}) kept for ``format_names``."""
    return engine.describe(event, i18n.language(lang))


def breakdown_sentences(event: Event, lang: str | None) -> list[str]:
    """The lines under an event (an income's breakdown), in ``lang``."""
    return engine.describe_lines(event, i18n.language(lang))


def event_prompt(state: GameState, lang: str | None) -> str:
    """The pending choice's question in ``lang``, seat tokens kept."""
    assert state.pending is not None
    return engine.describe_prompt(state.pending, i18n.language(lang))


def choice_label(choice: Choice, lang: str | None) -> str:
    """One option of the pending choice in ``lang`` (a button's label), seat tokens kept."""
    return engine.describe_choice(choice, i18n.language(lang))


def refusal_sentence(error: EngineError, lang: str | None) -> str:
    """An engine refusal in ``lang``, seat tokens kept."""
    return engine.explain(error, i18n.language(lang))


def events_text(events: Sequence[Event], names: dict[int, str], lang: str | None = None) -> str:
    lines = []
    for ev in events:
        lines.append(format_names(event_sentence(ev, lang), names, lang))
        lines.extend("  " + format_names(b, names, lang) for b in breakdown_sentences(ev, lang))
    return "\n".join(lines)


def _rename(exc: EngineError, names: dict[int, str]) -> EngineError:
    """The engine's refusal for the author of the command: in his language, and with names
    where the engine writes seats (``{P0}``)."""
    exc.message = format_names(refusal_sentence(exc, i18n.reader()), names, i18n.reader())
    exc.args = (exc.message,)
    return exc
