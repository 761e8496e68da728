"""Computer players: a tournament and the time per decision. Prints a table.

Pairings, seats rotated so that every level plays every seat equally often: hard vs normal,
hard + three normal (4 players), hard vs easy, then normal vs easy, normal + three easy,
normal vs random, easy vs random (2 players), then hard + two normal (3 players) and hard +
four normal (5 players), in that order (the pairings whose targets are in doubt first, the
sizes without a target last; ``--only`` picks some). Win rate: a shared victory (R50) counts
as 1/k of a win for each of the k winners. The interval is the 95% Wilson interval over the
games. Time per decision is measured for the level named first (``hard``, ``normal``) over
all its decisions (its later decisions of a turn follow the turn's plan and take no time, so
the figure that matters is over the decisions that searched).

Every finished game is appended to ``--log`` as one JSON line as soon as it ends, so a run
that is stopped keeps what it played; ``--table LOG`` prints the table of a log (a partial
run included) without playing.

    .venv/bin/python benchmarks/bench_ai.py            # 200 games per pairing
    .venv/bin/python benchmarks/bench_ai.py --games 20 --budget 0.5 --workers 2
    .venv/bin/python benchmarks/bench_ai.py --only hard --hard-budget 1.5
    .venv/bin/python benchmarks/bench_ai.py --table /tmp/bench_ai.jsonl
    .venv/bin/python benchmarks/bench_ai.py --only "3 normal" --workers 2 --cpu-clock --follow
    .venv/bin/python benchmarks/bench_ai.py --only "hard vs" --knob "hard.ROOT_BEAM=(6, 3, 2)"

``hard``'s work per second of budget is measured once for the run and set in every worker
process, so that every game's ``hard`` does the same work; ``--follow`` lets each worker
process measure it and follow its own searches instead, as the bot's worker processes do.

``--knob module.NAME=value`` (repeatable) sets one of the search's constants for the run, in
every worker process: ``hard.``, ``policy.`` (both searching levels) or ``evaluate.``, a Python
literal of the constant's type. An experiment on a variant is then one command.
``--hard-knob`` is the same, but the constant holds only while ``hard`` decides: the other
levels keep the code's values (an evaluation that only ``hard`` uses, against ``normal`` as it
is).

    .venv/bin/python benchmarks/bench_ai.py --only "3 normal" --hard-knob evaluate.LEADER_SHARE=1
"""

from __future__ import annotations

import argparse
import ast
import importlib
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

import ai.choose
from ai import evaluate, hard
from ai.match import play_game
from ai.policy import forget_plans
from bot.settings import Settings

SEARCHED_S = 0.005
PAIRINGS: list[tuple[str, list[str], str]] = [
    ("hard vs normal (2p)", ["hard", "normal"], "hard"),
    ("hard + 3 normal (4p)", ["hard", "normal", "normal", "normal"], "hard"),
    ("hard vs easy (2p)", ["hard", "easy"], "hard"),
    ("normal vs easy (2p)", ["normal", "easy"], "normal"),
    ("normal + 3 easy (4p)", ["normal", "easy", "easy", "easy"], "normal"),
    ("normal vs random (2p)", ["normal", "random"], "normal"),
    ("easy vs random (2p)", ["easy", "random"], "easy"),
    # the sizes without a target: how long hard's decisions take there, and how it fares
    ("hard + 2 normal (3p)", ["hard", "normal", "normal"], "hard"),
    ("hard + 4 normal (5p)", ["hard", "normal", "normal", "normal", "normal"], "hard"),
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
             budget: float, hard_budget: float) -> dict[str, Any]:
    """Game ``g`` of a pairing: the hero at seat ``g mod n``, the deal ``first + g // n``."""
    n = len(lineup)
    shift = g % n  # rotate the seats: the hero sits at every seat in turn
    levels = lineup[-shift:] + lineup[:-shift] if shift else list(lineup)
    forget_plans()
    t0 = time.perf_counter()
    record = play_game(levels, seed=10_000 + first + g // n, budget_s=budget,
                       budgets={"hard": hard_budget})
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
        "think": [round(t, 4) for t in record.think_s[hero_seat]] if hero != "easy" else [],
        # the work per second of budget hard's next search will do (--follow: as its last
        # searches showed in this worker process)
        "speed": round(hard.search_speed(), 4) if "hard" in lineup else None,
    }


def table(rows: list[dict[str, Any]]) -> str:
    """The tournament table and the time per decision of each searching level, from finished
    games."""
    out = [
        "| pairing | games | level | wins | 95% interval | margin | per game |",
        "|---|---|---|---|---|---|---|",
    ]
    think: dict[str, list[float]] = {}
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
            think.setdefault(hero, []).extend(r["think"])
    for hero, times in think.items():
        if times:
            out += ["", *_think_lines(hero, times)]
    return "\n".join(out)


def _think_lines(level: str, think: list[float]) -> list[str]:
    out = [
        f"{level}, time per decision over all its {len(think)} decisions: median "
        f"{statistics.median(think):.3f} s, max {max(think):.3f} s"
    ]
    searched = [t for t in think if t > SEARCHED_S]
    if searched:
        out.append(
            f"{level}, over the {len(searched)} decisions that searched (over "
            f"{SEARCHED_S * 1000:.0f} ms; the others followed the turn's plan): median "
            f"{statistics.median(searched):.3f} s, p95 "
            f"{sorted(searched)[int(0.95 * (len(searched) - 1))]:.3f} s, max "
            f"{max(searched):.3f} s"
        )
    return out


def read_log(path: str) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


KNOB_MODULES = {"hard": "ai.hard", "policy": "ai.policy", "evaluate": "ai.evaluate"}
Knob = tuple[str, str, object]


def parse_knob(text: str) -> Knob:
    """``module.NAME=value`` as (module path, name, value), refused unless the module is one
    of ``KNOB_MODULES``, the name one of its upper-case constants and the value a literal of
    the constant's type (an int where a float is, as the float)."""
    name, equals, literal = text.partition("=")
    module, dot, attr = name.strip().partition(".")
    if not equals or not dot or module not in KNOB_MODULES:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected module.NAME=value, module one of {', '.join(KNOB_MODULES)}")
    target = importlib.import_module(KNOB_MODULES[module])
    if not attr.isupper() or not hasattr(target, attr):
        raise argparse.ArgumentTypeError(f"{text!r}: {module} has no constant {attr}")
    old = getattr(target, attr)
    try:
        value = ast.literal_eval(literal.strip())
    except (ValueError, SyntaxError) as error:
        raise argparse.ArgumentTypeError(f"{text!r}: not a Python literal") from error
    if isinstance(old, float) and type(value) is int:
        value = float(value)
    if type(value) is not type(old):
        raise argparse.ArgumentTypeError(
            f"{text!r}: {attr} is a {type(old).__name__}, not a {type(value).__name__}")
    return KNOB_MODULES[module], attr, value


def set_knobs(knobs: list[Knob]) -> None:
    for module, attr, value in knobs:
        setattr(importlib.import_module(module), attr, value)


def start_worker(cpu_clock: bool, knobs: list[Knob], hard_knobs: list[Knob] | None = None) -> None:
    """A worker process plays with the parent's clock and knobs (whatever the start method)."""
    if cpu_clock:
        use_cpu_clock()
    set_knobs(knobs)
    if hard_knobs:
        for_hard_only(hard_knobs)


BOARD_INCOME_KNOBS = {("ai.evaluate", "TOP_SAFETY"), ("ai.evaluate", "MAJORITY_SAFETY")}


def for_hard_only(knobs: list[Knob]) -> None:
    """``knobs`` hold while ``hard`` decides and only then: its decision function is wrapped so
    that they are set before it and the previous values put back after. The evaluation's cache
    of board incomes is emptied at each change when a knob is one of the constants the cached
    incomes depend on (``BOARD_INCOME_KNOBS``)."""
    inner = ai.choose.choose_hard  # type: ignore[attr-defined]  # the name choose_action calls
    cached = any((m, a) in BOARD_INCOME_KNOBS for m, a, _ in knobs)

    def choose(view: Any, chooser: Any, budget_s: float) -> Any:
        saved = [(m, a, getattr(importlib.import_module(m), a)) for m, a, _ in knobs]
        set_knobs(knobs)
        if cached:
            evaluate._CACHE.clear()
        try:
            return inner(view, chooser, budget_s)
        finally:
            set_knobs(saved)
            if cached:
                evaluate._CACHE.clear()

    ai.choose.choose_hard = choose  # type: ignore[attr-defined]


def use_cpu_clock() -> None:
    """Make ``time.perf_counter`` (the searches' and the timings' clock) count the process's
    CPU time: on a shared machine, a search then gets the same work for its budget however
    busy the other cores are, and the times are those of one core to itself."""
    time.perf_counter = time.process_time


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per pairing")
    parser.add_argument("--budget", type=float, default=None,
                        help="normal's budget in seconds (default: KHRONOS_COMPUTER_BUDGET's)")
    parser.add_argument("--hard-budget", type=float, default=None,
                        help="hard's budget in seconds (default: the same as normal's)")
    parser.add_argument("--first", type=int, default=0, help="seed offset (another batch)")
    parser.add_argument("--only", help="run only the pairings whose name contains this")
    parser.add_argument("--workers", type=int, default=1, help="processes playing games")
    parser.add_argument("--log", default=str(Path(tempfile.gettempdir()) / "bench_ai.jsonl"),
                        help="finished games are appended here, one JSON line each")
    parser.add_argument("--table", metavar="LOG", help="print the table of a log and stop")
    parser.add_argument("--cpu-clock", action="store_true",
                        help="every clock (budgets, stops, timings) counts this process's CPU "
                             "time: one core's figures on a machine others are loading")
    parser.add_argument("--follow", action="store_true",
                        help="each worker process measures its own speed and follows its "
                             "searches, as the bot's do (default: the run's one measure, set)")
    parser.add_argument("--knob", type=parse_knob, action="append", default=[],
                        metavar="module.NAME=value",
                        help="set a constant of ai.hard, ai.policy or ai.evaluate for the run")
    parser.add_argument("--hard-knob", type=parse_knob, action="append", default=[],
                        metavar="module.NAME=value",
                        help="the same, but only while hard decides (the others keep the code's)")
    args = parser.parse_args()
    set_knobs(args.knob)
    if args.hard_knob:
        for_hard_only(args.hard_knob)
    if args.cpu_clock:
        use_cpu_clock()
    if args.table:
        print(table(read_log(args.table)))
        return
    if args.budget is None:
        args.budget = Settings.model_fields["computer_budget"].default
    if args.hard_budget is None:
        args.hard_budget = args.budget
    clock = "CPU time of each process" if args.cpu_clock else "wall clock"
    print(f"{args.games} games per pairing (seeds from {10_000 + args.first}), normal's budget "
          f"{args.budget} s, hard's {args.hard_budget} s ({clock}), {args.workers} worker "
          f"process(es), load average {os.getloadavg()[0]:.1f}; log: {args.log}", flush=True)
    if args.follow and not hard.speed_set():
        print("hard's work per second of budget: measured by each worker process, then "
              "following its searches (ai/hard.py search_speed)", flush=True)
    else:
        # one measure of the machine for the whole run, which the worker processes inherit:
        # every game's hard does the same work (ai/hard.py machine_speed)
        source = "set" if hard.speed_set() else "measured"
        os.environ[hard.SPEED_ENV] = repr(hard.machine_speed())
        print(f"hard's work per second of budget: {hard.machine_speed():g} of the reference "
              f"machine's ({source}, {hard.SPEED_ENV})", flush=True)
    for module, attr, value in args.knob:
        print(f"knob: {module}.{attr} = {value!r}", flush=True)
    for module, attr, value in args.hard_knob:
        print(f"knob for hard only: {module}.{attr} = {value!r}", flush=True)
    jobs = [
        (name, lineup, hero, g, args.first, args.budget, args.hard_budget)
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
            with ProcessPoolExecutor(
                max_workers=args.workers, initializer=start_worker,
                initargs=(args.cpu_clock, args.knob, args.hard_knob),
            ) as pool:
                # submitted in order: a worker takes the next game when it is free
                for future in as_completed([pool.submit(play_one, *job) for job in jobs]):
                    keep(future.result())
    print(table(rows))


if __name__ == "__main__":
    main()
