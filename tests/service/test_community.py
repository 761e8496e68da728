"""The community through the service, on both backends: a game rated once in the transaction
that ends it (and an abandoned one never), computer levels rated as themselves, /stats and
/leaderboard (and what another player's /stats leaves out), /game export and /game verify,
and the seed unseen before the end (docs/community.md)."""

from __future__ import annotations

import json
import logging
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

import engine
from bot.service import (
    Direct,
    GameService,
    NotStarted,
    Outcome,
    PermissionDenied,
    Post,
    ServiceError,
    UndoRefused,
)
from bot.service.record import commitment, load_record, read_record, replay_steps, verify
from bot.storage.sqlite import SqliteStorage
from engine.random_player import random_action
from tests.service.conftest import Clock, current_user, started_game
from tests.service.test_computers import CH as CH_AI
from tests.service.test_computers import computers
from tests.service.test_computers import play_out as play_with_computers
from tests.storage.postgres.backend import AnyStorage

SEED = 7_314_159_265_358_979  # digits that appear nowhere by chance
CH, GUILD = 5, 1
ANN, BOB, CID = 51, 52, 53  # started_game's users of channel 5


async def play_out(service: GameService, channel: int, chooser: random.Random, clock: Clock,
                   *, until: int | None = None) -> list[Outcome]:
    """Random legal moves, the clock moved 90 s before each, until the end (or ``until``
    moves); returns every outcome."""
    outs: list[Outcome] = []
    for _ in range(until or 10_000):
        info, state = await service.snapshot(channel)
        if state.over:
            return outs
        seat, action = random_action(state, chooser)
        clock.now += 90
        user = info.user_of(seat)
        assert user is not None
        outs.append(await service.act(channel, user, action))
    if until is None:
        raise AssertionError("the game did not end")
    return outs


def texts(out: Outcome) -> Iterator[str]:
    """Everything an outcome shows anyone: texts, alt texts, choices, files."""
    if out.reply is not None:
        yield out.reply.text
        if out.reply.file is not None:
            yield out.reply.file.text
    items: list[Post | Direct] = [*out.public, *out.direct]
    for item in items:
        yield item.text
        if item.image is not None:
            yield item.image.alt
    yield from (p.text for p in out.pings)
    if out.decision is not None:
        yield out.decision.prompt
        yield from out.decision.options


async def test_a_finished_game_is_rated_once_and_reveals_its_seed(service: GameService,
                                                                   clock: Clock) -> None:
    start = await started_game(service, CH, 3, seed=SEED)
    info = start.game
    assert info is not None
    async with service.storage.read() as q:
        seal = await q.seal(info.game_id)
        assert seal is not None and await q.results(info.game_id) == []
    assert f"`{seal.commitment}`" in start.public[0].text  # the start post carries it
    assert seal.commitment == commitment(SEED, seal.salt)
    outs = await play_out(service, CH, random.Random(4), clock)
    end = outs[-1].public[-1].text
    assert str(SEED) in end and seal.salt in end and seal.commitment in end
    _, state = await service.snapshot(CH)
    async with service.storage.read() as q:
        results = await q.results(info.game_id)
        ratings = {p: await q.rating(GUILD, f"user:{u}") for p, u in
                   (("ann", ANN), ("bob", BOB), ("cid", CID))}
    ecus = {p.seat: p.ecus for p in state.players}
    assert [r.ecus for r in results] == [ecus[s] for s in sorted(ecus)]
    best = max(ecus.values())
    assert {r.seat for r in results if r.rank == 1} == set(state.winners) == {
        s for s, e in ecus.items() if e == best}
    assert all(r.games == 1 and r.wins == (r.mu > 25) for r in ratings.values() if r)
    assert all(r is not None for r in ratings.values())
    # a second end cannot happen, and a game cannot be rated twice: the primary key refuses it
    with pytest.raises(Exception):  # noqa: B017  (either driver's integrity error)
        async with service.storage.write() as tx:
            await tx.add_results(results[:1])
    async with service.storage.read() as q:
        assert len(await q.results(info.game_id)) == 3


async def test_an_abandoned_game_is_not_rated(service: GameService, clock: Clock) -> None:
    await started_game(service, CH, 2)
    await play_out(service, CH, random.Random(1), clock, until=15)
    await service.abandon(CH, ANN)
    async with service.storage.read() as q:
        assert await q.rating(GUILD, f"user:{ANN}") is None
        assert await q.leaderboard(GUILD, 0, 10) == []


async def test_stats_and_the_leaderboard_after_games(service: GameService, clock: Clock) -> None:
    for game in range(3):
        await started_game(service, CH + 10 * game, 2, seed=1000 + game)
        await play_out(service, CH + 10 * game, random.Random(game), clock)
    # channels 5, 15, 25: users 51/52, 151/152, 251/252 - Ann of channel 5 played one game
    board = (await service.leaderboard(GUILD)).reply
    assert board is not None and board.ephemeral
    assert "3 rated games" in board.text  # nobody has 3 games yet
    mine = (await service.stats(GUILD, ANN)).reply
    assert mine is not None and mine.ephemeral
    assert "Games 1" in mine.text and "Hints used 0" in mine.text
    assert "Median time to move" in mine.text and "Not ranked yet: 1 of 3" in mine.text
    # another player's statistics: only what his tables saw (his hints were private)
    theirs = (await service.stats(GUILD, BOB, ANN, public=True)).reply
    assert theirs is not None and not theirs.ephemeral
    assert "Games 1" in theirs.text and "Hints" not in theirs.text
    nobody = (await service.stats(GUILD, ANN, 999, "Zed")).reply
    assert nobody is not None and "Zed has no finished game" in nobody.text
    # another server sees none of it
    elsewhere = (await service.stats(GUILD + 1, ANN)).reply
    assert elsewhere is not None and "no finished game" in elsewhere.text


async def test_the_leaderboard_ranks_after_a_few_games(service: GameService,
                                                       clock: Clock) -> None:
    users = {}
    for game in range(3):  # the same two players three times
        channel = CH + 10 * game
        await service.create_game(channel, ANN, "Ann", guild_id=GUILD, seed=50 + game)
        await service.join(channel, BOB, "Bob")
        await service.start(channel, ANN)
        await play_out(service, channel, random.Random(game), clock)
        users = {ANN: "Ann", BOB: "Bob"}
    board = (await service.leaderboard(GUILD, public=True)).reply
    assert board is not None and not board.ephemeral
    lines = board.text.split("\n")
    assert lines[1].startswith("1. ") and lines[2].startswith("2. ")
    assert {line.split(":")[0][3:] for line in lines[1:3]} == set(users.values())
    assert all("3 games" in line for line in lines[1:3])
    async with service.storage.read() as q:
        rows = await q.leaderboard(GUILD, 3, 10)
    assert [r.mu - 3 * r.sigma for r in rows] == sorted((r.mu - 3 * r.sigma for r in rows),
                                                        reverse=True)
    stats = (await service.stats(GUILD, ANN)).reply
    assert stats is not None and "Ranked #" in stats.text and "of 2" in stats.text


async def test_verify_accepts_a_real_game_and_refuses_an_altered_one(service: GameService,
                                                                     clock: Clock) -> None:
    await started_game(service, CH, 3, seed=SEED, holdem=True)
    with pytest.raises(ServiceError, match="revealed when the game ends"):
        await service.verify_game(CH)
    await play_out(service, CH, random.Random(6), clock)
    reply = (await service.verify_game(CH)).reply
    assert reply is not None
    assert reply.text.startswith("✅"), reply.text
    assert "Every hand dealt and every card drawn" in reply.text
    exported = (await service.export_record(CH, CID)).reply  # anyone, once it is over
    assert exported is not None and exported.file is not None
    data = json.loads(exported.file.text)
    assert verify(read_record(data)).ok
    # the seed altered: the commitment no longer matches
    bad = dict(data, seed=SEED + 1)
    assert verify(read_record(bad)).problem == ("verify.commitment", {})
    # a move altered: the replay no longer deals what was dealt (or is illegal)
    moves = [dict(m) for m in data["moves"]]
    k = next(i for i, m in enumerate(moves) if m["action"]["kind"] == "end_turn"
             and m["action"]["discard"] == [])
    moves[k], moves[k + 1] = moves[k + 1], moves[k]
    verdict = verify(read_record(dict(data, moves=moves)))
    assert not verdict.ok and verdict.problem is not None
    assert verdict.problem[0] in ("verify.draw", "verify.illegal", "verify.final")
    # a draw that differs from what the seed gives (a deck changed in the middle of the game)
    deals = dict(data["deals"])
    seq, dealt = next((k, v) for k, v in deals.items() if k != "0")
    seat, cards = next(iter(dealt.items()))
    other = "".join({"m": "r", "r": "c", "c": "m"}[c] for c in cards)
    verdict = verify(read_record(dict(data, deals={**deals, seq: {**dealt, seat: other}})))
    assert verdict.problem is not None and verdict.problem[0] == "verify.draw"
    assert verdict.problem[1]["seq"] == int(seq)
    # the salt or the commitment altered
    assert not verify(read_record(dict(data, salt="00" * 16))).ok
    assert not verify(read_record(dict(data, commitment="ab" * 32))).ok


async def test_export_then_replay_gives_the_same_final_state(service: GameService,
                                                             clock: Clock) -> None:
    await started_game(service, CH, 4, seed=SEED)
    await play_out(service, CH, random.Random(8), clock, until=40)
    undone = 0
    for _ in range(30):  # an action taken back: the record holds the moves still in effect
        user, state = await current_user(service, CH)
        await play_out(service, CH, random.Random(undone + 20), clock, until=1)
        try:
            await service.undo(CH, user)
            undone += 1
        except (UndoRefused, engine.NotYourTurn, engine.GameOver):
            continue
        if undone == 2:
            break
    assert undone
    await play_out(service, CH, random.Random(9), clock)
    out = await service.export_record(CH, BOB)
    assert out.reply is not None and out.reply.file is not None
    assert out.reply.file.name.endswith(".json")
    record = load_record(out.reply.file.text)
    *_, last = replay_steps(record)
    _, state = await service.snapshot(CH)
    assert last.after == state


async def test_the_creator_exports_a_game_in_play_without_its_secrets(
        service: GameService, clock: Clock) -> None:
    await started_game(service, CH, 3, seed=SEED)
    with pytest.raises(PermissionDenied):
        await service.export_record(CH, BOB)  # not the creator, and the game goes on
    outs = await play_out(service, CH, random.Random(2), clock, until=60)
    assert outs
    reply = (await service.export_record(CH, ANN)).reply
    assert reply is not None and reply.file is not None
    data = json.loads(reply.file.text)
    assert data["seed"] is None and data["salt"] is None and data["deals"] is None
    assert data["complete"] is False and data["commitment"]
    assert str(SEED) not in reply.file.text
    hidden = [m["action"] for m in data["moves"] if m["action"]["kind"] in ("exchange",
                                                                           "end_turn")]
    assert hidden and all(isinstance(a["discard"], int) for a in hidden)
    assert verify(read_record(data)).problem == ("verify.no_seed", {})
    admin = (await service.export_record(CH, BOB, is_admin=True)).reply
    assert admin is not None and admin.file is not None


async def test_nothing_to_export_from_a_lobby(service: GameService) -> None:
    await service.create_game(CH, ANN, "Ann", guild_id=GUILD)
    with pytest.raises(NotStarted):
        await service.export_record(CH, ANN)


async def test_the_seed_is_never_shown_before_the_end(service: GameService, clock: Clock,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    """Every text of every outcome (posts, pings, DMs and their images' alt texts, replies,
    refusals, exported records) and every log line at INFO or above, up to the last move,
    holds neither the seed (in decimal or hex) nor its salt; the end reveals them."""
    caplog.set_level(logging.INFO)
    seen: list[str] = []
    start = await started_game(service, CH, 3, seed=SEED)
    assert start.game is not None
    async with service.storage.read() as q:
        seal = await q.seal(start.game.game_id)
    assert seal is not None
    secrets = (str(SEED), format(SEED, "x"), seal.salt)
    seen += texts(start)
    chooser = random.Random(12)
    while True:
        info, state = await service.snapshot(CH)
        seat, action = random_action(state, chooser)
        user = info.user_of(seat)
        assert user is not None
        after, _ = engine.apply(state, seat, action)
        if after.over:
            break
        seen += texts(await service.act(CH, user, action))
        if state.step % 25 == 0:  # what anyone may ask along the way
            for call in (service.status(CH), service.history(CH, 100), service.hand(CH, user),
                         service.export_record(CH, ANN), service.stats(GUILD, user),
                         service.leaderboard(GUILD), service.move_comparison(CH)):
                seen += texts(await call)
            with pytest.raises(ServiceError) as refused:
                await service.verify_game(CH)
            seen.append(refused.value.message)
    seen += [r.getMessage() for r in caplog.records]
    assert len(seen) > 300
    assert not [t for t in seen if any(s in t for s in secrets)]
    last = await service.act(CH, user, action)
    assert str(SEED) in "\n".join(texts(last))  # the control: the end shows it


async def test_computer_seats_are_rated_as_their_level(storage: AnyStorage,
                                                       clock: Clock) -> None:
    """Each computer level has its own rating on the server: beating ``easy`` twice makes
    ``easy`` lose twice, whichever computer seat played it."""
    service = computers(storage, clock)
    for game in range(2):
        await service.create_game(CH_AI, ANN, "Ann", guild_id=GUILD, seed=300 + game)
        await service.add_bot(CH_AI, ANN, "easy")
        await service.add_bot(CH_AI, ANN, "normal")
        await service.start(CH_AI, ANN)
        await play_with_computers(service, storage, random.Random(game))
    async with storage.read() as q:
        easy = await q.rating(GUILD, "computer:easy")
        normal = await q.rating(GUILD, "computer:normal")
        ann = await q.rating(GUILD, f"user:{ANN}")
        board = await q.leaderboard(GUILD, 0, 10)
    assert easy is not None and normal is not None and ann is not None
    assert (easy.games, normal.games, ann.games) == (2, 2, 2)
    assert easy.name == "Computer (easy)" and easy.timed == 0 and easy.deadlines == 0
    assert {r.player for r in board} == {"computer:easy", "computer:normal", f"user:{ANN}"}


async def test_a_game_begun_before_seals_verifies_its_moves_only(tmp_path: Path,
                                                                 clock: Clock) -> None:
    """A game started before the deck was sealed (no seal, its deals from the middle on) is
    not called unfair: /game verify says what it could check."""
    async with SqliteStorage(tmp_path / "old.sqlite3") as storage:
        service = GameService(storage, clock=clock, seeds=lambda: 99)
        await started_game(service, CH, 2)
        await play_out(service, CH, random.Random(3), clock, until=20)
        with sqlite3.connect(storage.path) as raw:  # as migration 5 found it
            raw.execute("DELETE FROM seals")
            raw.execute("DELETE FROM deals WHERE seq <= 10")
        await play_out(service, CH, random.Random(4), clock)
        reply = (await service.verify_game(CH)).reply
        assert reply is not None
        assert reply.text.startswith("✅"), reply.text
        assert "No commitment was posted" in reply.text
        assert "only the moves' legality was checked" in reply.text
        end = (await service.export_record(CH, ANN)).reply
        assert end is not None and end.file is not None
        data = json.loads(end.file.text)
        assert data["commitment"] is None and data["deals"] is None and data["seed"] == 99
