"""The command words: parsing typed lines into actions, and the one vocabulary table."""

from __future__ import annotations

import pytest

from bot.commands import (
    COMMANDS,
    Context,
    format_line,
    help_text,
    parse_line,
    run_line,
    to_action,
)
from bot.service import GameService
from engine import (
    Age,
    BuildingType,
    Construct,
    Demolish,
    EndTurn,
    Exchange,
    Family,
    HoldemSwap,
    MalformedAction,
    Populate,
    Renovate,
    Travel,
    Upgrade,
)

M, R, C = Family.MILITARY, Family.RELIGIOUS, Family.CIVIL


@pytest.mark.parametrize(("line", "action"), [
    ("/build keep C4 might", Construct(age=Age.MIGHT, building=BuildingType.KEEP, square="C4")),
    ("/build town b3 faith pay mr", Construct(age=Age.FAITH, building=BuildingType.TOWN,
                                              square="B3", surcharge=(M, R))),
    ("/upgrade C4 castle might at B3", Upgrade(age=Age.MIGHT, square="C4",
                                               to=BuildingType.CASTLE, at="B3")),
    ("/upgrade C4 castle might", Upgrade(age=Age.MIGHT, square="C4", to=BuildingType.CASTLE)),
    ("/travel 1 faith", Travel(to=Age.FAITH, adventurer=0)),
    ("/travel reason", Travel(to=Age.REASON)),
    ("/populate L12 2", Populate(square="L12", count=2)),
    ("/populate L12", Populate(square="L12", count=1)),
    ("/renovate C4", Renovate(square="C4")),
    ("/renovate C4 1", Renovate(square="C4", cards=1)),
    ("/demolish H2 might", Demolish(age=Age.MIGHT, square="H2")),
    ("/exchange mmr", Exchange(discard=(M, M, R))),
    ("/holdem take cc give mr", HoldemSwap(take=(C, C), give=(M, R))),
    ("/end discard m", EndTurn(discard=(M,))),
    ("/end", EndTurn()),
    ("/build building:keep square:C4 age:might", Construct(age=Age.MIGHT,
                                                           building=BuildingType.KEEP,
                                                           square="C4")),
])
def test_lines_become_actions(line: str, action: object) -> None:
    parsed = parse_line(line)
    assert to_action(parsed.name, parsed.args) == action


@pytest.mark.parametrize(("line", "words"), [
    ("/build keep Z99 might", "not a square"),
    ("/build keep C4", "missing age"),
    ("/exchange mxq", "list of cards"),
    ("/fly C4", "no command"),
    ("/choose 0", "between 1"),
    ("/travel 1 faith extra", "too many"),
    ("", "Type a command"),
])
def test_malformed_lines_are_refused_with_a_sentence(line: str, words: str) -> None:
    with pytest.raises(MalformedAction, match=words):
        parse_line(line)


def test_the_table_covers_every_command_once() -> None:
    for spec in COMMANDS.values():
        assert spec.description and len(spec.description) <= 100  # Discord's limit
        assert spec.name.islower() and len(spec.name) <= 32
        for p in spec.params:
            assert p.description and len(p.description) <= 100
    text = help_text()
    assert all(f"/{spec.path}" in text for spec in COMMANDS.values())


async def test_lines_run_through_the_service(service: GameService) -> None:
    ann = Context(900, 1, "Ann")
    bob = Context(900, 2, "Bob")
    await run_line(service, ann, "/create 2")
    out = await run_line(service, bob, "/join")
    assert out.game is not None and out.game.status == "active"
    info, state = await service.snapshot(900)
    me = ann if info.user_of(state.turn) == 1 else bob
    out = await run_line(service, me, "/travel 2 reason")
    assert "travels" in out.public[0].text
    out = await run_line(service, me, "/undo")
    assert "takes back" in out.public[0].text
    out = await run_line(service, me, "/hand")
    assert out.reply is not None and out.reply.text.startswith("Your hand")
    out = await run_line(service, me, "/board faith")
    assert out.reply is not None and out.reply.image is not None
    assert out.reply.image.age is Age.FAITH
    out = await run_line(service, me, "/history")
    assert out.reply is not None and "#2" in out.reply.text
    out = await run_line(service, me, "/help")
    assert out.reply is not None and "/build" in out.reply.text


@pytest.mark.parametrize("line", ["/game pause", "/pause", "/GAME Pause"])
def test_the_discord_group_spelling_works_in_the_terminal(line: str) -> None:
    assert parse_line(line) == parse_line("/pause")


@pytest.mark.parametrize("line", ["/game", "/game build keep C4 might", "/game fly"])
def test_a_group_word_needs_one_of_its_members(line: str) -> None:
    with pytest.raises(MalformedAction, match="/game needs one of: settings, pause"):
        parse_line(line)


def test_game_settings_keeps_its_named_options() -> None:
    assert parse_line("/game settings reminder:12 deadline:0").args == {
        "reminder": 12.0, "deadline": 0.0}


@pytest.mark.parametrize("line", [
    "/build keep C4 might", "/build town b3 faith pay mr", "/upgrade C4 castle might at B3",
    "/travel 1 faith", "/populate L12 2", "/renovate C4 1", "/demolish H2 might",
    "/exchange mmr", "/holdem take cc give mr", "/end discard m", "/end",
    "/create 3 holdem", "/away 48", "/board faith", "/replace old:<@12> new:<@34>",
])
def test_a_confirm_buttons_line_reads_back_as_the_same_arguments(line: str) -> None:
    """format_line is what a Confirm button carries: parse_line must read back the same."""
    parsed = parse_line(line)
    again = parse_line(format_line(parsed.name, parsed.args))
    assert again == parsed


def test_discords_order_lists_every_parameter_once_required_first() -> None:
    """Discord refuses a required option after an optional one; the form order names each
    parameter exactly once, and puts the age before the square it decides."""
    for spec in COMMANDS.values():
        form = spec.form_params
        assert sorted(p.name for p in form) == sorted(p.name for p in spec.params)
        required = [p.required for p in form]
        assert required == sorted(required, reverse=True), spec.name
        names = [p.name for p in form]
        if "age" in names and "square" in names:
            assert names.index("age") < names.index("square"), spec.name
