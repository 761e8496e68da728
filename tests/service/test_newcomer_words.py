"""What a newcomer reads from the service, whatever the front end: the seat order from the
first player, a turn ping that leaves the name to the mention, the terrain surcharge (R18)
said with its terrain (in the move's result and in the turn's table message, read from the log)
and, for the player whose cards the engine chose, how to choose others,
French élision, and what changed since a player's last move."""

from __future__ import annotations

import random
import re

import pytest

import engine
from bot import i18n, surcharge
from bot.service import GameService
from engine import Age, BuildingType, Construct, MalformedAction
from engine.builder import position
from engine.random_player import random_action, seeking_action

from .conftest import prepared_game, started_game


def _keep_position() -> engine.GameState:
    """Seat 0, both adventurers on Might, hand mmrc: a Keep at G8 costs 2 military + 1 card for
    its forest (R18); at F1 it costs 2 military, no surcharge."""
    return position(3, hands={0: "mmrc"}, adventurers={0: [Age.MIGHT, Age.MIGHT]})


async def test_the_seat_order_starts_with_the_first_player(service: GameService) -> None:
    for channel in (81, 82, 83):
        out = await started_game(service, channel, players=3, seed=channel)
        words = out.public[0].text  # then the first turn's picture, without words
        said = re.search(r"Seat order: (\w+), (\w+), (\w+)\. (\w+) plays first\.", words)
        assert said is not None and said[1] == said[4], words
        info, state = await service.snapshot(channel)
        assert [said[1], said[2], said[3]] == [
            info.names[(state.turn + i) % 3] for i in range(3)]


async def test_the_turn_ping_leaves_the_name_to_its_mention(service: GameService) -> None:
    out = await started_game(service, 84, players=2)
    assert [p.text for p in out.pings] == ["it is your turn (round 1 of 7)."]


async def test_r18_a_surcharge_is_said_with_its_terrain_and_how_to_pay_it_otherwise(
        service: GameService) -> None:
    user = await prepared_game(service, 85, _keep_position())
    keep = Construct(age=Age.MIGHT, building=BuildingType.KEEP, square="G8")
    out = await service.act(85, user, keep)
    post = out.public[0].text
    assert "Terrain surcharge (R18) +1: forest, paid with 1 religious (r)." in post
    assert out.reply is not None  # for him alone: the cards the engine chose, and the others
    assert out.reply.text.startswith("The terrain surcharge took 1 religious (r)")
    assert out.reply.text.endswith("/undo, then the same move with pay c.")


async def test_r18_no_surcharge_no_sentence(service: GameService) -> None:
    user = await prepared_game(service, 86, _keep_position())
    out = await service.act(86, user, Construct(age=Age.MIGHT, building=BuildingType.KEEP,
                                                square="F1"))
    assert "surcharge" not in out.public[0].text and out.reply is None


async def test_r18_a_refusal_for_cards_says_the_terrain_in_the_readers_language(
        service: GameService) -> None:
    user = await prepared_game(service, 87, position(
        3, hands={0: "mm"}, adventurers={0: [Age.MIGHT, Age.MIGHT]}))
    keep = Construct(age=Age.MIGHT, building=BuildingType.KEEP, square="G8")
    with i18n.reading("fr"), pytest.raises(engine.EngineError) as refused:
        await service.act(87, user, keep)
    assert refused.value.message.endswith(
        "Cet emplacement coûte +1 : forêt (R18), en cartes de n'importe quelle famille ; "
        "payer les désigne (payer mr).")
    with pytest.raises(MalformedAction) as named:
        await service.act(87, user, keep.model_copy(update={"surcharge": ()}))
    assert "named 0. This footprint costs +1: forest (R18)" in named.value.message


async def test_french_elides_before_a_name_with_a_vowel(service: GameService) -> None:
    await started_game(service, 88, players=2, seed=5)
    info, state = await service.snapshot(88)
    out = await service.update_settings(88, info.creator_id, language="fr", is_admin=True)
    assert out.public
    status = await service.status(88)
    assert status.reply is not None
    first = info.names[state.turn]
    expected = (f"au tour d'{first}." if first[0] in "AEIOU" else f"au tour de {first}.")
    assert expected in status.reply.text
    assert i18n.text("status.round", "fr", round=1, name="Ann") == (
        "Manche 1 sur 7 : au tour d'Ann.")
    assert i18n.text("status.round", "fr", round=1, name="Bob") == (
        "Manche 1 sur 7 : au tour de Bob.")


async def test_what_changed_since_a_players_last_move(service: GameService) -> None:
    await started_game(service, 89, players=2, seed=5)
    info, state = await service.snapshot(89)
    me = info.user_of(state.turn)
    other = info.user_of(1 - state.turn)
    assert me is not None and other is not None
    assert await service.since_last_move(89, other) is None  # no move yet
    await service.act(89, me, engine.Travel(to=Age.FAITH))
    await service.act(89, me, engine.EndTurn())
    assert await service.since_last_move(89, me) is None  # nobody moved after me
    out = await service.since_last_move(89, other)
    assert out is not None and out.reply is not None and out.reply.image is not None
    lines = out.reply.text.splitlines()
    assert lines[0] == "Since your last move:"
    assert lines[1].startswith("#1 ") and "travels from Might to Faith" in lines[1]
    assert lines[2].startswith("#2 ") and "ends the turn" in lines[2]
    assert out.reply.image.kind == "compare"


async def test_r29_the_preview_says_the_paradox_and_its_picture_never_hides_it(
        service: GameService) -> None:
    """The preview both front ends show: the erased Watchtower in words, and in the caption of
    its picture, never counted among "+N more changes" (render.text.is_loss)."""
    from bot.commands import Context, preview_of
    from bot.images import names_list
    from render.images import move_layout

    user = await prepared_game(service, 90, position(
        3, faith="Watchtower G8 0", hands={0: "mmrc"}, adventurers={0: [Age.MIGHT, Age.MIGHT]}))
    seen = await preview_of(service, Context(90, user, "Ann"), "build", {
        "building": BuildingType.KEEP, "square": "G8", "age": Age.MIGHT})
    assert seen is not None
    erased = "Watchtower at G8 on Faith is erased by the time shadow of the Keep"
    assert erased in seen.text
    assert "+1: forest: it will take 1 religious (r)" in seen.text
    view = seen.image.view
    assert isinstance(view, engine.PublicView)
    caption = " ".join(move_layout(view, names_list(seen.image.names),
                                   list(seen.image.events)).caption.action)
    assert erased.replace(" by the time shadow of the Keep", "") in caption
    info, state = await service.snapshot(90)
    assert state.players[0].hand == [engine.Family.MILITARY] * 2 + [
        engine.Family.RELIGIOUS, engine.Family.CIVIL]  # a preview plays nothing


async def test_r18_the_turns_table_message_says_the_surcharge_from_the_log(
        service: GameService) -> None:
    user = await prepared_game(service, 90, _keep_position())
    out = await service.act(90, user, Construct(age=Age.MIGHT, building=BuildingType.KEEP,
                                                square="G8"))
    paid = "  - Terrain surcharge (R18) +1: forest, paid with 1 religious (r)."
    assert paid in out.tables[-1].lines[-1].split("\n")
    ended = await service.act(90, user, engine.EndTurn())  # the turn's record keeps it
    record = ended.tables[0]
    assert record.closed and paid in "\n".join(record.lines).split("\n")


@pytest.mark.parametrize("seed", [3, 14])
def test_r18_a_logged_surcharge_reads_as_the_moves_result_said_it(seed: int) -> None:
    """The table reads a move's surcharge from its logged event alone; it says what the
    move's result said, with the state before the move, on every build of two games."""
    state = engine.new_game(engine.Options(players=3 + seed % 2), seed)
    chooser, compared = random.Random(seed), 0
    while not state.over:
        seat, action = (seeking_action if seed % 2 else random_action)(state, chooser)
        new, events = engine.apply(state, seat, action)
        logged = [engine.Event.model_validate(e.model_dump(mode="json")) for e in events]
        p = surcharge.paid(state, seat, action, events)
        said = surcharge.paid_sentence(p, "fr") if p is not None else ""
        assert surcharge.logged(logged, seat, state.options.players, "fr") == said
        compared += bool(said)
        state = new
    assert compared >= 3
