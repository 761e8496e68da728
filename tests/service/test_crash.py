"""Crash safety: a process killed in the middle of a write leaves the last committed move,
and the outbox rows that announce exactly the committed commands."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from bot.service import GameService
from bot.storage.sqlite import SqliteStorage

CHILD = Path(__file__).with_name("crash_child.py")


def _run(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(CHILD), str(path), *args],
                          capture_output=True, text=True, timeout=120, check=False)


async def _check(path: Path, version: int) -> None:
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    async with SqliteStorage(path) as storage:
        service = GameService(storage)
        info, state = await service.snapshot(1)
        assert info.version == version  # the last committed move, not the killed one
        async with storage.read() as q:
            moves = await q.moves(info.game_id)
        with sqlite3.connect(path) as raw:
            posts = raw.execute("SELECT COUNT(*) FROM outbox WHERE kind = 'post'").fetchall()
            tables = raw.execute("SELECT COUNT(*) FROM outbox WHERE kind = 'table'").fetchall()
        assert len(moves) == state.step
        assert moves[-1].version == version
        assert await service.replayed_state(1) == state
        # the outbox holds the announcement of exactly the committed commands: create, two
        # joins and the start (and the summary after the last move) as posts; the first
        # turn's table message, then an edit of it per move, and a new turn's message after
        # every end of turn but the last
        assert posts[0][0] == 4 + (1 if state.over else 0)
        ends = sum(json.loads(m.action)["kind"] == "end_turn" for m in moves)
        assert tables[0][0] == 1 + len(moves) + ends - (1 if state.over else 0)


async def test_killed_inside_a_write_keeps_the_last_committed_move(tmp_path: Path) -> None:
    path = tmp_path / "crash.sqlite3"
    # commits 1-4 are the lobby and the start; moves begin at commit 5
    done = _run(path, "--kill-at", "25")
    assert done.returncode == -signal.SIGKILL, done.stderr
    lines = done.stdout.split()
    last = int(lines[-1])
    assert lines.count("committed") == 20
    await _check(path, last)
    # the game goes on from there in a new process
    done = _run(path, "--moves", "5")
    assert done.returncode == 0, done.stderr
    await _check(path, int(done.stdout.split()[-1]))


async def test_killed_at_a_random_moment(tmp_path: Path) -> None:
    path = tmp_path / "crash2.sqlite3"
    proc = subprocess.Popen([sys.executable, str(CHILD), str(path)], stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None
    seen: list[int] = []
    deadline = time.monotonic() + 60
    while len(seen) < 30 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(int(line.split()[1]))
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    rest = proc.stdout.read().split()
    proc.stdout.close()
    last = int(rest[-1]) if rest else seen[-1]
    # the database holds the last printed commit, or one more whose print was cut off
    async with SqliteStorage(path) as storage:
        info = await GameService(storage).info(1)
    assert info.version in (last, last + 1)
    await _check(path, info.version)
