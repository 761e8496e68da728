"""What a computer's thinking costs the event loop: a thread of the bot's process
(``KHRONOS_AI_WORKERS=0``) against a worker process (``ThinkPool``, the default).

While ``normal`` decides (its search budget each time), a ticker on the event loop asks to wake
every 10 ms; its lateness is what every other command, delivery and the gateway heartbeat wait
for meanwhile. Prints, per mode, the decisions' time and the ticker's lateness (median, p99,
maximum).

With ``--first-hard``, instead: the first decisions of level ``hard`` of a new pool, made
``--idle`` seconds after its start (a bot's first computer turn comes some time after it
started), with the pool's workers measuring the machine's speed ahead and without (where
``KHRONOS_AI_SPEED`` is unset, as in a deployment; the speed is measured either way).

    python benchmarks/bench_ai_pool.py [--decisions N] [--budget S]
    python benchmarks/bench_ai_pool.py --first-hard [--rounds N] [--idle S] [--budget S]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import time
from concurrent.futures import Executor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from ai import think
from ai.hard import SPEED_ENV
from ai.pool import ThinkPool
from engine.random_player import random_action

TICK = 0.010


def views(count: int) -> list[engine.PlayerView]:
    """Views of the player to act at ``count`` points of random games (mid-game, round 2+)."""
    out: list[engine.PlayerView] = []
    seed = 0
    while len(out) < count:
        state = engine.new_game(engine.Options(players=3), seed)
        chooser = random.Random(seed)
        while not state.over and state.round < 3:
            seat, action = random_action(state, chooser)
            state, _ = engine.apply(state, seat, action)
        to_act = engine.current_seat(state)
        if to_act is not None:
            out.append(engine.player_view(state, to_act))
        seed += 1
    return out


async def measure(executor: Executor | None, cases: list[engine.PlayerView],
                  budget: float) -> tuple[list[float], list[float]]:
    lateness: list[float] = []
    stop = asyncio.Event()

    async def ticker() -> None:
        loop = asyncio.get_running_loop()
        while not stop.is_set():
            start = loop.time()
            await asyncio.sleep(TICK)
            lateness.append(loop.time() - start - TICK)

    task = asyncio.create_task(ticker())
    times: list[float] = []
    for i, view in enumerate(cases):
        start = time.perf_counter()
        await think(view, "normal", budget, i, executor)
        times.append(time.perf_counter() - start)
    stop.set()
    await task
    return times, lateness


def line(name: str, times: list[float], late: list[float]) -> str:
    ordered = sorted(late)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (f"| {name} | {statistics.median(times):.2f} s | {statistics.median(late) * 1000:.1f}"
            f" ms | {p99 * 1000:.1f} ms | {max(late) * 1000:.1f} ms |")


async def first_hard(rounds: int, idle: float, budget: float) -> None:
    """The first two decisions of ``hard`` of a new pool, ``idle`` seconds after its start."""
    os.environ.pop(SPEED_ENV, None)  # the workers measure the speed, as a deployment's do
    cases = views(2)
    print(f"the first two decisions of `hard` (budget {budget} s) of a new one-worker pool, "
          f"{idle} s after its start; {rounds} pools each way, alternated")
    print("| the workers measure the speed | first decision | second decision |")
    print("|---|---|---|")
    seen: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
    for r in range(rounds):
        for ahead in (False, True) if r % 2 == 0 else (True, False):
            pool = ThinkPool(1, measure=ahead)
            try:
                await asyncio.sleep(idle)
                took = []
                for i, view in enumerate(cases):
                    start = time.perf_counter()
                    await think(view, "hard", budget, i, pool)
                    took.append(time.perf_counter() - start)
            finally:
                pool.close()
            seen[ahead].append((took[0], took[1]))
    for ahead in (False, True):
        firsts = ", ".join(f"{a:.2f}" for a, _ in seen[ahead])
        seconds = ", ".join(f"{b:.2f}" for _, b in seen[ahead])
        name = "ahead, at the pool's start" if ahead else "at the first decision"
        print(f"| {name} | {firsts} s | {seconds} s |")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--decisions", type=int, default=6)
    parser.add_argument("--budget", type=float, default=1.0)
    parser.add_argument("--first-hard", action="store_true",
                        help="time a new pool's first decisions of hard instead")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--idle", type=float, default=10.0)
    args = parser.parse_args()
    if args.first_hard:
        await first_hard(args.rounds, args.idle, args.budget)
        return
    cases = views(args.decisions)
    print(f"{args.decisions} decisions of `normal`, budget {args.budget} s; a 10 ms ticker on "
          "the event loop")
    print("| thinks in | decision, median | ticker late, median | p99 | max |")
    print("|---|---|---|---|---|")
    times, late = await measure(None, cases, args.budget)
    print(line("a thread (KHRONOS_AI_WORKERS=0)", times, late))
    pool = ThinkPool(1)
    try:
        await asyncio.get_running_loop().run_in_executor(pool, sum, [])  # the worker starts
        times, late = await measure(pool, cases, args.budget)
    finally:
        pool.close()
    print(line("a worker process (=1)", times, late))


if __name__ == "__main__":
    asyncio.run(main())
