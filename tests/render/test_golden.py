"""Golden images of fixed states: an empty board, a mid-game move, the end."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from engine import Age
from render import (
    age_png,
    before_after_png,
    boards_png,
    hand_png,
    highlights_from_events,
    move_png,
    summary_png,
)

from . import golden_helper, states
from .golden_helper import assert_matches_golden
from .test_summary import fixed_summary


def test_golden_boards_empty() -> None:
    assert_matches_golden("boards_empty", boards_png(states.empty(), states.NAMES_2))


def test_golden_boards_mid_game_with_ripples_ruins_cubes_and_highlight() -> None:
    view, events, _ = states.mid_game()
    png = boards_png(view, states.NAMES_4, highlights_from_events(events))
    assert_matches_golden("boards_mid", png)


def test_golden_age_reason_large() -> None:
    view, events, _ = states.mid_game()
    png = age_png(view, Age.REASON, states.NAMES_4, highlights_from_events(events))
    assert_matches_golden("age_reason_mid", png)


def test_golden_boards_end_of_game() -> None:
    assert_matches_golden("boards_end", boards_png(states.end_game(), states.NAMES_5))


def test_golden_hand_with_holdem_reserve() -> None:
    _, _, hand_view = states.mid_game()
    assert_matches_golden("hand_mid", hand_png(hand_view, states.NAMES_4))


def test_golden_move_image_of_a_keep_that_ripples() -> None:
    view, events, _ = states.mid_game()
    assert_matches_golden("move_mid", move_png(view, states.NAMES_4, events))


def test_golden_move_image_in_french() -> None:
    view, events, _ = states.mid_game()
    assert_matches_golden("move_mid_fr", move_png(view, states.NAMES_4, events, lang="fr"))


def test_golden_boards_in_german() -> None:
    view, events, _ = states.mid_game()
    png = boards_png(view, states.NAMES_4, highlights_from_events(events), lang="de")
    assert_matches_golden("boards_mid_de", png)


def test_golden_move_image_of_the_end_of_a_game() -> None:
    assert_matches_golden("move_end", move_png(states.end_game(), states.NAMES_5))


def test_golden_before_and_after() -> None:
    view, events, _ = states.mid_game()
    before = states.mid_game_before()
    png = before_after_png(before, view, states.NAMES_4, highlights_from_events(events),
                           "Move 12: Alice builds a Keep at F4 on Might.")
    assert_matches_golden("before_after_mid", png)


def test_golden_summary() -> None:
    assert_matches_golden("summary", summary_png(fixed_summary(), states.NAMES_5))


def test_golden_summary_in_french() -> None:
    # "Bonus de construction" takes two lines above its rule
    assert_matches_golden("summary_fr", summary_png(fixed_summary(), states.NAMES_5, lang="fr"))


def test_a_changed_image_fails_and_saves_both_images(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(golden_helper, "FAILED", tmp_path)
    monkeypatch.setattr(golden_helper, "REGEN", False)
    view = states.empty()
    img = Image.open(io.BytesIO(boards_png(view, states.NAMES_2))).convert("RGB")
    ImageDraw.Draw(img).rectangle((100, 600, 700, 1200), fill=(255, 0, 0))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    with pytest.raises(AssertionError, match="mean pixel difference"):
        golden_helper.assert_matches_golden("boards_empty", buf.getvalue())
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "boards_empty.actual.png",
        "boards_empty.diff.png",
        "boards_empty.expected.png",
    ]
