"""Sentences and Discord timestamps built from the state; no storage, no Discord."""

from __future__ import annotations

import re
from collections.abc import Sequence

import engine
from engine import (
    EngineError,
    Event,
    GameState,
)

# --- texts ------------------------------------------------------------------------------------


_SEAT_TOKEN = re.compile(r"\{P(\d+)\}")


def format_names(text: str, names: dict[int, str]) -> str:
    """Replace the engine's seat tokens (``{P0}``, ``{P1}`` …) with names in one pass, so that
    a name that itself looks like a token (a player called ``{P1}``) stays as it is."""
    return _SEAT_TOKEN.sub(lambda m: names.get(int(m[1]), m[0]), text)


def channel_link(guild_id: int | None, channel_id: int) -> str:
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}"


def when(t: float, style: str = "R") -> str:
    """A Discord timestamp: each reader sees it in his own time zone (``R``: "in 3 hours")."""
    return f"<t:{int(t)}:{style}>"


def hours_text(hours: float) -> str:
    return f"{hours:g} h"


_FAMILY_LETTER = {"military": "m", "religious": "r", "civil": "c"}


def cards_text(cards: Sequence[engine.Family]) -> str:
    if not cards:
        return "no cards"
    counts = {f: sum(1 for c in cards if c is f) for f in engine.Family}
    words = ", ".join(f"{n} {f.value}" for f, n in counts.items() if n)
    letters = "".join(_FAMILY_LETTER[c.value] for c in cards)
    return f"{words} ({letters})"


def allowance_text(state: GameState, seat: int) -> str:
    """What each adventurer of ``seat`` may still pay this turn (R14), e.g. "adventurer 1 on
    Might: 2 more cards, adventurer 2 on Faith: 1 more card" (and the total where it binds)."""
    p = state.players[seat]
    parts = []
    for i, age in enumerate(p.adventurers):
        n = engine.adventurer_left(p, i)
        parts.append(f"adventurer {i + 1} on {age.label}: {n} more card{'' if n == 1 else 's'}")
    text = ", ".join(parts)
    if len(set(p.adventurers)) == 1:  # both on one board: the pair pays together
        n = engine.allowance(p, p.adventurers[0])
        text += f" ({n} in all on {p.adventurers[0].label})"
    return text


def hand_text(state: GameState, seat: int) -> str:
    p = state.players[seat]
    where = " and ".join(a.label for a in p.adventurers)
    text = (
        f"Your hand: {cards_text(p.hand)}. {p.ecus} Ecus, {p.cubes} cubes, "
        f"adventurers on {where}."
    )
    if state.turn == seat and not state.over:
        text += f" This turn (R14): {allowance_text(state, seat)}."
    if state.options.holdem:
        text += f" Face-up (Hold'em): {cards_text(state.reserve)}."
    return text


def status_text(state: GameState, names: dict[int, str], status: str) -> str:
    lines = []
    if state.over:
        lines.append("The game is over. Final fortunes:")
    elif status == "abandoned":  # GameStatus.ABANDONED (texts.py comes before core.py)
        lines.append("This game was abandoned.")
    else:
        lines.append(f"Round {state.round} of 7: {names.get(state.turn, '?')}'s turn.")
    for p in state.players:
        mark = "▶ " if p.seat == state.turn and not state.over else "  "
        where = "/".join(a.label for a in p.adventurers)
        lines.append(
            f"{mark}{names.get(p.seat, '?')}: {p.ecus} Ecus, {len(p.hand)} cards, "
            f"{p.cubes} cubes, adventurers {where}"
        )
        if p.seat == state.turn and not state.over:
            lines.append(f"    this turn (R14): {allowance_text(state, p.seat)}")
    if state.options.holdem:
        lines.append(f"Face-up cards: {cards_text(state.reserve)}")
    if state.pending is not None:
        who = names.get(state.pending.seat, "?")
        prompt = format_names(state.pending.prompt, names)
        lines.append(f"Waiting for {who} to choose: {prompt}")
    if state.over:
        lines.append("Winner: " + " and ".join(names.get(s, "?") for s in state.winners))
    return "\n".join(lines)


def events_text(events: Sequence[Event], names: dict[int, str]) -> str:
    lines = []
    for ev in events:
        lines.append(format_names(ev.text, names))
        lines.extend("  " + format_names(b, names) for b in ev.breakdown)
    return "\n".join(lines)


def _rename(exc: EngineError, names: dict[int, str]) -> EngineError:
    """The engine writes seats as ``{P0}``; the user reads names."""
    exc.message = format_names(exc.message, names)
    exc.args = (exc.message,)
    return exc
