"""What a whole game costs the channel, through the fake Discord: a scripted 3-player game of 7
rounds (a fixed seed, up to three card actions and a travel a turn, choices answered with
their DM buttons, previews confirmed), played by the real bot.

Prints, per game and per turn: the public messages the bot created in the game's channel, the
edits of its messages there, the pings (messages that notify someone; an edit notifies
nobody), the images and bytes uploaded (channel, DMs, private replies), the DMs created and
edited; then the time from a command to the channel showing its move (the table message
edited, or a new image posted), median and p99.

``--pace S`` waits S seconds after each move is shown before the next command (a player's
thinking time; 0: back to back, where edits of one message within a second coalesce).
Runs the same on any version of the bot: it only counts what the fake Discord received.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from bot.discord.app import create_bot
from bot.service import GameService
from bot.settings import Settings
from bot.storage.sqlite import SqliteStorage
from engine import Family
from tests.fakediscord.fake import FakeDiscord
from tests.fakediscord.models import FakeAttachment, FakeChannel, FakeMessage, FakeUser

SEED = 2024
LETTER = {Family.MILITARY: "m", Family.RELIGIOUS: "r", Family.CIVIL: "c"}


def letters(cards: tuple[Family, ...] | None) -> str | None:
    return "".join(LETTER[c] for c in cards) if cards else None


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


@dataclass
class Tally:
    """What the fake Discord received, by where it went."""

    created: dict[str, int] = field(default_factory=lambda: {"channel": 0, "dm": 0, "reply": 0})
    edited: dict[str, int] = field(default_factory=lambda: {"channel": 0, "dm": 0, "reply": 0})
    images: dict[str, int] = field(default_factory=lambda: {"channel": 0, "dm": 0, "reply": 0})
    bytes: dict[str, int] = field(default_factory=lambda: {"channel": 0, "dm": 0, "reply": 0})
    pings: int = 0  # channel messages that notify someone when created
    notified: int = 0  # users notified in all
    shown: list[float] = field(default_factory=list)  # when the channel changed (perf_counter)


def instrument(fake: FakeDiscord, channel: FakeChannel, tally: Tally) -> None:
    """Count every message created or edited, and every attachment uploaded."""

    def where(channel_id: int, ephemeral: bool) -> str:
        if ephemeral:
            return "reply"
        return "channel" if channel_id == channel.id else "dm"

    real_apply = fake._apply_attachments

    def apply(body: dict[str, Any], files: dict[int, tuple[str, bytes]], channel_id: int,
              existing: list[FakeAttachment], *, ephemeral: bool = False) -> Any:
        out = real_apply(body, files, channel_id, existing, ephemeral=ephemeral)
        kept = {a.id for a in existing}
        for att in out or []:
            if att.id not in kept:
                key = where(channel_id, ephemeral)
                tally.images[key] += 1
                tally.bytes[key] += len(att.data)
        return out

    real_store = fake._store_message

    async def store(msg: FakeMessage) -> None:
        if msg.author.id == fake.bot_user.id or msg.interaction_id is not None:
            key = where(msg.channel_id, msg.ephemeral or msg.interaction_id is not None)
            tally.created[key] += 1
            if key == "channel":
                tally.shown.append(time.perf_counter())
                notified = msg.notified_user_ids()
                tally.pings += bool(notified)
                tally.notified += len(notified)
        await real_store(msg)

    real_update = fake._message_updated

    async def update(msg: FakeMessage) -> None:
        if not msg.loading:
            key = where(msg.channel_id, msg.ephemeral or msg.interaction_id is not None)
            tally.edited[key] += 1
            if key == "channel":
                tally.shown.append(time.perf_counter())
        await real_update(msg)

    fake._apply_attachments = apply  # type: ignore[method-assign]
    fake._store_message = store  # type: ignore[method-assign]
    fake._message_updated = update  # type: ignore[method-assign]


def pick(state: engine.GameState, seat: int, rng: random.Random, plays: int) -> engine.Action:
    """Up to three card actions a turn (a travel now and then), then the end of the turn."""
    actions = engine.legal_actions(state, seat)
    cards = [a for a in actions if a.kind in ("construct", "upgrade", "populate", "renovate")]
    travel = [a for a in actions if a.kind == "travel"]
    if cards and plays < 3 and rng.random() < 0.85:
        return rng.choice(cards)
    if travel and plays < 3 and rng.random() < 0.3:
        return rng.choice(travel)
    return engine.EndTurn()


def options_of(action: engine.Action) -> tuple[str, dict[str, Any]]:
    match action:
        case engine.Construct():
            return "build", {"building": action.building.value, "square": action.square,
                             "age": action.age.label.lower(), "pay": letters(action.surcharge)}
        case engine.Upgrade():
            return "upgrade", {"square": action.square, "to": action.to.value,
                               "age": action.age.label.lower(), "at": action.at,
                               "pay": letters(action.surcharge)}
        case engine.Travel():
            return "travel", {"age": action.to.label.lower(),
                              "adventurer": None if action.adventurer is None
                              else action.adventurer + 1}
        case engine.Populate():
            return "populate", {"square": action.square, "count": action.count}
        case engine.Renovate():
            return "renovate", {"square": action.square, "cards": action.cards}
        case engine.EndTurn():
            return "end", {"discard": letters(action.discard)}
    raise AssertionError(action)


class Player:
    """Plays the scripted game through slash commands and buttons, timing each move."""

    def __init__(self, fake: FakeDiscord, ch: FakeChannel, tally: Tally, pace: float) -> None:
        self.fake, self.ch, self.tally, self.pace = fake, ch, tally, pace
        self.latencies: list[float] = []
        self.commands = 0

    async def _shown_after(self, t0: float, timeout: float = 10.0) -> float | None:
        """Seconds from ``t0`` to the first change of the channel after it, if one comes."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            later = [t for t in self.tally.shown if t >= t0]
            if later:
                return later[0] - t0
            await asyncio.sleep(0.002)
        return None

    async def timed(self, act: Callable[[], Any]) -> None:
        t0 = time.perf_counter()
        ia = await act()
        await ia.wait_message(timeout=30)
        msg = ia.messages[0]
        confirm = [c for c in msg.custom_ids() if c.startswith("kh:ok:")]
        if confirm:  # a preview: the move is played by its Confirm
            user = msg.interaction_user
            t0 = time.perf_counter()
            click = await self.fake.click(user, msg, confirm[0])
            await click.wait_message(timeout=30)
        self.commands += 1
        shown = await self._shown_after(t0)
        if shown is not None:
            self.latencies.append(shown)
        if self.pace:
            await asyncio.sleep(self.pace)

    async def play(self, user: FakeUser, action: engine.Action) -> None:
        name, opts = options_of(action)
        opts = {k: v for k, v in opts.items() if v is not None}
        await self.timed(lambda: self.fake.slash(user, self.ch, name, options=opts))

    async def choose(self, user: FakeUser) -> None:
        dm = await self.fake.wait_for_dm(user, lambda m: any(
            c.startswith("kh:ch:") for c in m.custom_ids()), timeout=10)
        choice = next(c for c in dm.custom_ids() if c.startswith("kh:ch:"))
        await self.timed(lambda: self.fake.click(user, dm, choice))


async def game(pace: float) -> tuple[Tally, Player, int]:
    fake = FakeDiscord()
    await fake.start()
    patch = fake.configure_discord_py()
    guild = fake.add_guild()
    ch = fake.add_channel(guild, "khronos")
    people = [fake.add_user(n) for n in ("alice", "bob", "carol")]
    users = {u.id: u for u in people}
    tally = Tally()
    turns = 0
    try:
        with tempfile.TemporaryDirectory() as data:
            settings = Settings(DISCORD_TOKEN=fake.token, KHRONOS_DATA_DIR=Path(data),
                                KHRONOS_TEST_GUILD_ID=guild.id)
            storage = await SqliteStorage.in_dir(Path(data)).open()
            service = GameService(storage, seeds=lambda: SEED)
            async with fake.running(create_bot(settings, service=service)) as bot:
                for user, name, opts in ((people[0], "create", {"players": 3}),
                                         (people[1], "join", {}), (people[2], "join", {})):
                    if user is people[2]:
                        instrument(fake, ch, tally)  # from the start of the game on
                    ia = await fake.slash(user, ch, name, options=opts)
                    await ia.wait_message(timeout=10)
                await asyncio.sleep(0.5)
                player = Player(fake, ch, tally, pace)
                rng = random.Random(7)
                plays = 0
                while True:
                    info, state = await bot.service.snapshot(ch.id)
                    if state.over:
                        break
                    seat = engine.current_seat(state)
                    assert seat is not None
                    who = info.user_of(seat)
                    assert who is not None
                    user = users[who]
                    if state.pending is not None:
                        await player.choose(user)
                        continue
                    action = pick(state, seat, rng, plays)
                    await player.play(user, action)
                    plays = 0 if action.kind == "end_turn" else plays + 1
                    turns += action.kind == "end_turn"
                await asyncio.sleep(2.5)  # what is still held for coalescing goes out
            await storage.close()
    finally:
        patch.restore()
        await fake.stop()
    return tally, player, turns


def report(tally: Tally, player: Player, turns: int, pace: float) -> None:
    def row(what: str, value: float) -> None:
        print(f"| {what} | {value:,.0f} | {value / turns:.2f} |")

    print(f"\n3 players, 7 rounds, seed {SEED}: {turns} turns, {player.commands} commands "
          f"(pace {pace:g} s)\n")
    print("| per game / per turn | game | turn |")
    print("|---|---|---|")
    row("public messages (channel)", tally.created["channel"])
    row("edits of channel messages", tally.edited["channel"])
    row("pings (channel messages that notify)", tally.pings)
    row("users notified", tally.notified)
    row("images uploaded: channel", tally.images["channel"])
    row("images uploaded: DMs", tally.images["dm"])
    row("images uploaded: private replies", tally.images["reply"])
    row("kB uploaded: channel", tally.bytes["channel"] / 1000)
    row("kB uploaded: DMs", tally.bytes["dm"] / 1000)
    row("kB uploaded: private replies", tally.bytes["reply"] / 1000)
    row("kB uploaded: all", sum(tally.bytes.values()) / 1000)
    row("DMs created", tally.created["dm"])
    row("DMs edited", tally.edited["dm"])
    lat = player.latencies
    if lat:
        print(f"\ncommand -> the channel shows the move (n={len(lat)}): median "
              f"{statistics.median(lat) * 1000:.0f} ms, p99 {p99(lat) * 1000:.0f} ms, "
              f"max {max(lat) * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pace", type=float, default=1.2,
                        help="seconds between a move shown and the next command")
    args = parser.parse_args()
    tally, player, turns = asyncio.run(game(args.pace))
    report(tally, player, max(turns, 1), args.pace)


if __name__ == "__main__":
    main()
