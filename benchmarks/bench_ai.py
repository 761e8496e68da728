"""Computer players: a tournament and the time per decision (issue 14). Prints a table.

Pairings, seats rotated so that every level plays every seat equally often:
normal vs random, normal vs easy, easy vs random (2 players), normal + three easy (4 players).
Win rate: a shared victory (R50) counts as 1/k of a win for each of the k winners. The
interval is the 95% Wilson interval over the games. Time per decision is measured for
``normal`` over all its decisions in the tournament (its later decisions of a turn reuse the
turn's plan, so the maximum is the whole-turn search).

    .venv/bin/python benchmarks/bench_ai.py            # 200 games per pairing
    .venv/bin/python benchmarks/bench_ai.py --games 20 --budget 1.0
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.ai.match import play_game
from bot.ai.policy import forget_plans

SEARCHED_S = 0.005
PAIRINGS: list[tuple[str, list[str], str]] = [
    ("normal vs random (2p)", ["normal", "random"], "normal"),
    ("normal vs easy (2p)", ["normal", "easy"], "normal"),
    ("easy vs random (2p)", ["easy", "random"], "easy"),
    ("normal + 3 easy (4p)", ["normal", "easy", "easy", "easy"], "normal"),
]


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    den = 1 + z * z / n
    return max(0.0, (centre - half) / den), min(1.0, (centre + half) / den)


def run(name: str, lineup: list[str], hero: str, games: int, budget: float,
        think: list[float], first: int = 0) -> str:
    wins = 0.0
    margins: list[int] = []
    t0 = time.perf_counter()
    n = len(lineup)
    for g in range(games):
        shift = g % n  # rotate the seats: the hero sits at every seat in turn
        levels = lineup[-shift:] + lineup[:-shift] if shift else list(lineup)
        forget_plans()
        record = play_game(levels, seed=10_000 + first + g // n, budget_s=budget)
        final = record.final
        heroes = [s for s, lv in enumerate(levels) if lv == hero]
        hero_seat = heroes[0]
        if hero_seat in final.winners:
            wins += 1 / len(final.winners)
        best_other = max(p.ecus for p in final.players if p.seat != hero_seat)
        margins.append(final.players[hero_seat].ecus - best_other)
        if hero == "normal":
            think.extend(record.think_s[hero_seat])
    lo, hi = wilson(wins, games)
    secs = time.perf_counter() - t0
    return (
        f"| {name:<22} | {games:>5} | {hero:<6} | {100 * wins / games:5.1f}% "
        f"| {100 * lo:5.1f}-{100 * hi:5.1f}% | {statistics.mean(margins):+6.1f} "
        f"| {secs / games:6.1f} s |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per pairing")
    parser.add_argument("--budget", type=float, default=1.0, help="normal's budget (s)")
    parser.add_argument("--first", type=int, default=0, help="seed offset (another batch)")
    parser.add_argument("--only", help="run only the pairings whose name contains this")
    args = parser.parse_args()
    print(f"{args.games} games per pairing (seeds from {10_000 + args.first}), normal's budget "
          f"{args.budget} s, one process", flush=True)
    print("| pairing                | games | level  | wins   | 95% interval  | margin "
          "| per game |")
    print("|---|---|---|---|---|---|---|")
    think: list[float] = []
    for name, lineup, hero in PAIRINGS:
        if args.only and args.only not in name:
            continue
        print(run(name, lineup, hero, args.games, args.budget, think, args.first), flush=True)
    if think:
        print(
            f"normal, time per decision: median {statistics.median(think):.3f} s, "
            f"max {max(think):.3f} s, p95 {statistics.quantiles(think, n=20)[18]:.3f} s "
            f"(n={len(think)})"
        )
        searched = [t for t in think if t > SEARCHED_S]
        print(
            f"normal, decisions that searched (over {SEARCHED_S * 1000:.0f} ms; the others "
            f"followed the turn's plan): median {statistics.median(searched):.3f} s, "
            f"max {max(searched):.3f} s (n={len(searched)})"
        )


if __name__ == "__main__":
    main()
