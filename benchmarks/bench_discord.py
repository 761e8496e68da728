"""A move through the fake Discord: from the interaction to the turn's table message edited
with its picture, and from the move's commit to that edit, with and without 40 concurrent
``/board move`` requests.

Prints medians (and p99 for commit-to-edit) of a real move (a /build that edits the turn's
table message), of a trivial command (/help), and of the commit-to-edit delay: the time from
the storage commit of the move's transaction (which also stores its outbox rows) to the fake
Discord receiving the edit. Under load, 40 ``/board move:N`` requests (replay and render of
a whole game each) are dispatched just before every move.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from bot.discord.app import create_bot
from bot.images import Renderer
from bot.service.outbox import EDIT_SPACING
from bot.settings import Settings
from bot.storage.sqlite import SqliteStorage
from tests.fakediscord.fake import FakeDiscord

ROUNDS = 12  # moves per phase (a 3-player game has 21 turns)
LOAD = 40


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


async def main() -> None:
    fake = FakeDiscord()
    await fake.start()
    patch = fake.configure_discord_py()
    guild = fake.add_guild()
    # (under load, worker processes for images): 0 = threads
    phases = [(False, 0), (True, 0), (True, 2)]
    channels = {p: fake.add_channel(guild, f"phase{i}") for i, p in enumerate(phases)}
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    watchers = [fake.add_user(f"watcher{i}") for i in range(LOAD)]
    users = {u.id: u for u in (alice, bob, carol)}
    shown: list[tuple[float, int]] = []  # (when, channel) a table message was posted or edited
    real_store, real_update = fake._store_message, fake._message_updated

    async def store(msg: Any) -> None:
        if msg.is_layout:
            shown.append((time.perf_counter(), msg.channel_id))
        await real_store(msg)

    async def update(msg: Any) -> None:
        if msg.is_layout:
            shown.append((time.perf_counter(), msg.channel_id))
        await real_update(msg)

    fake._store_message = store  # type: ignore[method-assign]
    fake._message_updated = update  # type: ignore[method-assign]
    commits: list[float] = []
    results: dict[tuple[bool, int], dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory() as data:
        settings = Settings(DISCORD_TOKEN=fake.token, KHRONOS_DATA_DIR=Path(data),
                            KHRONOS_TEST_GUILD_ID=guild.id)
        async with fake.running(create_bot(settings)) as bot:
            storage = bot.service.storage
            assert isinstance(storage, SqliteStorage)  # the bot's own file (no database URL)
            real_commit = storage._commit

            async def commit(conn: Any) -> None:
                await real_commit(conn)
                commits.append(time.perf_counter())

            storage._commit = commit  # type: ignore[method-assign]
            for loaded, processes in phases:
                ch = channels[(loaded, processes)]
                bot.renderer.close()
                bot.renderer = Renderer(processes)
                for user, name, opts in ((alice, "create", {"players": 3}), (bob, "join", {}),
                                         (carol, "join", {})):
                    ia = await fake.slash(user, ch, name, options=opts)
                    await ia.wait_message(timeout=10)
                moves: list[float] = []
                trivial: list[float] = []
                delays: list[float] = []
                while len(moves) < ROUNDS:
                    info, state = await bot.service.snapshot(ch.id)
                    if state.over:
                        break
                    seat = state.turn
                    who = info.user_of(seat)
                    assert who is not None
                    user = users[who]
                    small = [(t, o) for t in (engine.BuildingType.HAMLET,
                                              engine.BuildingType.CHAPEL,
                                              engine.BuildingType.WATCHTOWER)
                             for o in engine.construct_options(state, seat, engine.Age.MIGHT, t)]
                    t0 = time.perf_counter()
                    ia = await fake.slash(user, ch, "help")
                    await ia.wait_message(timeout=10)
                    trivial.append(time.perf_counter() - t0)
                    load: list[Any] = []
                    if loaded and await bot.service.history_entries(ch.id):
                        entries = await bot.service.history_entries(ch.id)
                        load = [await fake.slash(w, ch, "board", options={
                            "move": entries[i % len(entries)].seq})
                            for i, w in enumerate(watchers)]
                    if small:
                        btype, option = small[len(moves) % len(small)]
                        t0 = time.perf_counter()
                        seen_commits = len(commits)
                        ia = await fake.slash(user, ch, "build", options={
                            "building": btype.value, "square": option.square, "age": "might"})
                        await ia.wait_message(timeout=60)
                        for _ in range(200):  # the edit, if it comes after the reply
                            edits = [t for t, c in shown if c == ch.id and t > t0]
                            if edits:
                                break
                            await asyncio.sleep(0.01)
                        if edits and len(commits) > seen_commits:
                            moves.append(max(time.perf_counter(), edits[0]) - t0)
                            delays.append(edits[0] - commits[seen_commits])
                    for w in load:
                        await w.wait_message(timeout=120)
                    ia = await fake.slash(user, ch, "end")
                    await ia.wait_message(timeout=60)
                    # the end of turn's edit follows the build's within a second: it waits
                    # for its spacing (EDIT_SPACING), which is not what is measured here
                    await asyncio.sleep(EDIT_SPACING)
                results[(loaded, processes)] = {"moves": moves, "trivial": trivial,
                                                "delays": delays}
            bot.renderer.close()
    patch.restore()
    await fake.stop()
    for (loaded, processes), r in results.items():
        what = f"with {LOAD} concurrent /board move" if loaded else "alone"
        what += f", images in {processes} worker processes" if processes else ""
        moves, delays = r["moves"], r["delays"]
        if not moves:
            print(f"{what}: no move measured")
            continue
        print(f"{what}: move (interaction -> table edited -> reply): median "
              f"{statistics.median(moves) * 1000:.0f} ms, max {max(moves) * 1000:.0f} ms "
              f"(n={len(moves)}); commit -> edit: median "
              f"{statistics.median(delays) * 1000:.0f} ms, p99 {p99(delays) * 1000:.0f} ms; "
              f"/help: median {statistics.median(r['trivial']) * 1000:.0f} ms")


if __name__ == "__main__":
    asyncio.run(main())
