"""The legal actions generated per kind from cached tables equal the plain reference
(tests/engine/reference_legal.py: the engine's listing before), action for action and in the
same order, on thousands of positions of uniform and scenario-seeking random games (2-5 players,
Hold'em in a third; pending R37 decisions included), for the seat to act and for every other
seat (nothing). The games are split in chunks that pytest-xdist spreads over the cores.

KHRONOS_LONG_RUN=N plays N games per chunk instead of the CI default."""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Iterator

import pytest

from engine import (
    Choose,
    Construct,
    Demolish,
    EndTurn,
    Exchange,
    GameState,
    HoldemSwap,
    Options,
    Populate,
    Renovate,
    Travel,
    Upgrade,
    apply,
    current_seat,
    legal_actions,
    new_game,
)
from engine.game import iter_legal_specs
from engine.random_player import random_action, seeking_action

from .reference_legal import reference_specs

CHUNKS = 8
GAMES_PER_CHUNK = int(os.environ.get("KHRONOS_LONG_RUN") or 6)


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


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_generated_legal_actions_equal_the_reference_in_order(chunk: int) -> None:
    """R8-R42: every legal action (cards, travel, construct, upgrade, demolish, Reason, end of
    turn, R37 choices) is listed exactly as the reference lists it, in the same order, as
    (class, fields) and as actions; every other seat has none."""
    kinds: Counter[str] = Counter()
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
            built = [cls.model_construct(**fields) for cls, fields in wanted]
            assert [repr(a) for a in actions] == [repr(a) for a in built], (state.step, seat)
            assert [a.model_fields_set for a in actions] == [a.model_fields_set for a in built]
            assert (seat == current_seat(state)) or not specs, (state.step, seat)
            kinds.update(str(c.model_fields["kind"].default) for c, _ in specs)
    assert positions >= 300, positions
    for cls in (Exchange, HoldemSwap, Travel, Construct, Upgrade, Demolish, Populate, Renovate,
                EndTurn, Choose):
        assert kinds[cls.model_fields["kind"].default] > 0, (cls, kinds)
