"""A lobby or a game its creator leaves is not left behind: the creator's rights pass to the
person seated longest, a lobby left without a person ends by itself (its channel is free
again), and a game under way always keeps a person."""

from __future__ import annotations

import pytest

from bot.service import GameExists, GameService, LobbyError, PermissionDenied
from tests.service.conftest import Clock
from tests.storage.postgres.backend import AnyStorage, execute_raw

ANN, BOB, CID, DEE = 1, 2, 3, 4


async def lobby(service: GameService, clock: Clock, channel: int, *people: int) -> None:
    """A lobby created by the first of ``people``; the others join one minute apart."""
    names = {ANN: "Ann", BOB: "Bob", CID: "Cid", DEE: "Dee"}
    await service.create_game(channel, people[0], names[people[0]], guild_id=1)
    for user in people[1:]:
        clock.now += 60
        await service.join(channel, user, names[user])


async def test_a_creator_who_leaves_the_lobby_hands_it_to_the_longest_seated(
        service: GameService, clock: Clock) -> None:
    await lobby(service, clock, 10, ANN, BOB, CID)
    out = await service.leave(10, ANN)
    assert "Bob, seated the longest, now has the creator's rights" in out.public[0].text
    assert (await service.info(10)).creator_id == BOB
    with pytest.raises(PermissionDenied):
        await service.start(10, CID)
    out = await service.start(10, BOB)
    assert out.game is not None and out.game.status == "active"


async def test_a_lobby_left_to_computers_ends_and_frees_its_channel(
        service: GameService) -> None:
    await service.create_game(11, ANN, "Ann", guild_id=1, bots=2)
    out = await service.leave(11, ANN)
    assert out.game is not None and out.game.status == "abandoned"
    assert "only computers; the game is closed" in out.public[0].text
    out = await service.create_game(11, BOB, "Bob", guild_id=1)  # nobody is told "a game is here"
    assert out.game is not None and out.game.creator_id == BOB


async def test_a_creator_removed_from_his_lobby_hands_it_on_and_the_last_person_ends_it(
        service: GameService, clock: Clock) -> None:
    await lobby(service, clock, 12, ANN, CID, BOB)
    await service.add_bot(12, ANN)
    out = await service.kick(12, DEE, ANN, is_admin=True)
    assert "Cid, seated the longest" in out.public[0].text
    assert (await service.info(12)).creator_id == CID
    await service.kick(12, CID, BOB)
    out = await service.leave(12, CID)
    assert out.game is not None and out.game.status == "abandoned"


async def test_a_lobby_of_computers_left_from_before_ends_when_a_game_is_created(
        service: GameService, storage: AnyStorage) -> None:
    """A lobby whose people left before lobbies ended by themselves (its rows as they were
    left): /create in its channel ends it rather than refusing."""
    await service.create_game(13, ANN, "Ann", guild_id=1, bots=1)
    info = await service.info(13)
    await execute_raw(storage, "DELETE FROM seats WHERE game_id = ? AND user_id = ?",
                      info.game_id, ANN)
    out = await service.create_game(13, BOB, "Bob", guild_id=1)
    assert out.game is not None and out.game.game_id != info.game_id
    with pytest.raises(GameExists):
        await service.create_game(13, CID, "Cid", guild_id=1)  # a lobby with a person stays


async def test_a_creator_removed_from_a_game_hands_it_to_the_longest_seated_person(
        service: GameService, clock: Clock) -> None:
    await lobby(service, clock, 14, ANN, CID, BOB)
    await service.add_bot(14, ANN)
    await service.start(14, ANN)
    out = await service.kick(14, DEE, ANN, is_admin=True)
    assert any("Cid, seated the longest" in p.text for p in out.public)
    assert (await service.info(14)).creator_id == CID
    await service.pause(14, CID)  # the creator's rights are his
    await service.resume(14, CID)
    out = await service.seat_to_computer(14, CID, CID, "easy")
    assert "Bob, seated the longest" in out.public[0].text
    with pytest.raises(LobbyError, match="Bob is the last person"):
        await service.kick(14, BOB, BOB)
