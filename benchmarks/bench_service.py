"""Benchmark of the game service on a real SQLite file.

1. One stored move (load, check, apply, append to the log, save, reschedule timers, commit)
   through ``GameService.act``, with 10,000 games in the database. Target: median < 5 ms.
2. Database size per finished game (state + seats + move log), played by random players.
3. Outbox deliveries per second: rows written by stored moves, sent by the ``Deliverer``
   through a transport that does nothing (the outbox's own cost: read, rebuild the message and
   its image data, mark sent) and through one that also renders each image (``bot.images``).

Run: ``.venv/bin/python benchmarks/bench_service.py [--games 10000] [--moves 400]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import engine
from bot.images import render_image
from bot.service import DRAW_KINDS, GameService
from bot.service.outbox import Deliverer, Delivery
from bot.storage.sqlite import SqliteStorage
from engine.random_player import random_action

TARGET_MS = 5.0


def _trajectories(count: int) -> list[list[tuple[int, str, str, str, int]]]:
    """Random games as lists of (seat, action JSON, events JSON, state JSON, step)."""
    out = []
    for i in range(count):
        players = 2 + i % 4
        state = engine.new_game(engine.Options(players=players, holdem=i % 3 == 0), i)
        chooser = random.Random(i)
        rows = [(-1, "", "[]", state.model_dump_json(), 0)]
        while not state.over:
            seat, action = random_action(state, chooser)
            state, events = engine.apply(state, seat, action)
            rows.append((seat, json.dumps(engine.dump_action(action)),
                         json.dumps([e.model_dump(mode="json") for e in events]),
                         state.model_dump_json(), state.step))
        out.append(rows)
    return out


def _fill(path: Path, games: int, pools: list[list[tuple[int, str, str, str, int]]]) -> None:
    """Insert ``games`` games, each a copy of a random trajectory stopped at a random move."""
    rng = random.Random(1)
    now = time.time()
    with sqlite3.connect(path) as db:
        db.execute("BEGIN")
        for gid in range(1, games + 1):
            traj = rng.choice(pools)
            k = rng.randrange(0, len(traj) - 1)  # not over: the game is still active
            first = engine.GameState.model_validate_json(traj[0][3])
            players = len(first.players)
            settings = json.dumps({"seats": None, "holdem": first.options.holdem,
                                   "reminder_hours": 24.0, "deadline_hours": None})
            cp = max((j for j in range(1, k + 1)
                      if json.loads(traj[j][1])["kind"] in DRAW_KINDS), default=0)
            db.execute(
                "INSERT INTO games (id, guild_id, channel_id, creator_id, status, settings, seed, "
                "state, checkpoint, checkpoint_seq, version, created_at, updated_at) "
                "VALUES (?, 1, ?, ?, 'active', ?, ?, ?, ?, ?, ?, ?, ?)",
                (gid, gid, gid * 10, settings, first.seed, traj[k][3], traj[cp][3], cp,
                 k + 5, now, now),
            )
            db.executemany(
                "INSERT INTO seats (game_id, seat, user_id, name, joined_at) VALUES (?,?,?,?,?)",
                [(gid, s, gid * 10 + s, f"Player {s}", now) for s in range(players)],
            )
            db.executemany(
                "INSERT INTO moves (game_id, seq, version, seat, user_id, kind, action, events, "
                "step, created_at) VALUES (?, ?, ?, ?, ?, 'action', ?, ?, ?, ?)",
                [(gid, j, j + 5, traj[j][0], gid * 10 + traj[j][0], traj[j][1], traj[j][2],
                  traj[j][4], now) for j in range(1, k + 1)],
            )
            db.execute(
                "INSERT INTO timers (game_id, kind, seat, user_id, due_at, created_at) "
                "VALUES (?, 'reminder', 0, ?, ?, ?)", (gid, gid * 10, now + 86400, now))
        db.execute("COMMIT")


async def bench_moves(directory: Path, games: int, moves: int) -> dict[str, float]:
    storage = SqliteStorage.in_dir(directory)
    await storage.open()
    await storage.close()
    t = time.perf_counter()
    pools = _trajectories(24)
    _fill(storage.path, games, pools)
    fill_s = time.perf_counter() - t
    await storage.open()
    service = GameService(storage)
    chooser = random.Random(2)
    timings: list[float] = []
    engine_ms: list[float] = []
    channels = chooser.sample(range(1, games + 1), min(games, 200))
    for i in range(moves):
        ch = channels[i % len(channels)]
        info, state = await service.snapshot(ch)
        if state.over:
            continue
        seat, action = random_action(state, chooser)
        user = info.user_of(seat)
        assert user is not None
        t = time.perf_counter()
        engine.apply(state, seat, action)
        engine_ms.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        await service.act(ch, user, action)
        timings.append((time.perf_counter() - t) * 1000)
    size = storage.path.stat().st_size
    await storage.close()
    timings.sort()
    return {
        "fill_s": fill_s,
        "median_ms": statistics.median(timings),
        "p90_ms": timings[int(len(timings) * 0.9)],
        "p99_ms": timings[int(len(timings) * 0.99)],
        "moves": len(timings),
        "engine_ms": statistics.median(engine_ms),
        "db_mb": size / 1e6,
    }


async def bench_size(directory: Path, per_count: int) -> dict[int, tuple[float, float]]:
    """Bytes per finished game, by player count: (total, move log share)."""
    out: dict[int, tuple[float, float]] = {}
    for players in (2, 3, 4, 5):
        path = directory / f"size-{players}.sqlite3"
        async with SqliteStorage(path) as storage:
            base = await storage.size_bytes()
            service = GameService(storage, outbox=False)  # the game itself, not its messages
            chooser = random.Random(players)
            for g in range(per_count):
                ch = players * 1000 + g
                await service.create_game(ch, 1, "Player 1")
                for u in range(2, players + 1):
                    await service.join(ch, u, f"Player {u}")
                await service.start(ch, 1)
                while True:
                    info, state = await service.snapshot(ch)
                    if state.over:
                        break
                    seat, action = random_action(state, chooser)
                    await service.act(ch, info.user_of(seat) or 0, action)
            await storage.checkpoint_wal()
            total = (await storage.size_bytes() - base) / per_count
            with sqlite3.connect(path) as raw:
                row = raw.execute(
                    "SELECT SUM(LENGTH(action) + LENGTH(events) + 40) FROM moves").fetchone()
            log = float(row[0]) / per_count if row and row[0] else 0.0
        out[players] = (total, log)
    return out


class NullTransport:
    def __init__(self, render: bool) -> None:
        self.render = render
        self.sent = 0

    async def send(self, item: Delivery) -> str:
        if self.render and item.image is not None:
            await asyncio.to_thread(render_image, item.image)
        self.sent += 1
        return "sent"


async def bench_outbox(directory: Path, moves: int) -> dict[str, float]:
    """Rows per second delivered from the outbox, without and with rendering the images."""
    out: dict[str, float] = {}
    for render in (False, True):
        path = directory / f"outbox-{render}.sqlite3"
        async with SqliteStorage(path) as storage:
            service = GameService(storage)
            chooser = random.Random(3)
            played = 0
            ch = 0
            while played < (moves if not render else moves // 4):
                ch += 1
                await service.create_game(ch, 1, "Ann")
                await service.join(ch, 2, "Bob")
                await service.join(ch, 3, "Cid")
                await service.start(ch, 1)
                for _ in range(40):
                    info, state = await service.snapshot(ch)
                    if state.over:
                        break
                    seat, action = random_action(state, chooser)
                    await service.act(ch, info.user_of(seat) or 0, action)
                    played += 1
            async with storage.read() as q:
                rows = len(await q.unsent(limit=1_000_000))
            transport = NullTransport(render)
            deliverer = Deliverer(storage, transport)
            t = time.perf_counter()
            await deliverer.drain()
            elapsed = time.perf_counter() - t
            out["render" if render else "null"] = transport.sent / elapsed
            out["rows_render" if render else "rows_null"] = rows
    return out


async def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--moves", type=int, default=400)
    ap.add_argument("--size-games", type=int, default=3)
    ap.add_argument("--outbox-moves", type=int, default=400)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        r = await bench_moves(Path(tmp) / "moves", args.games, args.moves)
        print(f"stored move with {args.games} games in the database ({r['db_mb']:.0f} MB, "
              f"filled in {r['fill_s']:.1f} s), {r['moves']:.0f} moves:")
        print(f"  median {r['median_ms']:.2f} ms, p90 {r['p90_ms']:.2f} ms, "
              f"p99 {r['p99_ms']:.2f} ms (target median < {TARGET_MS} ms); "
              f"engine.apply alone: median {r['engine_ms']:.2f} ms")
        o = await bench_outbox(Path(tmp), args.outbox_moves)
        print(f"outbox: {o['rows_null']:.0f} rows of {args.outbox_moves} stored moves: "
              f"{o['null']:.0f} deliveries/s through a transport that sends nothing; "
              f"{o['render']:.1f} deliveries/s rendering every image "
              f"({o['rows_render']:.0f} rows)")
        sizes = await bench_size(Path(tmp), args.size_games)
        print("database size per finished game (random players):")
        for players, (total, log) in sizes.items():
            print(f"  {players} players: {total / 1024:.0f} KiB "
                  f"(move log text {log / 1024:.0f} KiB)")
    ok = r["median_ms"] < TARGET_MS
    print("OK" if ok else "SLOWER THAN TARGET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
