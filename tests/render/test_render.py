"""Properties of the images and their words: sizes, decoding, alt text, highlights, purity."""

from __future__ import annotations

import io
import random
import re
from pathlib import Path

import pytest
from PIL import Image

import render
from engine import (
    Age,
    Event,
    Options,
    apply,
    new_game,
    player_view,
    public_view,
)
from engine.random_player import random_action
from render import age_png, alt_text, boards_png, hand_png, highlights_from_events
from render.board import BoardGeometry
from render.images import AGE_CELL, BOARDS_CELL
from render.panel import panel_height

from . import states


def decode(png: bytes) -> Image.Image:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    img = Image.open(io.BytesIO(png))
    img.load()
    return img


def test_boards_image_decodes_with_the_expected_size() -> None:
    view = states.empty()
    img = decode(boards_png(view, states.NAMES_2))
    geo = BoardGeometry(BOARDS_CELL)
    assert img.mode == "P"
    height = panel_height(view, states.NAMES_2, geo.width) + 3 * (geo.height + render.images.GAP)
    assert img.size == (geo.width, height)


def test_age_image_is_larger_than_one_board_of_the_boards_image() -> None:
    view, events, _ = states.mid_game()
    for age in Age:
        img = decode(age_png(view, age, states.NAMES_4, highlights_from_events(events)))
        assert img.width == BoardGeometry(AGE_CELL).width
        assert img.width > BoardGeometry(BOARDS_CELL).width


def test_hand_image_decodes_with_and_without_holdem() -> None:
    _, _, hand_view = states.mid_game()
    assert hand_view.options.holdem
    with_reserve = decode(hand_png(hand_view, states.NAMES_4))
    without = decode(hand_png(states.empty_hand(), states.NAMES_2))
    assert with_reserve.height > without.height


def test_hand_image_of_an_empty_hand() -> None:
    view = states.empty_hand()
    assert view.hand == []
    assert decode(hand_png(view, states.NAMES_2)).width > 0


def test_images_are_pure_and_deterministic() -> None:
    view, events, _ = states.mid_game()
    before = view.model_dump()
    hl = highlights_from_events(events)
    first = boards_png(view, states.NAMES_4, hl)
    assert boards_png(view, states.NAMES_4, hl) == first
    assert view.model_dump() == before


def test_highlights_from_events_mid_game() -> None:
    _, events, _ = states.mid_game()
    hl = highlights_from_events(events)
    keep = {65, 66, 85, 86}  # F4 G4 F5 G5
    town = {86, 87, 106, 107}  # the Reason Town at G5 erased by paradox
    assert hl == {Age.MIGHT: keep, Age.FAITH: keep, Age.REASON: keep | town}


def test_highlights_skip_events_without_a_board_change() -> None:
    events = [
        Event(kind="travel", text="{P0} travels."),
        Event(kind="not_rippled", text="no tile", age=Age.FAITH, squares=[1, 2]),
        Event(kind="copy_kept", text="kept", age=Age.REASON),
        Event(kind="downsized", text="d", age=Age.FAITH, squares=[40, 41, 60, 61]),
    ]
    assert highlights_from_events(events) == {Age.FAITH: {40, 41, 60, 61}}
    assert highlights_from_events([]) == {}


def test_alt_text_mentions_round_and_turn_within_the_limit() -> None:
    view, events, _ = states.mid_game()
    text = alt_text(view, states.NAMES_4, events)
    assert len(text) <= 1024
    assert "round 5 of 7" in text
    assert "Alice's turn" in text
    assert "Keep at F4" in text
    assert "{P" not in text


def test_alt_text_of_the_end_names_the_winners() -> None:
    text = alt_text(states.end_game(), states.NAMES_5)
    assert len(text) <= 1024
    assert "Game over: Alice and Chen win with 31 Ecus" in text


def test_alt_text_stays_short_with_long_names_and_many_events() -> None:
    """Whose turn and what the move did come first; what does not fit is left out in whole
    sentences, counted in the last one."""
    view, events, _ = states.mid_game()
    names = ["N" * 32 + str(i) for i in range(4)]
    text = alt_text(view, names, events * 10)
    assert len(text) <= render.ALT_TEXT_LIMIT
    assert text.startswith("Khronos boards, round 5 of 7. " + names[0] + "'s turn.")
    assert "Last move, outlined on the boards: " + names[0] + " builds a Keep" in text
    assert re.search(r"\((\d+) more sentences left out\.\)$", text)
    assert "…" not in text


@pytest.mark.parametrize(("players", "seed"), [(2, 3), (5, 11)])
def test_random_games_render_at_every_round(players: int, seed: int) -> None:
    chooser = random.Random(seed)
    state = new_game(Options(players=players, holdem=players == 5), seed)
    names = [f"Player {i + 1}" for i in range(players)]
    seen_rounds: set[int] = set()
    events: list[Event] = []
    while True:
        if state.round not in seen_rounds or state.over:
            seen_rounds.add(state.round)
            view = public_view(state)
            hl = highlights_from_events(events)
            assert decode(boards_png(view, names, hl)).width == BoardGeometry(BOARDS_CELL).width
            assert decode(render.move_png(view, names, events)).width == BoardGeometry(
                render.images.MOVE_CELL).width
            assert len(alt_text(view, names, events)) <= 1024
            decode(hand_png(player_view(state, state.turn), names))
        if state.over:
            break
        seat, action = random_action(state, chooser)
        state, events = apply(state, seat, action)
    assert seen_rounds == set(range(1, 8))


def test_names_shorter_than_the_seats_fall_back_to_seat_numbers() -> None:
    view = states.end_game()
    decode(boards_png(view, []))
    assert "Seat 1" in alt_text(view, [])


def test_fonts_ship_with_their_licence() -> None:
    fonts = Path(render.__file__).parent / "fonts"
    assert (fonts / "LICENSE.txt").read_text().count("Bitstream") >= 1
    assert sorted(p.name for p in fonts.glob("*.ttf")) == [
        "DejaVuSans-Bold.ttf",
        "DejaVuSans.ttf",
        "DejaVuSansCondensed-Bold.ttf",
    ]


def test_before_after_shows_each_changed_age_side_by_side() -> None:
    import io

    from PIL import Image

    import engine
    import render
    from engine import Age, BuildingType, Construct
    from engine.builder import position

    start = position(2, hands={0: "mmrc"})
    tower = Construct(age=Age.MIGHT, building=BuildingType.WATCHTOWER, square="F4")
    after, events = engine.apply(start, 0, tower)
    one = Image.open(io.BytesIO(render.before_after_png(
        engine.public_view(start), engine.public_view(after), ["Ann", "Bob"],
        render.highlights_from_events(events), "Move 1")))
    after3, events3 = engine.apply(start, 0, Construct(age=Age.MIGHT, building=BuildingType.KEEP,
                                                       square="F4"))
    three = Image.open(io.BytesIO(render.before_after_png(
        engine.public_view(start), engine.public_view(after3), ["Ann", "Bob"],
        render.highlights_from_events(events3), "Move 1")))
    assert one.width == three.width and one.width > 1000
    # a Watchtower changes Might only; a Keep ripples to Faith and Reason too: three rows
    assert 2.5 < three.height / one.height < 3.5


def test_images_drawn_in_parallel_threads_are_the_same_as_one_by_one() -> None:
    """The bot renders in worker threads: the shared layer cache must not mix them up."""
    from concurrent.futures import ThreadPoolExecutor

    from render.board import clear_layer_cache

    chooser = random.Random(4)
    state = new_game(Options(players=3), 4)
    views = []
    for _ in range(60):
        seat, action = random_action(state, chooser)
        state, events = apply(state, seat, action)
        views.append((public_view(state), events))
    names = ["Ann", "Ben", "Cy"]
    clear_layer_cache()
    serial = [render.move_png(v, names, e) for v, e in views]
    clear_layer_cache()
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(lambda m: render.move_png(m[0], names, m[1]), views))
    assert parallel == serial
