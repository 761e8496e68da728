"""The square masks (engine/masks.py) the construct squares are found with equal their
definitions on the map's footprints (R1 grid, R2 terrain, R15 empty squares, R18 surcharges,
R19 sharing a side), for every size, square and number of players."""

from __future__ import annotations

import random

from engine.board import FOOTPRINTS
from engine.masks import (
    NCELLS,
    ON_GRID,
    RIVER,
    SIZES,
    free_top_lefts,
    mask,
    squares_of,
    surcharge_masks,
    touching,
)
from engine.rules import surcharge


def test_r1_squares_of_a_mask_are_its_squares_in_reading_order() -> None:
    rnd = random.Random(1)
    for k in (0, 1, 7, 8, 9, 160, 319, 320):
        squares = sorted(rnd.sample(range(NCELLS), k))
        assert squares_of(mask(squares)) == squares


def test_r2_r18_footprints_on_the_grid_across_the_river_and_their_surcharge() -> None:
    for size in SIZES:
        on_grid = [fp for fp in FOOTPRINTS[size] if fp is not None]
        assert squares_of(ON_GRID[size]) == [fp.top_left for fp in on_grid]
        assert squares_of(RIVER[size]) == [fp.top_left for fp in on_grid if fp.river]
        for players in range(2, 6):
            by_extra = surcharge_masks(size, players)
            for extra, squares in enumerate(by_extra):
                want = [fp.top_left for fp in on_grid if surcharge(fp, players) == extra]
                assert squares_of(squares) == want, (size, players, extra)
            assert sum(by_extra) == ON_GRID[size]  # each square in exactly one


def test_r15_free_top_lefts_are_the_footprints_on_empty_squares() -> None:
    rnd = random.Random(2)
    for n in (0, 1, 5, 20, 60, 150, 319, 320):
        occupied = set(rnd.sample(range(NCELLS), n))
        for size in SIZES:
            want = [
                fp.top_left
                for fp in FOOTPRINTS[size]
                if fp is not None and not occupied.intersection(fp.cells)
            ]
            assert squares_of(free_top_lefts(mask(occupied), size)) == want, (n, size)


def test_r19_touching_is_sharing_a_side_with_the_footprint() -> None:
    for b_size in SIZES:
        for b in FOOTPRINTS[b_size]:
            if b is None:
                continue
            for size in SIZES:
                want = [
                    fp.top_left
                    for fp in FOOTPRINTS[size]
                    if fp is not None and set(b.cells).intersection(fp.border)
                ]
                assert squares_of(touching(size, b_size, b.top_left)) == want
