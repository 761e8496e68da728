"""A game's language (`/game settings language:fr`): its pictures and their alt texts are drawn
in it, and what the bot posts in the channel is written in it; hours and deadlines are left as
they were; a bad value changes nothing."""

from __future__ import annotations

import random

import pytest

from bot.images import render_image
from bot.service import GameService, GameSettings, Image
from engine import EngineError
from tests.storage.postgres.backend import AnyStorage

from .conftest import Clock, random_move, started_game


async def deadlines(storage: AnyStorage, channel: int) -> list[float]:
    async with storage.read() as q:
        game = await q.game_for_channel(channel)
        assert game is not None
        return sorted(t.due_at for t in await q.timers(game.id))


async def test_a_french_game_draws_its_pictures_in_french(
        service: GameService, storage: AnyStorage, clock: Clock) -> None:
    await started_game(service, 7, 2, seed=3, settings=GameSettings(deadline_hours=24))
    creator = 71
    before = await deadlines(storage, 7)
    clock.now += 600
    out = await service.update_settings(7, creator, language="fr")
    # said in the game's new language, as everything the table reads from now on
    assert "langue : Français" in out.public[0].text
    assert await deadlines(storage, 7) == before  # a language is not a reason for more time
    shown = await service.update_settings(7, 72)  # anyone may read the settings
    assert shown.reply is not None and "Français" in shown.reply.text

    move = await random_move(service, 7, random.Random(1))
    images = [p.image for p in move.public if p.image is not None]
    assert images and all(i.lang == "fr" for i in images)
    _png, _name, alt = render_image(images[0])
    assert "manche 1 sur 7" in alt, alt  # the French catalogue: "round 1 of 7"
    again = Image.from_json(images[0].to_json())  # as the outbox stores it
    assert again.lang == "fr"
    hands = [d.image for d in move.direct if d.image is not None]
    assert all(i.lang == "fr" for i in hands)


async def test_an_unknown_language_is_refused_and_changes_nothing(service: GameService) -> None:
    await started_game(service, 8, 2, seed=3)
    with pytest.raises(EngineError, match="en, fr, de"):
        await service.update_settings(8, 81, language="xx")
    shown = await service.update_settings(8, 81)
    assert shown.reply is not None and "English" in shown.reply.text


async def test_only_the_creator_or_an_admin_sets_the_language(service: GameService) -> None:
    await started_game(service, 9, 2, seed=3)
    with pytest.raises(EngineError):
        await service.update_settings(9, 92, language="de")
    await service.update_settings(9, 92, language="de", is_admin=True)
    shown = await service.update_settings(9, 91)
    assert shown.reply is not None and "Deutsch" in shown.reply.text
