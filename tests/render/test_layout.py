"""Where things go on a tile: nothing covers a cube, the owner's frame
shows, and the last-move outline stays clear of what is drawn inside the squares."""

from __future__ import annotations

import itertools

import pytest
from PIL import Image

import render.board
from engine import BUILDINGS, PRINTED_HAMLETS, Age, BuildingType, Family, public_view
from engine.builder import position
from engine.constants import COLS, capacity
from engine.state import Board, Tile
from render.board import (
    DETAIL_CELL,
    MIN_SPECK,
    BoardGeometry,
    Box,
    board_layer,
    clear_layer_cache,
    content_inset,
    hamlet_layout,
    tile_layout,
)
from render.images import AGE_CELL, BOARDS_CELL, MOVE_CELL, THUMB_CELL
from render.style import INK, player_look, ruin_colours
from render.table import MAP_H, MAP_W, THUMB_CELLS, WINDOWS

CELLS = sorted({THUMB_CELL, 20, DETAIL_CELL, 30, BOARDS_CELL, MOVE_CELL, 48, AGE_CELL})
# the table image: its small ages, and its large age whole, in a 16 x 12 window, in 12 x 9
TABLE_CELLS = sorted({*THUMB_CELLS, *(min(MAP_W // c, MAP_H // r) for c, r in WINDOWS)})


def overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def inside(a: Box, b: Box) -> bool:
    return a[0] >= b[0] and a[1] >= b[1] and a[2] <= b[2] and a[3] <= b[3]


def tiles_to_check() -> list[tuple[Tile, Age]]:
    """Every type, owned or not, as a ruin with and without a renovation marker, and on
    Reason full of cubes of different players."""
    out = []
    at = 5 * COLS + 5  # F6: room for a 3x3
    for btype in BuildingType:
        spec = BUILDINGS[btype]
        if spec.family is Family.CIVIL:
            cubes = [s % 5 for s in range(capacity(btype))]
            out.append((Tile(id=1, type=btype, at=at, cubes=cubes), Age.REASON))
            out.append((Tile(id=1, type=btype, at=at), Age.REASON))
            out.append((Tile(id=1, type=btype, at=at), Age.MIGHT))
            continue
        for age, owner in ((Age.MIGHT, 0), (Age.FAITH, 4), (Age.REASON, None)):
            out.append((Tile(id=1, type=btype, at=at, owner=owner), age))
        if spec.ruin_value:
            out.append((Tile(id=1, type=btype, at=at, ruin=True), Age.REASON))
            if spec.ruin_value >= 2:
                out.append((Tile(id=1, type=btype, at=at, ruin=True, marker=2), Age.REASON))
    return out


@pytest.mark.parametrize("cell", sorted({*CELLS, *TABLE_CELLS}))
def test_no_part_of_a_tile_covers_another_and_all_stay_clear_of_the_outline(cell: int) -> None:
    for tile, age in tiles_to_check():
        lay = tile_layout(tile, age, 0, 0, cell)
        size = BUILDINGS[tile.type].size
        row, col = divmod(tile.at, COLS)
        clear = content_inset(cell)
        region = (col * cell + clear, row * cell + clear, (col + size) * cell - clear,
                  (row + size) * cell - clear)
        parts = lay.parts()
        for name, box in parts:
            assert inside(box, region), (tile.type, age, cell, name, box, region)
        for (a, box_a), (b, box_b) in itertools.combinations(parts, 2):
            assert not overlap(box_a, box_b), (tile.type, age, cell, a, b)


@pytest.mark.parametrize("cell", sorted({*CELLS, *(c for c in TABLE_CELLS if c >= THUMB_CELL)}))
def test_every_cube_of_a_full_civil_building_on_reason_has_a_place(cell: int) -> None:
    for btype in (BuildingType.HAMLET, BuildingType.TOWN, BuildingType.CITY):
        cubes = [0] * capacity(btype)
        lay = tile_layout(Tile(id=1, type=btype, at=0, cubes=cubes), Age.REASON, 0, 0, cell)
        assert [p.seat for p in lay.places] == cubes
        # large enough to tell the shapes apart where the board is read; a dot on thumbnails
        assert all(p.r >= (3 if cell >= DETAIL_CELL else 0.8) for p in lay.places)


@pytest.mark.parametrize("cell", THUMB_CELLS)
def test_on_the_smallest_maps_cubes_too_small_to_see_are_left_out_never_degenerate(
        cell: int) -> None:
    """The table's small ages (8-11 px a square): a cube or marker is drawn at a radius of at
    least 0.8 px or not at all (the Boards image shows them), and a printed hamlet whose cube
    would be smaller shows its house."""
    for tile, age in tiles_to_check():
        lay = tile_layout(tile, age, 0, 0, cell)
        tokens = [t for t in (lay.owner, lay.marker, *lay.places) if t is not None]
        assert all(t.r >= MIN_SPECK for t in tokens), (tile.type, cell)
    square = next(iter(sorted(PRINTED_HAMLETS)))
    house, place = hamlet_layout(square, Age.REASON, 3, 0, 0, cell)
    assert (place is not None and place.r >= MIN_SPECK) or (place is None and house is not None)
    view = public_view(position(4, reason="Town G5 cubes=1,2; City I13 cubes=0,0,1,2",
                                hamlet_cubes={"Q14": 2}))
    board_layer(view.boards[Age.REASON], BoardGeometry(cell, labels=False))  # paints


@pytest.mark.parametrize("cell", THUMB_CELLS)
def test_every_tile_paints_on_the_small_ages_of_the_table(cell: int) -> None:
    """At 8 px a square (five long names) the outline of an owned Watchtower or Chapel fills
    it: it is drawn without its owner's band, which once raised an error there and left the
    table message without its picture."""
    geo = BoardGeometry(cell, labels=False)
    for tile, age in tiles_to_check():
        img = board_layer(Board(age=age, tiles=[tile]), geo)
        x, y = tile_layout(tile, age, geo.band, geo.band, cell).box[:2]
        family = BUILDINGS[tile.type].family
        outline = ruin_colours(family)[2] if tile.ruin else INK
        assert img.getpixel((round(x), round(y))) == outline, (tile.type, tile.owner, cell)


def test_names_give_way_to_codes_rather_than_being_cut() -> None:
    monastery = Tile(id=1, type=BuildingType.MONASTERY, at=0, owner=0)
    assert tile_layout(monastery, Age.MIGHT, 0, 0, BOARDS_CELL).name is not None
    texts = {
        cell: lay.name.text
        for cell in (DETAIL_CELL, 30, BOARDS_CELL, AGE_CELL)
        if (lay := tile_layout(monastery, Age.MIGHT, 0, 0, cell)).name is not None
    }
    assert set(texts.values()) <= {"Monastery", "Mo"}
    assert texts[AGE_CELL] == "Monastery"
    assert tile_layout(monastery, Age.MIGHT, 0, 0, THUMB_CELL).name is None


@pytest.mark.parametrize("cell", sorted({*CELLS, *(c for c in TABLE_CELLS if c >= THUMB_CELL)}))
def test_a_printed_hamlet_on_reason_shows_its_cube_clear_of_the_house(cell: int) -> None:
    square = next(iter(sorted(PRINTED_HAMLETS)))
    house, place = hamlet_layout(square, Age.REASON, 3, 0, 0, cell)
    assert place is not None and place.seat == 3
    row, col = divmod(square, COLS)
    clear = content_inset(cell)
    region = (col * cell + clear, row * cell + clear, (col + 1) * cell - clear,
              (row + 1) * cell - clear)
    assert inside(place.box, region)
    if house is not None:
        assert not overlap(house, place.box)


def _pixel(img: Image.Image, x: float, y: float) -> tuple[int, int, int]:
    value = img.getpixel((round(x), round(y)))
    assert isinstance(value, tuple)
    return (value[0], value[1], value[2])


def test_painted_cubes_and_frames_are_visible_in_the_image() -> None:
    """The layout is what is painted: at every cube's centre the player's colour, and the
    owner's colour on the frame of every owned tile."""
    clear_layer_cache()
    state = position(
        5,
        might="Keep C4 0; Castle H4 1; Watchtower M4 2; Chapel P4 3; Abbey C10 4",
        reason="Town C4 cubes=0,1,2; City H4 cubes=0,1,2,3,4; Hamlet M4 cubes=3",
        hamlet_cubes={"D9": 4},
    )
    for age in (Age.MIGHT, Age.REASON):
        board = state.boards[age]
        for cell in (BOARDS_CELL, AGE_CELL):
            geo = BoardGeometry(cell)
            img = board_layer(board, geo)
            g = geo.band
            for tile in board.tiles:
                lay = tile_layout(tile, age, g, g, cell)
                for token in [lay.owner, *lay.places]:
                    if token is not None and token.seat is not None:
                        assert _pixel(img, token.cx, token.cy) == player_look(token.seat).colour
                if tile.owner is not None:
                    x0, y0, _, _ = lay.box
                    mid = lay.outline + lay.frame / 2
                    assert _pixel(img, x0 + mid, y0 + mid) == player_look(tile.owner).colour
    reason = state.boards[Age.REASON]
    geo = BoardGeometry(BOARDS_CELL)
    square = 8 * COLS + 3  # D9
    _, place = hamlet_layout(square, Age.REASON, 4, geo.band, geo.band, BOARDS_CELL)
    assert place is not None
    assert _pixel(board_layer(reason, geo), place.cx, place.cy) == player_look(4).colour


def test_a_board_layer_is_drawn_once_per_content() -> None:
    clear_layer_cache()
    state = position(2, might="Keep C4 0")
    geo = BoardGeometry(BOARDS_CELL)
    first = board_layer(state.boards[Age.MIGHT], geo)
    assert board_layer(state.boards[Age.MIGHT].model_copy(deep=True), geo) is first
    changed = position(2, might="Keep C4 1").boards[Age.MIGHT]
    assert board_layer(changed, geo) is not first


def test_the_layer_cache_stays_within_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_layer_cache()
    geo = BoardGeometry(BOARDS_CELL)
    one = board_layer(position(2).boards[Age.MIGHT], geo)
    budget = 3 * one.width * one.height * 3
    monkeypatch.setattr(render.board, "LAYER_CACHE_BYTES", budget)
    squares = ["C4", "F4", "H2", "L12", "P8", "D14"]
    for square in squares:
        board_layer(position(2, might=f"Keep {square} 0").boards[Age.MIGHT], geo)
    held = list(render.board._LAYERS.values())
    assert sum(i.width * i.height * 3 for i in held) <= budget
    assert len(held) == 3  # the three most recent
    clear_layer_cache()
