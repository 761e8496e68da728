"""The image posted after a move: the age played on large, readable at the
size Discord shows inline; the other ages small under it."""

from __future__ import annotations

import render
from engine import Age, BuildingType, Choose, Construct, Event, Populate, apply, public_view
from engine.builder import position
from engine.constants import COLS
from render.board import BoardGeometry
from render.images import BOARDS_CELL, GAP, MOVE_CELL, focus_age, move_layout
from render.panel import panel_height
from render.style import player_look

from . import states
from .pixels import decode, owner_pixels, scaled, scaled_box

DESKTOP_HEIGHT = 400  # Discord's inline preview on a desktop: about 400 px tall
PHONE_WIDTH = 360  # on a phone: the width of the screen


def test_the_focus_is_the_earliest_age_the_move_changed() -> None:
    view, events, _ = states.mid_game()  # a Keep on Might that ripples to Faith and Reason
    assert focus_age(render.highlights_from_events(events), events) is Age.MIGHT
    state = position(2, reason="Town C4", hands={0: "mmcc"},
                     adventurers={0: [Age.REASON, Age.REASON]})
    _, populated = apply(state, 0, Populate(square="C4", count=1))
    assert focus_age(render.highlights_from_events(populated), populated) is Age.REASON
    travel = [Event(kind="travel", text="{P0} travels to Faith.", seat=0, age=Age.FAITH)]
    assert focus_age({}, travel) is Age.FAITH
    assert focus_age({}, []) is Age.MIGHT


def test_the_move_image_shows_the_focus_large_and_the_other_ages_small() -> None:
    view, events, _ = states.mid_game()
    lay = move_layout(view, states.NAMES_4, events)
    assert lay.focus is Age.MIGHT
    assert lay.geometry[Age.MIGHT].cell == MOVE_CELL
    assert {lay.geometry[a].cell for a in (Age.FAITH, Age.REASON)} == {render.images.THUMB_CELL}
    img = decode(render.move_png(view, states.NAMES_4, events))
    assert img.size == (lay.width, lay.height)
    # portrait, about 3:4: a phone shows it at full width, a desktop at 400 px tall
    assert 0.65 < img.width / img.height < 0.85


def test_at_preview_size_the_last_move_and_its_owner_stay_visible() -> None:
    """Scaled down as Discord shows it inline, the moved Keep's squares stay at least 12 px
    wide and show the owner's colour (his frame) over a good many pixels; on the stacked
    boards image scaled to 400 px tall they are 6 px wide and the colour all but vanishes."""
    view, events, _ = states.mid_game()
    keep = sorted(render.highlights_from_events(events)[Age.MIGHT])
    owner = player_look(0).colour
    lay = move_layout(view, states.NAMES_4, events)
    boxes = [lay.square_box(Age.MIGHT, s) for s in keep]
    region = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
              max(b[3] for b in boxes))
    img = decode(render.move_png(view, states.NAMES_4, events))
    for scale in (DESKTOP_HEIGHT / img.height, PHONE_WIDTH / img.width):
        assert MOVE_CELL * scale >= 12
        small = scaled(img, scale)
        assert owner_pixels(small, scaled_box(region, scale), owner) >= 60

    geo = BoardGeometry(BOARDS_CELL)
    stacked = decode(render.boards_png(view, states.NAMES_4, render.highlights_from_events(events)))
    top = panel_height(view, states.NAMES_4, geo.width) + GAP + geo.header + geo.band
    row, col = divmod(keep[0], COLS)
    old = (geo.band + col * geo.cell, top + row * geo.cell, geo.band + (col + 2) * geo.cell,
           top + (row + 2) * geo.cell)
    scale = DESKTOP_HEIGHT / stacked.height
    assert BOARDS_CELL * scale < 8
    assert owner_pixels(scaled(stacked, scale), scaled_box(old, scale), owner) < 60


def test_the_caption_says_the_whole_move_or_counts_the_rest() -> None:
    view, events, _ = states.mid_game()
    lay = move_layout(view, states.NAMES_4, events)
    text = " ".join(lay.caption.action)
    assert text.startswith("Alice builds a Keep at F4 on Might")
    # the two paradoxes are said (R29); the two ripples are counted
    assert "Magnificent's Chapel at G5 on Faith is erased" in text
    assert "The Town at G5 on Reason is erased" in text
    assert "ripples" not in text
    assert text.endswith("(+2 more changes, outlined on the boards.)")
    assert "…" not in text and "(R17)" not in text
    state = position(2, hands={0: "mmrc"})
    after, built = apply(state, 0, Construct(age=Age.MIGHT, building=BuildingType.WATCHTOWER,
                                             square="F4"))
    small = move_layout(public_view(after), ["Ann", "Ben"], built)
    joined = " ".join(small.caption.action)
    assert "Ann builds a Watchtower at F4 on Might" in joined
    assert "more change" not in joined


def test_every_player_is_in_the_key_whole() -> None:
    view, events, _ = states.mid_game()
    names = ["A" * 10 + " " + "B" * 10, "Bartholomew the Magnificent", "C", "D" * 32]
    lay = move_layout(view, names, events)
    assert [e.seat for e in lay.key] == [0, 1, 2, 3]
    for entry, name in zip(lay.key, names, strict=True):
        assert "".join(entry.lines).replace(" ", "") == name.replace(" ", "")
    assert [e.marked for e in lay.key] == [True, False, False, False]  # Alice's turn
    assert lay.height >= lay.key_at[1] + sum(e.height for e in lay.key)


def _downsizing() -> Event:
    """Chen's Monastery at J4 on Faith downsized to a Chapel at K5 (R33), after his choice."""
    state = position(3, faith="Monastery F4 1; Chapel F6 1; Monastery J4 2", hands={0: "cccm"})
    state, _ = apply(state, 0, Construct(age=Age.MIGHT, building=BuildingType.TOWN,
                                         square="H5"))
    _, events = apply(state, 2, Choose(option=3))
    return next(e for e in events if e.kind == "downsized")


def test_r29_r33_a_paradox_or_a_downsizing_is_never_hidden_behind_the_count() -> None:
    """Told last in a long move, the erased Chapel (R29) and the downsized Monastery (R33)
    still come right after what the player did; the ripples that do not fit are counted."""
    view, events, _ = states.mid_game()
    built, paradox, ripple = events[0], events[1], events[2]
    move = [built, *[ripple] * 6, _downsizing(), paradox]
    text = " ".join(move_layout(view, states.NAMES_4, move).caption.action)
    first = text.index("Alice builds a Keep at F4")
    shrunk = text.index("Chen's Monastery at J4 on Faith is downsized to a Chapel at K5")
    erased = text.index("Magnificent's Chapel at G5 on Faith is erased")
    assert first < shrunk < erased  # in the order they happened
    shown = text.count("ripples to Faith")
    assert shown < 6
    assert text.endswith(f"(+{6 - shown} more changes, outlined on the boards.)")
    # every sentence whole: the count is the only thing in parentheses
    assert text.count("(") == 1 and "…" not in text


def test_r29_losses_that_take_more_than_three_lines_grow_the_caption() -> None:
    view, events, _ = states.mid_game()
    built, paradox = events[0], events[1]
    move = [built, *[paradox] * 5]
    lay = move_layout(view, states.NAMES_4, move)
    assert " ".join(lay.caption.action).count("is erased") == 5
    assert len(lay.caption.action) > 3
    assert "more change" not in " ".join(lay.caption.action)
