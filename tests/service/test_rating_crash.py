"""A game is rated exactly once across a crash at its last move: the process killed inside
that move's transaction leaves the game unfinished and unrated; the move played again rates
it once; nothing after that rates it again (docs/community.md)."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

CHILD = Path(__file__).with_name("rating_crash_child.py")


def _run(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(CHILD), str(path), *args],
                          capture_output=True, text=True, timeout=180, check=False)


def _counts(path: Path) -> tuple[str, int, list[tuple[str, int]]]:
    with sqlite3.connect(path) as raw:
        status = raw.execute("SELECT status FROM games").fetchone()[0]
        results = raw.execute("SELECT COUNT(*) FROM results").fetchone()[0]
        ratings = raw.execute("SELECT player, games FROM ratings ORDER BY player").fetchall()
    return status, results, ratings


def test_a_game_is_rated_exactly_once_across_a_crash_at_its_last_move(tmp_path: Path) -> None:
    path = tmp_path / "crash.sqlite3"
    done = _run(path, "--kill-at-end")
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert done.stdout.split()[-1] == "killing"
    assert _counts(path) == ("active", 0, [])  # the last move, and its rating, rolled back
    done = _run(path)  # the bot again: the last move is played again
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "over"
    rated = [("user:1", 1), ("user:2", 1), ("user:3", 1)]
    assert _counts(path) == ("over", 3, rated)
    done = _run(path)  # and again: nothing rates it twice
    assert done.returncode == 0, done.stderr
    assert _counts(path) == ("over", 3, rated)
