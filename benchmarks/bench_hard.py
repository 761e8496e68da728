"""``hard``'s search speed and the coach's latency: prints the figures docs/ai.md reports.

- ``hard``'s search on fixed positions (the turn starts of games between easy computers, 2 and
  4 players): the time per search, the work units per second and the search iterations per
  second (an iteration: a deal of the hidden cards, a root plan, the replies to the next
  income). The positions and the work are the same on every run (the search is bounded by
  work units), so the time alone moves with the engine's speed: run it before and after an
  engine change to compare.
- the coach (``ai.coach.hints``) at the default budget over the same positions: latency
  median and p95 (what ``/hint`` waits for, before its words are sent).

    .venv/bin/python benchmarks/bench_hard.py                # budget: the setting's default
    .venv/bin/python benchmarks/bench_hard.py --budget 2 --positions 10
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_ai import use_cpu_clock

from ai import hard
from ai.choose import choose_action
from ai.coach import hints
from ai.policy import forget_plans
from ai.work import WORK
from bot.settings import Settings
from engine import GameState, Options, PlayerView, apply, current_seat, new_game, player_view


def turn_views(players: int, seed: int, every: int) -> list[PlayerView]:
    """The views at every ``every``-th turn start of a game between easy computers."""
    state: GameState = new_game(Options(players=players), seed)
    chooser = random.Random(seed)
    out: list[PlayerView] = []
    turns = 0
    while not state.over:
        seat = current_seat(state)
        assert seat is not None
        view = player_view(state, seat)
        turn = state.turn
        state, _ = apply(state, seat, choose_action(view, "easy", 0, chooser))
        if not state.over and state.turn != turn and state.pending is None:
            turns += 1
            if turns % every == 0:
                out.append(player_view(state, state.turn))
    return out


def p95(values: list[float]) -> float:
    """The value 95% of ``values`` do not exceed (as bench_hint counts it: never under the
    median, the maximum of fewer than 20)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--budget", type=float, default=None,
                        help="budget in seconds (default: KHRONOS_COMPUTER_BUDGET's)")
    parser.add_argument("--positions", type=int, default=12, help="positions per game size")
    parser.add_argument("--cpu-clock", action="store_true",
                        help="every clock (budgets, stops, timings) counts this process's CPU "
                             "time: one core's figures on a machine others are loading")
    args = parser.parse_args()
    if args.cpu_clock:
        use_cpu_clock()
    budget = args.budget
    if budget is None:
        budget = Settings.model_fields["computer_budget"].default
    speed = hard.machine_speed()
    work = budget * hard.THINK_FACTOR * speed
    budgets = ", ".join(f"{n} players {work * u:.0f}" for n, u in hard.UNITS_PER_S.items())
    print(f"hard's budget {budget} s, thought {hard.THINK_FACTOR:g} times, this machine's speed "
          f"{speed:g} (ai/hard.py machine_speed), in work units: {budgets}")
    print("| players | searches | time median | max | units/s | iterations | iterations/s |")
    print("|---|---|---|---|---|---|---|")
    coach: list[float] = []
    for players, seed, every in ((2, 501, 1), (4, 502, 2)):
        views = turn_views(players, seed, every)[: args.positions]
        times: list[float] = []
        its: list[int] = []
        units: list[float] = []
        for k, view in enumerate(views):
            forget_plans()
            search = hard.Search(view, random.Random(k), budget)
            start, t0 = WORK.units, time.perf_counter()
            search.run()
            times.append(time.perf_counter() - t0)
            units.append(WORK.units - start)
            its.append(search.iterations)
            t0 = time.perf_counter()
            hints(view, "hard", budget, seed=k)
            coach.append(time.perf_counter() - t0)
        total = sum(times)
        print(f"| {players} | {len(views)} | {statistics.median(times):.2f} s | "
              f"{max(times):.2f} s | {sum(units) / total:.0f} | {statistics.median(its):.0f} | "
              f"{sum(its) / total:.1f} |")
    print(f"\ncoach (hints at level hard), {len(coach)} positions: median "
          f"{statistics.median(coach):.2f} s, p95 {p95(coach):.2f} s, max {max(coach):.2f} s")


if __name__ == "__main__":
    main()
