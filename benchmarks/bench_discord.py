"""A move through the fake Discord: from the interaction to the posted boards image.

Prints the median time of a real move (a /build that posts the boards image) and of a trivial
command (/help), both measured from dispatching the interaction to the bot's last message.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from bot.discord_app import create_bot
from bot.settings import Settings
from tests.fakediscord.fake import FakeDiscord

ROUNDS = 30


async def main() -> None:
    fake = FakeDiscord()
    await fake.start()
    patch = fake.configure_discord_py()
    guild = fake.add_guild()
    ch = fake.add_channel(guild, "khronos")
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    users = {u.id: u for u in (alice, bob, carol)}
    with tempfile.TemporaryDirectory() as data:
        settings = Settings(DISCORD_TOKEN=fake.token, KHRONOS_DATA_DIR=Path(data),
                            KHRONOS_TEST_GUILD_ID=guild.id)
        async with fake.running(create_bot(settings)) as bot:
            for user, name, opts in ((alice, "create", {"players": 3}), (bob, "join", {}),
                                     (carol, "join", {})):
                ia = await fake.slash(user, ch, name, options=opts)
                await ia.wait_message(timeout=10)
            moves: list[float] = []
            trivial: list[float] = []
            while len(moves) < ROUNDS:
                info, state = await bot.service.snapshot(ch.id)
                if state.over:
                    break
                seat = state.turn
                user = users[info.user_of(seat)]
                small = [(t, o) for t in (engine.BuildingType.HAMLET, engine.BuildingType.CHAPEL,
                                          engine.BuildingType.WATCHTOWER)
                         for o in engine.construct_options(state, seat, engine.Age.MIGHT, t)]
                t0 = time.perf_counter()
                ia = await fake.slash(user, ch, "help")
                await ia.wait_message(timeout=10)
                trivial.append(time.perf_counter() - t0)
                if small:
                    btype, option = small[len(moves) % len(small)]
                    posted = len(fake.channel_messages(ch))
                    t0 = time.perf_counter()
                    ia = await fake.slash(user, ch, "build", options={
                        "building": btype.value, "square": option.square, "age": "might"})
                    await ia.wait_message(timeout=10)
                    elapsed = time.perf_counter() - t0
                    if any(m.attachments for m in fake.channel_messages(ch)[posted:]):
                        moves.append(elapsed)
                ia = await fake.slash(user, ch, "end")
                await ia.wait_message(timeout=10)
    patch.restore()
    await fake.stop()
    print(f"move through the fake Discord (interaction -> boards image posted -> reply): "
          f"median {statistics.median(moves) * 1000:.0f} ms, max {max(moves) * 1000:.0f} ms "
          f"(n={len(moves)})")
    print(f"trivial command (/help): median {statistics.median(trivial) * 1000:.0f} ms "
          f"(n={len(trivial)})")


if __name__ == "__main__":
    asyncio.run(main())
