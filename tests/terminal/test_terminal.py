"""The terminal adapter plays a game from typed lines, storing to the SQLite file."""

from __future__ import annotations

import asyncio
import importlib.util
import io
import os
import pty
import re
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypedDict, Unpack

import pytest

import ai.worker
import engine
import render
from ai import hard, policy
from ai.work import STOP, Stopping
from bot.__main__ import main
from bot.service import GameInfo, GameService
from bot.storage.sqlite import SqliteStorage
from bot.terminal.app import LocalError, run_local, seat_names


class LocalFlags(TypedDict, total=False):
    """The keywords of ``run_local`` that shape the game, as the tests give them."""

    players: int | None
    names: Sequence[str] | None
    holdem: bool | None
    seed: int | None
    new: bool
    random_moves: int
    database_url: str | None
    bots: int
    bot_level: str
    bot_budget: float
    lang: str | None
    default_lang: str | None


def play(tmp_path: Path, script: list[str], **flags: Unpack[LocalFlags]) -> tuple[int, str]:
    """Run a terminal game on ``tmp_path`` with these typed lines; (exit status, output)."""
    lines = iter(script)
    prompts: list[str] = []

    def read(prompt: str) -> str | None:
        prompts.append(prompt)
        line = next(lines, None)
        return line

    out = io.StringIO()
    code = run_local(data_dir=tmp_path / "data", images_dir=tmp_path / "img", out=out,
                     lines=read, **flags)
    return code, out.getvalue() + "\nPROMPTS:" + "|".join(prompts)


def saved(tmp_path: Path) -> GameInfo:
    async def read() -> GameInfo:
        async with SqliteStorage.in_dir(tmp_path / "data") as storage:
            return await GameService(storage).info(1)

    return asyncio.run(read())


def test_a_scripted_terminal_game(tmp_path: Path) -> None:
    code, text = play(tmp_path, [
        "/status", "/hand", "/travel faith", "/undo", "/as Bob /end", "/end",
        "/random 40", "/history 3", "/quit",
    ], seed=5)
    assert code == 0
    assert "Round 1 of 7" in text
    assert "takes back" in text
    # Bob tried to end Ann's turn: refused, naming the rule once
    assert "Refused: It is not your turn: it is Ann's turn (R8).\n" in text
    assert "(random) plays" in text
    assert text.count("Stopped. The game is saved") == 1
    info = saved(tmp_path)
    assert info.status == "active" and len(info.seats) == 3
    # run again: the saved game resumes where it was
    code, text = play(tmp_path, [])
    assert code == 0
    assert f"Resuming game #{info.game_id}" in text


def test_random_players_finish_a_game(tmp_path: Path) -> None:
    code, text = play(tmp_path, [], players=2, seed=3, random_moves=5000)
    assert code == 0
    assert "The game is over" in text


def test_move_images_are_numbered_as_in_history(tmp_path: Path) -> None:
    code, text = play(tmp_path, [
        "/travel faith", "/undo", "/travel reason", "/end", "/random 3", "/history 20",
    ], seed=5)
    assert code == 0
    numbers = [int(n) for n in re.findall(r"^#(\d+) ", text, re.M)]  # the /history lines
    assert numbers == list(range(1, 8))  # travel, undo, travel, end, 3 random moves
    folder = tmp_path / "img" / "game-1"
    moves = sorted(p.name for p in folder.glob("move-*.png"))
    # move-000 is the start; then one image per entry of /history, under its number
    assert moves == [f"move-{n:03d}.png" for n in range(8)]
    assert (folder / "latest.png").read_bytes() == (folder / "move-007.png").read_bytes()
    # each image is the boards after its move: the undo (#2) brings back the start
    assert (folder / "move-002.png").read_bytes() == (folder / "move-000.png").read_bytes()
    assert (folder / "move-001.png").read_bytes() != (folder / "move-000.png").read_bytes()


def test_status_and_board_images_leave_latest_alone(tmp_path: Path) -> None:
    code, _ = play(tmp_path, ["/travel faith"], seed=5)
    assert code == 0
    folder = tmp_path / "img" / "game-1"
    (folder / "latest.png").unlink()
    code, text = play(tmp_path, ["/status", "/board might", "/board 1"])
    assert code == 0
    assert {"status.png", "board-might.png", "compare.png"} <= {p.name for p in folder.iterdir()}
    assert not (folder / "latest.png").exists()
    assert "move-001.png" in {p.name for p in folder.iterdir()}


def test_board_of_one_age_writes_that_board_only(tmp_path: Path) -> None:
    code, text = play(tmp_path, ["/board faith"], seed=5)
    assert code == 0
    assert "board-faith.png" in text

    async def expected() -> bytes:
        async with SqliteStorage.in_dir(tmp_path / "data") as storage:
            info, state = await GameService(storage).snapshot(1)
        names = [info.names[i] for i in range(len(info.seats))]
        return render.age_png(engine.public_view(state), engine.Age.FAITH, names, {})

    written = (tmp_path / "img" / "game-1" / "board-faith.png").read_bytes()
    assert written == asyncio.run(expected())


def test_the_prompt_counts_ecus_in_words(tmp_path: Path) -> None:
    code, text = play(tmp_path, ["/travel faith", "/travel reason", "/travel faith"], seed=5)
    assert code == 0
    prompts = text.split("PROMPTS:")[1].split("|")
    assert prompts[0].endswith(" 4 Ecus > ")
    assert prompts[3].endswith(" 1 Ecu > ")


def test_names_give_the_number_of_players(tmp_path: Path) -> None:
    code, text = play(tmp_path, [], names=["Al", "Bo"])
    assert code == 0
    assert sorted(s.name for s in saved(tmp_path).seats) == ["Al", "Bo"]


def test_players_and_names_that_disagree_are_refused_and_change_nothing(
        tmp_path: Path) -> None:
    code, text = play(tmp_path, [], players=3, names=["Al", "Bo"])
    assert code == 2
    assert "--players 3 does not match the 2 names of --names (Al, Bo)" in text
    assert not (tmp_path / "data").exists()


def test_the_command_line_refuses_them_too(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--local", "--players", "3", "--names", "Al,Bo", "--data-dir", str(tmp_path)])
    assert stop.value.code == 2
    assert "--players 3 does not match the 2 names" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_terminal_flags_without_local_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--players", "4"])
    assert stop.value.code == 2
    assert "--players is for a terminal game only: add --local" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--names", "Al,Bo", "--new"])
    assert "--names, --new are for a terminal game only" in capsys.readouterr().err


@pytest.mark.parametrize(("players", "names", "words"), [
    (None, ["Al"], "gives 1 name;"),
    (None, ["A", "B", "C", "D", "E", "F"], "gives 6 names;"),
    (None, ["Al", ""], "an empty name"),
    (None, ["Al", "Ann Lee"], "'Ann Lee' cannot be used"),
    (None, ["Al", "/end"], "'/end' cannot be used"),
    (None, ["Al", "x" * 33], "at most 32 characters"),
    (None, ["Al", "al"], "'Al' and 'al' are the same"),
    (6, None, "2 to 5 players, not 6"),
])
def test_bad_names_are_refused(players: int | None, names: list[str] | None,
                               words: str) -> None:
    with pytest.raises(LocalError, match=re.escape(words)):
        seat_names(players, names)


def test_good_names_pass() -> None:
    assert seat_names(None, None) == ["Ann", "Bob", "Cid"]
    assert seat_names(4, None) == ["Ann", "Bob", "Cid", "Dee"]
    assert seat_names(2, [" Zoé ", "O'Neil"]) == ["Zoé", "O'Neil"]


def test_flags_that_do_not_fit_the_saved_game_are_refused(tmp_path: Path) -> None:
    play(tmp_path, ["/travel faith"], seed=5)
    before = saved(tmp_path)
    for flags, said in (({"players": 4}, "--players 4 does not fit it"),
                        ({"names": ["Al", "Bo", "Cy"]}, "--names Al,Bo,Cy does not fit it"),
                        ({"holdem": True}, "--holdem does not fit it"),
                        ({"seed": 9}, "--seed 9 does not fit it"),
                        ({"players": 2, "holdem": True}, "--players 2 --holdem do not fit it")):
        code, text = play(tmp_path, ["/end"], **flags)
        assert code == 2, flags
        assert said in text
        assert "add --new to abandon it" in text
        assert saved(tmp_path) == before  # nothing changed, not even by the /end
    # flags that fit it resume it
    code, text = play(tmp_path, [], players=3, names=["Ann", "Bob", "Cid"], holdem=False)
    assert code == 0 and "Resuming game" in text
    # --new starts the new game the flags ask for
    code, text = play(tmp_path, [], players=4, new=True)
    assert code == 0
    assert f"Game #{before.game_id} is abandoned" in text
    after = saved(tmp_path)
    assert after.game_id != before.game_id and len(after.seats) == 4


def test_ctrl_c_at_the_prompt_ends_cleanly(tmp_path: Path) -> None:
    typed = iter(["/travel faith"])

    def read(prompt: str) -> str | None:
        line = next(typed, None)
        if line is None:
            raise KeyboardInterrupt
        return line

    out = io.StringIO()
    code = run_local(data_dir=tmp_path / "data", images_dir=tmp_path / "img", seed=5,
                     out=out, lines=read)
    assert code == 0
    assert out.getvalue().endswith("Stopped. The game is saved; run the same command again "
                                   "to resume it.\n")
    code, text = play(tmp_path, ["/history"])
    assert "#1 " in text and "travels" in text  # the move before Ctrl-C is kept


@pytest.mark.parametrize(("line", "said"), [
    ("/random lots", "Usage: /random [N]"),
    ("/random 0", "Usage: /random [N]"),
    ("/random 2 3", "Usage: /random [N]"),
    ("/as Bob", "Usage: /as NAME /command"),
    ("/as Zed /hand", "No player is called Zed; the players are Ann, Bob, Cid."),
])
def test_local_words_explain_their_misuse(tmp_path: Path, line: str, said: str) -> None:
    code, text = play(tmp_path, [line], seed=5)
    assert code == 0
    assert said in text
    assert "(random) plays" not in text


def test_without_local_the_bot_asks_for_a_token(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)  # no .env here
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    assert main([]) == 2
    assert "No Discord token" in capsys.readouterr().err



# --- in a real terminal (a pseudo-terminal): line editing, history, Ctrl-C ----------------------

ROOT = Path(__file__).resolve().parents[2]
HAS_READLINE = importlib.util.find_spec("readline") is not None


class Terminal:
    """``python -m bot --local`` on a pseudo-terminal, as someone would type into it."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        try:
            master, slave = pty.openpty()
        except OSError as exc:  # a container without /dev/ptmx
            pytest.skip(f"no pseudo-terminal here: {exc}")
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "TERM": "xterm",
               "LANG": "C.UTF-8"}
        # A person's terminal delivers Ctrl-C. A test run started in the background inherits
        # SIGINT ignored from its shell, and an ignored signal stays ignored across exec: the
        # program would never see the Ctrl-C these tests send. A handled one is reset to the
        # default in the child, so handle it while starting the program.
        inherited = signal.getsignal(signal.SIGINT)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "bot", "--local", "--data-dir", str(tmp_path / "data"),
                 "--images", str(tmp_path / "img"), *args],
                stdin=slave, stdout=slave, stderr=slave, cwd=ROOT, env=env, close_fds=True)
        finally:
            signal.signal(signal.SIGINT, inherited if inherited is not None else signal.SIG_DFL)
        os.close(slave)
        self.master = master
        self.seen = ""  # everything the terminal showed so far
        self.unread = 0  # where the next expect() starts looking

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def expect(self, text: str, timeout: float = 30.0) -> str:
        """Wait until ``text`` appears after what earlier calls found; returns the output up
        to and including it."""
        deadline = time.monotonic() + timeout
        while (at := self.seen.find(text, self.unread)) < 0:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.master], [], [], max(left, 0))
            if not ready:
                raise AssertionError(f"no {text!r} in time; the terminal shows:\n{self.seen}")
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # EIO: the program has exited
                chunk = b""
            if not chunk:
                raise AssertionError(f"the program ended without {text!r}:\n{self.seen}")
            self.seen += chunk.decode(errors="replace")
        found = self.seen[self.unread:at + len(text)]
        self.unread = at + len(text)
        return found

    def ctrl_c(self, *, at_prompt: bool = False) -> None:
        """What the terminal does for Ctrl-C. ``at_prompt``: first wait until the program waits
        for a key, as a person would. CPython's readline prints the prompt a moment before it
        starts waiting, and a signal in between is only seen at the next key."""
        if at_prompt:
            self.wait_for_a_key()
        self.proc.send_signal(signal.SIGINT)

    def wait_for_a_key(self, timeout: float = 10.0) -> None:
        wchan = Path(f"/proc/{self.proc.pid}/wchan")  # where the main thread sleeps (Linux)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                where = wchan.read_text()
            except OSError:  # no /proc: give it the time a person would
                time.sleep(0.5)
                return
            if "poll" in where or "select" in where:
                return
            time.sleep(0.01)
        raise AssertionError(f"the program does not wait for a key:\n{self.seen}")

    def finish(self, timeout: float = 15.0) -> int:
        code = self.proc.wait(timeout)
        try:
            while chunk := os.read(self.master, 65536):
                self.seen += chunk.decode(errors="replace")
        except OSError:
            pass
        os.close(self.master)
        return code


PROMPT = " Ecus > "


@pytest.mark.skipif(not HAS_READLINE, reason="this Python has no readline module")
def test_the_terminal_has_history_completion_and_a_clean_ctrl_c(tmp_path: Path) -> None:
    term = Terminal(tmp_path, "--seed", "5")
    try:
        term.expect(PROMPT)
        term.type("/status\r")
        assert "Round 1 of 7" in term.expect(PROMPT)
        term.type("\x1b[A\r")  # arrow up: the last line again
        assert "Round 1 of 7" in term.expect(PROMPT)
        term.type("/hist\t\r")  # Tab completes the command word
        assert "No moves yet." in term.expect(PROMPT)
        term.ctrl_c(at_prompt=True)  # no Enter needed
        term.expect("Stopped. The game is saved")
        assert term.finish() == 0
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    assert "Traceback" not in term.seen
    assert "/status" in (tmp_path / "data" / "terminal-history").read_text()


def test_ctrl_c_during_a_long_command_stops_cleanly(tmp_path: Path) -> None:
    term = Terminal(tmp_path, "--seed", "5", "--players", "2")
    try:
        term.expect(PROMPT)
        term.type("/random 5000\r")
        for _ in range(3):  # a few moves are made
            term.expect("(random) plays")
        term.ctrl_c()
        term.expect("Stopped. The game is saved")
        assert term.finish() == 0
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    assert "Traceback" not in term.seen
    # the moves made before Ctrl-C are kept, and the file is sound
    code, text = play(tmp_path, ["/history 1"])
    assert code == 0
    assert "Resuming game #1" in text
    assert re.search(r"^#\d+ ", text, re.M)


@pytest.mark.parametrize("count", ["-1", "abc", "2.5"])
def test_a_bad_random_count_is_refused(count: str, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--local", "--random", count, "--data-dir", str(tmp_path)])
    assert stop.value.code == 2
    assert "N must be a whole number, 0 or more" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_one_person_against_computers_in_the_terminal(tmp_path: Path) -> None:
    code, text = play(tmp_path, ["/hand", "/random 400", "/random 400"], players=3, bots=2,
                      bot_level="easy", bot_budget=0.0, seed=3)
    assert code == 0
    assert "The game is over" in text
    assert "🤖 Computer 1 (easy) joins" not in text  # both announced in one sentence
    assert "🤖 Computer 1 (easy) and Computer 2 (easy) join the game" in text
    assert text.count("🤖") > 10  # their moves, marked
    assert "(random) plays" in text
    prompts = text.split("PROMPTS:")[1].split("|")
    assert prompts and all("Ann" in p for p in prompts), "only the person is asked"
    info = saved(tmp_path)
    assert sorted(s.name for s in info.seats) == ["Ann", "Computer 1 (easy)",
                                                   "Computer 2 (easy)"]
    assert info.status == "over"


def test_names_are_the_people_and_bots_add_the_computers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--names`` names the people; ``--bots`` adds computer seats to them (the help says so),
    and with ``--players`` too the numbers must agree."""
    code, _text = play(tmp_path, [], names=["Me"], bots=1, bot_level="easy", seed=3)
    assert code == 0
    assert sorted(s.name for s in saved(tmp_path).seats) == ["Computer 1 (easy)", "Me"]
    # the entry point checks the flags the same way before opening anything
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # the input ends at once
    assert main(["--local", "--names", "Me", "--bots", "1", "--level", "easy",
                 "--data-dir", str(tmp_path / "main"), "--images", str(tmp_path / "img")]) == 0
    assert "Computer 1 (easy)" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:
        main(["--local", "--names", "Me,You", "--players", "3", "--bots", "2",
              "--data-dir", str(tmp_path / "refused")])
    assert stop.value.code == 2
    assert "leaves 1 seats for people, but --names gives 2" in capsys.readouterr().err
    assert not (tmp_path / "refused").exists()
    code, text = play(tmp_path / "3", [], players=3, names=["Me"], bots=1)
    assert code == 2 and "leaves 2 seats for people, but --names gives 1" in text
    with pytest.raises(SystemExit):
        main(["--help"])
    helped = " ".join(capsys.readouterr().out.split())
    assert "--names Me --bots 2 is a game of three" in helped
    assert "seats added to --names" in helped


def test_computers_that_leave_no_seat_for_a_person_are_refused(tmp_path: Path) -> None:
    code, text = play(tmp_path, [], players=2, bots=2)
    assert code == 2 and "no seat for a person" in text
    code, text = play(tmp_path, [], players=3, bots=1, bot_level="brilliant")
    assert code == 2 and "easy, normal, hard" in text
    assert "Game file" not in text  # refused before any game was opened


def test_ctrl_c_while_a_computer_thinks_stops_its_search_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C while a computer thinks (in the terminal's thread) cancels the command, and the
    search gives up at its next step (``ai.work.STOP``) instead of running to its end while
    the terminal waits to close; no move is made for the computer, the stop is lifted after."""
    monkeypatch.setattr(hard, "HARD_CAP_S", 60.0)  # unstopped, the search runs a minute
    monkeypatch.setattr(hard, "HARD_FLOOR_S", 60.0)
    main_thread = threading.main_thread().ident
    assert main_thread is not None
    play_step, decide = policy._play, ai.worker.decide_json
    ended: list[BaseException | str] = []

    def step(*args: Any) -> Any:
        if not ended:
            ended.append("thinking")
            signal.pthread_kill(main_thread, signal.SIGINT)  # the player presses Ctrl-C
        return play_step(*args)

    def deciding(*args: Any) -> dict[str, object]:
        try:
            return decide(*args)
        except BaseException as exc:
            ended.append(exc)
            raise

    monkeypatch.setattr(policy, "_play", step)
    monkeypatch.setattr(hard, "_play", step)
    monkeypatch.setattr(ai.worker, "decide_json", deciding)
    code, text = play(tmp_path, ["/end"], players=2, bots=1, bot_level="hard",
                      bot_budget=1e6, seed=3)
    assert code == 0 and "Stopped" in text
    assert len(ended) == 2 and isinstance(ended[1], Stopping), ended
    assert not STOP.is_set()
    info = saved(tmp_path)
    assert info.status == "active"
    code, text = play(tmp_path, [], bots=1, bot_level="hard", bot_budget=0.0)
    assert code == 0 and "🤖 Computer 1" in text, text  # the next start: the computer plays


def test_hints_in_the_terminal_against_a_computer(tmp_path: Path) -> None:
    """/hint answers in plain text (no Discord markup), a keeper turns hints off and on, and
    the end post counts the hints asked."""
    code, text = play(tmp_path, ["/hint", "/game settings hints:off", "/hint",
                                 "/game settings hints:on", "/hint", "/random 400",
                                 "/random 400"],
                      players=2, bots=1, bot_level="hard", bot_budget=0.0, seed=3)
    assert code == 0
    answers = [part for part in text.split("💡 ")[1:] if part.startswith("The computer's plans")]
    assert len(answers) == 2  # the same game, step and seat: the same plans

    def plans(answer: str) -> list[str]:
        blocks = answer.split("\n\n")
        return [*blocks[:-1], "\n".join(blocks[-1].split("\n")[:4])]  # then other output

    assert plans(answers[0]) == plans(answers[1]) and len(plans(answers[0])) == 4
    plan = answers[0].split("\n\n")[1]
    assert plan.startswith("1. ") and "**" not in plan and "Costs " in plan
    assert "Refused: Hints are off in this game" in text
    assert "hints off." in text and "hints on (/hint)." in text
    assert "Hints asked for (/hint): Ann 2." in text
    assert saved(tmp_path).status == "over"
