"""Defects of issue 12 seen in the service and the command parser (each fails before its fix)."""

from __future__ import annotations

import pytest

import engine
from bot.service import GameService, NotSeated
from bot.textcommands import Context, parse_line, run_line
from engine import MalformedAction
from tests.service.conftest import current_user


async def test_defect12_a_player_named_like_a_seat_token_keeps_his_own_name(
        service: GameService) -> None:
    """A display name "{P1}" at seat 0 must not make his moves read as seat 1's (Bob's)."""
    channel = 0
    for seed in range(1, 50):  # a seed that seats "{P1}" first
        channel += 1
        await service.create_game(channel, 11, "{P1}", seed=seed)
        await service.join(channel, 12, "Bob")
        info = (await service.start(channel, 11)).game
        assert info is not None
        if info.seat_of(11) == 0:
            break
    user, _ = await current_user(service, channel)
    if user != 11:
        await service.act(channel, user, engine.EndTurn())
    out = await service.act(channel, 11, engine.EndTurn())
    first_line = out.public[0].text.split("\n")[0]
    assert "{P1}" in first_line and "Bob" not in first_line, first_line


async def test_defect14_a_kicked_player_cannot_read_his_old_seats_hand(
        service: GameService) -> None:
    await service.create_game(2, 21, "Ann", seed=3)
    await service.join(2, 22, "Bob")
    await service.join(2, 23, "Cid")
    await service.start(2, 21)
    assert (await service.hand(2, 23)).reply is not None
    await service.kick(2, 21, 23)
    with pytest.raises(NotSeated, match="removed"):
        await service.hand(2, 23)


@pytest.mark.parametrize(("line", "words"), [
    ("/create reminder:nan", "finite"),
    ("/create reminder:inf", "finite"),
    ("/create 6", "between 2 and 5"),
    ("/replace Bob 99999999999999999999999", "not a Discord user id"),
    ("/away 1e999", "finite"),
])
def test_defect15_bad_numbers_and_misplaced_words_are_refused(line: str, words: str) -> None:
    with pytest.raises(MalformedAction, match=words):
        parse_line(line)


def test_defect15_a_refusal_repeats_only_a_short_excerpt_of_what_was_typed() -> None:
    with pytest.raises(MalformedAction) as err:
        parse_line("/build " + "x" * 5000 + " C4 might")
    assert len(err.value.message) < 400


async def test_defect15_terminal_commands_with_bad_numbers_change_nothing(
        service: GameService) -> None:
    ctx = Context(channel_id=3, user_id=31, user_name="Ann", guild_id=1, is_admin=False)
    for line in ("/create reminder:nan", "/create 6"):
        with pytest.raises(MalformedAction):
            await run_line(service, ctx, line)
    with pytest.raises(engine.EngineError):
        await service.info(3)  # no game was created
