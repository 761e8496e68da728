"""Several OS processes on one PostgreSQL database: the same game driven by all of them at
once, one of them killed (SIGKILL) in the middle of a commit, and due timers fired by all of
them: no move doubled or lost, every timer fired once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.service import GameService, GameSettings
from bot.storage.postgres import PgStorage
from tests.service.conftest import Clock, started_game
from tests.storage.postgres.backend import PG_URL, needs_pg, pg_schema

pytestmark = needs_pg

WORKER = Path(__file__).with_name("worker.py")
ROOT = Path(__file__).resolve().parents[3]
HOUR = 3600.0


@pytest.fixture
async def schema() -> AsyncIterator[str]:
    async with pg_schema() as name:
        yield name


def _start(schema: str, *args: str) -> subprocess.Popen[str]:
    assert PG_URL is not None
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, str(WORKER), PG_URL, schema, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _finish(procs: list[subprocess.Popen[str]]) -> list[tuple[int, list[str], str]]:
    done = []
    for p in procs:
        out, err = p.communicate(timeout=240)
        done.append((p.returncode, out.split("\n"), err))
    return done


async def _check_log(storage: PgStorage, channel: int) -> tuple[list[int], int]:
    """The game's log is whole: seq 1..n, versions strictly increasing, and replaying it gives
    the saved state. Returns the versions of the moves and the game's version."""
    service = GameService(storage)
    info, state = await service.snapshot(channel)
    async with storage.read() as q:
        moves = await q.moves(info.game_id)
    assert [m.seq for m in moves] == list(range(1, len(moves) + 1))
    versions = [m.version for m in moves]
    assert versions == sorted(set(versions))
    assert len(moves) == state.step
    assert await service.replayed_state(channel) == state
    return versions, info.version


async def test_processes_racing_on_one_game_apply_each_move_once(schema: str,
                                                                 tmp_path: Path) -> None:
    assert PG_URL is not None
    async with PgStorage(PG_URL, schema=schema) as storage:
        await started_game(GameService(storage), 1, players=3, seed=4242)
    until = 45
    go = str(tmp_path / "go")
    # one worker plays five moves alone and stops inside its sixth commit, holding the game's
    # lock; the others start, connect and say so; then all are let go at once: the killer holds
    # the lock a second more and dies by SIGKILL while the others wait on it, then they race on
    # every move to the end (all let go together, so none is alone for lack of a quick start)
    killed = _start(schema, "play", "--until", str(until), "--kill-at", "6", "--hold", "1",
                    "--go", go)
    assert killed.stdout is not None
    first = [killed.stdout.readline() for _ in range(5)]
    assert all(line.startswith("applied") for line in first), first
    procs = [_start(schema, "play", "--until", str(until), "--go", go) for _ in range(3)]
    for p in procs:
        assert p.stdout is not None
        assert p.stdout.readline().strip() == "ready"
    Path(go).touch()
    results = [*_finish(procs), _finish([killed])[0]]
    results[3][1][:0] = [line.strip() for line in first]
    for code, _, err in results[:3]:
        assert code == 0, err
    assert results[3][0] == -signal.SIGKILL, results[3][2]
    reported = Counter(int(line.split()[1]) for _, lines, _ in results
                       for line in lines if line.startswith("applied"))
    assert all(n == 1 for n in reported.values())  # no version reported by two processes
    async with PgStorage(PG_URL, schema=schema) as storage:
        versions, last = await _check_log(storage, 1)
    assert len(versions) >= until  # the survivors went on after the kill
    # every move reported is in the log, and every move in the log was reported; the killed
    # process reports none of its sixth commit, which was never made
    assert set(reported) == set(versions)
    assert versions[-1] == last
    # the survivors really raced: more than one of them got moves in, and moves were refused
    # to a process that came second to them
    assert sum(1 for _, lines, _ in results[:3] if any(x.startswith("applied") for x in lines)) >= 2
    assert any(line == "refused" for _, lines, _ in results[:3] for line in lines)
    killed_reported = sum(1 for line in results[3][1] if line.startswith("applied"))
    assert killed_reported == 5


async def test_processes_fire_each_due_timer_once(schema: str) -> None:
    assert PG_URL is not None
    clock = Clock()
    games = 12
    async with PgStorage(PG_URL, schema=schema) as storage:
        service = GameService(storage, clock=clock)
        for ch in range(1, games + 1):
            await started_game(service, ch, players=2, seed=ch,
                               settings=GameSettings(reminder_hours=1, deadline_hours=2))
    # three hours later, every game has its reminder, warning and deadline due: the deadline
    # ends the turn (one automatic log entry), the others have nothing left to say
    now = clock.now + 3 * HOUR
    procs = [_start(schema, "timers", "--now", repr(now)) for _ in range(4)]
    results = _finish(procs)
    for code, _, err in results:
        assert code == 0, err
    fired = [line.split() for _, lines, _ in results for line in lines
             if line.startswith("fired")]
    assert all(n == 1 for n in Counter(f[1] for f in fired).values())  # no timer twice
    deadlines = Counter(int(f[2]) for f in fired if f[3] == "1")
    async with PgStorage(PG_URL, schema=schema) as storage:
        async with storage.read() as q:
            all_games = await q.games()
            assert len(all_games) == games
            for game in all_games:
                moves = await q.moves(game.id)
                automatic = [m for m in moves if m.user_id is None]
                assert len(automatic) == 1, game.id  # the deadline played once
                assert deadlines[game.id] == 1  # and said so once
                # what is scheduled now is the next player's, in the future
                assert all(t.due_at > now for t in await q.timers(game.id))
            assert await q.due_timers(now) == []
        for ch in range(1, games + 1):
            await _check_log(storage, ch)
    assert sum(deadlines.values()) == games


async def test_a_process_killed_at_a_random_moment_leaves_a_whole_game(schema: str) -> None:
    """As tests/service/test_crash.py on SQLite: SIGKILL wherever the process happens to be;
    the database holds the last move it reported, or one more whose report was cut off."""
    assert PG_URL is not None
    async with PgStorage(PG_URL, schema=schema) as storage:
        await started_game(GameService(storage), 1, players=3, seed=77)
    proc = _start(schema, "play", "--until", "100000")
    assert proc.stdout is not None
    seen = [proc.stdout.readline() for _ in range(25)]
    proc.send_signal(signal.SIGKILL)
    rest, _ = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    reported = [int(line.split()[1]) for line in [*seen, *rest.splitlines()]
                if line.startswith("applied")]
    async with PgStorage(PG_URL, schema=schema) as storage:
        versions, last = await _check_log(storage, 1)
        assert last in (reported[-1], reported[-1] + 1)
        assert set(reported) <= set(versions)
    # and the game goes on in a new process
    done = _finish([_start(schema, "play", "--until", str(len(versions) + 5))])
    assert done[0][0] == 0, done[0][2]
    async with PgStorage(PG_URL, schema=schema) as storage:
        more, _ = await _check_log(storage, 1)
    assert len(more) == len(versions) + 5
