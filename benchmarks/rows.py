"""The logs of the benchmarks that play whole games and note rows (``bench_evaluate``,
``bench_rivals``): one JSON object a line, appended game by game, so that a run stopped early
keeps what it measured and ``--table LOG`` prints its figures again."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

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
