"""The words on images in French and German: complete catalogues, the
language chosen per image, and the same game terms as the bot's commands."""

from __future__ import annotations

import io
import threading

import pytest
from PIL import Image

import render
from engine import Age, BuildingType, Construct, apply, public_view
from engine.builder import position
from render.board import clear_layer_cache
from render.panel import banner_text
from render.strings import (
    CATALOGUE,
    LANGUAGES,
    catalogue,
    current_language,
    language,
    placeholders,
    say,
    say_n,
    speaking,
)

from . import states

TRANSLATIONS = [lang for lang in LANGUAGES if lang != "en"]


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_every_english_key_has_a_translation_with_the_same_placeholders(lang: str) -> None:
    other = catalogue(lang)
    assert sorted(set(CATALOGUE) - set(other)) == [], "missing"
    assert sorted(set(other) - set(CATALOGUE)) == [], "stale"
    for key, english in CATALOGUE.items():
        assert placeholders(other[key]) == placeholders(english), key
        assert other[key].strip(), key


@pytest.mark.parametrize("lang", LANGUAGES)
def test_building_names_and_codes_tell_every_type_apart(lang: str) -> None:
    with speaking(lang):
        codes = [say(f"code.{b.value}") for b in BuildingType]
        names = [say(f"building.{b.value}") for b in BuildingType]
        letters = [say(f"family.letter.{f}") for f in ("military", "religious", "civil")]
    assert len(set(codes)) == len(codes) and all(len(c) == 2 for c in codes)
    assert len(set(names)) == len(names)
    assert letters == ["M", "R", "C"]  # the letters the commands read, in every language


def test_the_game_terms_are_the_bots() -> None:
    """The same words as the bot's command choices (bot/locales/*.toml)."""
    expected = {
        "fr": ["Puissance", "Foi", "Raison", "Tour de guet", "Donjon", "Château", "Chapelle",
               "Monastère", "Abbaye", "Hameau", "Bourg", "Cité"],
        "de": ["Macht", "Glaube", "Vernunft", "Wachturm", "Bergfried", "Burg", "Kapelle",
               "Kloster", "Abtei", "Weiler", "Stadt", "Großstadt"],
    }
    keys = ["age.might", "age.faith", "age.reason"] + [f"building.{b.value}"
                                                       for b in BuildingType]
    for lang, words in expected.items():
        assert [catalogue(lang)[k] for k in keys] == words


def test_language_follows_a_discord_locale_and_falls_back_to_english() -> None:
    assert language("fr") == "fr"
    assert language("fr-CA") == "fr"
    assert language("de") == "de"
    assert language("en-GB") == "en"
    assert language("es-ES") == "en"
    assert language(None) == "en"


def test_speaking_sets_the_language_for_the_block_and_this_thread_only() -> None:
    seen: list[str] = []
    with speaking("de"):
        assert say_n("ecus", 1) == "1 Ecu"
        assert say("age.faith") == "Glaube"
        worker = threading.Thread(target=lambda: seen.append(current_language()))
        worker.start()
        worker.join()
    assert seen == ["en"]
    assert say("age.faith") == "Faith"
    with speaking("fr"):
        assert say_n("hand.title", 2, name="Ann") == "Ann : votre main (2 cartes)"


def _pixels(png: bytes) -> bytes:
    return Image.open(io.BytesIO(png)).convert("RGB").tobytes()


def test_a_cached_board_is_not_reused_in_another_language() -> None:
    """The board layers hold building names: their cache is per language."""
    view, events, _ = states.mid_game()
    hl = render.highlights_from_events(events)
    clear_layer_cache()
    english = render.boards_png(view, states.NAMES_4, hl)
    french = render.boards_png(view, states.NAMES_4, hl, lang="fr")
    assert _pixels(english) != _pixels(french)
    clear_layer_cache()
    assert _pixels(render.boards_png(view, states.NAMES_4, hl, lang="fr")) == _pixels(french)
    assert _pixels(render.boards_png(view, states.NAMES_4, hl)) == _pixels(english)


def test_images_in_different_languages_drawn_at_once_equal_those_drawn_one_by_one() -> None:
    view, events, _ = states.mid_game()
    alone = {lang: render.move_png(view, states.NAMES_4, events, lang=lang)
             for lang in LANGUAGES}
    clear_layer_cache()
    together: dict[str, bytes] = {}

    def draw(lang: str) -> None:
        together[lang] = render.move_png(view, states.NAMES_4, events, lang=lang)

    threads = [threading.Thread(target=draw, args=(lang,)) for lang in LANGUAGES * 2]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {lang: _pixels(png) for lang, png in together.items()} == {
        lang: _pixels(png) for lang, png in alone.items()}


def test_alt_texts_speak_the_games_language() -> None:
    view, events, _ = states.mid_game()
    french = render.alt_text(view, states.NAMES_4, events, lang="fr")
    assert french.startswith("Plateaux de Khronos, manche 5 sur 7. À Alice de jouer.")
    assert "Alice (cercle indigo) 10 écus, 2 cartes, 18 cubes, les deux aventuriers sur " \
           "Puissance" in french
    assert "Players" not in french
    german = render.alt_text(view, states.NAMES_4, lang="de")  # no move: room for the boards
    assert "Macht: 2 Bergfriede, 1 Burg" in german
    from .test_summary import fixed_summary
    summary = render.summary_alt_text(fixed_summary(), states.NAMES_5, lang="de")
    assert summary.startswith("Endstand der Partie Khronos. Alice gewinnt mit 27 Ecus.")


def test_the_moves_sentences_and_the_pending_question_speak_the_games_language() -> None:
    """The engine's sentences on images are worded in the image's language (engine.describe):
    the move's lines in the alt text and the question of a pending choice on the banner."""
    view, events, _ = states.mid_game()
    french = render.alt_text(view, states.NAMES_4, events, lang="fr")
    assert "Alice construit un Donjon en F4 sur Puissance pour 2 cartes militaires" in french
    assert "builds" not in french and "(R17)" not in french
    german = render.alt_text(view, states.NAMES_4, events, lang="de")
    assert "Alice baut einen Bergfried auf F4 (Macht) für 2 Militärkarten" in german
    english = render.alt_text(view, states.NAMES_4, events, lang="en")
    assert "Alice builds a Keep at F4 on Might for 2 military cards" in english
    state = position(3, might="Keep F4 0; Watchtower F6 0; Keep I4 1", hands={0: "ccmr"})
    state, _ = apply(state, 0, Construct(age=Age.MIGHT, building=BuildingType.HAMLET,
                                         square="H4"))
    assert state.pending is not None
    with speaking("fr"):
        banner = banner_text(public_view(state), ["Ann", "Bob", "Cy"])
    assert banner == ("En attente du choix de Bob : Le Donjon de Bob en I4 sur Puissance devient "
                      "une Tour de guet : choisissez où placer la Tour de guet dans l'ancienne "
                      "emprise (R33).")
    with speaking("de"):
        banner = banner_text(public_view(state), ["Ann", "Bob", "Cy"])
    assert banner is not None and banner.startswith("Warten auf die Wahl von Bob: Der Bergfried")
