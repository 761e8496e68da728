"""Every word drawn on an image comes from one catalogue (ready for French and German)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import render
from engine import Age, BuildingType, Family, Terrain
from render.strings import CATALOGUE, placeholders, say, say_n
from render.style import PLAYER_LOOK

ALL = sorted(Path(render.__file__).parent.glob("*.py"))
SOURCES = [p for p in ALL if p.name != "strings.py"]  # the catalogue itself aside
# keys built from a name at run time: f"age.{...}", f"building.{...}", ...
DYNAMIC = {
    "age": [a.name.lower() for a in Age],
    "building": [b.value for b in BuildingType],
    "code": [b.value for b in BuildingType],
    "family": [f.value for f in Family],
    "family.letter": [f.value for f in Family],
    "terrain": [t.value for t in Terrain],
    "summary": ["final", "start", "spent"],  # the summary's column headings
    "plural": [b.value for b in BuildingType],
    "hand.family": [f.value for f in Family],
    "colour": [look.colour_name.replace(" ", "_") for look in PLAYER_LOOK],
    "shape": [look.shape for look in PLAYER_LOOK],
}
TEXT_FUNCTIONS = {"put_text", "stamp_text", "draw_lines", "fit_lines", "wrap_text", "fit_size"}


def _calls(name: str) -> list[ast.Call]:
    out = []
    for path in ALL:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == name:
                out.append(node)
    return out


def _literal_keys(name: str) -> set[str]:
    keys = set()
    for call in _calls(name):
        first = call.args[0] if call.args else None
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            keys.add(first.value)
    return keys


def test_every_key_the_code_asks_for_is_in_the_catalogue() -> None:
    for key in _literal_keys("say"):
        assert key in CATALOGUE, key
    for key in _literal_keys("say_n"):
        assert f"{key}.one" in CATALOGUE and f"{key}.other" in CATALOGUE, key
    for prefix, names in DYNAMIC.items():
        for name in names:
            assert f"{prefix}.{name}" in CATALOGUE, (prefix, name)


def test_every_catalogue_entry_is_used() -> None:
    used = _literal_keys("say") | {f"{k}.{form}" for k in _literal_keys("say_n")
                                   for form in ("one", "other")}
    used |= {f"{prefix}.{name}" for prefix, names in DYNAMIC.items() for name in names}
    sources = " ".join(p.read_text() for p in SOURCES)
    # keys chosen by a condition: "tile.ruin_half_paid" if ... else "tile.ruin", labels in a tuple
    quoted = set(re.findall(r'"([a-z_]+\.[a-z_.]+)"', sources))
    assert sorted(set(CATALOGUE) - used - quoted) == []


@pytest.mark.parametrize("key", sorted(CATALOGUE))
def test_placeholders_are_named(key: str) -> None:
    text = CATALOGUE[key]
    assert "{}" not in text
    assert all(name.isidentifier() for name in placeholders(text)), key


def test_no_text_function_is_given_words_directly() -> None:
    """Words reach the images through ``say``; the code passes only numbers, letters of the
    board's edges and punctuation as literals."""
    for name in TEXT_FUNCTIONS:
        for call in _calls(name):
            for arg in call.args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    assert not re.search(r"[A-Za-z]{3,}", arg.value) or arg.value.endswith(
                        ".ttf") or arg.value in ("la", "lm", "mm", "rm"), (name, arg.value)


def test_say_fills_named_placeholders_and_picks_the_plural() -> None:
    assert say("status.turn", name="Ann") == "Ann's turn"
    assert say_n("hand.title", 1, name="Ann") == "Ann: your hand (1 card)"
    assert say_n("hand.title", 3, name="Ann") == "Ann: your hand (3 cards)"
    with pytest.raises(KeyError):
        say("status.turn")
