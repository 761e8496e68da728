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
from collections.abc import Callable

import pytest

from engine import GameState, Options, apply, describe, new_game
from engine.actions import Action
from engine.events import Event
from engine.game import legal_action_list
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


GAMES = 40  # of both players, for the copy-on-write checks
UNWORDED_GAMES = 12
CHUNKS = 8  # the games are checked in this many tests, which pytest-xdist spreads


def _options(seed: int, holdem: bool = True) -> Options:
    return Options(players=2 + seed % 4, holdem=holdem and seed % 3 == 0)


Step = Callable[[GameState, int, Action, "Action | None"], GameState]


def _cow_game(seed: int, step: Step) -> None:
    """Game ``seed`` of the copy-on-write test: ``step(state, seat, action, sibling)`` applies
    each action and returns the new state; ``sibling`` (another legal action to apply to the
    same state) comes on every other action."""
    chooser = random.Random(1000 + seed)
    player = seeking_action if seed % 4 else random_action
    state = new_game(_options(seed), 500 + seed)
    n = 1
    while not state.over:
        seat, action = player(state, chooser)
        sibling = chooser.choice(legal_action_list(state, seat)) if n % 2 == 0 else None
        state = step(state, seat, action, sibling)
        n += 1


Tally = tuple[Counter[str], Counter[str]]  # the cascades, the kinds of actions and events
# What each game set off, as the checks of this process saw it (by seed), for the tallies.
SEEN: dict[int, Tally] = {}
SEEN_UNWORDED: dict[int, Counter[str]] = {}


def _count(tally: Tally, state: GameState, action: Action, events: list[Event]) -> None:
    tally[0].update(cascade_counts(events, state.turn))
    tally[1][action.kind] += 1
    tally[1].update(e.kind for e in events)


def _checked(seed: int) -> None:
    """Game ``seed`` with every check of the module docstring; keeps what it set off."""
    history: list[tuple[GameState, str]] = []
    tally: Tally = (Counter(), Counter())

    def step(state: GameState, seat: int, action: Action, sibling: Action | None) -> GameState:
        if not history:
            history.append((state, _dump(state)))
        before = history[-1][1]
        new, events = apply(state, seat, action)
        assert _dump(state) == before, f"apply changed the state it was given: {action}"
        deep, deep_events = _deep_path(state, seat, action)
        after = _dump(new)
        assert after == _dump(deep), f"copy-on-write and deep copy differ after {action}"
        assert [e.model_dump_json() for e in events] == [
            e.model_dump_json() for e in deep_events
        ]
        if sibling is not None:
            apply(state, seat, sibling)
            assert _dump(new) == after, f"a sibling ({sibling}) changed {action}'s state"
            assert _dump(state) == before, f"a sibling ({sibling}) changed their parent"
        _count(tally, state, action, events)
        history.append((new, after))
        return new

    _cow_game(seed, step)
    for old, dump in history:
        assert _dump(old) == dump, "a later move changed an earlier state of the game"
    SEEN[seed] = tally


def _seen(seed: int) -> Tally:
    """What game ``seed`` set off: as its check in this process saw it, else from the game
    played again without the checks (the same seed, hence the same game)."""
    found = SEEN.get(seed)
    if found is None:
        found = (Counter(), Counter())

        def step(state: GameState, seat: int, action: Action, _: Action | None) -> GameState:
            new, events = apply(state, seat, action)
            _count(found, state, action, events)
            return new

        _cow_game(seed, step)
    return found


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_apply_leaves_every_earlier_state_alone_and_equals_the_deep_copy_path(
    chunk: int,
) -> None:
    """Every check above, on this chunk's games (seeds ``chunk``, ``chunk + CHUNKS`` ...)."""
    for seed in range(chunk, GAMES, CHUNKS):
        _checked(seed)


def test_the_copy_on_write_games_go_where_tiles_change_in_place() -> None:
    """The games of the test above change tiles in place on every board: upgrades,
    populations, renovations, choices, demolitions, downsizing, ripples, paradoxes, junctions,
    divisions (R16-R42)."""
    tally: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for seed in range(GAMES):
        cascades, seen = _seen(seed)
        tally.update(cascades)
        kinds.update(seen)
    for kind in ("upgrade", "populate", "renovate", "choose", "demolish", "downsized"):
        assert kinds[kind] >= 5, (kind, kinds)
    for kind in ("ripple", "paradox (R29)", "junction (R31)"):
        assert tally[kind] >= 5, (kind, tally)
    assert tally["division (R36)"] >= 3, tally
    assert tally["choice by the mover (R37)"] + tally["choice by another player (R37)"] >= 5
    assert kinds["hamlet_cube"] >= 1, kinds


def _unworded_game(seed: int, checked: bool) -> Counter[str]:
    """Game ``seed`` of the test below, with its checks (``checked``) or without; returns the
    kinds of its events (and of those worded with a breakdown)."""
    chooser = random.Random(2000 + seed)
    player = seeking_action if seed % 2 else random_action
    state = new_game(_options(seed, holdem=False), 700 + seed)
    kinds: Counter[str] = Counter()
    while not state.over:
        seat, action = player(state, chooser)
        new, events = apply(state, seat, action)
        if checked:
            quiet, quiet_events = apply(state, seat, action, worded=False)
            _same_but_unworded(quiet, quiet_events, new, events)
        for e in events:
            kinds[e.kind] += 1
            kinds["with a breakdown"] += bool(e.breakdown)
        state = new
    if checked:
        SEEN_UNWORDED[seed] = kinds
    return kinds


def _same_but_unworded(
    quiet: GameState, quiet_events: list[Event], new: GameState, events: list[Event]
) -> None:
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


@pytest.mark.parametrize("chunk", range(CHUNKS // 2))
def test_unworded_apply_gives_the_same_state_and_events_without_their_english(
    chunk: int,
) -> None:
    """``apply(..., worded=False)`` (for the search): the same new state, and each event the
    same but for its empty ``text`` and ``breakdown``; its ``key``/``params`` word it as
    before, and the next worded ``apply`` is worded again (this chunk's games)."""
    for seed in range(chunk, UNWORDED_GAMES, CHUNKS // 2):
        _unworded_game(seed, checked=True)


def test_the_unworded_games_word_breakdowns_and_ripples() -> None:
    """The games of the test above (as checked in this process, else played again without
    the checks) word breakdowns and ripples (R23, R46-R49) at least ten times each."""
    kinds: Counter[str] = Counter()
    for seed in range(UNWORDED_GAMES):
        found = SEEN_UNWORDED.get(seed)
        kinds.update(found if found is not None else _unworded_game(seed, checked=False))
    assert kinds["with a breakdown"] >= 10 and kinds["rippled"] >= 10, kinds
