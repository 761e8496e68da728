"""Shorthand for engine tests."""

from __future__ import annotations

import pytest

from engine import (
    Age,
    BuildingType,
    EngineError,
    Event,
    GameState,
    apply,
    check,
    explain,
    invariant_problems,
)
from engine.actions import Action
from engine.builder import tile_at
from engine.state import Decision, Tile

M, F, R = Age.MIGHT, Age.FAITH, Age.REASON


def play(state: GameState, seat: int, action: Action) -> tuple[GameState, list[Event]]:
    """Apply, and assert the result is sound."""
    new, events = apply(state, seat, action)
    assert invariant_problems(new) == [], invariant_problems(new)
    return new, events


def refused(state: GameState, seat: int, action: Action, rule: str) -> EngineError:
    """Assert the action is refused for ``rule`` and that nothing changed."""
    before = state.model_dump_json()
    with pytest.raises(EngineError) as info:
        apply(state, seat, action)
    with pytest.raises(EngineError):
        check(state, seat, action)
    assert state.model_dump_json() == before
    assert info.value.rule == rule, (info.value.rule, info.value.message)
    assert info.value.message.startswith(rule) or rule in ("R8", "R50")
    # the refusal is worded in every language: English exactly as the message (engine/words.py)
    assert explain(info.value, "en") == info.value.message
    for lang in ("fr", "de"):
        assert rule in explain(info.value, lang) or rule not in info.value.message
    return info.value


def tile(state: GameState, age: Age, square: str) -> Tile:
    """The tile covering ``square`` on ``age``; asserts there is one."""
    t = tile_at(state, age, square)
    assert t is not None, f"no tile at {square} on {age.name}"
    return t


def decision(state: GameState) -> Decision:
    """The pending decision (R37); asserts there is one."""
    assert state.pending is not None, "no pending decision"
    return state.pending


def kind_at(state: GameState, age: Age, square: str) -> BuildingType | None:
    t = tile_at(state, age, square)
    return t.type if t is not None else None


def texts(events: list[Event]) -> str:
    return "\n".join(e.text for e in events)
