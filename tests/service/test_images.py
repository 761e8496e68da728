"""The image helper shared by the adapters: every kind the service asks for renders, in a
thread or in a worker process, to the same picture."""

from __future__ import annotations

import io

from PIL import Image as PILImage

import engine
from bot.images import Renderer, names_list, render_image
from bot.service import GameService, Image
from tests.service.conftest import current_user, started_game


async def test_move_summary_and_boards_images_render_alike_in_threads_and_processes(
        service: GameService) -> None:
    await started_game(service, 1, players=2, seed=1)
    user, _ = await current_user(service, 1)
    out = await service.act(1, user, engine.EndTurn())
    move = out.public[0].image
    assert move is not None and move.kind == "move"
    png, name, alt = render_image(move)
    assert name == "move.png" and alt
    assert PILImage.open(io.BytesIO(png)).width == 840
    info, state = await service.snapshot(1)
    boards = Image("boards", state, info.names)
    assert render_image(boards)[1] == "boards.png"
    stored = Image.from_json(move.to_json())  # as the outbox keeps it
    assert render_image(stored)[0] == png
    pool = Renderer(1)
    try:
        assert (await pool.render(move))[0] == png
    finally:
        pool.close()
    assert (await Renderer().render(move))[0] == png


async def test_the_words_the_image_helper_adds_follow_the_pictures_language(
        service: GameService) -> None:
    """The alt text of the before/after picture and the name of a seat the game has not named
    are in the picture's language, like the picture."""
    await started_game(service, 2, players=2, seed=1)
    info, state = await service.snapshot(2)
    nameless = {1: info.names[1]}  # seat 0 has no name here: the helper supplies one
    for lang, prefix, player in (("en", "The boards before and after.", "Player 1"),
                                 ("fr", "Les plateaux avant et après.", "Joueur 1"),
                                 ("de", "Die Spielpläne vorher und nachher.", "Spieler 1")):
        compare = Image("compare", state, nameless, alt="A1", before=state, lang=lang)
        _png, name, alt = render_image(compare)
        assert name == "before-after.png"
        assert alt == f"{prefix} A1"
        assert names_list(nameless, lang) == [player, info.names[1]]
        hand = Image("hand", state, nameless, seat=1, lang=lang)
        assert render_image(hand)[2] == {"en": "Your hand", "fr": "Votre main",
                                         "de": "Deine Hand"}[lang]


LONG_NAMES = {0: "Bartholomew the Magnificent IIII", 1: "Владимир Владимирович Длинный 32",
              2: "🐉 dragon 🐉 with emoji in names 🐉"}


def test_alt_texts_stay_within_discords_limit_by_design_never_cut_mid_word() -> None:
    """The renderer's alt texts are whole sentences within 1,024 characters: the helper passes
    them on as they are, at the longest one of a whole game with 32-character names. The
    service's own (a comparison's title, however long) is shortened after a whole word."""
    import random

    import render
    from engine.random_player import random_action

    state = engine.new_game(engine.Options(players=3), 11)
    chooser = random.Random(11)
    names = [LONG_NAMES[i] for i in range(3)]
    longest: tuple[int, engine.GameState, list[engine.Event]] = (0, state, [])
    while not state.over:
        seat, action = random_action(state, chooser)
        state, events = engine.apply(state, seat, action)
        alt = render.alt_text(engine.public_view(state), names, events)
        assert len(alt) <= 1024
        longest = max(longest, (len(alt), state, events), key=lambda t: t[0])
    size, at, events = longest
    assert size > 900  # a long alt text, near the limit
    for lang in ("en", "fr", "de"):
        move = Image("move", at, LONG_NAMES, events, lang=lang)
        alt = render_image(move)[2]
        assert alt == render.alt_text(engine.public_view(at), names, events, lang=lang)
        assert len(alt) <= 1024
    title = "Move 12: " + " ".join(["Bartholomew builds a Monastery at C4"] * 100)
    alt = render_image(Image("compare", at, LONG_NAMES, alt=title, before=at))[2]
    whole = "The boards before and after. " + title
    assert len(alt) <= 1024 and alt.endswith("…")
    assert whole.startswith(alt[:-1]) and whole[len(alt) - 1] == " "  # after a whole word
