"""The terminal adapter: play a whole game on this machine, no Discord needed.

``python -m bot --local --players 3`` seats 3 local players in one pretend channel, stores the
game in the same SQLite file the bot uses, and reads commands with the same words as the slash
commands, played as whoever must act now (``/build keep C4 might``; the words in any order
where they cannot be confused, in English, French or German). Extra local words:
``/as NAME /command`` acts as another player, ``/random [N]`` lets a random legal player make N
moves, ``/quit`` (or Ctrl-C, or Ctrl-D) stops; the game is saved after every move, so running
again resumes it. After every move the boards image is written as ``move-<number>.png``, the
number being the move's number in ``/history``; ``latest.png`` is always the last move's.

The terminal speaks the game's language: ``--lang`` (or, for a new game, the ``LANG``
environment) chooses it, and ``/game settings language:fr`` changes it at once (prompts,
replies, refusals, help and the words typed). The parts: ``seats.py`` (who plays, from the
flags), ``game.py`` (one game: commands, previews, computers), ``complete.py`` (what Tab
offers), ``keyboard.py`` (reading lines), ``screen.py`` (printing and images).

The loop is synchronous around one ``asyncio.Runner``: a line is read with the event loop idle,
so Ctrl-C at the prompt is an ordinary ``KeyboardInterrupt`` (no waiting for Enter), and
``readline`` (when the terminal has it) gives line editing, a history kept in the data folder,
and Tab completion of commands and their arguments.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TextIO

from ai.work import STOP
from engine import MalformedAction

from .. import i18n
from ..service import GameService, GameSettings
from ..service.lobby import check_level
from ..storage import Storage, StorageUnavailable, open_checked, storage_for
from .complete import Table
from .game import LOCAL_CHANNEL, MAX_RANDOM, LocalGame
from .keyboard import Lines, terminal_lines
from .screen import ImageWriter, Screen, local_times
from .seats import NAMES, LocalError, people_names, seat_names

HISTORY_FILE = "terminal-history"  # readline's history, in the data folder
LANG_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")  # POSIX order: the first set one wins

__all__ = ["LOCAL_CHANNEL", "MAX_RANDOM", "NAMES", "LocalError", "LocalGame", "local_times",
           "run_local", "seat_names", "terminal_language"]


def terminal_language(environ: Mapping[str, str] | None = None) -> str | None:
    """The environment's language (``LC_ALL``, ``LC_MESSAGES``, ``LANG``, the first one set:
    ``fr_FR.UTF-8`` is French) when it is French or German; None for English or anything
    else."""
    env = os.environ if environ is None else environ
    value = next((env[v] for v in LANG_VARIABLES if env.get(v)), "")
    lang = i18n.language(value)
    return None if lang == i18n.DEFAULT else lang


@contextlib.contextmanager
def _sigint_to_this_thread_only() -> Iterator[None]:
    """Threads started inside inherit a mask that blocks SIGINT, so Ctrl-C always reaches the
    main thread. POSIX lets a process's signal go to any thread that does not block it (Linux
    prefers the main thread, other systems need not); had a database thread taken it, the main
    thread, waiting in ``input()``, would only notice it after the next Enter."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no such choice to make
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def run_local(
    *,
    data_dir: Path,
    images_dir: Path,
    players: int | None = None,
    names: Sequence[str] | None = None,
    holdem: bool | None = None,
    seed: int | None = None,
    new: bool = False,
    random_moves: int = 0,
    out: TextIO | None = None,
    lines: Lines | None = None,
    database_url: str | None = None,
    bots: int = 0,
    bot_level: str = "normal",
    bot_budget: float = 0.8,
    lang: str | None = None,
    default_lang: str | None = None,
) -> int:
    """Play in the terminal until the game ends, the input ends, ``/quit`` or Ctrl-C.

    ``players``, ``names``, ``holdem`` and ``seed`` shape a new game; None means "not given"
    (a saved game then resumes; given, they refuse to resume it unless ``new``). ``lines``
    reads a line for a prompt (default: the terminal). ``bots`` of the ``players`` seats are
    computers of ``bot_level`` (docs/ai.md); they play at once after each command. ``lang``
    (``--lang``): the language a new game speaks, and a saved one takes; ``default_lang`` (the
    environment's ``LANG``): a new game's language when ``lang`` is None (a saved game keeps
    its own; English when neither is given). The game is kept in the SQLite file of
    ``data_dir``, or in PostgreSQL at ``database_url``. Returns the exit status: 0, or 2 with
    a one-sentence refusal on ``out`` when the flags cannot be used (nothing is changed
    then)."""
    out = out or sys.stdout
    screen = Screen(out, lang or default_lang or i18n.DEFAULT)
    try:
        chosen = people_names(players, names, bots, screen.lang)
        check_level(bot_level)
    except (LocalError, MalformedAction) as exc:
        screen.say(str(exc))
        return 2
    asked: dict[str, object] = {flag: value for flag, value in (
        ("--players", players), ("--names", chosen if names is not None else None),
        ("--holdem", holdem), ("--seed", seed)) if value is not None}
    game: LocalGame | None = None
    save_history: Callable[[], None] = _nothing
    if lines is None:
        lines, save_history = terminal_lines(
            out, data_dir / HISTORY_FILE, lambda: game.table if game else Table(),
            lambda count: screen.text("completions_more", count=count))
    try:
        with asyncio.Runner() as runner:
            storage = storage_for(data_dir, database_url)
            try:
                with _sigint_to_this_thread_only():
                    runner.run(open_checked(storage))  # starts the database's threads
                # the terminal shows each outcome at once: no outbox, no deliverer (docs/service.md)
                service = GameService(storage, outbox=False, computer_delay=0.0,
                                      computer_budget=bot_budget)
                game = LocalGame(service, chosen, ImageWriter(images_dir), screen, lines,
                                 chooser=random.Random(seed), bots=bots, bot_level=bot_level,
                                 lang=lang)
                return _play(runner, game, storage, lines, asked=asked, new=new,
                             settings=GameSettings(seats=None, holdem=bool(holdem)), seed=seed,
                             random_moves=random_moves)
            except StorageUnavailable as exc:  # KHRONOS_DATABASE_URL: no server, or refused
                screen.say(str(exc))
                return exc.status
            except KeyboardInterrupt:  # Ctrl-C while a command ran: it was cancelled, not half-done
                STOP.set()  # a computer thinking in a thread gives up now: closing waits for it
                out.write("\n" + screen.text("stopped") + "\n")
                return 0
            finally:
                runner.run(storage.close())
                save_history()
    finally:
        STOP.clear()  # searches of this process may run again (a test's next game)


def _play(runner: asyncio.Runner, game: LocalGame, storage: Storage, lines: Lines, *,
          asked: dict[str, object], new: bool, settings: GameSettings, seed: int | None,
          random_moves: int) -> int:
    screen = game.screen
    saved = runner.run(game.saved())
    if saved is not None and not new and game.lang_asked is None:
        screen.lang = saved.settings.language  # a saved game speaks its own language
    key = "title" if isinstance(storage.path, Path) else "title_server"
    screen.put(key, path=storage.path)
    try:
        runner.run(game.setup(settings, seed, new, asked=asked))
    except LocalError as exc:
        screen.say(str(exc))
        return 2
    screen.put("images", folder=game.images.folder)
    screen.put("local")
    for _ in range(random_moves):
        if not runner.run(game.random_move()):
            break
    while True:
        runner.run(game.computers())
        now = runner.run(game.actor())
        if now is None:
            runner.run(game.game_over())
            return 0
        user, prompt = now
        try:
            line = lines(prompt)
        except KeyboardInterrupt:  # Ctrl-C at the prompt: the game is already saved
            screen.say("\n" + screen.text("stopped"))
            return 0
        if line is None:  # end of input
            screen.say("\n" + screen.text("stopped"))
            return 0
        if not runner.run(game.command(line.strip(), user)):
            screen.put("stopped")
            return 0


def _nothing() -> None:
    return None
