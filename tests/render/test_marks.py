"""A pending choice's options numbered on the board (R32, R33, R36, R37): the chooser sees which
building, or which squares, each numbered button means."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import render
from engine import (
    Age,
    BuildingType,
    Construct,
    Event,
    PublicView,
    apply,
    parse_square,
    public_view,
)
from engine.builder import position
from engine.constants import COLS
from render.board import tile_layout
from render.images import BOARDS_CELL, move_layout
from render.marks import ChoiceMark, badge_centre, badge_radius, choice_marks
from render.style import INK, WHITE
from render.table import table_layout

from . import states
from .pixels import decode


def _footprint(square: str, size: int) -> frozenset[int]:
    at = parse_square(square)
    return frozenset(at + dr * COLS + dc for dr in range(size) for dc in range(size))


def _badge_box(mark: ChoiceMark, cell: int) -> tuple[float, float, float, float]:
    cx, cy = badge_centre(mark, 0, 0, cell)
    r = badge_radius(cell)
    return (cx - r, cy - r, cx + r, cy + r)


def _overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _square_of(mark: ChoiceMark, cell: int) -> int:
    cx, cy = badge_centre(mark, 0, 0, cell)
    return int(cy // cell) * COLS + int(cx // cell)


def test_r33_which_building_each_candidate_numbered_on_its_corner() -> None:
    view, _ = states.choice_which()
    marks = choice_marks(view, Age.MIGHT)
    assert [m.number for m in marks] == [1, 2]  # the buttons' "1." and "2."
    assert [m.squares for m in marks] == [_footprint("F4", 2), _footprint("I4", 2)]
    assert choice_marks(view, Age.FAITH) == []  # the choice is on Might only
    for cell in (BOARDS_CELL, table_layout(view, ["A", "B", "C"]).cell):
        for mark in marks:
            assert _square_of(mark, cell) == min(mark.squares)  # its top-left square
            tile = next(t for t in view.boards[Age.MIGHT].tiles if t.at == min(mark.squares))
            lay = tile_layout(tile, Age.MIGHT, 0, 0, cell)
            assert lay.owner is not None and not _overlap(_badge_box(mark, cell),
                                                          lay.owner.box)


def test_r33_where_the_smaller_tile_sits_each_footprint_in_its_own_corner() -> None:
    """A Castle becoming a Keep: four 2x2 footprints, each numbered in the corner square of
    the Castle that it alone covers, clear of the Castle's name and owner."""
    view, _ = states.choice_place()
    assert view.pending is not None
    marks = choice_marks(view, Age.MIGHT)
    assert [m.number for m in marks] == [1, 2, 3, 4]
    assert [m.squares for m in marks] == [_footprint(o.label, 2) for o in view.pending.options]
    castle = next(t for t in view.boards[Age.MIGHT].tiles if t.type is BuildingType.CASTLE
                  and t.owner == 1)
    corners = {parse_square(s) for s in ("M13", "O13", "M15", "O15")}
    for cell in (BOARDS_CELL, table_layout(view, ["A", "B", "C"]).cell):
        assert {_square_of(m, cell) for m in marks} == corners
        for mark in marks:
            assert _square_of(mark, cell) in mark.squares
            assert all(_square_of(m, cell) not in mark.squares for m in marks if m is not mark)
        lay = tile_layout(castle, Age.MIGHT, 0, 0, cell)
        assert lay.name is not None and lay.owner is not None
        for mark in marks:
            assert not _overlap(_badge_box(mark, cell), lay.name.box)
            assert not _overlap(_badge_box(mark, cell), lay.owner.box)


def test_r33_a_keep_becoming_a_watchtower_numbers_its_four_squares() -> None:
    state = position(3, faith="Monastery F4 1; Chapel F6 1; Monastery J4 2", hands={0: "cccm"})
    state, _ = apply(state, 0, Construct(age=Age.MIGHT, building=BuildingType.TOWN,
                                         square="H5"))
    view = public_view(state)
    marks = choice_marks(view, Age.FAITH)
    assert [sorted(m.squares) for m in marks] == [
        [parse_square(s)] for s in ("J4", "K4", "J5", "K5")]
    assert all(_square_of(m, BOARDS_CELL) in m.squares for m in marks)


def test_no_numbers_without_a_choice_or_once_the_game_is_over() -> None:
    view, _, _ = states.mid_game()
    assert all(choice_marks(view, age) == [] for age in Age)
    which, _ = states.choice_which()
    over = which.model_copy(update={"over": True})
    assert choice_marks(over, Age.MIGHT) == []


@pytest.mark.parametrize("choice", [states.choice_which, states.choice_place])
def test_r37_the_move_image_shows_the_choice_large_with_its_numbers(
        choice: Callable[[], tuple[PublicView, list[Event]]]) -> None:
    view, events = choice()
    assert view.pending is not None
    lay = move_layout(view, ["Ann", "Bob", "Cy"], events)
    assert lay.focus is Age(view.pending.age)
    img = decode(render.move_png(view, ["Ann", "Bob", "Cy"], events))
    x, y = lay.boards[lay.focus]
    geo = lay.geometry[lay.focus]
    gx, gy = x + geo.band, y + geo.header + geo.band
    r = badge_radius(geo.cell)
    for mark in choice_marks(view, lay.focus):
        cx, cy = badge_centre(mark, gx, gy, geo.cell)
        assert img.getpixel((round(cx + r - 1), round(cy))) == INK
        assert img.getpixel((round(cx), round(cy - r * 0.75))) == WHITE
