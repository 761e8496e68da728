"""A newcomer's first hour in the terminal: the buildings and each command explained, Tab and a
missing square showing where a building fits and what it costs, the terrain surcharge said,
a paradox previewed before it is played, computers' moves each with its picture and a summary
of what changed, the whole terminal in French or German, and the wording of what it prints."""

from __future__ import annotations

import asyncio
import io
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Unpack

import pytest

import engine
from bot.storage.sqlite import SqliteStorage
from bot.terminal.app import run_local, terminal_language
from engine import Age
from engine.builder import position
from render.marks import choice_marks
from tests.terminal.test_terminal import HAS_READLINE, PROMPT, ROOT, LocalFlags, Terminal


def play(tmp_path: Path, script: list[str], **flags: Unpack[LocalFlags]) -> tuple[int, str]:
    """Run a terminal game on ``tmp_path`` with these typed lines, each shown after its prompt
    as a terminal shows it; (exit status, what the terminal showed)."""
    lines = iter(script)
    out = io.StringIO()

    def read(prompt: str) -> str | None:
        line = next(lines, None)
        out.write(prompt + ("" if line is None else line + "\n"))
        return line

    code = run_local(data_dir=tmp_path / "data", images_dir=tmp_path / "img", out=out,
                     lines=read, **flags)
    return code, out.getvalue()


X = "\u00d7"  # the multiplication sign of "2 by 2" and "military times 2"


def put_state(tmp_path: Path, state: engine.GameState) -> None:
    """Store ``state`` as the saved terminal game's position (a game made by ``play``)."""

    async def write() -> None:
        async with SqliteStorage.in_dir(tmp_path / "data") as storage, \
                storage.write() as tx:
            game = await tx.game(1)
            assert game is not None
            text = state.model_dump_json()
            await tx.update_game(1, game.version, now=0.0, state=text, checkpoint=text,
                                 checkpoint_seq=0)

    asyncio.run(write())


def keep_over_own_watchtower(tmp_path: Path, lang: str | None = None) -> None:
    """A saved game where Ann (to play, both adventurers on Might, hand mmrc) has a Watchtower
    at G8 on Faith: a Keep at G8 on Might costs 2 military + 1 for its forest (R18) and its
    copy erases her Watchtower on Faith (R25, R29)."""
    code, _ = play(tmp_path, [], seed=5, lang=lang)
    assert code == 0
    put_state(tmp_path, position(3, faith="Watchtower G8 0", hands={0: "mmrc"},
                                 adventurers={0: [Age.MIGHT, Age.MIGHT]}))


def after(text: str, marker: str) -> str:
    return text[text.index(marker):]


# --- 1. what exists, what it costs, where it fits ------------------------------------------


def test_help_buildings_lists_each_building_with_its_size_cost_and_ripple(
        tmp_path: Path) -> None:
    code, text = play(tmp_path, ["/help buildings"], seed=5)
    assert code == 0
    shown = after(text, "> /help buildings")
    assert f"Keep        2{X}2  2 cards    ripples to Faith with your cube" in shown
    assert f"City        3{X}3  5 cards    ripples to every later board (R24)" in shown
    assert f"Watchtower  1{X}1  1 card     never ripples (R23)" in shown
    assert "named by its top-left square" in shown
    assert "Forest under a building costs +1 card of any family" in shown
    assert "Printed hamlets (the houses printed on the map, R3)" in shown  # item 8 too
    assert "is not a help topic" not in shown


def test_help_on_one_command_describes_its_options(tmp_path: Path) -> None:
    code, text = play(tmp_path, ["/help build", "/help fly"], seed=5)
    assert code == 0
    shown = after(text, "> /help build")
    assert "/build building square age [pay]" in shown
    assert "  pay (optional): Terrain surcharge cards (R18)" in shown
    assert "Example: /build keep C4 might" in shown
    assert "'fly' is not a help topic: commands, rules, buildings, or a command's name" in shown


def test_a_build_missing_its_square_lists_the_legal_squares_with_their_cost(
        tmp_path: Path) -> None:
    keep_over_own_watchtower(tmp_path)
    code, text = play(tmp_path, ["/build keep"])
    assert code == 0
    shown = after(text, "> /build keep")
    assert "Refused: /build: missing square, age." in shown
    assert "Where it can go now, with its cost:" in shown
    assert f"  A1 · Might: Keep, military {X}2, +1: forest (any card)" in shown
    assert f"  F1 · Might: Keep, military {X}2\n" in shown
    assert re.search(r"… and \d+ more: type the first letters and press Tab\.", shown)
    code, text = play(tmp_path, ["/history"])
    assert "No moves yet." in text  # nothing was played


@pytest.mark.skipif(not HAS_READLINE, reason="this Python has no readline module")
def test_tab_completes_the_command_then_its_arguments_with_their_cost(tmp_path: Path) -> None:
    term = Terminal(tmp_path, "--seed", "5")
    try:
        term.expect(PROMPT)
        term.type("/bu\t")  # one command: completed, with the space after it
        term.expect("/build ")
        term.type("\t\t")  # the buildings, each with its cost and size
        listing = term.expect(PROMPT)
        assert f"keep: military {X}2, 2{X}2" in listing and f"city: civil {X}5, 3{X}3" in listing
        term.type("wat\t")
        term.expect("watchtower ")
        term.type("\t\t")  # the ages a building may stand on
        assert re.search(r"\n\s+faith\r?\n\s+might\r?\n", term.expect(PROMPT))
        term.type("mi\t")
        term.expect("might ")
        term.type("C1\t\t")  # the legal squares of column C from 10 to 16, with their cost
        listing = term.expect(PROMPT)
        assert f"C12 · Might: Watchtower, military {X}1, +2: mountain (any cards)" in listing
        assert f"C10 · Might: Watchtower, military {X}1\r" in listing
        term.type("\x15/quit\r")
        term.expect("Stopped. The game is saved")
        assert term.finish() == 0
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    assert "Traceback" not in term.seen


# --- 2. the terrain surcharge, said ---------------------------------------------------------


def test_r18_the_result_says_the_surcharge_its_terrain_and_how_to_pay_it_otherwise(
        tmp_path: Path) -> None:
    keep_over_own_watchtower(tmp_path)
    code, text = play(tmp_path, ["/build keep G8 might", "y"])
    assert code == 0
    shown = after(text, "Play it? [y/n]")
    assert "Terrain surcharge (R18) +1: forest, paid with 1 religious (r).\n" in shown
    assert ("The terrain surcharge took 1 religious (r), the family you hold most of, as pay "
            "did not name cards; to pay it otherwise: /undo, then the same move with pay c."
            ) in shown


def test_r18_named_cards_pay_the_surcharge_and_no_advice_follows(tmp_path: Path) -> None:
    keep_over_own_watchtower(tmp_path)
    code, text = play(tmp_path, ["/build keep G8 might pay c", "y"])
    assert code == 0
    shown = after(text, "Play it? [y/n]")
    assert "paid with 1 civil (c)." in shown
    assert "to pay it otherwise" not in shown


def test_r18_a_refusal_for_cards_says_the_surcharge(tmp_path: Path) -> None:
    keep_over_own_watchtower(tmp_path)
    code, text = play(tmp_path, ["/build keep G8 might pay mr"])
    assert code == 0
    assert ("Refused: R18 Terrain: this footprint costs 1 extra card of any family; you named "
            "2. This footprint costs +1: forest (R18), in cards of any family; pay names them "
            "(pay mr).") in text


# --- 3. a paradox is previewed ---------------------------------------------------------------


def test_r29_a_paradox_is_previewed_and_played_only_on_yes(tmp_path: Path) -> None:
    keep_over_own_watchtower(tmp_path)
    code, text = play(tmp_path, ["/build keep G8 might", "n", "/history"])
    assert code == 0
    preview = after(text, "Preview (nothing is played until you confirm):")
    assert preview.index("Ann's Watchtower at G8 on Faith is erased") < preview.index(
        "Play it? [y/n] n")
    assert "preview.png" in preview
    assert "Cancelled: nothing was played." in preview
    assert "No moves yet." in preview
    code, text = play(tmp_path, ["/build keep G8 might", "y", "/history"])
    assert "#1 Ann builds a Keep at G8 on Might" in text
    assert (tmp_path / "img" / "game-1" / "preview.png").exists()


def test_a_move_that_changes_only_its_own_squares_asks_nothing(tmp_path: Path) -> None:
    keep_over_own_watchtower(tmp_path)
    code, text = play(tmp_path, ["/build watchtower M8 might", "/history"])
    assert code == 0
    assert "Preview" not in text and "Play it?" not in text
    assert "#1 Ann builds a Watchtower at M8" in text


# --- 4. a Python without the dependencies -------------------------------------------------


def test_without_its_dependencies_the_entry_point_points_at_make_local(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    python = bare / "bin" / "python"
    result = subprocess.run(
        [str(python), "-m", "bot", "--local", "--data-dir", str(tmp_path / "data")],
        check=False, cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8"})
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "is missing from this Python" in lines[0] and "run `make local`" in lines[0]
    assert not (tmp_path / "data").exists()


# --- 6. computers' moves, each with its picture, and what changed ---------------------------


def test_each_computer_move_writes_its_picture_and_the_person_sees_what_changed(
        tmp_path: Path) -> None:
    code, text = play(tmp_path, ["/end", "/history 50"], players=3, bots=2, bot_level="easy",
                      bot_budget=0.0, seed=3)
    assert code == 0
    log = after(text, "> /history 50")
    history = [int(n) for n in re.findall(r"^#(\d+) ", log, re.M)]
    written = re.findall(r"\[image: .*?move-(\d+)\.png\]", text)
    assert [int(n) for n in written] == list(range(max(history) + 1))  # one per move
    folder = tmp_path / "img" / "game-1"
    assert {f"move-{n:03d}.png" for n in history} <= {p.name for p in folder.iterdir()}
    since = text[text.index("> /end"):text.index("> /history 50")]
    ann = max(int(n) for n in re.findall(r"^#(\d+) Ann ", log, re.M))
    listed = [int(n) for n in re.findall(r"^#(\d+) ", since, re.M)]
    assert since.count("Since your last move:") == 1
    assert listed == list(range(ann + 1, max(history) + 1))  # every move after Ann's
    assert "since-last-turn.png" in since and (folder / "since-last-turn.png").exists()


# --- 7. the terminal in French or German ------------------------------------------------------


def test_the_terminal_speaks_french_typed_words_included(tmp_path: Path) -> None:
    keep_over_own_watchtower(tmp_path, "fr")
    code, text = play(tmp_path, ["/aide", "/construire temple", "/construire donjon G8 puissance",
                                 "o", "/main", "/sortir"])
    assert code == 0
    assert text.startswith("Khronos dans le terminal.")
    assert "Reprise de la partie n° 1" in text
    assert "Manche 1 sur 7 : au tour d'Ann." in text  # élision (item 8)
    assert "  /construire donjon C4 puissance    R15 : construire un bâtiment" in text
    assert "Refusé : /construire : 'temple' n'est pas un bâtiment : tour-de-guet, donjon" in text
    assert "Aperçu (rien n'est joué tant que vous ne confirmez pas) :" in text
    assert "Le jouer ? [o/n] o" in text
    assert "La Tour de guet d'Ann en G8 sur Foi disparaît" in text
    assert f"Surcoût de terrain (R18) +1 : forêt, payé avec religieuse {X}1 (r)." in text
    assert f"Votre main : civile {X}1 (c). 5 écus" in text
    assert "[manche 1] Ann 5 écus > " in text
    assert "Arrêt. La partie est enregistrée" in text
    assert "Refused" not in text and "Your hand" not in text


def test_the_terminal_follows_a_language_chosen_during_the_game(tmp_path: Path) -> None:
    code, text = play(tmp_path, ["/game settings language:de", "/hand", "/bauen turm",
                                 "/hilfe regeln"], seed=5)
    assert code == 0
    german = after(text, "language:de")
    assert "[Runde 1] Ann 4 Ecus > /hand" in german
    assert "Deine Hand:" in german
    assert "Abgelehnt: /bauen: 'turm' ist kein Gebäude" in german
    assert "Khronos in Kürze" in german and "docs/rules.md" in german


def test_lang_of_the_environment_chooses_a_new_games_language(tmp_path: Path) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "LANG": "fr_FR.UTF-8"}
    result = subprocess.run(
        [sys.executable, "-m", "bot", "--local", "--data-dir", str(tmp_path / "data"),
         "--images", str(tmp_path / "img"), "--seed", "5"],
        check=False, cwd=ROOT, input="/aide règles\n", capture_output=True, text=True,
        env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "La partie commence. Ordre des joueurs" in result.stdout
    assert "Khronos en bref" in result.stdout
    assert "Arrêt. La partie est enregistrée" in result.stdout
    env["LANG"] = "de_DE.UTF-8"  # a saved game keeps its language; --lang changes it
    again = subprocess.run(
        [sys.executable, "-m", "bot", "--local", "--data-dir", str(tmp_path / "data"),
         "--images", str(tmp_path / "img")],
        check=False, cwd=ROOT, input="", capture_output=True, text=True, env=env, timeout=120)
    assert "Reprise de la partie n° 1" in again.stdout
    german = subprocess.run(
        [sys.executable, "-m", "bot", "--local", "--lang", "de", "--data-dir",
         str(tmp_path / "data"), "--images", str(tmp_path / "img")],
        check=False, cwd=ROOT, input="", capture_output=True, text=True, env=env, timeout=120)
    assert "Partie Nr. 1 wird fortgesetzt" in german.stdout
    assert "Bilder in Deutsch" in german.stdout or "Deutsch" in german.stdout


@pytest.mark.parametrize(("environ", "lang"), [
    ({"LANG": "fr_FR.UTF-8"}, "fr"), ({"LC_ALL": "de_AT.UTF-8", "LANG": "fr_FR"}, "de"),
    ({"LANG": "C.UTF-8"}, None), ({"LANG": "es_ES.UTF-8"}, None), ({}, None),
    ({"LC_ALL": "", "LANG": "de_DE"}, "de"),
])
def test_the_environments_language(environ: dict[str, str], lang: str | None) -> None:
    assert terminal_language(environ) == lang


# --- 8. the wording ---------------------------------------------------------------------------


def test_what_the_terminal_prints_reads_as_plain_words(tmp_path: Path) -> None:
    code, text = play(tmp_path, ["/mygames", "/random", "/help rules", "/end"], seed=5)
    assert code == 0
    assert "- game #1 (this terminal): round 1 of 7, your turn since" in text
    assert "<#" not in text and "**" not in text and "discord.com" not in text
    assert re.search(r"Ann \(random\) plays /\w+", text) and "{'kind'" not in text
    assert "the full rules are docs/rules.md" in text and "RULES.md" not in text
    assert "@Ann it is your turn (round 1 of 7)." in text  # the name once
    start = re.search(r"Seat order: (\w+), \w+, \w+\. (\w+) plays first\.", text)
    assert start is not None and start[1] == start[2]
    assert "draws 0" not in text


def test_resuming_shows_the_hand_of_whoever_acts(tmp_path: Path) -> None:
    play(tmp_path, ["/travel faith"], seed=5)
    code, text = play(tmp_path, [])
    assert code == 0
    resumed = after(text, "Resuming game #1")
    assert resumed.index("Round 1 of 7") < resumed.index("Your hand:")


def test_r37_a_choice_is_numbered_on_the_picture_the_terminal_names(tmp_path: Path) -> None:
    code, _ = play(tmp_path, [], seed=5)
    assert code == 0
    # Cid's Hamlet at H5 joins Ann's Keep F4 and Bob's Keep I4 of equal power (R32, R33)
    put_state(tmp_path, position(3, might="Keep F4 0; Chapel G6 2; Keep I4 1; Chapel I6 1",
                                 hands={2: "ccmr"}, turn=2))
    code, text = play(tmp_path, ["/build hamlet H5 might", "y"])
    assert code == 0
    assert "/choose 1: Ann's Keep at F4 (default)" in text
    assert "/choose 2: Bob's Keep at I4" in text
    assert "(each option carries its number on its board in" in text

    async def state() -> engine.GameState:
        async with SqliteStorage.in_dir(tmp_path / "data") as storage:
            from bot.service import GameService
            return (await GameService(storage).snapshot(1))[1]

    view = engine.public_view(asyncio.run(state()))
    assert view.pending is not None
    numbers = sorted(m.number for m in choice_marks(view, Age.MIGHT))
    assert numbers == [1, 2]  # the image of the move draws these numbers on Might
