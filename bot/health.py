"""The bot's heartbeat file, and ``python -m bot.health`` that Docker's HEALTHCHECK runs.

While the bot's gateway connection is up, a task writes the current time into ``heartbeat`` in
the data folder every :data:`INTERVAL` seconds (a write replaces the file whole, so a reader
never sees half of it). ``python -m bot.health`` reads it and exits 0 when it is at most
:data:`MAX_AGE` seconds old, else 1 with one sentence: no network tool is needed in the image,
and the check imports neither discord.py nor the engine, so it costs little every minute.

The Discord app owns one :class:`Heartbeat`: ``Heartbeat(bot, heartbeat_path(data_dir))``,
``start()`` in ``setup_hook`` and ``await stop()`` first thing in ``close`` (which removes the
file, so a bot that was stopped is never reported healthy).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import discord

HEARTBEAT_FILE = "heartbeat"
INTERVAL = 20.0  # seconds between two writes while connected
MAX_AGE = 90.0  # older than this: not connected (a few missed writes, and Docker's timing)


def heartbeat_path(data_dir: Path) -> Path:
    return data_dir / HEARTBEAT_FILE


def is_connected(client: discord.Client) -> bool:
    """Whether the client is ready and every gateway connection it has is open (each shard of
    an ``AutoShardedClient``; its one websocket otherwise)."""
    if not client.is_ready() or client.is_closed():
        return False
    shards = getattr(client, "shards", None)
    if isinstance(shards, dict):
        return bool(shards) and not any(shard.is_closed() for shard in shards.values())
    ws = getattr(client, "ws", None)
    return bool(ws is not None and ws.open)


def write_heartbeat(path: Path, now: float | None = None) -> None:
    """Write ``now`` (default: the current time) into ``path``, replacing it whole."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(f"{time.time() if now is None else now:.3f}\n", encoding="ascii")
    os.replace(tmp, path)


def heartbeat_age(path: Path, now: float | None = None) -> float | None:
    """Seconds since the last heartbeat in ``path``; None if there is none or it is unreadable."""
    try:
        written = float(path.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return None
    if not math.isfinite(written):
        return None
    return (time.time() if now is None else now) - written


class Heartbeat:
    """Writes the heartbeat file every ``interval`` seconds while ``client`` is connected."""

    def __init__(self, client: discord.Client, path: Path, *, interval: float = INTERVAL) -> None:
        self.client = client
        self.path = path
        self.interval = interval
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start writing (call it with the event loop running, e.g. in ``setup_hook``). A file
        left by an earlier run is removed first: it says nothing about this one."""
        self.path.unlink(missing_ok=True)
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="khronos-heartbeat")

    async def stop(self) -> None:
        """Stop writing and remove the file (call it when the bot closes)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self.path.unlink(missing_ok=True)

    async def _run(self) -> None:
        # the first write as soon as the gateway is ready, not one interval after the start
        await self.client.wait_until_ready()
        while True:
            if is_connected(self.client):
                # a full or read-only disk: no heartbeat, so the check says "not healthy"
                with contextlib.suppress(OSError):
                    write_heartbeat(self.path)
            await asyncio.sleep(self.interval)


def check(path: Path, *, max_age: float = MAX_AGE, now: float | None = None) -> tuple[int, str]:
    """The exit status and a sentence: 0 if ``path`` holds a heartbeat at most ``max_age``
    seconds old, else 1."""
    age = heartbeat_age(path, now)
    if age is None:
        return 1, (f"No heartbeat in {path}: the bot is not connected to Discord (still "
                   "starting, stopped, or unable to reach Discord).")
    if age > max_age:
        return 1, (f"The last heartbeat is {age:.0f} s old (more than {max_age:.0f} s): the bot "
                   "has lost its connection to Discord or is stuck.")
    return 0, f"Healthy: the bot was connected to Discord {max(age, 0.0):.0f} s ago."


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bot.health",
        description="Exit 0 if the bot is connected to Discord (its heartbeat file is fresh).")
    parser.add_argument("--data-dir", default=None,
                        help="the bot's data folder (default: KHRONOS_DATA_DIR or ./data)")
    parser.add_argument("--max-age", type=float, default=MAX_AGE,
                        help=f"seconds a heartbeat stays valid (default {MAX_AGE:.0f})")
    args = parser.parse_args(argv)
    if args.data_dir is not None:
        data_dir = Path(args.data_dir)
    else:
        from .settings import SettingsError, load_settings

        try:
            data_dir = load_settings().data_dir
        except SettingsError as exc:
            print(exc, file=sys.stderr)
            return 1
    code, sentence = check(heartbeat_path(data_dir), max_age=args.max_age)
    print(sentence, file=sys.stdout if code == 0 else sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
