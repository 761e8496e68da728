"""The legal actions generated per kind from cached tables equal the plain reference
(tests/engine/reference_legal.py: the engine's listing before), action for action and in the
same order, on thousands of positions of uniform and scenario-seeking random games (2-5 players,
Hold'em in a third; pending R37 decisions included), for the seat to act and for every other
seat (nothing): as (class, fields), as actions, through ``LegalActions`` (length, any index,
per kind, the same random pick) and through the autocomplete queries. The games are split in
chunks that pytest-xdist spreads over the cores.

KHRONOS_LONG_RUN=N plays N games per chunk instead of the CI default."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator, Sequence
from typing import Any, get_args

import pytest

from engine import (
    Age,
    BuildingType,
    Demolish,
    GameState,
    Options,
    Populate,
    Renovate,
    apply,
    construct_options,
    current_seat,
    demolish_options,
    legal_actions,
    new_game,
    reason_options,
    upgrade_options,
)
from engine.actions import Action
from engine.game import iter_legal_specs, legal_action_list
from engine.random_player import random_action, seeking_action

from .reference_legal import (
    Spec,
    reference_construct_options,
    reference_specs,
    reference_upgrade_options,
)

CHUNKS = 8
GAMES_PER_CHUNK = int(os.environ.get("KHRONOS_LONG_RUN") or 6)
OPTIONS_EVERY = 5  # the autocomplete queries on one position in this many
KIND_OF = {cls: str(cls.model_fields["kind"].default) for cls in get_args(get_args(Action)[0])}
KINDS = list(KIND_OF.values())


def _kind(spec: Spec) -> str:
    return KIND_OF[spec[0]]


def _positions(chunk: int) -> Iterator[GameState]:
    """Every state of this chunk's games, the even seeds uniform, the odd ones seeking."""
    for g in range(chunk * GAMES_PER_CHUNK, (chunk + 1) * GAMES_PER_CHUNK):
        player = seeking_action if g % 2 else random_action
        chooser = random.Random(7000 + g)
        state = new_game(Options(players=2 + g % 4, holdem=g % 3 == 0), 9000 + g)
        while not state.over:
            yield state
            seat, action = player(state, chooser)
            state, _ = apply(state, seat, action)
        yield state


def _same_action(got: Action, cls: type[Action], fields: dict[str, Any]) -> Action:
    """``got`` is the object ``cls.model_construct(**fields)`` makes, attribute for attribute;
    returns the one made."""
    made = cls.model_construct(**fields)
    assert type(got) is cls and got == made and hash(got) == hash(made)
    assert list(got.__dict__.items()) == list(made.__dict__.items())
    assert got.model_fields_set == made.model_fields_set
    assert (got.__pydantic_extra__, got.__pydantic_private__) == (None, None)
    assert made.__pydantic_extra__ is None and made.__pydantic_private__ is None
    return made


def _sequence_agrees(
    state: GameState,
    seat: int,
    wanted: list[Spec],
    wanted_actions: list[Action],
    rnd: random.Random,
) -> None:
    """``LegalActions``: its length, any index (negative too), slices, iteration, each kind,
    the counts per kind and ``random.Random.choice`` agree with the reference list
    (``wanted_actions``: its actions, made from it; ``legal_actions`` was found equal to them)."""
    legal = legal_action_list(state, seat)
    n = len(wanted)
    assert len(legal) == n
    for i in {0, n - 1, *rnd.sample(range(n), min(n, 12))} if n else set():
        assert legal.spec(i) == wanted[i] and legal.spec(i - n) == wanted[i], i
        _same_action(legal[i], *wanted[i])
    for i in (n, -n - 1):
        with pytest.raises(IndexError):
            legal[i]
    assert legal[1:4] == wanted_actions[1:4] and legal[::-7] == wanted_actions[::-7]
    assert isinstance(legal, Sequence) and list(legal) == wanted_actions
    by_kind: dict[str, list[Spec]] = {}
    for spec in wanted:
        by_kind.setdefault(_kind(spec), []).append(spec)
    counts = legal.counts()
    assert list(counts) == list(by_kind)  # the kinds in the reference's order
    for kind in KINDS:
        of_kind = by_kind.get(kind, [])
        assert list(legal.specs(kind)) == of_kind, kind
        assert counts.get(kind, 0) == len(of_kind)
    if n:
        k = rnd.randrange(10**6)
        assert random.Random(k).choice(legal_action_list(state, seat)) == random.Random(
            k
        ).choice(wanted_actions)


def _options_agree(state: GameState, seat: int, wanted: list[Spec]) -> None:
    """The autocomplete queries equal the reference's, in the same order."""
    for age in Age:
        for btype in BuildingType:
            got = construct_options(state, seat, age, btype)
            assert got == reference_construct_options(state, seat, age, btype), (age, btype)
        assert upgrade_options(state, seat, age) == reference_upgrade_options(state, seat, age)
        demolitions = [f["square"] for c, f in wanted if c is Demolish and f["age"] is age]
        assert demolish_options(state, seat, age) == demolitions
    for kind, cls in (("populate", Populate), ("renovate", Renovate)):
        squares = [f["square"] for c, f in wanted if c is cls]
        assert reason_options(state, seat, kind) == list(dict.fromkeys(squares))


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_generated_legal_actions_equal_the_reference_in_order(chunk: int) -> None:
    """R8-R42: every legal action (cards, travel, construct, upgrade, demolish, Reason, end of
    turn, R37 choices) is listed exactly as the reference lists it, in the same order, as
    (class, fields), as actions and through ``LegalActions``; every other seat has none; the
    autocomplete queries (R15, R16, R22, R41, R42) answer as before."""
    rnd = random.Random(chunk)
    seen: dict[str, int] = {}
    positions = 0
    for state in _positions(chunk):
        positions += 1
        for seat in range(len(state.players)):
            wanted = list(reference_specs(state, seat))
            specs = list(iter_legal_specs(state, seat))
            assert [(c, list(f.items())) for c, f in specs] == [
                (c, list(f.items())) for c, f in wanted
            ], (state.step, seat)
            actions = legal_actions(state, seat)
            assert len(actions) == len(wanted)
            made = [
                _same_action(got, cls, fields)
                for got, (cls, fields) in zip(actions, wanted, strict=True)
            ]
            _sequence_agrees(state, seat, wanted, made, rnd)
            assert (seat == current_seat(state)) or not specs, (state.step, seat)
            if positions % OPTIONS_EVERY == 0 or state.pending is not None:
                _options_agree(state, seat, wanted)
            for spec in specs:
                seen[_kind(spec)] = seen.get(_kind(spec), 0) + 1
    assert positions >= 40 * GAMES_PER_CHUNK, positions
    assert set(seen) == set(KINDS), seen  # every kind of action was listed
