"""A newcomer's first run, as the README says: ``cp .env.example .env``, set the token,
``make run`` (or ``make local``); and the settings that file holds."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.settings import Settings, SettingsError, load_settings

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"
TOKEN = "MTIz.fake.token-for-tests"
NO_ROUTE = "Cannot reach Discord ("
REFUSED = "Discord refused the token in DISCORD_TOKEN"


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """An environment with none of the caller's KHRONOS_ or DISCORD_ settings (nor make's)."""
    return {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "LANG": "C.UTF-8", **extra}


def env_file_from_example(folder: Path, token: str = TOKEN) -> Path:
    """``cp .env.example .env`` and set the token, in ``folder``."""
    lines = (ROOT / ".env.example").read_text().splitlines()
    assert any(line.startswith("DISCORD_TOKEN=") for line in lines)
    text = "\n".join(f"DISCORD_TOKEN={token}" if line.startswith("DISCORD_TOKEN=") else line
                     for line in lines)
    path = folder / ".env"
    path.write_text(text + "\n")
    return path


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of the project's files that ``make run`` and ``make local`` use."""
    dest = tmp_path / "khronos"
    dest.mkdir()
    for name in ("Makefile", "pyproject.toml", "requirements.txt", "requirements-dev.txt",
                 ".env.example"):
        shutil.copy2(ROOT / name, dest / name)
    for package in ("engine", "render", "ai", "bot"):
        shutil.copytree(ROOT / package, dest / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    env_file_from_example(dest)
    return dest


def make(target: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``make <target>`` in ``cwd`` with this project's venv, never reinstalling into it
    (``-o``: the copy's files must not re-point the venv's editable install)."""
    if not (VENV / "bin" / "python").exists():
        pytest.skip("needs the project's .venv (make test builds it)")
    return subprocess.run(
        ["make", "-s", target, f"VENV={VENV}", "-o", str(VENV / ".run-installed"),
         "-o", f"{VENV}/bin/python"],
        check=False, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=120,
        env=clean_env(cwd.parent))


def test_make_run_from_env_example_says_in_one_sentence_why_it_stops(checkout: Path) -> None:
    done = make("run", checkout)
    # no network to Discord here (CI): "cannot reach"; with a network, the fake token is refused
    assert done.returncode != 0
    assert "Traceback" not in done.stderr and "ValidationError" not in done.stderr
    ours = [line for line in done.stderr.splitlines()
            if line.startswith((NO_ROUTE, REFUSED))]
    assert len(ours) == 1, done.stderr
    assert ours[0].endswith(".")
    assert "Khronos bot: games in" in done.stdout
    assert (checkout / "data").is_dir()  # KHRONOS_DATA_DIR of .env.example


def test_make_local_from_env_example_plays(checkout: Path) -> None:
    done = make("local", checkout, stdin="/status\n/travel faith\n/quit\n")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "Round 1 of 7" in done.stdout
    assert "travels from Might to Faith" in done.stdout
    assert (checkout / "data" / "khronos.sqlite3").is_file()
    assert (checkout / "local-games" / "game-1" / "move-001.png").is_file()


def test_no_route_to_discord_is_one_sentence(tmp_path: Path) -> None:
    with socket.socket() as s:  # a local port nobody listens on: connection refused
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    script = (f"import discord.http, sys; discord.http.Route.BASE = "
              f"'http://127.0.0.1:{port}/api/v10'; from bot.__main__ import main; "
              "sys.exit(main([]))")
    done = subprocess.run([sys.executable, "-c", script], check=False, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env=clean_env(
                              tmp_path, PYTHONPATH=str(ROOT), DISCORD_TOKEN=TOKEN,
                              KHRONOS_DATA_DIR=str(tmp_path / "data")))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(NO_ROUTE)
    assert last.endswith("check this machine's network connection, then start the bot again.")


# --- settings -----------------------------------------------------------------------------


@pytest.fixture
def in_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run in an empty folder with no setting in the environment."""
    for name in list(os.environ):
        if name.startswith(("KHRONOS_", "DISCORD_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_env_example_as_shipped_gives_the_defaults(in_folder: Path) -> None:
    shutil.copy(ROOT / ".env.example", in_folder / ".env")
    settings = load_settings()
    assert settings == Settings.model_validate({})  # every empty value is "not set"
    assert settings.test_guild_id is None and settings.discord_token is None
    assert settings.data_dir == Path("data") and settings.reminder_hours == 24


def test_env_example_with_a_token_and_a_server(in_folder: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    env_file_from_example(in_folder)
    with (in_folder / ".env").open("a") as f:
        f.write("KHRONOS_TEST_GUILD_ID=123456789012345678\nKHRONOS_LOG_LEVEL=debug\n")
    settings = load_settings()
    assert settings.discord_token == TOKEN
    assert settings.test_guild_id == 123456789012345678
    assert settings.log_level == "DEBUG"
    monkeypatch.setenv("KHRONOS_TEST_GUILD_ID", "42")  # the environment wins over .env
    assert load_settings().test_guild_id == 42


@pytest.mark.parametrize(("name", "value", "said"), [
    ("KHRONOS_TEST_GUILD_ID", "my-server", "KHRONOS_TEST_GUILD_ID must be a server id"),
    ("KHRONOS_TEST_GUILD_ID", "-3", "KHRONOS_TEST_GUILD_ID must be a server id"),
    ("KHRONOS_LOG_LEVEL", "LOUD", "KHRONOS_LOG_LEVEL must be one of DEBUG, INFO"),
    ("KHRONOS_REMINDER_HOURS", "0", "KHRONOS_REMINDER_HOURS must be a number of hours above 0"),
    ("KHRONOS_REMINDER_HOURS", "nan", "KHRONOS_REMINDER_HOURS must be a number of hours"),
])
def test_a_bad_setting_is_one_sentence_and_nothing_starts(
        in_folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        name: str, value: str, said: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError, match=said):
        load_settings()
    assert main(["--local"]) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err
    assert list(in_folder.iterdir()) == []  # no data folder, no game


@pytest.mark.parametrize("args", [["--local"], []])
def test_a_bad_computer_speed_is_one_sentence_and_nothing_starts(
        in_folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        args: list[str]) -> None:
    """``KHRONOS_AI_SPEED`` is read by the computers' processes at their first search of level
    ``hard``; a bad value stops the start instead of failing every such search."""
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("KHRONOS_AI_SPEED", "fast")
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("KHRONOS_AI_SPEED='fast': expected a number from 0.125 to 4")
    assert "unset it" in err and "Traceback" not in err and err.count("\n") == 1
    assert list(in_folder.iterdir()) == []  # no data folder, no game


def test_a_refusal_never_shows_the_token(in_folder: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("KHRONOS_LOG_LEVEL", "LOUD")
    with pytest.raises(SettingsError) as refusal:
        load_settings()
    assert TOKEN not in str(refusal.value)


def test_a_data_folder_it_cannot_write_is_one_sentence(
        in_folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = in_folder / "not-a-folder"
    blocker.write_text("a file where the data folder should be")
    assert main(["--local", "--data-dir", str(blocker / "data")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"Cannot write in the data folder {blocker / 'data'}")
    assert err.strip().endswith("or set KHRONOS_DATA_DIR (or --data-dir) to another folder.")
