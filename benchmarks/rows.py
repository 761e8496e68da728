"""The logs of the benchmarks that play whole games and note rows (``bench_evaluate``,
``bench_learn``, ``bench_rivals``): one JSON object a line, appended game by game, so that a run
stopped early keeps what it measured and ``--table LOG`` prints its figures again; and the game
that ``bench_evaluate`` and ``bench_learn`` watch at every turn start."""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ai.choose import choose_action
from engine import Action, GameState, Options, apply, current_seat, new_game, player_view

Row = dict[str, Any]


def play_logged(games: int, play: Callable[[int], list[Row]], log: str) -> list[Row]:
    """``play(g)`` for each game ``g`` of ``games``, its rows appended to ``log`` as it ends;
    returns every row."""
    rows: list[Row] = []
    with open(log, "a", encoding="utf-8") as out:
        for g in range(games):
            game = play(g)
            out.writelines(json.dumps(r) + "\n" for r in game)
            out.flush()
            rows += game
    return rows


def read_log(path: str) -> list[Row]:
    """The rows of a log (blank lines skipped)."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def games_parser(doc: str | None, name: str, players: int, games: int) -> argparse.ArgumentParser:
    """The options of a benchmark that plays ``games`` games of ``players`` seats at one level
    and logs a row per turn start to a file named after it (``name``), or prints the figures
    of a log (``--table``)."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--players", type=int, default=players)
    parser.add_argument("--games", type=int, default=games)
    parser.add_argument("--first", type=int, default=0, help="seed offset (another batch)")
    parser.add_argument("--level", default="easy", help="the level of every seat")
    parser.add_argument("--log", default=str(Path(tempfile.gettempdir()) / f"{name}.jsonl"),
                        help="every turn start's row is appended here, game by game")
    parser.add_argument("--table", metavar="LOG", help="print the fits of a log and stop")
    return parser


def play_watched(
    players: int, seed: int, level: str, turn_start: Callable[[GameState], None],
    chosen: Callable[[GameState, int, Action], None] | None = None,
) -> GameState:
    """One game at ``level`` for every seat (budget 0.1 s), from the deal of ``seed``:
    ``turn_start(state)`` at the start of every turn (no decision pending), ``chosen(state,
    seat, action)`` before each action is applied; returns the finished game."""
    state = new_game(Options(players=players), seed)
    chooser = random.Random(seed)
    opened: tuple[int, int] | None = None
    while not state.over:
        seat = current_seat(state)
        assert seat is not None
        if state.pending is None and (state.round, state.turn) != opened:
            opened = (state.round, state.turn)
            turn_start(state)
        action = choose_action(player_view(state, seat), level, 0.1, chooser)
        if chosen is not None:
            chosen(state, seat, action)
        state, _ = apply(state, seat, action)
    return state
