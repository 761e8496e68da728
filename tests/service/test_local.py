"""The terminal adapter plays a game from typed lines, storing to the SQLite file."""

from __future__ import annotations

import io
from pathlib import Path

from bot.__main__ import main
from bot.local import run_local
from bot.service import GameService
from bot.storage import Storage


async def test_a_scripted_terminal_game(tmp_path: Path) -> None:
    script = iter([
        "/status", "/hand", "/travel faith", "/undo", "/as Bob /end", "/end",
        "/random 40", "/history 3", "/quit",
    ])
    out = io.StringIO()
    code = await run_local(players=3, data_dir=tmp_path / "data", images_dir=tmp_path / "img",
                           seed=5, out=out, lines=lambda prompt: next(script, None))
    text = out.getvalue()
    assert code == 0
    assert "Round 1 of 7" in text
    assert "takes back" in text
    assert "Refused [R8]" in text  # Bob tried to end Ann's turn
    assert "(random) plays" in text
    async with Storage.in_dir(tmp_path / "data") as storage:
        info = await GameService(storage).info(1)
        assert info.status == "active" and len(info.seats) == 3
    # run again: the saved game resumes where it was
    out2 = io.StringIO()
    await run_local(players=3, data_dir=tmp_path / "data", images_dir=tmp_path / "img",
                    out=out2, lines=lambda prompt: None)
    assert f"Resuming game #{info.game_id}" in out2.getvalue()


async def test_random_players_finish_a_game(tmp_path: Path) -> None:
    out = io.StringIO()
    await run_local(players=2, data_dir=tmp_path, images_dir=tmp_path / "img", seed=3,
                    random_moves=5000, out=out, lines=lambda prompt: None)
    assert "The game is over" in out.getvalue()


def test_without_local_the_bot_asks_for_a_token(capsys: object) -> None:
    assert main([]) == 2
