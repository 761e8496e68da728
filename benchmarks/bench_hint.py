"""/hint's latency through the fake Discord, as a player sees it: from the interaction to its
acknowledgement, and from the interaction to the plans (the search of ``hard`` in the bot's
worker pool, at the computer budget, default ``KHRONOS_COMPUTER_BUDGET``).

One person against easy computers (they answer at once, so the time is the hint's alone);
the person asks for a hint at the start of each of his turns, then plays random legal
actions to the end of the turn; new games until ``--hints`` answers are measured. Prints
the median, p95 and maximum of each, and how many plans were given.

    python benchmarks/bench_hint.py [--hints N] [--players P] [--budget S] [--workers W]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from bot.discord.app import create_bot
from bot.service import NoGameHere, is_computer
from bot.settings import Settings
from engine.random_player import random_action
from tests.fakediscord.fake import FakeDiscord
from tests.fakediscord.models import FakeChannel, FakeUser


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


async def persons_turn(bot: object, channel_id: int, timeout: float = 60.0) -> engine.GameState:
    """Wait until the game waits for the person (or is over); returns the state."""
    service = bot.service  # type: ignore[attr-defined]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        info, state = await service.snapshot(channel_id)
        seat = engine.current_seat(state)
        if state.over or (seat is not None and not is_computer(info.user_of(seat))):
            return state  # type: ignore[no-any-return]
        await asyncio.sleep(0.02)
    raise TimeoutError("the computers did not play")


async def one_game(fake: FakeDiscord, bot: object, ch: FakeChannel, user: FakeUser,
                   players: int, chooser: random.Random, wanted: int,
                   acks: list[float], plans: list[float], counts: list[int]) -> None:
    service = bot.service  # type: ignore[attr-defined]
    ia = await fake.slash(user, ch, "create", options={"players": players,
                                                       "bots": players - 1, "level": "easy"})
    await ia.wait_message(timeout=30)
    while len(plans) < wanted:
        state = await persons_turn(bot, ch.id)
        if state.over:
            break
        if state.pending is None:
            t0 = time.perf_counter()
            ia = await fake.slash(user, ch, "hint")
            await ia.wait_ack(timeout=10)
            acks.append(time.perf_counter() - t0)
            msg = await ia.wait_message(timeout=120)
            plans.append(time.perf_counter() - t0)
            counts.append(sum(1 for n in ("1.**", "2.**", "3.**") if n in msg.content))
        while True:  # the rest of the turn, at random
            info, state = await service.snapshot(ch.id)
            seat = engine.current_seat(state)
            if state.over or seat is None or is_computer(info.user_of(seat)):
                break
            _, action = random_action(state, chooser)
            await service.act(ch.id, user.id, action)
            bot.dispatcher.wake()  # type: ignore[attr-defined]  # as a command through Discord
            if action.kind == "end_turn":
                break
    with contextlib.suppress(NoGameHere):  # a computer may have just ended it
        await service.abandon(ch.id, user.id)


async def main(args: argparse.Namespace) -> None:
    fake = FakeDiscord()
    await fake.start()
    patch = fake.configure_discord_py()
    guild = fake.add_guild()
    alice = fake.add_user("alice")
    acks: list[float] = []
    plans: list[float] = []
    counts: list[int] = []
    chooser = random.Random(args.seed)
    extra = {} if args.budget is None else {"KHRONOS_COMPUTER_BUDGET": args.budget}
    with tempfile.TemporaryDirectory() as data:
        settings = Settings(DISCORD_TOKEN=fake.token, KHRONOS_DATA_DIR=Path(data),
                            KHRONOS_TEST_GUILD_ID=guild.id, KHRONOS_COMPUTER_DELAY=0,
                            KHRONOS_AI_WORKERS=args.workers, **extra)
        budget = settings.computer_budget
        async with fake.running(create_bot(settings)) as bot:
            game = 0
            while len(plans) < args.hints:
                ch = fake.add_channel(guild, f"game{game}")
                await one_game(fake, bot, ch, alice, args.players, chooser, args.hints,
                               acks, plans, counts)
                game += 1
    patch.restore()
    await fake.stop()
    print(f"/hint through the fake Discord, {args.players} players (one person, easy "
          f"computers), budget {budget} s, {args.workers} worker process(es), "
          f"{len(plans)} hints in {game} game(s)")
    print(f"acknowledged: median {statistics.median(acks) * 1000:.0f} ms, "
          f"p95 {p95(acks) * 1000:.0f} ms, max {max(acks) * 1000:.0f} ms")
    print(f"plans sent:   median {statistics.median(plans):.2f} s, p95 {p95(plans):.2f} s, "
          f"max {max(plans):.2f} s; plans per answer: "
          f"{', '.join(f'{n}: {counts.count(n)}' for n in (3, 2, 1, 0) if counts.count(n))}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hints", type=int, default=40, help="answers to measure (40)")
    parser.add_argument("--players", type=int, default=2, choices=range(2, 6),
                        help="seats, one of them the person (2)")
    parser.add_argument("--budget", type=float, default=None,
                        help="KHRONOS_COMPUTER_BUDGET (default: the setting's default)")
    parser.add_argument("--workers", type=int, default=1, help="KHRONOS_AI_WORKERS (1)")
    parser.add_argument("--seed", type=int, default=1, help="the random player's seed")
    asyncio.run(main(parser.parse_args()))
