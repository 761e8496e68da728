"""Long names, prompts and captions wrap, whole, inside the image."""

from __future__ import annotations

import random
from collections.abc import Iterator
from types import ModuleType

import pytest
from PIL import Image

import render
import render.board
import render.images
import render.marks
import render.panel
import render.strings
import render.style
import render.summary
import render.table
from engine import Age, Options, PublicView, apply, new_game, player_view, public_view
from engine.random_player import random_action
from engine.state import Choice, Decision
from render.style import BOLD, REGULAR, fit_lines, font, text_length, wrap_text
from render.summary import game_summary

from . import states

LONG_PROMPT = (
    "Junction on Might: the domain of {P1}'s Castle at M8 and {P0}'s Keep at F4 break "
    "Hierarchy; choose which of your buildings is downsized first, the Keep at F4 or the "
    "Watchtower at B2, then where the smaller tile goes (R32, R33)."
)
LONG_NAMES = ["Wolfeschlegelsteinhausenbergerd", "Bartholomew the Magnificent of Mercia",
              "Ana María de la Concepción Pérez", "李小龍", "x"]


@pytest.mark.parametrize(
    "text", ["Waiting for Bartholomew the Magnificent to choose: a long prompt with words",
             "Monastery", "Wolfeschlegelsteinhausenbergerdorff", ""])
@pytest.mark.parametrize("width", [40, 90, 300])
def test_wrapped_lines_fit_and_keep_every_letter(text: str, width: int) -> None:
    lines = wrap_text(text, 16, BOLD, width)
    for line in lines:
        assert text_length(line, 16, BOLD) <= width or len(line) == 1
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")


def test_fit_lines_prefers_a_smaller_size_to_breaking_a_word() -> None:
    px, lines = fit_lines("Bartholomew the Magnificent", BOLD, 22, 12, 120, 3)
    assert " ".join(lines).split() == ["Bartholomew", "the", "Magnificent"]
    assert px < 22
    assert len(lines) <= 3
    assert text_length("Bartholomew", px, BOLD) <= 120


class Recorder:
    """Every text drawn (through ``put_text``), with its box, to check against the image."""

    def __init__(self) -> None:
        self.drawn: list[tuple[str, tuple[float, float, float, float], tuple[int, int]]] = []

    def wrap(self, original: object) -> object:
        def put_text(img: Image.Image, xy: tuple[float, float], text: str, size: int,
                     name: str, fill: tuple[int, int, int], anchor: str = "la") -> None:
            if text:
                left, top, right, bottom = font(size, name).getbbox(text, anchor=anchor)
                box = (xy[0] + left, xy[1] + top, xy[0] + right, xy[1] + bottom)
                self.drawn.append((text, box, img.size))
            assert callable(original)
            original(img, xy, text, size, name, fill, anchor)

        return put_text


MODULES: list[ModuleType] = [render.style, render.board, render.panel, render.images,
                             render.summary, render.table, render.marks]


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorder]:
    rec = Recorder()
    for module in MODULES:
        monkeypatch.setattr(module, "put_text", rec.wrap(module.put_text))
    render.board.clear_layer_cache()
    yield rec
    render.board.clear_layer_cache()


def _pending(view: PublicView, seat: int) -> PublicView:
    decision = Decision(seat=seat, kind="downsize_which", age=Age.MIGHT, prompt=LONG_PROMPT,
                        options=[Choice(label="Keep at F4"), Choice(label="Watchtower at B2")],
                        default=0)
    return view.model_copy(update={"pending": decision})


@pytest.mark.parametrize("lang", ["en", "fr", "de"])
def test_no_text_is_cut_or_leaves_the_image(recorder: Recorder, lang: str) -> None:
    view, events, hand = states.mid_game()
    pending = _pending(view, 1)
    names = LONG_NAMES[:4]
    hl = render.highlights_from_events(events)
    chooser = random.Random(3)
    start = new_game(Options(players=5, holdem=True), 3)
    state, steps = start, []
    while not state.over:
        seat, action = random_action(state, chooser)
        state, evs = apply(state, seat, action)
        steps.append((state, evs))
    render.boards_png(pending, names, hl, lang=lang)
    render.move_png(pending, names, events * 3, lang=lang)
    render.age_png(pending, Age.REASON, names, hl, lang=lang)
    render.before_after_png(view, pending, names, hl, "Move 12: " + LONG_PROMPT, lang=lang)
    render.hand_png(hand, names, lang=lang)
    render.boards_png(public_view(state), LONG_NAMES, {}, lang=lang)
    render.move_png(public_view(state), LONG_NAMES, steps[-1][1], lang=lang)
    render.hand_png(player_view(state, 4), LONG_NAMES, lang=lang)
    render.summary_png(game_summary(start, steps), LONG_NAMES, lang=lang)
    render.move_png(states.end_game(), states.NAMES_5, lang=lang)
    render.boards_png(states.end_game(), LONG_NAMES, lang=lang)
    render.table_png(pending, names, events * 3, lang=lang)
    render.table_png(public_view(state), LONG_NAMES, steps[-1][1], lang=lang)
    render.table_png(states.end_game(), LONG_NAMES, lang=lang)
    which, which_events = states.choice_which()
    render.table_png(which, LONG_NAMES[:3], which_events, lang=lang)
    texts = [t for t, _, _ in recorder.drawn]
    with render.strings.speaking(lang):
        waiting = render.strings.say("status.choosing", name=names[1])
    assert any(waiting in t or t.startswith(waiting.split()[0]) for t in texts)
    for text, (x0, y0, x1, y1), (w, h) in recorder.drawn:
        assert "\u2026" not in text, text
        assert x0 >= 0 and y0 >= 0 and x1 <= w and y1 <= h, (text, (x0, y0, x1, y1), (w, h))
    # the whole prompt is there, over as many lines as it takes
    prompt = LONG_PROMPT.replace("{P1}", names[1]).replace("{P0}", names[0])
    drawn_words = " ".join(texts).split()
    for word in prompt.split():
        assert word in drawn_words


def test_a_long_prompt_makes_the_panel_taller_instead_of_being_cut() -> None:
    view, _, _ = states.mid_game()
    short = view.model_copy(update={"pending": Decision(
        seat=1, kind="downsize_which", age=Age.MIGHT, prompt="Choose.",
        options=[Choice(label="a")], default=0)})
    tall = _pending(view, 1)
    assert render.panel.panel_height(tall, states.NAMES_4) > render.panel.panel_height(
        short, states.NAMES_4)


def test_regular_font_is_used_for_the_prompt() -> None:
    # the banner uses the regular face, so the longest prompts stay on three lines
    px, lines = fit_lines("Waiting for Ben to choose: " + LONG_PROMPT, REGULAR, 15, 12, 800, 3)
    assert len(lines) <= 3 and px >= 12


@pytest.mark.parametrize("lang", ["en", "fr", "de"])
def test_the_panels_words_stay_in_their_columns_in_every_language(
    recorder: Recorder, lang: str
) -> None:
    """The players' table (headings, names, the allowance, adventurers) ends before the stock
    column, and the stock's words before the image's edge, with long names and words; no two
    words overlap (a name on two lines and the allowance under it)."""
    view, _, _ = states.mid_game()
    width = 840
    rotated = LONG_NAMES[1:] + LONG_NAMES[:1]  # the player to move has a two-line name
    for shown, names in ((view, LONG_NAMES), (view, rotated), (_pending(view, 1), rotated),
                         (states.end_game(), LONG_NAMES)):
        names = names[: len(shown.players)]
        recorder.drawn.clear()
        with render.strings.speaking(lang):
            banner = render.panel._banner(shown, names, width)
            img = Image.new("RGB", (width, render.panel.panel_height(shown, names, width)))
            render.panel.draw_panel(img, shown, names, 0, 0, width)
            table_top = (render.panel.PAD + render.panel.TOP
                         + (banner.height + 6 if banner else 0))
            table_bottom = (table_top + render.panel.TABLE_HEAD
                            + render.panel._table_height(shown, width))
            # the rules between the players' rows (the row of the player to move is taller)
            rules, y = [], table_top + render.panel.TABLE_HEAD
            for p in shown.players:
                mover = p.seat == shown.turn and not shown.over
                y += render.panel.ROW + (render.panel._allowance_height(
                    shown, render.panel._table_width(width)) if mover else 0)
                rules.append(y)
        table_right = render.panel.PAD + render.panel._table_width(width)
        stock_left = table_right + 18
        inside = [(t, box) for t, box, _ in recorder.drawn
                  if table_top <= box[1] and box[3] <= table_bottom]
        assert inside
        for text, (x0, _, x1, _) in inside:
            if x0 < table_right:
                assert x1 <= table_right, (lang, text, x1, table_right)
            else:
                assert x0 >= stock_left and x1 <= width - render.panel.PAD, (lang, text)
        for text, (x0, y0, _, y1) in inside:
            if x0 < table_right:
                assert not any(y0 < r < y1 for r in rules), (lang, text, y0, y1, rules)
        for i, (a, box_a) in enumerate(inside):
            for b, box_b in inside[i + 1:]:
                apart = (box_a[2] <= box_b[0] or box_b[2] <= box_a[0]
                         or box_a[3] <= box_b[1] or box_b[3] <= box_a[1])
                assert apart, (lang, a, b)
