"""Benchmark of the boards image (issue 4): a busy mid-game state, rendered to PNG.

Prints the median time, the PNG size, and the ratio to the encoding floor (Pillow saving a blank
image of the same size with the same settings). Budget: median under 150 ms, under 1.5 MB.
Exits with status 1 when over budget. Run: ``.venv/bin/python benchmarks/bench_render.py``.
"""

from __future__ import annotations

import io
import random
import statistics
import sys
import time

from PIL import Image

from engine import Event, GameState, Options, apply, new_game, public_view
from engine.random_player import random_action
from render import boards_png, highlights_from_events
from render.images import PNG_LEVEL
from render.style import PAPER

BUDGET_MS = 150.0
BUDGET_BYTES = 1_500_000
RUNS = 31


def busy_state(
    seed: int = 7, players: int = 5, stop_round: int = 6
) -> tuple[GameState, list[Event]]:
    """A random five-player Hold'em game played up to ``stop_round``, and its last board events."""
    chooser = random.Random(seed)
    state = new_game(Options(players=players, holdem=True), seed)
    last: list[Event] = []
    while not state.over and state.round < stop_round:
        seat, action = random_action(state, chooser)
        state, events = apply(state, seat, action)
        if any(e.squares for e in events):
            last = events
    return state, last


def median_ms(fn: object, runs: int = RUNS) -> float:
    assert callable(fn)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> int:
    state, events = busy_state()
    view = public_view(state)
    names = [f"Player {i + 1}" for i in range(len(view.players))]
    highlights = highlights_from_events(events)
    tiles = sum(len(b.tiles) for b in view.boards)
    png = boards_png(view, names, highlights)  # warm the font and terrain caches
    size = Image.open(io.BytesIO(png)).size
    ms = median_ms(lambda: boards_png(view, names, highlights))

    blank = Image.new("RGB", size, PAPER)

    def save_blank() -> bytes:
        buf = io.BytesIO()
        blank.save(buf, format="PNG", compress_level=PNG_LEVEL)
        return buf.getvalue()

    floor_ms = median_ms(save_blank)
    ok = ms < BUDGET_MS and len(png) < BUDGET_BYTES
    print(f"boards image: {size[0]}x{size[1]} px, {tiles} tiles, round {view.round}, "
          f"{len(view.players)} players, PNG zlib level {PNG_LEVEL}")
    print(f"median {ms:.1f} ms over {RUNS} runs (budget {BUDGET_MS:.0f} ms)")
    print(f"size {len(png)} bytes (budget {BUDGET_BYTES})")
    print(f"blank image of the same size: median {floor_ms:.2f} ms, {len(save_blank())} bytes; "
          f"ratio {ms / floor_ms:.1f}x")
    print("OK" if ok else "OVER BUDGET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
