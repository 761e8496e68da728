"""``benchmarks/bench_rivals.py``: the rival models against the turns really played."""

from __future__ import annotations

import pytest

from tests.ai.benches import load_bench


def test_the_whole_plain_greedy_turn_is_easys_turn_and_the_quick_one_is_not_always() -> None:
    """``easy`` plays greedy steps by the plain evaluation (docs/ai.md), so the whole plain
    model foretells each of its turns exactly; the quick careful one (``hard``'s) misses some."""
    bench = load_bench("bench_rivals")
    rows = bench.play(["easy", "easy"], 60_000)
    assert len(rows) >= 12  # seven rounds of two seats, the last turn left out
    assert all(r["whole plain"]["same"] and r["whole plain"]["errors"] == [0.0] for r in rows)
    assert not all(r["quick careful"]["same"] for r in rows)
    assert {r["seat"] for r in rows} == {0, 1} and {r["level"] for r in rows} == {"easy"}


def test_the_table_gives_each_models_exact_share_and_errors() -> None:
    bench = load_bench("bench_rivals")

    def row(errors: list[float], same: bool) -> dict[str, object]:
        exact = {"same": True, "errors": [0.0]}
        return {"level": "normal", **dict.fromkeys(bench.MODELS, exact),
                "quick careful": {"same": same, "errors": errors}}

    rows = [row([1.0, -3.0], False), row([2.0, 0.0], True)]
    table = bench.table(rows)
    quick = next(line for line in table if "| quick careful |" in line)
    # mean 0.0, mean absolute 1.5, population standard deviation of (1, -3, 2, 0): 1.87
    assert quick == "| normal | quick careful | 2 | 50% | +0.00 | 1.50 | 1.87 |"
    assert sum(1 for line in table if "| 100% | +0.00 | 0.00 | 0.00 |" in line) == 3
    assert bench.MODELS.keys() == {"quick careful", "quick plain", "whole careful",
                                   "whole plain"}
    with pytest.raises(StopIteration):
        next(line for line in table if "| easy |" in line)
