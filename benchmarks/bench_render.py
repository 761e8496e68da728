"""Benchmark of the images posted during a game (issue 13, item 8), and their preview sizes.

A random five-player Hold'em game is played to round 6. For the boards image (/board: panel and
three ages) and the move image (posted after each move) it prints:

Times are CPU time (``time.process_time``), so that other work on a shared machine does not
count, and medians.

- "after a move": each of the last 40 moves rendered once, in order, as the bot does; the
  layers of the boards that move did not change come from the cache;
- "cold": the same image with every cache emptied first (the first image of a process);
- the floor: Pillow encoding a blank RGB image of the same size at zlib level 3 (the images'
  encoding before issue 13, and the floor the issue measured against), and the ratio of the
  "after a move" median to it (target: at most 2); also a blank image encoded the way the
  images now are (palette, ``PNG_LEVEL``), for comparison;
- the PNG size, and the size of the same image encoded as before (RGB, zlib level 3).

Budget: boards image after a move under 150 ms and 1.5 MB. Exits with status 1 when over.
``--previews DIR`` also writes each image at full size and scaled to Discord's inline preview
(desktop: 400 px tall; phone: 360 px wide), with the pixels per square each shows.
Run: ``.venv/bin/python benchmarks/bench_render.py [--previews DIR]``.
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from PIL import Image

from engine import Event, Options, PublicView, apply, new_game, public_view
from engine.random_player import random_action
from render import boards_png, highlights_from_events, move_png
from render.board import clear_layer_cache
from render.images import BOARDS_CELL, MOVE_CELL, boards_image, move_image
from render.png import PNG_LEVEL, to_palette
from render.style import PAPER

BUDGET_MS = 150.0
BUDGET_BYTES = 1_500_000
MOVES = 40
RUNS = 15
DESKTOP_HEIGHT = 400
PHONE_WIDTH = 360


def game_views(
    seed: int = 7, players: int = 5, stop_round: int = 6
) -> list[tuple[PublicView, list[Event]]]:
    """The public view after every move of a random game played up to ``stop_round``."""
    chooser = random.Random(seed)
    state = new_game(Options(players=players, holdem=True), seed)
    out = []
    while not state.over and state.round < stop_round:
        seat, action = random_action(state, chooser)
        state, events = apply(state, seat, action)
        out.append((public_view(state), events))
    return out


def timed(fn: Callable[[], object]) -> float:
    """Milliseconds of CPU time ``fn`` takes: other work on a shared machine does not count."""
    start = time.process_time()
    fn()
    return (time.process_time() - start) * 1000


def median_ms(fn: Callable[[], object], runs: int = RUNS) -> float:
    return statistics.median(timed(fn) for _ in range(runs))


def png_bytes(img: Image.Image, **settings: int) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG", **settings)
    return buf.getvalue()


def measure(label: str, moves: list[tuple[PublicView, list[Event]]], names: list[str],
            render: Callable[[PublicView, list[Event]], bytes],
            draw: Callable[[PublicView, list[Event]], Image.Image]) -> tuple[float, int]:
    """Print the figures of one kind of image; returns (ms after a move, bytes)."""
    render(*moves[-MOVES - 1])  # warm the fonts and the layers of the move before
    view, events = moves[-1]
    img = draw(view, events)
    blank = Image.new("RGB", img.size, PAPER)
    renders, floors = [], []
    for move in moves[-MOVES:]:  # interleaved, so that both see the same machine
        renders.append(timed(lambda m=move: render(*m)))  # type: ignore[misc]
        floors.append(timed(lambda: png_bytes(blank, compress_level=3)))
    after_move, floor_ms = statistics.median(renders), statistics.median(floors)
    blank_p = to_palette(blank)
    same_ms = median_ms(lambda: png_bytes(blank_p, compress_level=PNG_LEVEL))

    def cold() -> bytes:
        clear_layer_cache()
        return render(view, events)

    cold_ms = median_ms(cold, 7)
    png = render(view, events)
    before = png_bytes(img, compress_level=3)
    print(f"{label}: {img.size[0]}x{img.size[1]} px, {len(view.players)} players, round "
          f"{view.round}, {sum(len(b.tiles) for b in view.boards)} tiles")
    print(f"  after a move: median {after_move:.1f} ms over the last {MOVES} moves; "
          f"cold (caches emptied): {cold_ms:.1f} ms")
    print(f"  floor (blank RGB image, zlib 3): {floor_ms:.1f} ms; "
          f"ratio {after_move / floor_ms:.2f}x (cold {cold_ms / floor_ms:.2f}x); "
          f"a blank palette image at zlib {PNG_LEVEL}: {same_ms:.1f} ms")
    print(f"  PNG {len(png):,} bytes (palette); as RGB at zlib 3 it would be {len(before):,}")
    return after_move, len(png)


def write_previews(folder: Path, moves: list[tuple[PublicView, list[Event]]],
                   names: list[str]) -> None:
    """Each image at full size and at the inline preview sizes, for a person to look at."""
    folder.mkdir(parents=True, exist_ok=True)
    view, events = next(m for m in reversed(moves) if highlights_from_events(m[1]))
    images = {
        "move": (move_png(view, names, events), MOVE_CELL),
        "boards": (boards_png(view, names, highlights_from_events(events)), BOARDS_CELL),
    }
    for name, (png, cell) in images.items():
        img = Image.open(io.BytesIO(png)).convert("RGB")
        img.save(folder / f"{name}.png")
        for where, scale in (("desktop", DESKTOP_HEIGHT / img.height),
                             ("phone", PHONE_WIDTH / img.width)):
            small = img.resize((round(img.width * scale), round(img.height * scale)),
                               Image.Resampling.LANCZOS)
            small.save(folder / f"{name}-{where}.png")
            print(f"  {name} at {where} preview size {small.size[0]}x{small.size[1]}: "
                  f"{cell * scale:.1f} px per square on the large board")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--previews", type=Path, help="folder for the preview-size images")
    args = parser.parse_args()
    moves = game_views()
    names = [f"Player {i + 1}" for i in range(len(moves[-1][0].players))]

    def boards(view: PublicView, events: list[Event]) -> bytes:
        return boards_png(view, names, highlights_from_events(events))

    def boards_img(view: PublicView, events: list[Event]) -> Image.Image:
        return boards_image(view, names, highlights_from_events(events))

    ms, size = measure("boards image", moves, names, boards, boards_img)
    measure("move image", moves, names, lambda v, e: move_png(v, names, e),
            lambda v, e: move_image(v, names, e))
    if args.previews:
        write_previews(args.previews, moves, names)
    ok = ms < BUDGET_MS and size < BUDGET_BYTES
    print("OK" if ok else "OVER BUDGET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
