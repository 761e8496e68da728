"""``python -m bot --verify FILE`` and ``--replay FILE`` on a record exported by the service
(docs/community.md): exit statuses, sentences, one image per move, the same final state."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest

import bot.terminal.record as cli
from bot.__main__ import main
from bot.images import render_image
from bot.service import GameService, Image
from bot.storage.sqlite import SqliteStorage
from engine.random_player import random_action


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    """A finished 2-player game's record in a file, and its final Ecus by name."""
    import asyncio

    folder = tmp_path_factory.mktemp("record")

    async def play() -> tuple[str, dict[str, int]]:
        async with SqliteStorage(folder / "db.sqlite3") as storage:
            service = GameService(storage, seeds=lambda: 424242)
            await service.create_game(1, 1, "Ann", guild_id=2)
            await service.join(1, 2, "Bob")
            await service.start(1, 1)
            chooser = random.Random(5)
            while True:
                info, state = await service.snapshot(1)
                if state.over:
                    break
                seat, action = random_action(state, chooser)
                user = info.user_of(seat)
                assert user is not None
                await service.act(1, user, action)
            out = await service.export_record(1, 2)
            assert out.reply is not None and out.reply.file is not None
            return out.reply.file.text, {info.names[p.seat]: p.ecus for p in state.players}

    text, ecus = asyncio.run(play())
    path = folder / "game.json"
    path.write_text(text, encoding="utf-8")
    return path, ecus


def test_verify_a_fair_record(finished: tuple[Path, dict[str, int]],
                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--verify", str(finished[0])]) == 0
    said = capsys.readouterr().out
    assert said.startswith("✅ The deck was fair.") and "424242" in said


def test_verify_refuses_an_altered_record(finished: tuple[Path, dict[str, int]],
                                          tmp_path: Path) -> None:
    data = json.loads(finished[0].read_text())
    moved = tmp_path / "moved.json"
    moves = data["moves"]
    first = next(i for i, m in enumerate(moves) if m["action"]["kind"] == "travel")
    moves[first]["action"]["to"] = 2 if moves[first]["action"]["to"] != 2 else 1
    moved.write_text(json.dumps(data))
    out = io.StringIO()
    assert cli.verify_file(moved, out) == 1
    assert out.getvalue().startswith("❌ Not verified:")
    reseeded = tmp_path / "seed.json"
    reseeded.write_text(json.dumps(dict(json.loads(finished[0].read_text()), seed=1)))
    out = io.StringIO()
    assert cli.verify_file(reseeded, out) == 1
    assert "do not give the commitment" in out.getvalue()


def test_unreadable_and_partial_records_are_refused_plainly(tmp_path: Path) -> None:
    for text, words in (("not json", "not JSON"), ('{"a": 1}', "not a Khronos game record"),
                        ('{"format": "khronos-record", "version": 9}', "version 9"),
                        ('{"format": "khronos-record", "version": 1}', "incomplete")):
        path = tmp_path / "f.json"
        path.write_text(text)
        out = io.StringIO()
        assert cli.verify_file(path, out) == 2
        assert words in out.getvalue()
        assert cli.replay_file(path, tmp_path / "img", out) == 2
    out = io.StringIO()
    assert cli.verify_file(tmp_path / "missing.json", out) == 2
    assert "Cannot read" in out.getvalue()


def test_replay_writes_an_image_per_move_and_ends_as_the_game(
        finished: tuple[Path, dict[str, int]], tmp_path: Path) -> None:
    path, ecus = finished
    moves = len(json.loads(path.read_text())["moves"])
    drawn: list[int] = []

    def render(image: Image) -> bytes:
        drawn.append(image.state.step if image.state is not None else -1)
        return b"png"

    out = io.StringIO()
    assert cli.replay_file(path, tmp_path / "img", out, render=render) == 0
    assert sorted(p.name for p in (tmp_path / "img").iterdir())[-1] == f"move-{moves:03d}.png"
    assert len(list((tmp_path / "img").iterdir())) == moves + 1 == len(drawn)
    last = out.getvalue().strip().split("\n")[-1]
    assert last == "Final Ecus: " + ", ".join(f"{n} {e}" for n, e in ecus.items()) + "."
    # stopped after three images when the player says so
    answers = iter([True, True, False])
    out = io.StringIO()
    assert cli.replay_file(path, tmp_path / "img2", out, render=render,
                           wait=lambda: next(answers)) == 0
    assert len(list((tmp_path / "img2").iterdir())) == 4


def test_replay_from_the_command_line_draws_real_images(
        finished: tuple[Path, dict[str, int]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    real = render_image
    calls: list[Image] = []

    def first_real(image: Image) -> tuple[bytes, str, str]:
        calls.append(image)
        return real(image) if len(calls) <= 2 else (b"png", "move.png", "")

    monkeypatch.setattr(cli, "render_image", first_real)
    assert main(["--replay", str(finished[0]), "--images", str(tmp_path)]) == 0
    folder = tmp_path / "replay-game"
    assert (folder / "move-001.png").read_bytes().startswith(b"\x89PNG")
    assert "Final Ecus:" in capsys.readouterr().out
