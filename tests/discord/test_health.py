"""The heartbeat behind Docker's HEALTHCHECK: the real bot against the fake Discord writes it
while connected, and ``python -m bot.health`` (the image's check command) reads it."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bot.discord.app import KhronosBot
from bot.health import Heartbeat, check, heartbeat_path, is_connected, write_heartbeat
from bot.settings import Settings
from tests.fakediscord.fake import FakeDiscord

ROOT = Path(__file__).resolve().parents[2]


class HeartbeatBot(KhronosBot):
    """The real bot, with a heartbeat quick enough for a test to watch it renewed."""

    def __init__(self, settings: Settings, **options: Any) -> None:
        super().__init__(settings, **options)
        self.heartbeat = Heartbeat(self, heartbeat_path(settings.data_dir), interval=0.05)


def health_cmd(data_dir: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "bot.health", "--data-dir", str(data_dir), *extra]


async def run_check(data_dir: Path) -> tuple[int, str]:
    """``python -m bot.health`` in its own process, as Docker runs it."""
    proc = await asyncio.create_subprocess_exec(
        *health_cmd(data_dir), cwd=ROOT, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT)
    out, _ = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, out.decode()


async def wait_for(path: Path, present: bool, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while path.exists() != present:
        assert time.monotonic() < deadline, f"{path} exists={path.exists()} after {timeout} s"
        await asyncio.sleep(0.02)


async def test_a_connected_bot_is_healthy_and_a_stopped_one_is_not(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    guild = fake.add_guild()
    settings = Settings(DISCORD_TOKEN=fake.token, KHRONOS_DATA_DIR=tmp_path,
                        KHRONOS_TEST_GUILD_ID=guild.id)
    beat = heartbeat_path(tmp_path)
    write_heartbeat(beat, now=time.time())  # left over by an earlier run: says nothing
    bot = HeartbeatBot(settings)
    assert not is_connected(bot)
    async with fake.running(bot):
        assert is_connected(bot)
        await wait_for(beat, True)
        code, said = await run_check(tmp_path)
        assert code == 0, said
        assert "Healthy" in said
        # the file keeps being renewed while the gateway is up
        first = beat.read_text()
        await asyncio.sleep(0.2)
        assert beat.read_text() != first
    assert not is_connected(bot)
    assert not beat.exists()
    code, said = await run_check(tmp_path)
    assert code == 1
    assert "not connected to Discord" in said


def test_the_check_reads_the_age_of_the_heartbeat(tmp_path: Path) -> None:
    beat = heartbeat_path(tmp_path)
    assert check(beat, now=1000.0)[0] == 1  # none yet
    write_heartbeat(beat, now=1000.0)
    assert check(beat, max_age=90, now=1089.0) == (0, "Healthy: the bot was connected to "
                                                      "Discord 89 s ago.")
    code, said = check(beat, max_age=90, now=1091.0)
    assert code == 1 and "91 s old" in said
    beat.write_text("garbage\n")
    assert check(beat, now=1000.0)[0] == 1


def test_the_check_command_finds_the_data_folder_like_the_bot(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    write_heartbeat(heartbeat_path(tmp_path / "data"))
    env = {"PATH": os.environ.get("PATH", ""), "KHRONOS_DATA_DIR": str(tmp_path / "data")}
    # from the settings, as in the image, and it stays cheap: no discord.py, no engine
    probe = ("import sys, bot.health as h; code = h.main([]); "
             "assert 'discord' not in sys.modules and 'engine' not in sys.modules; "
             "sys.exit(code)")
    done = subprocess.run([sys.executable, "-c", probe], check=False, cwd=tmp_path, env={
        **env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    old = subprocess.run(health_cmd(tmp_path / "data", "--max-age", "0"), check=False, cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert old.returncode == 1
    assert "s old" in old.stderr
