"""The picture of the table message: read at Discord's chat preview size (about 550 x 350 px),
the age of the move large around what changed, the other two small, a key of the players."""

from __future__ import annotations

import math

import pytest
from PIL import Image

import render
from engine import Age, Event, PublicView, public_view
from engine.builder import position
from engine.constants import COLS, ROWS
from render.board import tile_layout, tile_pad
from render.images import move_layout
from render.style import INK, RING, player_look
from render.table import (
    MAP_H,
    MAP_W,
    WINDOWS,
    Window,
    table_focus,
    table_layout,
    window_for,
)

from . import states
from .golden_helper import assert_matches_golden
from .pixels import decode, owner_pixels, scaled, scaled_box
from .test_palette import lab

PREVIEW_BOX = (550, 350)  # Discord's chat preview on a desktop, about
PHONE_HEIGHT = 400  # and an image fitted to 400 px tall


def preview_scales(img: Image.Image) -> dict[str, float]:
    """Scaled to 550 px wide (within 550 x 350) and to 400 px tall."""
    return {"550 wide": min(PREVIEW_BOX[0] / img.width, PREVIEW_BOX[1] / img.height),
            "400 tall": PHONE_HEIGHT / img.height}


# --- layout ----------------------------------------------------------------------------------


def test_the_table_image_is_landscape_and_fills_the_preview() -> None:
    view, events, _ = states.mid_game()
    img = decode(render.table_png(view, states.NAMES_4, events))
    lay = table_layout(view, states.NAMES_4, events)
    assert img.size == (lay.width, lay.height)
    assert 1.5 <= img.width / img.height <= 1.7  # 550 x 350 is 1.57
    assert round(img.height * PREVIEW_BOX[0] / img.width) <= PREVIEW_BOX[1]
    assert lay.focus is Age.MIGHT
    assert set(lay.thumbs) == {Age.FAITH, Age.REASON}


def _keep_region(boxes: list[tuple[float, float, float, float] | None]
                 ) -> tuple[float, float, float, float]:
    assert all(b is not None for b in boxes)
    shown = [b for b in boxes if b is not None]
    return (min(b[0] for b in shown), min(b[1] for b in shown), max(b[2] for b in shown),
            max(b[3] for b in shown))


def _legible(png: bytes, cell: int, region: tuple[float, float, float, float]) -> bool:
    """At both preview sizes: squares at least 28 px wide, and the owner's colour (Alice's
    frame) over at least 400 pixels of the Keep."""
    img = decode(png)
    for scale in preview_scales(img).values():
        small = scaled(img, scale)
        pixels = owner_pixels(small, scaled_box(region, scale), player_look(0).colour)
        if cell * scale < 28 or pixels < 400:
            return False
    return True


def test_at_preview_size_the_move_its_label_and_its_owner_stay_legible() -> None:
    """Scaled to 550 px wide and to 400 px tall, the squares of the large age are at least 28
    px wide, the Keep's name at least 9 px, and Alice's frame shows her colour over many
    pixels. The same check fails on the whole board in the same place (17 px squares) and
    on the move image fitted to 550 x 350 (12 px)."""
    view, events, _ = states.mid_game()
    keep = sorted(render.highlights_from_events(events)[Age.MIGHT])
    lay = table_layout(view, states.NAMES_4, events)
    png = render.table_png(view, states.NAMES_4, events)
    assert _legible(png, lay.cell, _keep_region([lay.square_box(Age.MIGHT, s) for s in keep]))
    tile = next(t for t in view.boards[Age.MIGHT].tiles if t.at == keep[0])
    name = tile_layout(tile, Age.MIGHT, 0, 0, lay.cell).name
    assert name is not None
    assert all(name.px * scale >= 9 for scale in preview_scales(decode(png)).values())

    whole = {Age.MIGHT: {0, ROWS * COLS - 1, *keep}}
    wlay = table_layout(view, states.NAMES_4, events, whole)
    assert wlay.window.whole
    assert not _legible(render.table_png(view, states.NAMES_4, events, whole), wlay.cell,
                        _keep_region([wlay.square_box(Age.MIGHT, s) for s in keep]))
    mlay = move_layout(view, states.NAMES_4, events)
    assert not _legible(render.move_png(view, states.NAMES_4, events),
                        mlay.geometry[Age.MIGHT].cell,
                        _keep_region([mlay.square_box(Age.MIGHT, s) for s in keep]))


# --- a change on the small ages, at a glance -------------------------------------------------

COLUMN_WIDTH = 400  # a column of table messages scrolled back through: each about 400 px wide
VISIBLE = 25  # delta E: a pixel the outline changes this much is seen (test_palette's bar)
RING_PX = 3.0  # the band of such pixels along the border, in preview pixels (the large age's)


def _without(marks: dict[Age, set[int]], age: Age) -> dict[Age, set[int]]:
    return {a: squares for a, squares in marks.items() if a is not age}


def _border(squares: set[int]) -> int:
    """The length of the region's border, in sides of a square."""
    steps = ((-1, 0), (1, 0), (0, -1), (0, 1))
    return sum(1 for s in squares for dc, dr in steps
               if not (0 <= s % COLS + dc < COLS and 0 <= s // COLS + dr < ROWS)
               or s + dc + dr * COLS not in squares)


def visible_ring(view: PublicView, names: list[str], events: list[Event], age: Age) -> float:
    """How wide, in pixels at ``COLUMN_WIDTH``, the outline of ``age``'s changes is where it
    can be seen: the table image with it and without it (the same large age and window)
    are scaled down with LANCZOS, and the pixels whose colour it moves by ``VISIBLE`` or more
    are counted, per pixel of the outlined region's border."""
    marks = render.highlights_from_events(events)
    lay = table_layout(view, names, events, marks)
    scale = COLUMN_WIDTH / lay.width
    images = [scaled(decode(render.table_png(view, names, events, hl, focus=lay.focus)), scale)
              for hl in (marks, _without(marks, age))]
    seen = sum(1 for a, b in zip(*(img.get_flattened_data() for img in images), strict=True)
               if a != b and math.dist(lab(a, "normal"), lab(b, "normal")) >= VISIBLE)
    return seen / (_border(marks[age]) * lay.thumb.cell * scale)


@pytest.mark.parametrize("names", [states.NAMES_4, ["W" * 32] * 4], ids=["11 px", "8 px"])
def test_at_400_px_wide_a_change_on_a_small_age_stands_out(names: list[str]) -> None:
    """Alice's Keep ripples to Faith (the Keep, owned) and Reason (a ruin, and the squares of
    the Town it erased, now empty). Scaled to 400 px wide (a small age's square is then 4.7
    px, 3.4 with long names), the outline must change the picture visibly over a band at
    least ``RING_PX`` wide all along its border. Why 3: measured the same way, the large
    age's outline (10 px, dark with a white core), which reads at once, gives 3.0; the small
    ages' former one (4 px, dark and white) gave 1.0-1.4, a pale ring there when looked
    for, not at a glance (looked at). The violet ring gives 3.7-4.5."""
    view, events, _ = states.mid_game()
    for age in (Age.FAITH, Age.REASON):
        assert visible_ring(view, names, events, age) >= RING_PX, age


def test_the_ring_on_a_small_age_hides_nothing_of_what_stands_in_its_squares() -> None:
    """At full size, every changed square of a small age, less the pad between its edge and
    a tile, is the same with and without the outline: the building, the owner's band and
    shape, the cubes; it is the neighbours' edges the ring covers."""
    view, events, _ = states.mid_game()
    marks = render.highlights_from_events(events)
    lay = table_layout(view, states.NAMES_4, events, marks)
    pad = tile_pad(lay.thumb.cell)
    for age in lay.thumbs:
        both = [decode(render.table_png(view, states.NAMES_4, events, hl, focus=lay.focus))
                for hl in (marks, _without(marks, age))]
        for square in marks[age]:
            box = lay.square_box(age, square)
            assert box is not None
            x0, y0, x1, y1 = (round(v) for v in box)
            inner = (x0 + pad, y0 + pad, x1 - pad, y1 - pad)
            assert both[0].crop(inner).tobytes() == both[1].crop(inner).tobytes(), (age, square)
            if square - COLS not in marks[age]:  # the pad along the region's top: the ring
                assert both[0].getpixel(((x0 + x1) // 2, y0)) == RING, (age, square)


def test_the_window_holds_the_changes_with_a_square_to_spare() -> None:
    assert window_for(set()) == Window(0, 0, COLS, ROWS)
    corner = window_for({0})
    assert (corner.col, corner.row, corner.cols, corner.rows) == (0, 0, *WINDOWS[0])
    middle = window_for({8 * COLS + 10})  # K9
    assert (middle.cols, middle.rows) == WINDOWS[0]
    assert middle.col < 10 < middle.col + middle.cols - 1
    assert middle.row < 8 < middle.row + middle.rows - 1
    # F4 to O4 (10 columns apart) fits in 12 with a square each side; to P4 it does not
    assert (window_for({3 * COLS + 5, 3 * COLS + 14}).cols) == WINDOWS[0][0]
    assert (window_for({3 * COLS + 5, 3 * COLS + 15}).cols) == WINDOWS[1][0]
    assert window_for({0, ROWS * COLS - 1}).whole
    for squares in ({0}, {77, 78}, {3 * COLS + 5, 3 * COLS + 15}, {60, 200, 205}):
        win = window_for(squares)
        assert all(win.holds(s) for s in squares)
        assert 0 <= win.col <= COLS - win.cols and 0 <= win.row <= ROWS - win.rows


def test_the_large_map_keeps_its_size_whatever_the_window() -> None:
    view, events, _ = states.mid_game()
    sizes = set()
    for hl in ({Age.MIGHT: {65}}, {Age.MIGHT: {0, 19}}, {Age.MIGHT: {0, 319}}, {}):
        lay = table_layout(view, states.NAMES_4, events, hl)
        cells = (lay.cell * lay.window.cols, lay.cell * lay.window.rows)
        assert cells[0] <= MAP_W and cells[1] <= MAP_H
        assert cells[0] * cells[1] >= 0.9 * MAP_W * MAP_H
        sizes.add((lay.width, lay.height))
    assert len(sizes) == 1


def _turn_start(adventurers: dict[int, list[Age]]) -> PublicView:
    return public_view(position(3, might="Keep F4 0", faith="Keep F4 0 copy",
                                adventurers=adventurers, turn=1))


def test_at_the_start_of_a_turn_the_board_of_the_player_to_move_is_shown_whole() -> None:
    view = _turn_start({1: [Age.FAITH, Age.REASON]})
    assert table_focus(view, {}, []) is Age.FAITH
    lay = table_layout(view, states.NAMES_4[:3])
    assert lay.focus is Age.FAITH and lay.window.whole
    assert lay.cell * preview_scales(decode(render.table_png(view, ["A", "B", "C"])))[
        "550 wide"] >= 16
    # without events nothing is outlined: the same picture as with no highlight at all
    assert render.table_png(view, ["A", "B", "C"]) == render.table_png(
        view, ["A", "B", "C"], highlights={})


@pytest.mark.parametrize("age", list(Age))
def test_every_age_can_be_the_large_one(age: Age) -> None:
    view, events, _ = states.mid_game()
    lay = table_layout(view, states.NAMES_4, events, focus=age)
    assert lay.focus is age and set(lay.thumbs) == set(Age) - {age}
    img = decode(render.table_png(view, states.NAMES_4, events, focus=age))
    assert img.size == (lay.width, lay.height)


def test_the_key_names_every_player_whole_and_marks_who_acts() -> None:
    view, events, _ = states.mid_game()
    names = ["Ŋàmé wïth ünïcode ✓ and spaces", "B" * 32, "Çhén", "Dée " * 7 + "Déé"]
    assert all(len(n) <= 32 for n in names)
    lay = table_layout(view, names, events)
    assert [e.seat for e in lay.key] == [0, 1, 2, 3]
    for entry, name in zip(lay.key, names, strict=True):
        assert name.replace(" ", "") in "".join(entry.lines).replace(" ", "")
    assert [e.marked for e in lay.key] == [True, False, False, False]
    assert lay.height >= lay.key_at[1] + sum(e.height for e in lay.key)
    short = table_layout(view, states.NAMES_4, events)
    assert (lay.width, lay.height) == (short.width, short.height)  # the small ages give way
    choosing, _ = states.choice_place()
    assert [e.marked for e in table_layout(choosing, ["A", "B", "C"]).key] == [
        False, True, False]  # Bob chooses during Cy's turn


def test_at_the_end_the_winners_are_marked() -> None:
    lay = table_layout(states.end_game(), states.NAMES_5)
    assert [e.marked for e in lay.key] == [True, False, True, False, False]


# --- a pending choice ------------------------------------------------------------------------


def test_r37_a_choice_shows_its_board_large_with_every_option_in_the_window() -> None:
    for view, events in (states.choice_which(), states.choice_place()):
        assert view.pending is not None
        marks = render.marks.choice_marks(view, Age(view.pending.age))
        lay = table_layout(view, ["Ann", "Bob", "Cy"], events)
        assert lay.focus is Age(view.pending.age)
        assert marks and all(lay.window.holds(s) for m in marks for s in m.squares)


def test_r37_the_numbers_are_painted_where_the_layout_says() -> None:
    """At each option's badge a white disc in an ink ring, in the table image."""
    view, events = states.choice_which()
    lay = table_layout(view, ["Ann", "Bob", "Cy"], events)
    img = decode(render.table_png(view, ["Ann", "Bob", "Cy"], events))
    marks = render.marks.choice_marks(view, lay.focus)
    r = render.marks.badge_radius(lay.cell)
    for mark in marks:
        gx = lay.map_at[0] - lay.window.col * lay.cell
        gy = lay.map_at[1] - lay.window.row * lay.cell
        cx, cy = render.marks.badge_centre(mark, gx, gy, lay.cell)
        assert img.getpixel((round(cx + r - 1), round(cy))) == INK
        assert img.getpixel((round(cx), round(cy - r * 0.75))) == (255, 255, 255)


# --- alt text --------------------------------------------------------------------------------


def test_the_table_alt_text_says_whose_turn_the_move_and_what_is_large() -> None:
    view, events, _ = states.mid_game()
    text = render.table_alt_text(view, states.NAMES_4, events)
    assert text.startswith("Khronos table, round 5 of 7. Alice's turn.")
    assert "Last move, outlined on the boards: Alice builds a Keep at F4" in text
    assert "Might is shown large (columns A to L, rows 1 to 9), the two other ages small." \
        in text
    assert len(text) <= render.ALT_TEXT_LIMIT
    start = render.table_alt_text(_turn_start({1: [Age.FAITH, Age.FAITH]}), ["A", "B", "C"])
    assert "Faith is shown large (the whole board)" in start
    assert "Last move" not in start


def test_r37_the_alt_text_reads_the_numbered_options() -> None:
    view, events = states.choice_which()
    text = render.table_alt_text(view, ["Ann", "Bob", "Cy"], events)
    assert "Waiting for Cy to choose. Numbered on Might: 1, Ann's Keep at F4; 2, Bob's Keep " \
           "at I4." in text
    french = render.table_alt_text(view, ["Ann", "Bob", "Cy"], events, lang="fr")
    assert french.startswith("Table de Khronos, manche 1 sur 7.")
    assert "Numérotés sur Puissance : 1, " in french


def test_golden_table_images() -> None:
    view, events, _ = states.mid_game()
    assert_matches_golden("table_mid", render.table_png(view, states.NAMES_4, events))
    which, which_events = states.choice_which()
    assert_matches_golden("table_choice", render.table_png(which, ["Ann", "Bob", "Cy"],
                                                           which_events))
    place, place_events = states.choice_place()
    assert_matches_golden("table_place_de", render.table_png(place, ["Ann", "Bob", "Cy"],
                                                             place_events, lang="de"))
    assert_matches_golden("table_start", render.table_png(states.mid_game_before(),
                                                          states.NAMES_4))
