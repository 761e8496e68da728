"""What Tab offers in the terminal (``bot.terminal.complete``): the command words, then the
values of the parameters still free in the order a player fills them, each with its label."""

from __future__ import annotations

from bot.terminal.complete import Table, candidates
from engine import Age, BuildingType, Construct, apply
from engine.builder import position

X = "\u00d7"


def _table(locale: str | None = None) -> Table:
    state = position(3, faith="Watchtower G8 0", hands={0: "mmrc"},
                     adventurers={0: [Age.MIGHT, Age.MIGHT]})
    return Table(state, 0, {0: "Ann", 1: "Bob", 2: "Cid"}, locale)


def test_the_command_word_in_the_readers_language_or_english() -> None:
    assert [v for v, _ in candidates("", "/bu", _table())] == ["/build"]
    assert [v for v, _ in candidates("", "/const", _table("fr"))] == ["/construire"]
    assert [v for v, _ in candidates("", "/cons", _table("fr"))] == ["/conseil", "/construire"]
    assert [v for v, _ in candidates("", "/etat", _table("fr"))] == ["/état"]  # no accent
    found = dict(candidates("", "/he", _table()))
    assert found["/help"].startswith("/help: The commands")
    assert "/hasard" in dict(candidates("", "/ha", _table("fr")))  # the terminal's own words


def test_the_building_then_the_age_then_the_legal_squares_with_their_cost() -> None:
    table = _table()
    buildings = dict(candidates("/build ", "", table))
    assert buildings["keep"] == f"keep: military {X}2, 2{X}2"
    assert set(dict(candidates("/build keep ", "", table))) == {"might", "faith"}
    squares = dict(candidates("/build keep might ", "G", table))
    assert squares["G8"] == f"G8 · Might: Keep, military {X}2, +1: forest (any card)"
    assert squares["G3"] == f"G3 · Might: Keep, military {X}2"
    # words in any order: the age typed first, the building is still offered
    assert "keep" in dict(candidates("/build might ", "", table))
    # what is typed decides among the free parameters: "mi" is an age, not a square
    assert list(dict(candidates("/build keep C4 ", "mi", table))) == ["might"]


def test_the_cards_of_a_surcharge_and_a_named_option() -> None:
    table = _table()
    paid = dict(candidates("/build keep G8 might ", "", table))
    assert set(paid) == {"r", "c"}  # the forest's one card, of either family left (R18)
    assert set(dict(candidates("/build keep G8 might pay ", "", table))) == {"r", "c"}


def test_in_french_every_word_is_french() -> None:
    table = _table("fr")
    assert "donjon" in dict(candidates("/construire ", "", table))
    assert set(dict(candidates("/construire donjon ", "", table))) == {"puissance", "foi"}
    squares = dict(candidates("/construire donjon puissance ", "G8", table))
    assert squares == {"G8": f"G8 · Puissance : Donjon, militaire {X}2, +1 : forêt "
                             "(carte au choix)"}
    assert "bâtiments" in dict(candidates("/aide ", "b", table))


def test_a_choice_offers_its_numbered_options() -> None:
    state = position(3, might="Keep F4 0; Chapel G6 2; Keep I4 1; Chapel I6 1",
                     hands={2: "ccmr"}, turn=2)
    state, _ = apply(state, 2, Construct(age=Age.MIGHT, building=BuildingType.HAMLET,
                                         square="H5"))
    table = Table(state, 2, {0: "Ann", 1: "Bob", 2: "Cid"})
    assert candidates("/choose ", "", table) == [("1", "1: Ann's Keep at F4"),
                                                 ("2", "2: Bob's Keep at I4")]


def test_nothing_breaks_on_words_it_cannot_read() -> None:
    table = _table()
    assert candidates("/fly ", "", table) == []
    assert candidates("/build temple ", "zz", table) == []
    assert candidates("/build ", "", Table()) != []  # no game: the words still come
