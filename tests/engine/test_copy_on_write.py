"""``apply`` shares unchanged tiles with the state it was given (copy-on-write tiles,
docs/engine.md): the given state, and every earlier state of the game, must stay exactly as they
were, and the new state must be the one a full deep copy gives.

Random games of both random players (the seeking one sets off ripples, paradoxes, junctions,
downsizing, division and the R37 choices of R32/R36; Reason gets populated and renovated,
R41/R42). After every action:

- the state ``apply`` was given dumps as it did before the call;
- the new state and the events equal those of the same plan carried out on a deep ``clone()``
  (no tile shared, so no copy-on-write at all);
- every other action, a sibling (another legal action applied to the same state, as the
  search does) leaves the new state and their parent alone.

At the end of each game every state of it still dumps as it did when it was made.
"""

from __future__ import annotations

import random
from collections import Counter

from engine import GameState, Options, apply, describe, legal_actions, new_game
from engine.actions import Action
from engine.events import Event
from engine.moves import check, execute
from engine.random_player import cascade_counts, random_action, seeking_action


def _dump(state: GameState) -> str:
    return state.model_dump_json()


def _deep_path(state: GameState, seat: int, action: Action) -> tuple[GameState, list[Event]]:
    """``apply``'s steps on a deep copy: every tile is the copy's own, nothing is shared."""
    plan = check(state, seat, action)
    new = state.clone()
    events: list[Event] = []
    execute(new, plan, events)
    new.step += 1
    return new, events


def test_apply_leaves_every_earlier_state_alone_and_equals_the_deep_copy_path() -> None:
    tally: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for seed in range(40):
        chooser = random.Random(1000 + seed)
        player = seeking_action if seed % 4 else random_action
        state = new_game(Options(players=2 + seed % 4, holdem=seed % 3 == 0), 500 + seed)
        history: list[tuple[GameState, str]] = [(state, _dump(state))]
        while not state.over:
            seat, action = player(state, chooser)
            before = history[-1][1]
            new, events = apply(state, seat, action)
            assert _dump(state) == before, f"apply changed the state it was given: {action}"
            deep, deep_events = _deep_path(state, seat, action)
            after = _dump(new)
            assert after == _dump(deep), f"copy-on-write and deep copy differ after {action}"
            assert [e.model_dump_json() for e in events] == [
                e.model_dump_json() for e in deep_events
            ]
            if len(history) % 2 == 0:
                sibling = chooser.choice(legal_actions(state, seat))
                apply(state, seat, sibling)
                assert _dump(new) == after, f"a sibling ({sibling}) changed {action}'s state"
                assert _dump(state) == before, f"a sibling ({sibling}) changed their parent"
            tally += cascade_counts(events, state.turn)
            kinds[action.kind] += 1
            kinds.update(e.kind for e in events)
            state = new
            history.append((state, after))
        for old, dump in history:
            assert _dump(old) == dump, "a later move changed an earlier state of the game"
    # The games went where copy-on-write matters: tiles changed in place on every board.
    for kind in ("upgrade", "populate", "renovate", "choose", "demolish", "downsized"):
        assert kinds[kind] >= 5, (kind, kinds)
    for kind in ("ripple", "paradox (R29)", "junction (R31)"):
        assert tally[kind] >= 5, (kind, tally)
    assert tally["division (R36)"] >= 3, tally
    assert tally["choice by the mover (R37)"] + tally["choice by another player (R37)"] >= 5
    assert kinds["hamlet_cube"] >= 1, kinds


def test_unworded_apply_gives_the_same_state_and_events_without_their_english() -> None:
    """``apply(..., worded=False)`` (for the search): the same new state, and each event the
    same but for its empty ``text`` and ``breakdown``; its ``key``/``params`` word it as
    before, and the next worded ``apply`` is worded again."""
    kinds: Counter[str] = Counter()
    for seed in range(12):
        chooser = random.Random(2000 + seed)
        player = seeking_action if seed % 2 else random_action
        state = new_game(Options(players=2 + seed % 4), 700 + seed)
        while not state.over:
            seat, action = player(state, chooser)
            quiet, quiet_events = apply(state, seat, action, worded=False)
            new, events = apply(state, seat, action)
            assert _dump(quiet) == _dump(new)
            assert len(quiet_events) == len(events)
            for q, e in zip(quiet_events, events, strict=True):
                assert e.text, e
                assert (q.text, q.breakdown) == ("", [])
                assert q == e.model_copy(update={"text": "", "breakdown": []})
                filled = q.model_copy(update={"text": e.text, "breakdown": e.breakdown})
                assert filled.model_dump_json() == e.model_dump_json()
                assert describe(q) == e.text
                assert describe(q, "fr") == describe(e, "fr")
                kinds[e.kind] += 1
                kinds["with a breakdown"] += bool(e.breakdown)
            state = new
    assert kinds["with a breakdown"] >= 10 and kinds["rippled"] >= 10, kinds
