"""``benchmarks/bench_ai.py --knob``: a variant of the search played from one command, its
constant checked before a game is played."""

from __future__ import annotations

import argparse
import random

import pytest

from ai import hard, policy
from tests.ai.benches import load_bench


def test_a_knob_is_set_in_the_module_it_names(monkeypatch: pytest.MonkeyPatch) -> None:
    bench = load_bench("bench_ai")
    monkeypatch.setattr(hard, "ROOT_BEAM", hard.ROOT_BEAM)
    monkeypatch.setattr(policy, "PLAN_SHARE", policy.PLAN_SHARE)
    knobs = [bench.parse_knob("hard.ROOT_BEAM=(6, 3, 2)"), bench.parse_knob("policy.PLAN_SHARE=1")]
    assert knobs == [("ai.hard", "ROOT_BEAM", (6, 3, 2)), ("ai.policy", "PLAN_SHARE", 1.0)]
    bench.start_worker(False, knobs)  # what each worker process runs first
    assert hard.ROOT_BEAM == (6, 3, 2)
    assert policy.PLAN_SHARE == 1.0 and isinstance(policy.PLAN_SHARE, float)


@pytest.mark.parametrize("text", [
    "hard.ROOT_BEAM",  # no value
    "ROOT_BEAM=(6, 3, 2)",  # no module
    "engine.TURN_STEPS=3",  # not a module of the search
    "hard.NO_SUCH_KNOB=1",
    "hard.choose_hard=1",  # a function, not a constant
    "hard.ROOT_PLANS=six",  # not a literal
    "hard.ROOT_PLANS=6.5",  # a float where an int is
    "hard.LEAN=1",  # an int where a bool is
])
def test_a_knob_that_is_not_a_constant_of_its_type_is_refused(text: str) -> None:
    before = (hard.ROOT_PLANS, hard.LEAN, hard.ROOT_BEAM)
    with pytest.raises(argparse.ArgumentTypeError):
        load_bench("bench_ai").parse_knob(text)
    assert before == (hard.ROOT_PLANS, hard.LEAN, hard.ROOT_BEAM)


def test_a_hard_only_knob_holds_while_hard_decides_and_only_then(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import ai.choose
    from ai import evaluate
    from engine import EndTurn, Options, current_seat, new_game, player_view

    bench = load_bench("bench_ai")
    seen: list[tuple[str, float]] = []

    def spy(level: str) -> object:
        def decide(view: object, chooser: object, budget_s: float = 0.0) -> EndTurn:
            seen.append((level, evaluate.LEADER_SHARE))
            return EndTurn()
        return decide

    before = evaluate.LEADER_SHARE
    monkeypatch.setattr(ai.choose, "choose_hard", spy("hard"))
    monkeypatch.setattr(ai.choose, "choose_normal", spy("normal"))
    monkeypatch.setattr(evaluate, "LEADER_SHARE", before)
    knob = bench.parse_knob(f"evaluate.LEADER_SHARE={before + 0.25}")
    bench.start_worker(False, [], [knob])  # what each worker process runs first
    state = new_game(Options(players=4), 5)
    seat = current_seat(state)
    assert seat is not None
    view = player_view(state, seat)
    for level in ("normal", "hard", "normal"):
        ai.choose.choose_action(view, level, 0.1, random.Random(1))
    assert seen == [("normal", before), ("hard", before + 0.25), ("normal", before)]
    assert before == evaluate.LEADER_SHARE
