"""Alt texts shortened by design: at most 1,024 characters, what matters first (whose turn, what
the move did, then the rest), whole sentences only, and a last one counting those left out."""

from __future__ import annotations

import random
import re

import pytest

import render
from engine import Event, Options, PublicView, apply, new_game, public_view
from engine.random_player import seeking_action
from render.strings import say, speaking
from render.text import Sentence, alt_units, fit_sentences

from . import states

# 32 characters each (Discord's longest display name), in several scripts
LONG_NAMES = [
    "Ŋàmé wïth ünïcode ✓ and spaces!!",
    "Bartholomew the Magnificent IIII",
    "Владимир Владимирович Длинный 32",
    "ﻋﺒﺪ ﺍﻟﻠﻪ ﺑﻦ ﻣﺤﻤﺪ ﺍﻟﻄﻮﻳﻞ ﺟﺪﺍً ١٢٣",
    "🐉 dragon 🐉 with emoji in names 🐉",
]
NOTE = re.compile(r" ?\((\d+) more sentences? left out\.\)$")


def _check(text: str, units: list[Sentence]) -> None:
    """``text`` is whole units only, the most important ones, and the count of the others."""
    assert len(text) <= render.ALT_TEXT_LIMIT
    note = NOTE.search(text)
    body = text[: note.start()] if note else text
    kept = [u for u in units if u.text in body]
    rest = body
    for unit in sorted(kept):  # in reading order: nothing but whole units and spaces
        at = rest.find(unit.text)
        assert at >= 0 and not rest[:at].strip(), (unit.text, rest[:at])
        rest = rest[at + len(unit.text):]
    assert not rest.strip()
    left_out = len(units) - len(kept)
    assert (int(note.group(1)) if note else 0) == left_out
    assert kept == units[: len(kept)]  # dropped from the least important end


def _long_game(players: int, seed: int) -> list[tuple[PublicView, list[Event]]]:
    chooser = random.Random(seed)
    state = new_game(Options(players=players, holdem=True), seed)
    out = []
    while not state.over:
        seat, action = seeking_action(state, chooser)
        state, events = apply(state, seat, action)
        out.append((public_view(state), events))
    return out


@pytest.mark.parametrize(("players", "seed"), [(5, 4), (4, 21)])
def test_alt_texts_of_a_whole_game_with_long_names_stay_whole_and_bounded(players: int,
                                                                         seed: int) -> None:
    names = LONG_NAMES[:players]
    shortened = 0
    for view, events in _long_game(players, seed):
        head = say("alt.boards", round=view.round, rounds=7, income=render.text.income_words(
            view), status=render.panel.status_line(view, names))
        text = render.alt_text(view, names, events)
        _check(text, alt_units(view, names, events, [head]))
        table = render.table_alt_text(view, names, events)
        assert len(table) <= render.ALT_TEXT_LIMIT and NOTE.sub("", table) in table
        assert table.startswith("Khronos table, round")
        shortened += bool(NOTE.search(text))
    assert shortened  # long names in a long game: some texts had to leave sentences out


def test_whose_turn_then_the_move_then_the_rest() -> None:
    view, events, _ = states.mid_game()
    names = [n[:32] for n in LONG_NAMES[:4]]
    text = render.alt_text(view, names, events * 8)
    turn = text.index(f"{names[0]}'s turn")
    move = text.index("Last move, outlined on the boards:")
    erased = text.index("is erased by the time shadow")
    assert turn < move < erased
    assert "Players:" not in text  # the least important went first
    assert NOTE.search(text)


def test_the_move_s_losses_are_kept_before_its_other_changes() -> None:
    """R29: with room for only a few of the move's sentences, the paradoxes are among them."""
    view, events, _ = states.mid_game()
    built, paradox, ripple = events[0], events[1], events[2]
    units = alt_units(view, states.NAMES_4, [built, *[ripple] * 12, paradox], ["Head."])
    text = fit_sentences(units, 600)
    assert "Alice builds a Keep" in text and "is erased by the time shadow" in text
    assert text.index("ripples to Faith") < text.index("is erased")  # read in move order
    assert len(text) <= 600


def test_nothing_to_cut_means_no_note() -> None:
    view = states.empty()
    text = render.alt_text(view, ["Ann", "Ben"])
    assert not NOTE.search(text) and "left out" not in text
    units = [Sentence(0, "One sentence here."), Sentence(1, "Another, rather long, follows.")]
    assert fit_sentences(units) == "One sentence here. Another, rather long, follows."
    assert fit_sentences(units, 48) == "One sentence here. (1 more sentence left out.)"
    assert fit_sentences(units, 40) == "(2 more sentences left out.)"


def test_the_note_speaks_the_language() -> None:
    units = [Sentence(0, "Un."), Sentence(1, "Deux phrases, et la seconde est longue.")]
    with speaking("fr"):
        assert fit_sentences(units, 40) == "Un. (1 autre phrase omise.)"
    with speaking("de"):
        assert fit_sentences(units, 40) == "Un. (1 weiterer Satz ausgelassen.)"


def test_the_summary_leaves_out_whole_players_and_says_how_many() -> None:
    from .test_summary import fixed_summary

    names = ["N" * 200 + str(i) for i in range(5)]  # longer than any display name
    text = render.summary_alt_text(fixed_summary(), names)
    assert len(text) <= render.ALT_TEXT_LIMIT
    found = re.search(r"; (\d+) more players? left out$", text)
    assert found
    shown = sum(1 for n in names if f"{n}:" in text)
    assert shown + int(found.group(1)) == 5
