"""Loaded at start-up by a ``python -m bot`` that the tests run (``PYTHONPATH`` names this
folder): it points discord.py at the fake Discord the test process runs, named by
``KHRONOS_FAKE_DISCORD`` (JSON: ``api_base``, ``gateway_url``, ``cdn_base``), and changes
nothing else. Without that variable it does nothing."""

from __future__ import annotations

import json
import os

_FAKE = os.environ.get("KHRONOS_FAKE_DISCORD")
if _FAKE:
    import discord.asset
    import discord.gateway
    import discord.http
    import yarl

    _where = json.loads(_FAKE)
    discord.http.Route.BASE = _where["api_base"]
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(_where["gateway_url"])
    discord.asset.Asset.BASE = _where["cdn_base"]

# benchmarks: the service's clock runs ahead of the wall clock by the number of seconds
# written in this file (an outage simulated without waiting for it)
_SHIFT = os.environ.get("KHRONOS_CLOCK_SHIFT_FILE")
if _SHIFT:
    import time
    from pathlib import Path

    from bot.service import core

    _shift_file = Path(_SHIFT)

    def _shifted(path: Path = _shift_file) -> float:
        try:
            return time.time() + float(path.read_text() or 0)
        except (OSError, ValueError):
            return time.time()

    assert core.ServiceCore.__init__.__kwdefaults__ is not None
    core.ServiceCore.__init__.__kwdefaults__["clock"] = _shifted

# tests of a stop in the middle of a timer's work: ``KHRONOS_HOLD_DIR`` names a folder. While
# a file ``play`` is in it, a move made without its player's action (a deadline's default, a
# computer's action, a kicked seat's turn ended by the admin's /kick or /resume; not a
# player's own move) is held inside its transaction, computed but not committed
# (``MovesMixin._play`` called without ``first``); while a file ``think`` is in it, a
# computer's decision is held in the worker that computes it (``ai.worker.decide_json``),
# while a file ``hint`` is in it, a /hint's search (``ai.worker.hints_json``), and while a file
# ``close`` is in it, the stop's close of the database connections. A held point
# first writes ``<name>.reached`` in the folder; a hold ends after ``_HOLD_LIMIT`` seconds
# whatever happens.
_HOLD = os.environ.get("KHRONOS_HOLD_DIR")
_HOLD_LIMIT = 60.0
if _HOLD:
    import asyncio
    import time
    from pathlib import Path
    from typing import Any

    import ai.worker
    from bot.service import moves
    from bot.service.results import GameInfo, Outcome
    from bot.storage.api import GameRow, Tx
    from engine import Action, GameState

    _holds = Path(_HOLD)

    def _held(name: str) -> bool:
        """Whether the point ``name`` is to hold; if so, says that it is reached."""
        gate = _holds / name
        if not gate.exists():
            return False
        (_holds / f"{name}.reached").write_text(str(os.getpid()))
        return True

    def _wait(name: str) -> None:
        """Block this thread while the point ``name`` holds."""
        if _held(name):
            end = time.monotonic() + _HOLD_LIMIT
            while (_holds / name).exists() and time.monotonic() < end:
                time.sleep(0.02)

    async def _wait_async(name: str) -> None:
        """``_wait`` for a coroutine: the event loop runs on while the point holds."""
        if _held(name):
            end = time.monotonic() + _HOLD_LIMIT
            while (_holds / name).exists() and time.monotonic() < end:
                await asyncio.sleep(0.02)

    _decide = ai.worker.decide_json
    _hints = ai.worker.hints_json

    def held_decide_json(view_json: str, level: str, budget_s: float,
                         seed: int) -> dict[str, object]:
        _wait("think")
        return _decide(view_json, level, budget_s, seed)

    def held_hints_json(view_json: str, level: str, budget_s: float,
                        seed: int) -> list[dict[str, Any]]:
        """Held while ``hint`` is; then writes how the search ended in ``hint.ended``: the
        name of what it raised, or ``answered``."""
        _wait("hint")
        ended = "answered"
        try:
            return _hints(view_json, level, budget_s, seed)
        except BaseException as exc:
            ended = type(exc).__name__
            raise
        finally:
            if _holds.is_dir():
                (_holds / "hint.ended").write_text(ended)

    ai.worker.decide_json = held_decide_json
    ai.worker.hints_json = held_hints_json

    _play = moves.MovesMixin._play

    async def _held_play(self: moves.MovesMixin, tx: Tx, game: GameRow, info: GameInfo,
                         state: GameState, now: float, *,
                         first: tuple[int, int | None, Action] | None = None,
                         timed_out: int | None = None, intro: str = "") -> Outcome:
        out = await _play(self, tx, game, info, state, now, first=first, timed_out=timed_out,
                          intro=intro)
        by_timer = first is None or first[1] is None or first[1] < 0  # no person's move
        if by_timer:
            await _wait_async("play")
        return out

    moves.MovesMixin._play = _held_play  # type: ignore[method-assign]

    # ``close``: a database that does not answer its close (then closed)
    from bot.storage.postgres import PgStorage
    from bot.storage.sqlite import SqliteStorage

    def _held_close(close: Any) -> Any:
        async def held(self: Any) -> None:
            await _wait_async("close")
            await close(self)
        return held

    SqliteStorage.close = _held_close(SqliteStorage.close)  # type: ignore[method-assign]
    PgStorage.close = _held_close(PgStorage.close)  # type: ignore[method-assign]
