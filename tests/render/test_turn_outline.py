"""The table image outlines the whole turn (``render.turn_highlights``): every square the
turn's moves changed, once, as it stands after them; the age of the last move stays large."""

from __future__ import annotations

from PIL import Image

import engine
import render
from engine import Age, BuildingType, Construct, Demolish, Event, GameState, parse_square
from engine.builder import position
from render.board import HIGHLIGHT_INNER
from render.style import RING
from render.table import table_focus, table_layout

from .pixels import decode

NAMES = ["Ann", "Bob", "Cid"]
F1, G2, H5 = parse_square("F1"), parse_square("G2"), parse_square("H5")


def _turn(state: GameState, *actions: engine.Action) -> tuple[GameState, list[list[Event]]]:
    """The state after seat 0 plays ``actions``, and each one's events."""
    moves = []
    for action in actions:
        state, events = engine.apply(state, 0, action)
        moves.append(events)
    return state, moves


def _two_boards() -> tuple[engine.PublicView, list[list[Event]]]:
    """A Watchtower at F1 on Might, then a Chapel at G2 on Faith: no ripple (R23)."""
    start = position(3, hands={0: "mr"}, adventurers={0: [Age.MIGHT, Age.FAITH]})
    state, moves = _turn(
        start,
        Construct(age=Age.MIGHT, building=BuildingType.WATCHTOWER, square="F1"),
        Construct(age=Age.FAITH, building=BuildingType.CHAPEL, square="G2"))
    return engine.public_view(state), moves


def _outlined(img: Image.Image, box: tuple[float, float, float, float] | None,
              colour: tuple[int, int, int] = HIGHLIGHT_INNER) -> bool:
    """The middle of each side of the square is the outline's colour: the white core on a
    large age, the violet ring on a small one."""
    assert box is not None
    x0, y0, x1, y1 = (round(v) for v in box)
    sides = [((x0 + x1) // 2, y0), ((x0 + x1) // 2, y1), (x0, (y0 + y1) // 2),
             (x1, (y0 + y1) // 2)]
    return all(img.getpixel(p) == colour for p in sides)


def test_r15_two_changes_on_two_boards_are_both_outlined_the_last_ones_age_large() -> None:
    view, moves = _two_boards()
    turn = [e for events in moves for e in events]
    marks = render.turn_highlights(turn, view)
    assert marks == {Age.MIGHT: {F1}, Age.FAITH: {G2}}
    last = moves[-1]
    lay = table_layout(view, NAMES, last, marks)
    assert lay.focus is Age.FAITH  # the last move's age, not the earliest outlined
    assert table_focus(view, marks, last) is Age.FAITH
    img = decode(render.table_png(view, NAMES, last, marks))
    assert _outlined(img, lay.square_box(Age.FAITH, G2))  # large
    assert _outlined(img, lay.square_box(Age.MIGHT, F1), RING)  # small, on the right
    # the last move's events alone outline only the Chapel
    alone = table_layout(view, NAMES, last)
    img = decode(render.table_png(view, NAMES, last))
    assert _outlined(img, alone.square_box(Age.FAITH, G2))
    assert not _outlined(img, alone.square_box(Age.MIGHT, F1), RING)


def test_r15_the_alt_text_says_the_turns_earlier_changes_are_outlined_too() -> None:
    view, moves = _two_boards()
    marks = render.turn_highlights([e for events in moves for e in events], view)
    text = render.table_alt_text(view, NAMES, moves[-1], marks)
    assert "The turn's earlier changes are outlined too, on Might." in text
    assert "outlined too" not in render.table_alt_text(view, NAMES, moves[-1])
    french = render.table_alt_text(view, NAMES, moves[-1], marks, lang="fr")
    assert "entourés aussi, sur Puissance." in french


def test_r22_a_building_built_and_demolished_in_the_turn_is_not_outlined() -> None:
    start = position(3, hands={0: "mm"}, adventurers={0: [Age.MIGHT, Age.FAITH]})
    state, moves = _turn(
        start,
        Construct(age=Age.MIGHT, building=BuildingType.WATCHTOWER, square="F1"),
        Demolish(age=Age.MIGHT, square="F1"))
    assert render.highlights_from_events(moves[0] + moves[1]) == {Age.MIGHT: {F1}}
    assert render.turn_highlights(moves[0] + moves[1], engine.public_view(state)) == {}


def test_r22_a_rivals_building_demolished_is_outlined_built_on_again_once() -> None:
    start = position(3, might="Watchtower F1 1", hands={0: "mmm"},
                     adventurers={0: [Age.MIGHT, Age.MIGHT]})
    gone, moves = _turn(start, Demolish(age=Age.MIGHT, square="F1"))
    assert render.turn_highlights(moves[0], engine.public_view(gone)) == {Age.MIGHT: {F1}}
    rebuilt, more = _turn(
        gone, Construct(age=Age.MIGHT, building=BuildingType.WATCHTOWER, square="F1"))
    turn = moves[0] + more[0]
    assert render.turn_highlights(turn, engine.public_view(rebuilt)) == {Age.MIGHT: {F1}}


def test_r33_squares_a_downsizing_gave_back_are_outlined_only_if_the_turn_found_them_built(
) -> None:
    """A Keep the turn built at F1, then downsized to a Watchtower at G2: only G2 (the turn
    found F1, G1 and F2 empty and leaves them so). A Keep that stood there before the turn,
    downsized the same way: all four squares (the Keep that was there is gone)."""
    keep = [parse_square(s) for s in ("F1", "G1", "F2", "G2")]
    view = engine.public_view(position(3, might="Watchtower G2 0"))
    built = Event(kind="built", text="", age=Age.MIGHT, squares=keep)
    downsized = Event(kind="downsized", text="", age=Age.MIGHT, squares=keep)
    assert render.turn_highlights([built, downsized], view) == {Age.MIGHT: {G2}}
    assert render.turn_highlights([downsized], view) == {Age.MIGHT: set(keep)}


def test_r27_a_copy_not_placed_and_squares_the_turn_never_touched_are_not_outlined() -> None:
    view = engine.public_view(position(3, faith="Keep H5 0"))
    blocked = Event(kind="not_rippled", text="", age=Age.FAITH, squares=[H5])
    said = Event(kind="end_turn", text="")
    assert render.turn_highlights([blocked, said], view) == {}
