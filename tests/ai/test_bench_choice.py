"""``benchmarks/bench_choice.py``: the verdict values every plan ``hard`` weighs, and a
variant's regret is measured against it."""

from __future__ import annotations

from ai import hard
from tests.ai.benches import load_bench


def test_the_verdict_judges_every_plan_and_a_choice_is_never_better_than_its_best() -> None:
    bench = load_bench("bench_choice")
    stops = hard.HARD_CAP_S, hard.HARD_FACTOR, hard.HARD_FLOOR_S
    views = bench.turn_views(4, 3, 4)[:3]
    judged = bench.verdict(views, 0.1, 2)
    restored = hard.HARD_CAP_S, hard.HARD_FACTOR, hard.HARD_FLOOR_S
    assert restored == stops, "the wall-clock stops are back"
    assert judged and all(len(values) >= 2 for values in judged.values())
    found, missing = bench.regrets(views, judged, 0.1)
    assert len(found) + missing == len(judged)
    spread = max(max(v.values()) - min(v.values()) for v in judged.values())
    assert found and all(0.0 <= regret <= spread for regret in found)
