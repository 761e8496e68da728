"""Benchmark: stored moves per second with several bot processes on one PostgreSQL database,
beside SQLite with one process, on 10,000 active games.

Each configuration runs worker processes for a fixed time; each worker plays random legal
moves through ``GameService.act`` on its own games (as processes sharing the shards would),
one after another: read the game (``snapshot``), pick a move, act. Printed per configuration:
moves stored per second (all workers together), the median and p99 latency of ``act`` (one
write transaction: load, check, apply, log, save, timers, commit), the workers' CPU time per
move, and how busy the machine's CPUs were (``/proc/stat``; other programs count too).

PostgreSQL: ``KHRONOS_BENCH_DATABASE_URL`` (or ``KHRONOS_TEST_DATABASE_URL``) names a server;
without one, the script starts a throwaway server with ``.ci/postgres`` and stops it at the
end. The games go in a fresh schema, dropped at the end. The throwaway server runs with
``synchronous_commit=off``: like SQLite's ``synchronous=NORMAL`` in WAL mode (the bot's
setting), a commit survives a killed process but a power cut may lose the last ones.

Run: ``.venv/bin/python benchmarks/bench_scale.py [--games 10000] [--seconds 8]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import asyncpg
from bench_service import _fill, _trajectories

import engine
from bot.service import DRAW_KINDS, GameService
from bot.storage.postgres import PgStorage
from bot.storage.sqlite import SqliteStorage
from engine.random_player import random_action

ROOT = Path(__file__).resolve().parent.parent
WORKERS = (1, 2, 4)


# --- filling PostgreSQL quickly: COPY, not one INSERT per row ----------------------------------


async def fill_pg(url: str, schema: str, games: int,
                  pools: list[list[tuple[int, str, str, str, int]]]) -> None:
    """The same games as bench_service._fill (SQLite), with COPY."""
    storage = PgStorage(url, schema=schema)
    await storage.open()  # creates the schema and the tables
    await storage.close()
    rng = random.Random(1)
    now = time.time()
    game_rows, seat_rows, move_rows, timer_rows = [], [], [], []
    for gid in range(1, games + 1):
        traj = rng.choice(pools)
        k = rng.randrange(0, len(traj) - 1)
        first = engine.GameState.model_validate_json(traj[0][3])
        players = len(first.players)
        settings = json.dumps({"seats": None, "holdem": first.options.holdem,
                               "reminder_hours": 24.0, "deadline_hours": None})
        cp = max((j for j in range(1, k + 1) if json.loads(traj[j][1])["kind"] in DRAW_KINDS),
                 default=0)
        game_rows.append((gid, 1, gid, gid * 10, "active", settings, first.seed, traj[k][3],
                          traj[cp][3], cp, k + 5, now, now))
        seat_rows += [(gid, s, gid * 10 + s, f"Player {s}", now) for s in range(players)]
        move_rows += [(gid, j, j + 5, traj[j][0], gid * 10 + traj[j][0], "action", traj[j][1],
                       traj[j][2], traj[j][4], now) for j in range(1, k + 1)]
        timer_rows.append((gid, "reminder", 0, gid * 10, now + 86400, "{}", now))
    conn = await asyncpg.connect(url, server_settings={"search_path": schema})
    try:
        async with conn.transaction():
            await conn.copy_records_to_table("games", records=game_rows, columns=[
                "id", "guild_id", "channel_id", "creator_id", "status", "settings", "seed",
                "state", "checkpoint", "checkpoint_seq", "version", "created_at", "updated_at"])
            await conn.copy_records_to_table("seats", records=seat_rows, columns=[
                "game_id", "seat", "user_id", "name", "joined_at"])
            await conn.copy_records_to_table("moves", records=move_rows, columns=[
                "game_id", "seq", "version", "seat", "user_id", "kind", "action", "events",
                "step", "created_at"])
            await conn.copy_records_to_table("timers", records=timer_rows, columns=[
                "game_id", "kind", "seat", "user_id", "due_at", "payload", "created_at"])
            await conn.execute(
                "SELECT setval(pg_get_serial_sequence('games', 'id'), (SELECT max(id) FROM games))")
        await conn.execute("ANALYZE")
    finally:
        await conn.close()


# --- one worker process -------------------------------------------------------------------------


async def worker(backend: str, where: str, schema: str, channels: Sequence[int],
                 start_at: float, seconds: float) -> dict[str, object]:
    storage: SqliteStorage | PgStorage
    storage = SqliteStorage(where) if backend == "sqlite" else PgStorage(where, schema=schema,
                                                                   max_size=2)
    await storage.open()
    service = GameService(storage)
    chooser = random.Random(os.getpid())
    latencies: list[float] = []
    i = 0
    await asyncio.sleep(max(0.0, start_at - time.time()))
    cpu0 = time.process_time()
    end = time.time() + seconds
    while time.time() < end:
        ch = channels[i % len(channels)]
        i += 1
        info, state = await service.snapshot(ch)
        if state.over:
            continue
        seat, action = random_action(state, chooser)
        user = info.user_of(seat)
        assert user is not None
        t = time.perf_counter()
        await service.act(ch, user, action)
        latencies.append((time.perf_counter() - t) * 1000)
    cpu = time.process_time() - cpu0
    await storage.close()
    return {"latencies": latencies, "cpu": cpu}


def _cpu_busy() -> tuple[int, int]:
    """(busy, total) jiffies of all CPUs since boot, from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def _server_cpu(pid: int | None) -> float:
    """CPU seconds of the PostgreSQL server's postmaster and its ended children (the backends
    of the workers' connections, once they have closed); 0 when unknown."""
    if pid is None:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def run(backend: str, where: str, schema: str, workers: int, games: int,
        seconds: float, server_pid: int | None = None) -> dict[str, float]:
    """``workers`` processes for ``seconds``, each on its own share of 400 random games."""
    chosen = random.Random(workers).sample(range(1, games + 1), min(games, 400))
    start_at = time.time() + 3.0  # imports and connections happen before the clock starts
    procs = []
    for w in range(workers):
        share = [c for j, c in enumerate(chosen) if j % workers == w]
        args = json.dumps({"backend": backend, "where": where, "schema": schema,
                           "channels": share, "start_at": start_at, "seconds": seconds})
        procs.append(subprocess.Popen([sys.executable, __file__, "--worker", args],
                                      stdout=subprocess.PIPE, text=True))
    time.sleep(max(0.0, start_at - time.time()))
    busy0, total0 = _cpu_busy()
    server0 = _server_cpu(server_pid)
    results = []
    for p in procs:
        out, _ = p.communicate(timeout=seconds + 120)
        if p.returncode != 0:
            raise RuntimeError(f"a worker failed (status {p.returncode})")
        results.append(json.loads(out.strip().splitlines()[-1]))
    busy1, total1 = _cpu_busy()
    time.sleep(0.5)  # the server reaps the backends of the closed connections
    server = _server_cpu(server_pid) - server0
    lat = sorted(x for r in results for x in r["latencies"])
    cpu = sum(r["cpu"] for r in results)
    return {
        "moves": len(lat),
        "per_s": len(lat) / seconds,
        "p50": statistics.median(lat),
        "p99": lat[int(len(lat) * 0.99)],
        "cpu_ms": cpu * 1000 / len(lat),
        "server_ms": server * 1000 / len(lat) if server_pid else float("nan"),
        "busy": (busy1 - busy0) / max(1, total1 - total0),
    }


# --- the PostgreSQL server ------------------------------------------------------------------------


def _server() -> tuple[str | None, Path | None]:
    """A server URL: the given one, or a throwaway server (its folder, to stop it)."""
    url = os.environ.get("KHRONOS_BENCH_DATABASE_URL") or os.environ.get(
        "KHRONOS_TEST_DATABASE_URL")
    if url:
        return url, None
    # its own folder (as root, .ci/postgres gives it to the server's user)
    folder = Path(tempfile.mkdtemp(prefix="khronos-bench-pg-"))
    done = subprocess.run([str(ROOT / ".ci" / "postgres"), "start", str(folder), "bench"],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"no PostgreSQL server: {done.stderr.strip()}")
        shutil.rmtree(folder, ignore_errors=True)
        return None, None
    return done.stdout.strip(), folder


def _stop_server(folder: Path | None) -> None:
    """Stop and remove the throwaway server ``_server`` started (nothing for a given URL)."""
    if folder is not None:
        subprocess.run([str(ROOT / ".ci" / "postgres"), "stop", str(folder)],
                       capture_output=True, check=False)
        shutil.rmtree(folder, ignore_errors=True)


def _postmaster(folder: Path | None) -> int | None:
    """The pid of the throwaway server (None for a server given by URL)."""
    if folder is None:
        return None
    try:
        return int((folder / "data" / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


async def _drop_schema(url: str, schema: str) -> None:
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    finally:
        await conn.close()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        w = json.loads(args.worker)
        result = asyncio.run(worker(w["backend"], w["where"], w["schema"], w["channels"],
                                    w["start_at"], w["seconds"]))
        print(json.dumps(result))
        return 0

    rows: list[tuple[str, int, dict[str, float]]] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        t = time.perf_counter()
        pools = _trajectories(24)
        print(f"{len(pools)} random games to copy from, played in {time.perf_counter() - t:.1f} s")

        sqlite_path = tmp / "scale.sqlite3"

        async def make_sqlite() -> None:
            async with SqliteStorage(sqlite_path):
                pass

        asyncio.run(make_sqlite())
        t = time.perf_counter()
        _fill(sqlite_path, args.games, pools)
        print(f"SQLite: {args.games} games inserted in {time.perf_counter() - t:.1f} s")
        rows.append(("SQLite", 1, run("sqlite", str(sqlite_path), "", 1, args.games,
                                      args.seconds)))

        url, folder = _server()
        try:
            if url is not None:
                schema = f"bench_{uuid.uuid4().hex[:12]}"
                t = time.perf_counter()
                asyncio.run(fill_pg(url, schema, args.games, pools))
                print(f"PostgreSQL: {args.games} games copied in {time.perf_counter() - t:.1f} s")
                try:
                    pid = _postmaster(folder)
                    for n in WORKERS:
                        rows.append(("PostgreSQL", n, run("postgresql", url, schema, n,
                                                          args.games, args.seconds, pid)))
                finally:
                    asyncio.run(_drop_schema(url, schema))
        finally:
            _stop_server(folder)

    print(f"\nstored moves, {args.games} active games in the database, {args.seconds:.0f} s per "
          f"row, {os.cpu_count()} CPUs")
    print(f"{'backend':<11} {'processes':>9} {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
          f"{'worker CPU':>10} {'server CPU':>10} {'CPUs busy':>9}")
    for name, n, r in rows:
        server = "-" if r["server_ms"] != r["server_ms"] else f"{r['server_ms']:.2f}"
        print(f"{name:<11} {n:>9} {r['per_s']:>8.0f} {r['p50']:>7.2f} {r['p99']:>7.2f} "
              f"{r['cpu_ms']:>10.2f} {server:>10} {r['busy']:>9.0%}")
    print("worker CPU: ms of the workers' own CPU (engine, JSON, driver) per stored move, "
          "the read and the choice of the move included; server CPU: ms of the PostgreSQL "
          "backends per move (throwaway server only; SQLite works inside the worker). "
          "CPUs busy: the whole machine, other programs included.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
