"""Benchmark of the images posted during a game, and their preview sizes.

A random five-player Hold'em game is played to round 6. For the boards image (/board: panel and
three ages), the move image (posted after each move) and the table image (the table message's
picture, re-uploaded after each move) it prints:

Times are CPU time (``time.process_time``), so that other work on a shared machine does not
count, and medians.

- "after a move": each of the last 40 moves rendered once, in order, as the bot does; the
  layers of the boards that move did not change come from the cache;
- "cold": the same image with every cache emptied first (the first image of a process);
- the floor: Pillow encoding a blank RGB image of the same size at zlib level 3 (the images'
  encoding before the palette, and the floor they were measured against), and the ratio of the
  "after a move" median to it (target: at most 2); also a blank image encoded the way the
  images now are (palette, ``PNG_LEVEL``), for comparison;
- the PNG size, and the size of the same image encoded as before (RGB, zlib level 3); for the
  table image also its bytes over the last 40 moves (median, largest, sum: what a turn
  uploads);
- the pixels per square of the large board at Discord's preview sizes (fitted to 550 x 350,
  and to 400 px tall) for each layout: the figures of docs/render.md.

Budget: boards image after a move under 150 ms and 1.5 MB. Exits with status 1 when over.
``--previews DIR`` also writes each image at full size and scaled to Discord's inline preview
(desktop: 400 px tall; phone: 360 px wide; the table image: 550 x 350 and 400 px tall).
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
from engine.constants import COLS, ROWS
from engine.random_player import random_action
from render import age_png, boards_png, highlights_from_events, move_png, table_png
from render.board import clear_layer_cache
from render.images import AGE_CELL, BOARDS_CELL, MOVE_CELL, boards_image, move_image
from render.png import PNG_LEVEL, to_palette
from render.style import PAPER
from render.table import table_image, table_layout

BUDGET_MS = 150.0
BUDGET_BYTES = 1_500_000
MOVES = 40
RUNS = 15
DESKTOP_HEIGHT = 400
PHONE_WIDTH = 360
PREVIEW_BOX = (550, 350)  # Discord's chat preview of a message's image, about


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


def _scale_to_box(width: int, height: int) -> float:
    return min(PREVIEW_BOX[0] / width, PREVIEW_BOX[1] / height)


def layouts(view: PublicView, events: list[Event], names: list[str]) -> None:
    """Pixels per square of the large board at preview size, for each layout tried; the
    table's windows are forced by outlining squares that need them."""
    hl = highlights_from_events(events)
    age = min(hl)
    rows: list[tuple[str, bytes, float]] = [
        ("three ages stacked (boards_png)", boards_png(view, names, hl), BOARDS_CELL),
        ("the age large, the others under it (move_png)", move_png(view, names, events),
         MOVE_CELL),
        ("the age large alone (age_png)", age_png(view, age, names, hl), AGE_CELL),
    ]
    for label, squares in (
            ("table: the whole age large, the two others small", {0, COLS * ROWS - 1}),
            ("table: a 16 x 12 window", {2 * COLS + 2, 10 * COLS + 14}),
            ("table: a 12 x 9 window (chosen, the smallest)", {3 * COLS + 5})):
        lay = table_layout(view, names, events, {age: squares})
        png = table_png(view, names, events, {age: squares})
        rows.append((f"{label}, {lay.window.cols} x {lay.window.rows} squares", png, lay.cell))
    print("  layout | size | px per square fitted to 550 x 350 | at 400 px tall | at 360 px "
          "wide | bytes")
    for label, png, cell in rows:
        w, h = Image.open(io.BytesIO(png)).size
        print(f"  {label} | {w} x {h} | {cell * _scale_to_box(w, h):.1f} | "
              f"{cell * DESKTOP_HEIGHT / h:.1f} | {cell * PHONE_WIDTH / w:.1f} | {len(png):,}")


def write_previews(folder: Path, moves: list[tuple[PublicView, list[Event]]],
                   names: list[str]) -> None:
    """Each image at full size and at the inline preview sizes, for a person to look at."""
    folder.mkdir(parents=True, exist_ok=True)
    view, events = next(m for m in reversed(moves) if highlights_from_events(m[1]))
    images = {
        "move": (move_png(view, names, events), MOVE_CELL),
        "boards": (boards_png(view, names, highlights_from_events(events)), BOARDS_CELL),
        "table": (table_png(view, names, events), table_layout(view, names, events).cell),
    }
    for name, (png, cell) in images.items():
        img = Image.open(io.BytesIO(png)).convert("RGB")
        img.save(folder / f"{name}.png")
        for where, scale in (("desktop", DESKTOP_HEIGHT / img.height),
                             ("phone", PHONE_WIDTH / img.width),
                             ("550x350", _scale_to_box(img.width, img.height))):
            small = img.resize((round(img.width * scale), round(img.height * scale)),
                               Image.Resampling.LANCZOS)
            small.save(folder / f"{name}-{where}.png")
            print(f"  {name} at {where} preview size {small.size[0]}x{small.size[1]}: "
                  f"{cell * scale:.1f} px per square on the large board")


def upload_bytes(moves: list[tuple[PublicView, list[Event]]], names: list[str]) -> None:
    """What posting an image after each of the last moves costs: the table image (re-uploaded
    with every edit of the table message) beside the move image (posted today)."""
    for label, draw in (("table", table_png), ("move", move_png)):
        sizes = [len(draw(view, names, events)) for view, events in moves[-MOVES:]]
        print(f"  {label} image bytes over the last {MOVES} moves: median "
              f"{statistics.median(sizes):,.0f}, largest {max(sizes):,}, sum {sum(sizes):,}")


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
    measure("table image", moves, names, lambda v, e: table_png(v, names, e),
            lambda v, e: table_image(v, names, e))
    upload_bytes(moves, names)
    view, events = next(m for m in reversed(moves) if highlights_from_events(m[1]))
    layouts(view, events, names)
    if args.previews:
        write_previews(args.previews, moves, names)
    ok = ms < BUDGET_MS and size < BUDGET_BYTES
    print("OK" if ok else "OVER BUDGET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
