"""Benchmark of /leaderboard and /stats with 10,000 finished games in the database.

The games are rated by the code that rates a real game's end (``fairplay.rate_game``: the
ratings read and locked, OpenSkill's update, a result per seat, the times to move, the sums),
on synthetic games: one server, 300 players, 2-5 seats a game (a computer now and then), a
move log of 7 rounds with a time to move per turn; player 1 sits in every game (the worst
case of /stats: the median of ~70,000 times). Printed per backend: the cost of rating one
game's end, then the wall time of ``GameService.leaderboard`` and ``GameService.stats`` (a
random player's) as a player gets them (reads, the median from the index, the words), median,
p90, p99 and max over the calls.

PostgreSQL when ``KHRONOS_BENCH_DATABASE_URL`` (or ``KHRONOS_TEST_DATABASE_URL``) names a
server: a fresh schema, dropped at the end.

Run: ``.venv/bin/python benchmarks/bench_community.py [--games 10000] [--calls 300]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from backends import Storage, on_each_backend

from bot.service import GameInfo, GameService, GameSettings, SeatInfo
from bot.service.fairplay import rate_game
from bot.storage.api import MoveRow

GUILD = 1
PLAYERS = 300
BATCH = 50  # games per write transaction while filling


def synthetic_game(gid: int, rng: random.Random) -> tuple[GameInfo, Any, list[MoveRow]]:
    """A finished game's description, final Ecus and move log (7 rounds)."""
    n = rng.randint(2, 5)
    users = [1, *rng.sample(range(2, PLAYERS + 1), n - 1)]  # player 1 sits in every game
    rng.shuffle(users)
    bots: dict[int, str] = {}
    if rng.random() < 0.2:  # a computer in one game of five
        users[-1] = -1
        bots[-1] = rng.choice(("easy", "normal"))
    seats = tuple(SeatInfo(i, u, f"Player {u}" if u > 0 else f"Computer 1 ({bots[u]})")
                  for i, u in enumerate(users))
    info = GameInfo(gid, gid, GUILD, users[0], "over", 500, GameSettings(bots=bots), seats)
    state = SimpleNamespace(players=[SimpleNamespace(ecus=rng.randint(0, 40))
                                     for _ in range(n)])
    moves, at, seq = [], 0.0, 0
    for _ in range(7):
        for seat, user in enumerate(users):
            for kind in ("travel", "end_turn"):
                at += rng.expovariate(1 / 1800)  # half an hour on average
                seq += 1
                moves.append(MoveRow(seq, gid, seq, seq + 1, seat, user, "action",
                                     json.dumps({"kind": kind}), "[]", seq, at))
    return info, state, moves


async def fill(storage: Storage, games: int) -> float:
    """Insert and rate ``games`` games; returns the median ms of rating one game's end."""
    rng = random.Random(1)
    per_game = []
    for start in range(1, games + 1, BATCH):
        async with storage.write() as tx:
            for g in range(start, min(start + BATCH, games + 1)):
                gid = await tx.insert_game(guild_id=GUILD, channel_id=g, creator_id=1,
                                           settings="{}", seed=g, now=0.0)
                await tx.update_game(gid, 1, now=0.0, status="over", state="{}")
                row = await tx.game(gid)
                info, state, moves = synthetic_game(gid, rng)
                t0 = time.perf_counter()
                await rate_game(tx, row, info, state, moves, float(g))  # type: ignore[arg-type]
                per_game.append((time.perf_counter() - t0) * 1000)
    return statistics.median(per_game)


def figures(samples: list[float]) -> str:
    s = sorted(samples)

    def pick(q: float) -> float:
        return s[min(len(s) - 1, int(q * len(s)))]

    return (f"{statistics.median(s):>7.2f} {pick(0.9):>7.2f} {pick(0.99):>7.2f} "
            f"{s[-1]:>7.2f}")


async def bench(name: str, storage: Storage, games: int, calls: int) -> None:
    t0 = time.perf_counter()
    rating = await fill(storage, games)
    filled = time.perf_counter() - t0
    service = GameService(storage)
    rng = random.Random(2)
    board, stats, busiest = [], [], []
    for _ in range(calls):
        t = time.perf_counter()
        out = await service.leaderboard(GUILD)
        board.append((time.perf_counter() - t) * 1000)
        assert out.reply is not None and out.reply.text.count("\n") >= 10
        user = rng.randint(1, PLAYERS)
        t = time.perf_counter()
        out = await service.stats(GUILD, user)
        stats.append((time.perf_counter() - t) * 1000)
        assert out.reply is not None and "Median time to move" in out.reply.text
        t = time.perf_counter()
        out = await service.stats(GUILD, 1)
        busiest.append((time.perf_counter() - t) * 1000)
    async with storage.read() as q:
        one = await q.rating(GUILD, "user:1")
    assert one is not None
    print(f"{name}: {games} games filled in {filled:.0f} s; rating a game's end: median "
          f"{rating:.2f} ms")
    print(f"{'':<12} {'median':>7} {'p90':>7} {'p99':>7} {'max':>7}   (ms, {calls} calls)")
    print(f"{'/leaderboard':<12} {figures(board)}")
    print(f"{'/stats':<12} {figures(stats)}   (a random player)")
    print(f"{'/stats':<12} {figures(busiest)}   (a player of all {one.games} games, "
          f"{one.timed} times to move)")


async def main(games: int, calls: int) -> None:
    await on_each_backend(lambda name, storage: bench(name, storage, games, calls))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--calls", type=int, default=300)
    args = ap.parse_args()
    asyncio.run(main(args.games, args.calls))
