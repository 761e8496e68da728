"""A 6,000-character value typed in every option of every command, in games speaking English,
French and German, and given to ``--names`` and ``/as``: each is refused in a short answer,
and no printed line is longer than Discord's 2,000 characters."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot import i18n
from bot.commands import COMMANDS, Context, run_line
from bot.service import GameService
from bot.terminal.app import run_local
from engine import EngineError
from tests.service.conftest import started_game
from tests.terminal.test_terminal import play

LONG = ("<@123456789012345678>**@everyone**C4,mmr" * 200)[:6000]  # one word, as typed


def long_lines() -> list[str]:
    """Every command with ``LONG`` in each of its options, by name and in its place."""
    lines = []
    for spec in COMMANDS.values():
        path = f"/{spec.parent} {spec.name}" if spec.parent else f"/{spec.name}"
        for param in spec.params:
            lines.append(f"{path} {param.name}:{LONG}")
        if spec.params:
            lines.append(f"{path} {LONG}")
    lines.append(f"/{LONG}")
    lines.append(f'/build keep "{LONG[:3000]} {LONG[3000:]}" might')  # quoted, with a space
    return lines


def assert_short(text: str) -> None:
    lines = text.split("\n")
    assert max(len(line) for line in lines) <= 2000
    assert not any(LONG[:80] in line for line in lines)


@pytest.mark.parametrize("language", ["en", "fr", "de"])
def test_every_long_option_is_refused_in_a_short_answer(tmp_path: Path, language: str) -> None:
    typed = long_lines()
    script = [f"/game settings language:{language}", *typed, "/history 3", "/quit"]
    code, text = play(tmp_path, script, players=2, seed=4)
    assert code == 0
    assert_short(text)
    refused = i18n.text("terminal.refused", language, message="").strip()  # the terminal
    assert text.count(refused) >= len(typed) - 2  # speaks the game's language; /help topic and
    # /board age are not moves
    assert "#1 " not in text.split("/history")[-1]  # no move was played


def test_a_long_name_given_to_names_or_as_is_refused_shortly(tmp_path: Path) -> None:
    out = io.StringIO()
    code = run_local(data_dir=tmp_path / "data", images_dir=tmp_path / "img", out=out,
                     names=[LONG, "Bob"], lines=lambda prompt: None)
    assert code == 2
    assert_short(out.getvalue())
    assert "cannot be used" in out.getvalue()
    code, text = play(tmp_path, [f"/as {LONG} /hand", "/quit"], players=2, seed=4)
    assert code == 0
    assert_short(text)
    assert "No player is called" in text


@pytest.mark.parametrize("locale", [None, "fr", "de"])
async def test_every_long_typed_option_is_refused_shortly_in_the_readers_language(
        service: GameService, locale: str | None) -> None:
    """The typed lines both front ends share (``run_line``), read for a reader in each
    language: a short refusal in his words for every command and option."""
    await started_game(service, 30, players=2, seed=30)
    ctx = Context(30, 301, "Ann", 1, is_admin=True, locale=locale)
    cannot = i18n.text("parse.square", locale, value="''").split("''")[1][:12]
    for line in long_lines():
        with pytest.raises(EngineError) as refused:
            await run_line(service, ctx, line)
        assert len(refused.value.message) <= 400, line[:40]
        assert LONG[:80] not in refused.value.message
    with pytest.raises(EngineError) as refused:
        await run_line(service, ctx, f"/build keep {LONG} might")
    assert cannot in refused.value.message  # in the reader's words
