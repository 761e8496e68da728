"""/hint through the service: the setting and its default, the refusals (each changes nothing),
the view the coach is given, the same answer when asked twice, the answer's length, and each
person's count: on his seat, in the end post and in his statistics."""

from __future__ import annotations

import itertools
import random
from collections.abc import AsyncIterator
from concurrent.futures import Executor

import pytest

import ai
import engine
from ai import Hint
from bot import i18n
from bot.service import (
    GameService,
    GameSettings,
    HintRefused,
    NotSeated,
    Outcome,
    PermissionDenied,
    hints_text,
    is_computer,
)
from bot.service import hints as hints_module
from bot.service.errors import GamePaused, NotStarted
from engine import Family, Travel
from engine.random_player import random_action
from tests.service.conftest import Clock, started_game
from tests.storage.postgres.backend import AnyStorage

CH = 910
ANN = 7101


def coached(storage: AnyStorage, clock: Clock) -> GameService:
    seeds = itertools.count(5150)
    return GameService(storage, clock=clock, seeds=lambda: next(seeds), computer_delay=0.0,
                       computer_budget=0.0)


async def against_a_computer(service: GameService, level: str = "easy") -> None:
    """Ann and one computer, started; the computers play until it is Ann's turn."""
    await service.create_game(CH, ANN, "Ann", guild_id=1, settings=GameSettings(seats=2),
                              bots=1, bot_level=level)
    info = await service.info(CH)
    if info.status == "lobby":
        await service.start(CH, ANN)
    await service.play_computers((await service.info(CH)).game_id)


async def seat_hints(service: GameService, user_id: int) -> int:
    info = await service.info(CH)
    return next(s.hints for s in info.seats if s.user_id == user_id)


async def test_on_by_default_with_a_computer_private_and_counted(
        storage: AnyStorage, clock: Clock) -> None:
    service = coached(storage, clock)
    await against_a_computer(service)
    info = await service.info(CH)
    assert info.settings.hints is None and info.settings.hints_on
    version = info.version
    out = await service.hint(CH, ANN)
    assert out.reply is not None and out.reply.ephemeral and out.public == []
    text = out.reply.text
    assert text.startswith(i18n.text("hint.header", "en"))
    assert "**1.**" in text and "Costs " in text and "(R" in text
    assert await seat_hints(service, ANN) == 1
    assert (await service.info(CH)).version == version  # a hint moves nothing in the game
    again = await service.hint(CH, ANN)  # the same game, step and seat: the same plans
    assert again.reply is not None and again.reply.text == text
    assert await seat_hints(service, ANN) == 2
    await service.replace_player(CH, ANN, ANN, ANN + 5, "Dee")  # his hints stay his
    assert await seat_hints(service, ANN + 5) == 0
    plain = await service.hint(CH, ANN + 5, plain=True)
    assert plain.reply is not None and "**" not in plain.reply.text
    assert plain.reply.text.replace("1. ", "**1.** ", 1).startswith(text[:len(text) // 3])


async def test_off_by_default_between_people_refused_until_a_keeper_turns_them_on(
        storage: AnyStorage, clock: Clock) -> None:
    service = coached(storage, clock)
    await started_game(service, CH, 2)
    user = CH * 10 + 1
    info = await service.info(CH)
    assert not info.settings.hints_on
    with pytest.raises(HintRefused, match="Hints are off in this game"):
        await service.hint(CH, user)
    assert await seat_hints(service, user) == 0
    with pytest.raises(PermissionDenied):
        await service.update_settings(CH, CH * 10 + 2, hints=True)
    out = await service.update_settings(CH, user, hints=True)
    assert "hints on (/hint)" in out.public[0].text
    assert (await service.info(CH)).settings.hints_on
    turn = engine.current_seat((await service.snapshot(CH))[1])
    asker = (await service.info(CH)).user_of(turn or 0)
    assert asker is not None
    assert (await service.hint(CH, asker)).reply is not None
    await service.update_settings(CH, user, hints=False)
    with pytest.raises(HintRefused, match="Hints are off"):
        await service.hint(CH, asker)
    assert await seat_hints(service, asker) == 1


async def test_refused_when_it_is_not_your_turn_or_a_choice_waits_or_paused(
        storage: AnyStorage, clock: Clock) -> None:
    service = coached(storage, clock)
    await started_game(service, CH, 3, settings=GameSettings(hints=True))
    info, state = await service.snapshot(CH)
    turn = engine.current_seat(state)
    waiting = next(s.user_id for s in info.seats if s.seat != turn)
    with pytest.raises(HintRefused, match="wait until it is yours"):
        await service.hint(CH, waiting)
    assert await seat_hints(service, waiting) == 0
    creator = CH * 10 + 1
    await service.pause(CH, creator)
    with pytest.raises(GamePaused):
        await service.hint(CH, info.user_of(turn or 0) or 0)
    await service.resume(CH, creator)
    with pytest.raises(NotSeated, match="not playing in this game"):
        await service.hint(CH, 999)


async def test_refused_in_french_before_the_start_and_after_the_end(
        storage: AnyStorage, clock: Clock) -> None:
    service = coached(storage, clock)
    await service.create_game(CH, ANN, "Ann", guild_id=1, settings=GameSettings(hints=True))
    with pytest.raises(NotStarted):
        await service.hint(CH, ANN)
    await service.join(CH, ANN + 1, "Bob")
    await service.start(CH, ANN)
    await play_out(service, random.Random(3))
    with i18n.reading("fr"), pytest.raises(HintRefused, match="La partie est finie"):
        await service.hint(CH, ANN)


async def play_out(service: GameService, chooser: random.Random, asks: int = 0,
                   limit: int = 4000) -> int:
    """Play to the end (people at random, computers by their timers), Ann asking for a hint
    at her first ``asks`` turns; returns how many she asked."""
    asked = 0
    for _ in range(limit):
        info, state = await service.snapshot(CH)
        if state.over:
            return asked
        seat = engine.current_seat(state)
        user = info.user_of(seat or 0)
        assert user is not None and not is_computer(user)
        if user == ANN and asked < asks and state.pending is None:
            await service.hint(CH, ANN)
            asked += 1
        _, action = random_action(state, chooser)
        await service.act(CH, user, action)
        await service.play_computers(info.game_id)
    raise AssertionError("the game did not end")


async def test_the_count_is_in_the_end_post_and_in_the_statistics(
        storage: AnyStorage, clock: Clock) -> None:
    service = coached(storage, clock)
    await against_a_computer(service)
    game_id = (await service.info(CH)).game_id
    ends: list[str] = []
    original = service.act

    async def act(channel_id: int, user_id: int, action: engine.Action, *,
                  expect_version: int | None = None) -> Outcome:
        out = await original(channel_id, user_id, action, expect_version=expect_version)
        ends.extend(p.text for p in out.public if "/hint" in p.text)
        return out

    service.act = act  # type: ignore[method-assign]
    assert await play_out(service, random.Random(11), asks=3) == 3
    await service.play_computers(game_id)
    async with storage.read() as q:
        results = {r.player: r.hints for r in await q.results(game_id)}
    assert results == {f"user:{ANN}": 3, "computer:easy": 0}
    stats = await service.stats(1, ANN)
    assert stats.reply is not None
    assert i18n.text("community.stats_hints", "en", count=3) in stats.reply.text
    computers_end = [t async for t in _outbox_texts(storage, game_id) if "/hint" in t]
    assert any("Hints asked for (/hint): Ann 3." in t for t in ends + computers_end)


async def _outbox_texts(storage: AnyStorage, game_id: int) -> AsyncIterator[str]:
    async with storage.read() as q:
        rows = await q.unsent(game_id, limit=100_000)
    for r in rows:
        yield r.body


async def test_the_coach_is_given_the_view_of_the_asking_seat(
        storage: AnyStorage, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    service = coached(storage, clock)
    await against_a_computer(service)
    seen: list[tuple[engine.PlayerView, int]] = []
    real = ai.advise

    async def spy(view: engine.PlayerView, level: ai.Level | str, budget: float, seed: int,
                  executor: Executor | None = None) -> list[Hint]:
        seen.append((view, seed))
        return await real(view, level, budget, seed, executor)

    monkeypatch.setattr(hints_module, "advise", spy)  # what the service calls
    await service.hint(CH, ANN)
    info, state = await service.snapshot(CH)
    seat = info.seat_of(ANN)
    assert seat is not None
    (view, seed), = seen
    assert isinstance(view, engine.PlayerView) and view.seat == seat
    assert view == engine.player_view(state, seat)  # his hand, nobody else's
    rival = 1 - seat
    assert view.hand == state.players[seat].hand
    assert state.players[rival].hand and "hand" not in view.players[rival].model_dump()


@pytest.mark.parametrize("lang", ["en", "fr", "de"])
def test_the_answer_fits_one_message_whatever_the_names_and_plans(lang: str) -> None:
    long = "\u2728" * 32
    phrase = {"key": "coach.reason.gain", "params": {"gain": 5}}
    step = {"key": "coach.do.travel", "params": {"to": "faith"}}
    plan = Hint(actions=(Travel(to=engine.Age.FAITH),) * 60, steps=(step,) * 60,
                cards=(Family.CIVIL,) * 9, ecus_paid=3, ecus_now=2, income_next=7,
                income_round=4, reason=phrase, waits_for=1)
    text = hints_text([plan] * 3, 12, {0: long, 1: long}, lang)
    assert len(text) <= 2000
    assert text.count("\n\n") == 3 and "…" in text
    assert hints_text([], 12, {}, lang) == i18n.text("hint.none", lang)
