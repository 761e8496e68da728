"""``python -m bot`` in a child process, against the fake Discord of the test process: the real
entry point (settings from the environment, the bot's own start and stop), with only discord.py's
addresses pointed at the fake (``entry_site/sitecustomize.py``).

``BotProcess.start(fake, data, guild_id, **env)`` runs it in ``data`` (its working folder, so
no ``.env`` of the repository is read) and waits until it is connected and serving (the log
line ``app.READY``). Of the test process's environment it gets no ``KHRONOS_`` or
``DISCORD_`` variable but ``KHRONOS_AI_SPEED`` (tests/conftest.py): its ``hard`` searches do
the reference machine's work, as the test process's do, with no calibration first (2-4 s of
searches on a slow machine, which made a search's time depend on the load).
``descendants(pid)`` lists a process tree from ``/proc`` (Linux), ``environment(pid)`` a
process's environment."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from ai.hard import SPEED_ENV
from bot.discord.app import READY
from tests.fakediscord.fake import FakeDiscord

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(__file__).with_name("entry_site")
# seconds BotProcess.start waits for the bot to serve (not a keyword of start: its keywords are
# the bot's settings)
READY_TIMEOUT = 60.0
STOP_BOUND = 10.0  # docker stop's SIGKILL comes 10 s after its SIGTERM


def children_of() -> dict[int, list[int]]:
    """Every process's children, read from ``/proc/<pid>/stat`` (field 4 is the parent)."""
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:  # gone meanwhile
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def descendants(pid: int) -> list[int]:
    """The processes under ``pid`` (children, theirs …), now."""
    tree = children_of()
    out: list[int] = []
    todo = list(tree.get(pid, []))
    while todo:
        child = todo.pop()
        out.append(child)
        todo.extend(tree.get(child, []))
    return sorted(out)


def environment(pid: int) -> dict[str, str]:
    """The environment ``pid`` was started with (Linux)."""
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    pairs = (item.decode().partition("=") for item in raw.split(b"\0") if item)
    return {name: value for name, _, value in pairs}


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie, dead but not reaped, is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@dataclass
class BotProcess:
    """One ``python -m bot`` process and what it wrote to its stderr."""

    proc: asyncio.subprocess.Process
    data: Path
    stderr: list[str] = field(default_factory=list)

    @property
    def pid(self) -> int:
        return self.proc.pid

    @classmethod
    async def start(cls, fake: FakeDiscord, data: Path, guild_id: int,
                    **env: str) -> BotProcess:
        """Start the bot with the settings ``env`` (variable names) on top of the fake's token,
        the data folder and the test server; wait until it is connected."""
        me = await cls.launch(fake, data, guild_id, **env)
        loop = asyncio.get_running_loop()
        end = loop.time() + READY_TIMEOUT
        while not me.ready():
            if me.proc.returncode is not None or loop.time() > end:
                await me.kill()
                raise AssertionError(f"the bot did not start: {me.log()[-3000:]}")
            await asyncio.sleep(0.05)
        return me

    @classmethod
    async def launch(cls, fake: FakeDiscord, data: Path, guild_id: int,
                     **env: str) -> BotProcess:
        """``start`` without waiting for the bot to serve."""
        data.mkdir(parents=True, exist_ok=True)
        where = {"api_base": fake.api_base, "gateway_url": fake.gateway_url,
                 "cdn_base": fake.cdn_base}
        environ = {k: v for k, v in os.environ.items()
                   if not k.startswith(("KHRONOS_", "DISCORD_")) or k == SPEED_ENV}
        environ.update({
            "PYTHONPATH": os.pathsep.join([str(SITE), str(ROOT)]),
            "KHRONOS_FAKE_DISCORD": json.dumps(where),
            "DISCORD_TOKEN": fake.token,
            "KHRONOS_DATA_DIR": str(data),
            "KHRONOS_TEST_GUILD_ID": str(guild_id),
            "KHRONOS_AI_WORKERS": "0",
            **env,
        })
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", cwd=str(data), env=environ,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        me = cls(proc, data)
        me._collect()
        return me

    def _collect(self) -> None:
        async def read() -> None:
            assert self.proc.stderr is not None
            async for line in self.proc.stderr:
                self.stderr.append(line.decode(errors="replace"))

        self._reader = asyncio.get_running_loop().create_task(read())

    def ready(self) -> bool:
        return any(READY in line for line in self.stderr)

    def log(self) -> str:
        return "".join(self.stderr)

    def signal(self, signum: int) -> None:
        self.proc.send_signal(signum)

    async def stop(self, release: Callable[[], Awaitable[None] | None] | None = None,
                   bound: float = STOP_BOUND) -> tuple[int | None, float]:
        """SIGTERM, then, once the stop has begun (its log line), ``release`` (what the test
        held); the exit status within ``bound`` seconds of the signal (None: still running)
        and the seconds from the signal to the exit (or to the bound)."""
        loop = asyncio.get_running_loop()
        signalled = loop.time()
        self.signal(signal.SIGTERM)
        if release is not None:
            while "stopping" not in self.log():
                if loop.time() - signalled > bound:
                    raise AssertionError(f"the stop never began: {self.log()[-3000:]}")
                await asyncio.sleep(0.02)
            released = release()
            if released is not None:
                await released
        status = await self.wait(max(bound - (loop.time() - signalled), 0.0))
        return status, loop.time() - signalled

    async def wait(self, timeout: float) -> int | None:
        """The exit status, or None if it is still running after ``timeout`` seconds."""
        try:
            return await asyncio.wait_for(self.proc.wait(), timeout)
        except TimeoutError:
            return None

    async def kill(self) -> None:
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGKILL)
        await self.proc.wait()
        await asyncio.wait([self._reader], timeout=5)
