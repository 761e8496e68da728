"""Reading typed lines: ``input()`` with readline on a terminal (line editing, a history kept
in the data folder, Tab completion of commands and their arguments, each candidate shown with
what it costs or does), plain lines (echoed) from a pipe."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from .complete import Candidate, Table, candidates
from .screen import write

Lines = Callable[[str], str | None]  # prompt -> the typed line, None at the end of input
SHOWN = 30  # candidates listed under the line at most; the rest are counted


class Completer:
    """readline's completer and display hook over ``candidates``: ``table_of`` gives the
    moment's state, seat and language, ``more`` the sentence counting what is not listed."""

    def __init__(self, readline: Any, table_of: Callable[[], Table], out: TextIO,
                 more: Callable[[int], str]) -> None:
        self.readline = readline
        self.table_of = table_of
        self.out = out
        self.more = more
        self.prompt = ""
        self.found: list[Candidate] = []

    def complete(self, text: str, state: int) -> str | None:
        if state == 0:
            buffer = self.readline.get_line_buffer()
            before = buffer[:self.readline.get_begidx()]
            try:
                self.found = candidates(before, text, self.table_of())
            except Exception:  # a completion never breaks the line being typed
                self.found = []
        if state >= len(self.found):
            return None
        value = self.found[state][0]
        # Python's readline appends nothing to a completion: the space that ends a word
        return value + " " if len(self.found) == 1 else value

    def display(self, substitution: str, matches: Sequence[str], longest: int) -> None:
        """Under the line: each candidate with its label (a square with its cost)."""
        labels = dict(self.found)
        lines = [labels.get(m, m) for m in matches[:SHOWN]]
        if len(matches) > SHOWN:
            lines.append(self.more(len(matches) - SHOWN))
        self.out.write("\n" + "\n".join("  " + line for line in lines) + "\n")
        self.out.write(self.prompt + self.readline.get_line_buffer())
        self.out.flush()


def _readline(history: Path, table_of: Callable[[], Table], out: TextIO,
              more: Callable[[int], str]) -> tuple[Completer | None, Callable[[], None]]:
    """Turn on line editing, a saved history and Tab completion for ``input()``, if this Python
    has ``readline``; returns the completer and what saves the history at the end."""
    try:
        import readline
    except ImportError:  # e.g. Windows: input() still works, without editing
        return None, lambda: None
    completer = Completer(readline, table_of, out, more)
    readline.set_completer(completer.complete)
    readline.set_completer_delims(" \t\n")
    if "libedit" in (readline.__doc__ or ""):  # macOS: no display hook, the plain list
        readline.parse_and_bind("bind ^I rl_complete")
    else:
        readline.parse_and_bind("tab: complete")
        readline.set_completion_display_matches_hook(completer.display)
    readline.set_history_length(1000)
    with contextlib.suppress(OSError):  # no history yet
        readline.read_history_file(history)

    def save() -> None:
        with contextlib.suppress(OSError):  # a read-only folder loses the history, not the game
            readline.write_history_file(history)

    return completer, save


def terminal_lines(out: TextIO, history: Path, table_of: Callable[[], Table],
                   more: Callable[[int], str]) -> tuple[Lines, Callable[[], None]]:
    """Read lines from stdin: with ``input()`` and readline on a terminal, else plainly (and
    echoed, so a piped script reads like a session). Returns the reader and the history saver."""
    if sys.stdin.isatty():
        completer, save = _readline(history, table_of, out, more)

        def ask(prompt: str) -> str | None:
            if completer is not None:
                completer.prompt = prompt
            try:
                return input(prompt)
            except EOFError:  # Ctrl-D
                return None

        return ask, save

    def read(prompt: str) -> str | None:
        out.write(prompt)
        line = sys.stdin.readline()
        if not line:
            return None
        write(out, line.removesuffix("\n"))  # echoed, cut as any printed text
        return line

    return read, _nothing


def _nothing() -> None:
    return None
