"""Typed words in any order where they cannot be confused, in English, French or German; the
help's topics; an engine action as the line a player types; what a parameter may take now."""

from __future__ import annotations

import random

import pytest

import engine
from bot import i18n
from bot.commands import (
    COMMANDS,
    MissingArgs,
    action_line,
    buildings_text,
    command_help,
    parse_line,
    read_partial,
    to_action,
    topic_choices,
)
from bot.suggestions import square_suggestions
from engine import Age, BuildingType, Construct, Family, MalformedAction, Travel, Upgrade
from engine.random_player import random_action


@pytest.mark.parametrize("line", [
    "/build keep C4 might", "/build might keep C4", "/build C4 might keep",
    "/construire donjon C4 puissance", "/bauen Bergfried c4 Macht", "/build donjon c4 macht",
    "/construire puissance C4 donjon", "/build building:keep age:might C4",
    "/construire bâtiment:donjon case:C4 âge:puissance",
])
def test_words_in_any_order_and_language_give_one_action(line: str) -> None:
    parsed = parse_line(line)
    assert to_action(parsed.name, parsed.args) == Construct(
        age=Age.MIGHT, building=BuildingType.KEEP, square="C4")


@pytest.mark.parametrize(("line", "action"), [
    ("/travel faith 1", Travel(to=Age.FAITH, adventurer=0)),
    ("/travel reason 2", Travel(to=Age.REASON, adventurer=1)),
    ("/voyager 2 foi", Travel(to=Age.FAITH, adventurer=1)),
    ("/build might watchtower C12", Construct(age=Age.MIGHT, building=BuildingType.WATCHTOWER,
                                              square="C12")),
    ("/construire tour-de-guet C12 puissance", Construct(
        age=Age.MIGHT, building=BuildingType.WATCHTOWER, square="C12")),
    ("/construire 'tour de guet' C12 puissance payer civile", Construct(
        age=Age.MIGHT, building=BuildingType.WATCHTOWER, square="C12",
        surcharge=(Family.CIVIL,))),
    ("/construire chateau C4 foi", Construct(age=Age.FAITH, building=BuildingType.CASTLE,
                                             square="C4")),  # accents optional
    ("/upgrade castle C4 might B3", Upgrade(age=Age.MIGHT, square="C4", to=BuildingType.CASTLE,
                                            at="B3")),
    ("/agrandir C4 château puissance en B3", Upgrade(age=Age.MIGHT, square="C4",
                                                     to=BuildingType.CASTLE, at="B3")),
])
def test_lines_read_as_the_action_they_mean(line: str, action: engine.Action) -> None:
    parsed = parse_line(line)
    assert to_action(parsed.name, parsed.args) == action


def test_a_number_out_of_range_is_refused_not_read_as_the_next_parameter() -> None:
    with pytest.raises(MalformedAction, match="adventurer must be between 1 and 2"):
        parse_line("/travel faith 3")
    with pytest.raises(MalformedAction, match="players must be between 2 and 5"):
        parse_line("/create 6")


def test_words_of_a_definite_kind_go_before_a_name_that_takes_any_word() -> None:
    args = parse_line("/game replace Bob normal").args
    assert args["level"] == "normal" and args["old"].name == "Bob" and "new" not in args


def test_a_missing_parameter_says_what_was_read() -> None:
    with pytest.raises(MissingArgs) as caught:
        parse_line("/build keep might")
    assert caught.value.missing == ["square"]
    assert caught.value.given == {"building": BuildingType.KEEP, "age": Age.MIGHT}


@pytest.mark.parametrize(("locale", "said"), [
    (None, "/build: missing square, age. Usage: /build keep C4 might"),
    ("fr", "/construire : il manque case, âge. Usage : /construire donjon C4 puissance"),
    ("de", "/bauen: es fehlt feld, zeitalter."),
])
def test_a_refusal_names_the_command_and_its_example_in_the_readers_words(
        locale: str | None, said: str) -> None:
    with i18n.reading(locale), pytest.raises(MissingArgs, match=said.replace(".", r"\.")):
        parse_line("/build keep")


def same(a: engine.Action, b: engine.Action) -> bool:
    """Equal actions, an empty surcharge being no surcharge (nothing to pay either way)."""
    def plain(x: engine.Action) -> engine.Action:
        if isinstance(x, Construct | Upgrade) and not x.surcharge:
            return x.model_copy(update={"surcharge": None})
        return x
    return plain(a) == plain(b)


def test_every_legal_action_reads_back_from_its_typed_line_in_every_language() -> None:
    """action_line (what /random prints) is a line parse_line reads as the same action."""
    chooser = random.Random(7)
    checked = 0
    for seed in range(4):  # whole games of 2 to 5 players: every kind of action comes up
        state = engine.new_game(engine.Options(players=2 + seed, holdem=seed % 2 == 1), seed)
        while not state.over:
            seat, action = random_action(state, chooser)
            for lang in ("en", "fr", "de"):
                line = action_line(action, lang)
                parsed = parse_line(line)
                assert same(to_action(parsed.name, parsed.args), action), (lang, line)
            state, _ = engine.apply(state, seat, action)
            checked += 1
    assert checked > 100


def test_read_partial_keeps_what_it_can_read() -> None:
    assert read_partial(COMMANDS["build"], ["temple", "might", "pay"]) == {"age": Age.MIGHT}
    assert read_partial(COMMANDS["build"], ["keep", "C4"]) == {
        "building": BuildingType.KEEP, "square": "C4"}


# --- help -------------------------------------------------------------------------------------


def test_help_buildings_reads_the_engines_table_in_each_language() -> None:
    for lang in ("en", "fr", "de"):
        text = buildings_text(lang)
        for btype, spec in engine.BUILDINGS.items():
            name = i18n.lookup(f"choices.building.{btype.value}", lang) or btype.label
            assert f"{name} " in text and f"{spec.size}\u00d7{spec.size}" in text
    assert "Cité          3\u00d73  5 cartes" in buildings_text("fr")


def test_help_on_a_command_in_german() -> None:
    text = command_help(COMMANDS["travel"], "de")
    assert text.startswith("/reisen [abenteurer] zeitalter\n")
    assert "Beispiel: /reisen 1 glaube" in text


def test_the_help_topics_offered_hold_every_command() -> None:
    values = [v for v, _ in topic_choices(COMMANDS, "fr")]
    assert values[:3] == ["commands", "rules", "buildings"]
    assert set(values[3:]) == set(COMMANDS)
    assert ("buildings", "bâtiments") in topic_choices(COMMANDS, "fr")


# --- the terrain surcharge in a suggestion ------------------------------------------------------


def test_r18_a_square_suggestion_says_the_surcharge_and_its_terrain() -> None:
    state = engine.new_game(engine.Options(players=3), seed=5)
    state.players[state.turn].hand = [Family.MILITARY, Family.MILITARY, Family.CIVIL]
    labels = dict(square_suggestions(state, state.turn, "build", "square",
                                     {"building": "keep", "age": "might"}))
    assert labels["A1"] == "A1 · Might: Keep, military \u00d72, +1: forest (any card)"
    assert labels["F1"] == "F1 · Might: Keep, military \u00d72"
    french = dict(square_suggestions(state, state.turn, "build", "square",
                                     {"building": "keep", "age": "might"}, "fr"))
    assert french["A1"].endswith("+1 : forêt (carte au choix)")
    assert not any("any \u00d7" in label for label in labels.values())
