"""Computer players: a tournament and the time per decision. Prints a table.

Pairings, seats rotated so that every level plays every seat equally often:
normal vs easy, normal + three easy (4 players), normal vs random, easy vs random (2 players),
in that order (the pairings whose targets are in doubt first). Win rate: a shared victory
(R50) counts as 1/k of a win for each of the k winners. The interval is the 95% Wilson
interval over the games. Time per decision is measured for ``normal`` over all its decisions
(its later decisions of a turn follow the turn's plan and take no time, so the figure that
matters is over the decisions that searched).

Every finished game is appended to ``--log`` as one JSON line as soon as it ends, so a run
that is stopped keeps what it played; ``--table LOG`` prints the table of a log (a partial
run included) without playing.

    .venv/bin/python benchmarks/bench_ai.py            # 200 games per pairing
    .venv/bin/python benchmarks/bench_ai.py --games 20 --budget 0.5 --workers 2
    .venv/bin/python benchmarks/bench_ai.py --table /tmp/bench_ai.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai.match import play_game
from ai.policy import forget_plans
from bot.settings import Settings

SEARCHED_S = 0.005
PAIRINGS: list[tuple[str, list[str], str]] = [
    ("normal vs easy (2p)", ["normal", "easy"], "normal"),
    ("normal + 3 easy (4p)", ["normal", "easy", "easy", "easy"], "normal"),
    ("normal vs random (2p)", ["normal", "random"], "normal"),
    ("easy vs random (2p)", ["easy", "random"], "easy"),
]


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    den = 1 + z * z / n
    return max(0.0, (centre - half) / den), min(1.0, (centre + half) / den)


def play_one(name: str, lineup: list[str], hero: str, g: int, first: int,
             budget: float) -> dict[str, Any]:
    """Game ``g`` of a pairing: the hero at seat ``g mod n``, the deal ``first + g // n``."""
    n = len(lineup)
    shift = g % n  # rotate the seats: the hero sits at every seat in turn
    levels = lineup[-shift:] + lineup[:-shift] if shift else list(lineup)
    forget_plans()
    t0 = time.perf_counter()
    record = play_game(levels, seed=10_000 + first + g // n, budget_s=budget)
    final = record.final
    hero_seat = levels.index(hero)
    win = 1 / len(final.winners) if hero_seat in final.winners else 0.0
    best_other = max(p.ecus for p in final.players if p.seat != hero_seat)
    return {
        "pairing": name,
        "game": g,
        "win": win,
        "margin": final.players[hero_seat].ecus - best_other,
        "seconds": time.perf_counter() - t0,
        "think": [round(t, 4) for t in record.think_s[hero_seat]] if hero == "normal" else [],
    }


def table(rows: list[dict[str, Any]]) -> str:
    """The tournament table and the time per decision of ``normal``, from finished games."""
    out = [
        "| pairing | games | level | wins | 95% interval | margin | per game |",
        "|---|---|---|---|---|---|---|",
    ]
    think: list[float] = []
    for name, _lineup, hero in PAIRINGS:
        games = [r for r in rows if r["pairing"] == name]
        if not games:
            continue
        n = len(games)
        wins = sum(r["win"] for r in games)
        lo, hi = wilson(wins, n)
        margin = statistics.mean(r["margin"] for r in games)
        secs = statistics.mean(r["seconds"] for r in games)
        out.append(
            f"| {name} | {n} | {hero} | {100 * wins / n:.1f}% | {100 * lo:.1f}-{100 * hi:.1f}% "
            f"| {margin:+.1f} | {secs:.1f} s |"
        )
        for r in games:
            think.extend(r["think"])
    if think:
        searched = [t for t in think if t > SEARCHED_S]
        out.append("")
        out.append(
            f"normal, time per decision over all its {len(think)} decisions: median "
            f"{statistics.median(think):.3f} s, max {max(think):.3f} s"
        )
        if searched:
            out.append(
                f"normal, over the {len(searched)} decisions that searched (over "
                f"{SEARCHED_S * 1000:.0f} ms; the others followed the turn's plan): median "
                f"{statistics.median(searched):.3f} s, p95 "
                f"{sorted(searched)[int(0.95 * (len(searched) - 1))]:.3f} s, max "
                f"{max(searched):.3f} s"
            )
    return "\n".join(out)


def read_log(path: str) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per pairing")
    parser.add_argument("--budget", type=float, default=None,
                        help="normal's budget in seconds (default: KHRONOS_COMPUTER_BUDGET's)")
    parser.add_argument("--first", type=int, default=0, help="seed offset (another batch)")
    parser.add_argument("--only", help="run only the pairings whose name contains this")
    parser.add_argument("--workers", type=int, default=1, help="processes playing games")
    parser.add_argument("--log", default=str(Path(tempfile.gettempdir()) / "bench_ai.jsonl"),
                        help="finished games are appended here, one JSON line each")
    parser.add_argument("--table", metavar="LOG", help="print the table of a log and stop")
    args = parser.parse_args()
    if args.table:
        print(table(read_log(args.table)))
        return
    if args.budget is None:
        args.budget = Settings.model_fields["computer_budget"].default
    print(f"{args.games} games per pairing (seeds from {10_000 + args.first}), normal's budget "
          f"{args.budget} s, {args.workers} worker process(es), load average "
          f"{os.getloadavg()[0]:.1f}; log: {args.log}", flush=True)
    jobs = [
        (name, lineup, hero, g, args.first, args.budget)
        for name, lineup, hero in PAIRINGS
        if not args.only or args.only in name
        for g in range(args.games)
    ]
    rows: list[dict[str, Any]] = []
    with open(args.log, "a", encoding="utf-8") as log:

        def keep(row: dict[str, Any]) -> None:
            rows.append(row)
            log.write(json.dumps(row) + "\n")
            log.flush()

        if args.workers <= 1:
            for job in jobs:
                keep(play_one(*job))
        else:
            with ProcessPoolExecutor(max_workers=args.workers) as pool:
                # submitted in order: a worker takes the next game when it is free
                for future in as_completed([pool.submit(play_one, *job) for job in jobs]):
                    keep(future.result())
    print(table(rows))


if __name__ == "__main__":
    main()
