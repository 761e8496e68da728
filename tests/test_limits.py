"""The one place that fits a text into Discord's limits (bot/limits.py)."""

from __future__ import annotations

import random

from bot.limits import chunks, fit


def test_a_text_that_fits_is_left_as_it_is() -> None:
    assert fit("x" * 2000) == "x" * 2000
    assert fit("") == ""
    assert fit("short", 5) == "short"


def test_a_long_text_is_cut_after_a_whole_word_with_an_ellipsis() -> None:
    text = "the quick brown fox jumps over the lazy dog " * 100
    cut = fit(text, 100)
    assert len(cut) <= 100 and cut.endswith("…")
    assert text.startswith(cut[:-1]) and text[len(cut) - 1] == " "  # the next one is a space
    assert fit("hello world this is long", 12) == "hello world…"
    assert fit("x" * 5000, 2000) == "x" * 1999 + "…"  # one endless word: cut anywhere


def test_pieces_keep_every_line_and_stay_within_the_limit() -> None:
    rng = random.Random(3)
    words = ["a", "bb", "Ritterburg", "\U0001F3F0", "\n", " ", "x" * 300]
    for _ in range(200):
        text = "".join(rng.choice(words) for _ in range(rng.randint(0, 400)))
        parts = chunks(text, 150)
        assert parts and all(0 < len(p) <= 150 and p.strip() for p in parts), text
        if all(len(line) <= 150 for line in text.split("\n")) and "\u200b" not in parts:
            assert "\n".join(parts) == text  # cut at line ends only
    assert chunks("x" * 4500) == ["x" * 2000, "x" * 2000, "x" * 500]
    assert chunks("") == ["\u200b"]
    assert chunks("one two three", 8) == ["one two", "three"]
