"""``benchmarks/bench_choice.py``: the verdict values every plan ``hard`` weighs, and a
variant's regret is measured against it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from ai import hard

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _bench() -> ModuleType:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location("bench_choice_under_test",
                                                      BENCHMARKS / "bench_choice.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCHMARKS))


def test_the_verdict_judges_every_plan_and_a_choice_is_never_better_than_its_best() -> None:
    bench = _bench()
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
