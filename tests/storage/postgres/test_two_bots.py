"""Two bot processes' worth of clients on one PostgreSQL database, against the fake Discord
with two shards: each bot holds one shard, so a game's slash commands reach the bot of its
server's shard while a button in a DM reaches shard 0, the other bot. Both serve the same game
through the database: a choice answered from the other bot, a double click on it from both
sides, and a move and a choice at the same moment; every move applied once, every player told
once."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path

from bot.discord.app import KhronosBot, create_bot
from bot.service import GameService, Outcome
from bot.settings import Settings
from bot.storage.postgres import PgStorage
from engine import Age, BuildingType, Construct
from engine.builder import position
from tests.discord.conftest import wait_until
from tests.discord.test_bot_game import Table
from tests.fakediscord.fake import FakeDiscord
from tests.fakediscord.models import FakeGuild
from tests.storage.postgres.backend import PG_URL, needs_pg, pg_schema

pytestmark = needs_pg


def guild_on_shard(fake: FakeDiscord, shard: int) -> FakeGuild:
    """A new server whose shard (Discord's rule: (id >> 22) % count) is ``shard``."""
    for _ in range(50):
        guild = fake.add_guild()
        if (guild.id >> 22) % 2 == shard:
            return guild
        time.sleep(0.002)  # the id's timestamp moves on
    raise AssertionError("no server on that shard")


class CountingService(GameService):
    """Counts the choices this bot's service handled."""

    choices = 0

    async def choose_in_game(self, game_id: int, user_id: int, option: int, *,
                             expect_version: int | None = None) -> Outcome:
        self.choices += 1
        return await super().choose_in_game(game_id, user_id, option,
                                            expect_version=expect_version)


async def junction(storage: PgStorage, game_id: int, red_id: int) -> None:
    """Store the rulebook's Hamlet junction, red (seat 0) to play: his Hamlet on H4 asks the
    other player a choice."""
    prepared = position(2, might="Keep F4 0; Watchtower F6 0; Keep I4 1",
                        faith="Keep I4 1 copy", reason="Keep I4 ruin copy",
                        hands={0: "ccmr"}, turn=0)
    async with storage.write() as tx:
        game = await tx.game(game_id)
        assert game is not None
        await tx.update_game(game.id, game.version, now=time.time(),
                             state=prepared.model_dump_json(),
                             checkpoint=prepared.model_dump_json(),
                             checkpoint_seq=await tx.last_seq(game.id))
        await tx.replace_seats(game.id, [
            replace(s, seat=0 if s.user_id == red_id else 1) for s in await tx.seats(game.id)])


HAMLET = Construct(age=Age.MIGHT, building=BuildingType.HAMLET, square="H4")


def make_bot(fake: FakeDiscord, data: Path, guild_id: int, shard: int,
             service: GameService) -> KhronosBot:
    settings = Settings(DISCORD_TOKEN=fake.token, KHRONOS_DATA_DIR=data,
                        KHRONOS_TEST_GUILD_ID=guild_id, KHRONOS_SHARD_COUNT=2,
                        KHRONOS_SHARD_IDS=str(shard))
    return create_bot(settings, service=service, **settings.shard_options())


async def test_a_game_served_by_two_bots_on_two_shards(fake: FakeDiscord, tmp_path: Path) -> None:
    assert PG_URL is not None
    guild = guild_on_shard(fake, 1)
    ch = fake.add_channel(guild, "khronos")
    red, white = fake.add_user("red"), fake.add_user("white")
    async with pg_schema() as schema, \
            PgStorage(PG_URL, schema=schema) as store0, PgStorage(PG_URL, schema=schema) as store1:
        service0, service1 = CountingService(store0), CountingService(store1)
        bot0 = make_bot(fake, tmp_path / "b0", guild.id, 0, service0)
        bot1 = make_bot(fake, tmp_path / "b1", guild.id, 1, service1)
        async with fake.running(bot0), fake.running(bot1):
            assert (bot0.shard_ids, bot1.shard_ids) == ([0], [1])
            assert bot0.get_guild(guild.id) is None and bot1.get_guild(guild.id) is not None
            table = Table(fake, bot1, ch, [red, white])
            await table.slash(red, "create", players=2)
            await table.slash(white, "join")  # full: the game starts
            info, _ = await table.state()
            await junction(store1, info.game_id, red.id)
            posts_before = len(fake.channel_messages(ch))
            await table.play(red, HAMLET)  # confirms the preview
            info, state = await table.state()
            assert state.pending is not None and state.pending.seat == 1
            # the choice goes to white by DM, with buttons
            dm = await fake.wait_for_dm(white, lambda m: any(
                c.startswith("kh:ch:") for c in m.custom_ids()))
            options = [c for c in dm.custom_ids() if c.startswith("kh:ch:")]
            # white double-clicks the first option: DMs are shard 0, the other bot
            clicks = await asyncio.gather(fake.click(white, dm, options[0]),
                                          fake.click(white, dm, options[0]))
            for click in clicks:
                await click.wait_ack()
                await click.wait_message(timeout=10)
            assert service0.choices == 2 and service1.choices == 0
            answers = [c.messages[0] for c in clicks]
            assert all(m.ephemeral for m in answers)
            assert sum("moved on" in m.content for m in answers) == 1, [m.content for m in answers]
            info, state = await table.state()
            assert state.pending is None
            async with store0.read() as q:
                moves = await q.moves(info.game_id)
            assert [m.seq for m in moves] == list(range(1, len(moves) + 1))
            assert [m.version for m in moves] == sorted({m.version for m in moves})
            assert sum('"choose"' in m.action for m in moves) == 1  # applied once
            assert moves[-1].version == info.version
            # the channel saw the build and the choice once each, on red's turn's table
            # message, sent by either bot (one message edited; its picture with each edit)
            def shown() -> list[str]:
                return [line for m in fake.channel_messages(ch) if m.is_layout
                        for line in m.text().split("\n") if line.startswith("- ")]

            await wait_until(lambda: any("chooses" in line for line in shown()))
            assert sum("Hamlet at H4" in line for line in shown()) == 1, shown()
            assert sum("chooses" in line for line in shown()) == 1, shown()
            assert not [m for m in fake.channel_messages(ch)[posts_before:]
                        if m.attachments and not m.is_layout]
            prompts = [m for m in fake.dms(white) if any(
                c.startswith("kh:ch:") for c in m.custom_ids())]
            assert len(prompts) == 1  # white was asked once

            # again, and this time white's answer (shard 0) and red's /undo (his shard) come
            # at the same moment: one of them wins, the other is refused, nothing is mixed
            await junction(store1, info.game_id, red.id)
            await table.play(red, HAMLET)
            dm = await fake.wait_for_dm(white, lambda m: any(
                c.startswith("kh:ch:") for c in m.custom_ids()) and m.id != prompts[0].id)
            option = next(c for c in dm.custom_ids() if c.startswith("kh:ch:"))
            before, _ = await table.state()
            click, undo = await asyncio.gather(fake.click(white, dm, option),
                                               fake.slash(red, ch, "undo"))
            for ia in (click, undo):
                await ia.wait_ack()
                await ia.wait_message(timeout=10)
            chose = "moved on" not in click.messages[0].content
            undone = "answered a choice" not in undo.messages[0].content
            assert chose != undone, (click.messages[0].content, undo.messages[0].content)
            info, state = await table.state()
            assert state.pending is None
            assert info.version == before.version + 1  # exactly one of the two was applied
            async with store0.read() as q:
                last = (await q.moves(info.game_id))[-1]
            assert last.kind == ("action" if chose else "undo")
