"""``hard``'s choice of its turn on fixed positions, against the verdict of a long search.

A tournament needs hundreds of games to tell two variants of the search apart (a game's result
varies with the deal far more than with one decision). This measures the decision itself: on
fixed turn starts (games between easy computers), every root plan ``hard`` weighs is valued by
a long search, the "verdict": the plan played on ``--deals`` deals of the hidden cards of its
own, every rival then playing its greedy turn (as the search models them) to the next income,
scored by the evaluation. A variant's **regret** at a position is the verdict's best value less
the verdict's value of the plan the variant chose; lower is better, 0 is the verdict's choice.
The verdict is the search's model, not the game's truth: use it to find the variants worth a
tournament, not instead of one.

    .venv/bin/python benchmarks/bench_choice.py --verdict /tmp/v4.json     # about 6 CPU-minutes
    .venv/bin/python benchmarks/bench_choice.py --verdict /tmp/v4.json --knob hard.PRIOR_SHARE=0.6

The verdict is computed once and kept in ``--verdict`` (a JSON file); later runs read it. A
position whose chosen plan the verdict did not value (the plans depend on the clock only past
the wall-clock stop) is counted as missing.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_ai import parse_knob, set_knobs, use_cpu_clock
from bench_hard import turn_views

from ai import hard
from ai.evaluate import evaluate_all
from ai.policy import CAREFUL
from engine import PlayerView

SEEDS = (3, 4, 5, 6, 7)  # the games the positions come from
VERDICT_SEED = 10_000  # the verdict's deals: none of them is one the variant searched on


def positions(players: int, per_game: int) -> list[PlayerView]:
    """Every fourth turn start of each game, ``per_game`` of each."""
    out: list[PlayerView] = []
    for seed in SEEDS:
        out += turn_views(players, seed, 4)[:per_game]
    return out


def plan_value(search: hard.Search, seat: int, actions: hard.Turn, deals: int) -> float:
    """The plan's mean evaluation over ``deals`` deals, every later turn greedy."""
    total = 0.0
    for deal in range(deals):
        state = search.play_out(search.play_turn(search.sample(deal), seat, actions), 0)
        total += evaluate_all(state, CAREFUL)[seat]
    return total / deals


def verdict(views: list[PlayerView], budget: float, deals: int) -> dict[str, dict[str, float]]:
    """Position index -> each root plan (its repr) -> its value, for the positions where
    ``hard`` has a choice to make."""
    stops = hard.HARD_CAP_S, hard.HARD_FACTOR, hard.HARD_FLOOR_S
    hard.HARD_CAP_S = hard.HARD_FACTOR = hard.HARD_FLOOR_S = 1e9  # no wall-clock stop
    try:
        return _verdict(views, budget, deals)
    finally:
        hard.HARD_CAP_S, hard.HARD_FACTOR, hard.HARD_FLOOR_S = stops


def _verdict(views: list[PlayerView], budget: float, deals: int) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for i, view in enumerate(views):
        plans = hard.Search(view, random.Random(i), budget).plan_root()
        if len(plans) < 2 or all(p.state.over for p in plans):
            continue
        judge = hard.Search(view, random.Random(VERDICT_SEED + i), budget)
        start = time.perf_counter()
        out[str(i)] = {repr(tuple(p.actions)): plan_value(judge, view.seat, tuple(p.actions),
                                                          deals) for p in plans}
        print(f"verdict of position {i}: {len(plans)} plans, "
              f"{time.perf_counter() - start:.1f} s", flush=True)
    return out


def regrets(views: list[PlayerView], judged: dict[str, dict[str, float]],
            budget: float) -> tuple[list[float], int]:
    """The variant's regret at each judged position, and how many choices were not judged."""
    out: list[float] = []
    missing = 0
    for key, values in sorted(judged.items(), key=lambda kv: int(kv[0])):
        i = int(key)
        ranked = hard.Search(views[i], random.Random(i), budget).run()
        chosen = repr(tuple(ranked[0][0].actions))
        if chosen not in values:
            missing += 1
            continue
        out.append(max(values.values()) - values[chosen])
    return out, missing


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--verdict", required=True, help="JSON file of the verdict (made once)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--per-game", type=int, default=5, help="positions of each game")
    parser.add_argument("--deals", type=int, default=16, help="the verdict's deals per plan")
    parser.add_argument("--budget", type=float, default=0.8, help="hard's budget in seconds")
    parser.add_argument("--cpu-clock", action="store_true",
                        help="every clock counts this process's CPU time (a loaded machine)")
    parser.add_argument("--knob", type=parse_knob, action="append", default=[],
                        help="set a constant of ai.hard, ai.policy or ai.evaluate (the variant)")
    args = parser.parse_args()
    if args.cpu_clock:
        use_cpu_clock()
    views = positions(args.players, args.per_game)
    path = Path(args.verdict)
    if not path.exists():
        path.write_text(json.dumps(verdict(views, args.budget, args.deals)), encoding="utf-8")
    judged = json.loads(path.read_text(encoding="utf-8"))
    set_knobs(args.knob)  # after the verdict: it judges with the search's own model
    for module, attr, value in args.knob:
        print(f"knob: {module}.{attr} = {value!r}")
    found, missing = regrets(views, judged, args.budget)
    if not found:
        print("no judged position: nothing to report")
        return
    exact = sum(1 for r in found if r < 1e-9)
    print(f"{args.players} players, {len(found)} positions ({missing} choices not judged): "
          f"mean regret {statistics.mean(found):.3f} Ecus, max {max(found):.2f}, "
          f"the verdict's best chosen at {exact}")


if __name__ == "__main__":
    main()
