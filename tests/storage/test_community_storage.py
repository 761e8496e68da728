"""The community's tables on both backends (migration 5): seals and deals, results that a
game gets once, ratings upserted, the leaderboard's order, the median time to move."""

from __future__ import annotations

import pytest

from bot.storage.api import RatingRow, ResultRow
from tests.storage.postgres.backend import AnyStorage


async def _game(storage: AnyStorage, channel: int = 1) -> int:
    async with storage.write() as tx:
        return await tx.insert_game(guild_id=3, channel_id=channel, creator_id=7,
                                    settings="{}", seed=99, now=1.0)


async def test_seals_and_deals_round_trip(storage: AnyStorage) -> None:
    gid = await _game(storage)
    async with storage.write() as tx:
        await tx.add_seal(gid, "ab" * 16, "cd" * 32, 2.0)
        await tx.add_deal(gid, 0, '{"hands": {}}')
        await tx.add_deal(gid, 7, '{"1": "mr"}')
    async with storage.read() as q:
        seal = await q.seal(gid)
        deals = await q.deals(gid)
        assert await q.seal(gid + 1) is None
    assert seal is not None and (seal.salt, seal.commitment) == ("ab" * 16, "cd" * 32)
    assert [(d.seq, d.cards) for d in deals] == [(0, '{"hands": {}}'), (7, '{"1": "mr"}')]


def _result(gid: int, seat: int, player: str, rank: int) -> ResultRow:
    return ResultRow(gid, seat, 3, player, player, rank, 10 - rank, 25.0, 8.3, 26.0, 8.0, 0,
                     0, 5.0)


async def test_a_game_gets_its_results_once(storage: AnyStorage) -> None:
    gid = await _game(storage)
    rows = [_result(gid, 0, "user:1", 1), _result(gid, 1, "user:2", 2)]
    async with storage.write() as tx:
        await tx.add_results(rows)
    with pytest.raises(Exception):  # noqa: B017  (either driver's integrity error)
        async with storage.write() as tx:
            await tx.add_results(rows[1:])
    async with storage.read() as q:
        assert await q.results(gid) == rows


async def test_ratings_upsert_order_and_rank(storage: AnyStorage) -> None:
    rows = [RatingRow(3, "user:1", "Ann", 30.0, 2.0, games=5, wins=3),   # 24
            RatingRow(3, "user:2", "Bob", 35.0, 5.0, games=4),           # 20
            RatingRow(3, "computer:hard", "Computer (hard)", 28.0, 1.0, games=9),  # 25
            RatingRow(3, "user:3", "Cid", 50.0, 1.0, games=2),           # too few games
            RatingRow(4, "user:1", "Ann", 10.0, 1.0, games=9)]           # another server
    async with storage.write() as tx:
        await tx.save_ratings(rows)
        assert await tx.ratings_for_update(3, ["user:1", "user:9", "user:1"]) == [rows[0]]
    async with storage.read() as q:
        board = await q.leaderboard(3, 3, 10)
        assert [r.player for r in board] == ["computer:hard", "user:1", "user:2"]
        assert [r.player for r in await q.leaderboard(3, 3, 2)] == ["computer:hard", "user:1"]
        assert await q.ranked_count(3, 3) == 3
        assert await q.ranked_above(3, 3, 24.0) == 1
        assert await q.ranked_above(3, 3, 19.0) == 3
    changed = RatingRow(3, "user:2", "Bobby", 40.0, 1.0, games=5, wins=1, ecus=70,
                        deadlines=2, hints=1, timed=4, updated_at=9.0)
    async with storage.write() as tx:
        await tx.save_ratings([changed])
    async with storage.read() as q:
        assert await q.rating(3, "user:2") == changed
        assert (await q.leaderboard(3, 3, 1))[0].player == "user:2"


async def test_median_turn_time(storage: AnyStorage) -> None:
    gid = await _game(storage)
    async with storage.write() as tx:
        await tx.add_turn_times(3, "user:1", gid, [50.0, 10.0, 700.0])
        await tx.add_turn_times(3, "user:2", gid, [4.0, 1.0, 3.0, 100.0])
        await tx.add_turn_times(4, "user:1", gid, [1.0])
    async with storage.read() as q:
        assert await q.median_turn_time(3, "user:1", 3) == 50.0
        assert await q.median_turn_time(3, "user:2", 4) == 3.5
        assert await q.median_turn_time(4, "user:1", 1) == 1.0
        assert await q.median_turn_time(3, "user:9", 0) is None
