"""The terminal adapter: play a whole game on this machine, no Discord needed.

``python -m bot --local --players 3`` seats 3 local players in one pretend channel, stores the
game in the same SQLite file the bot uses, and reads commands with the same words as the slash
commands, played as whoever must act now (``/build keep C4 might``). Extra local words:
``/as NAME /command`` acts as another player, ``/random [N]`` lets a random legal player make N
moves, ``/quit`` stops (the game stays saved; run again to resume). After every move the boards
image is written to a folder the adapter prints.
"""

from __future__ import annotations

import asyncio
import random
import re
import sys
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import TextIO

import engine
from engine import EngineError
from engine.random_player import random_action

from .service import GameService, GameSettings, Image, Outcome
from .storage import Storage
from .textcommands import Context, run_line

LOCAL_CHANNEL = 1  # the pretend channel of terminal games
LOCAL_GUILD = 1
NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve")


_STAMP = re.compile(r"<t:(\d+)(?::[tTdDfFR])?>")


def local_times(text: str) -> str:
    """Discord timestamps (``<t:1700000000:R>``) as this machine's local time. The terminal
    adapter ignores timers otherwise: nobody is reminded in a terminal."""
    return _STAMP.sub(
        lambda m: datetime.fromtimestamp(int(m.group(1))).strftime("%Y-%m-%d %H:%M"), text)


class ImageWriter:
    """Writes the boards image of each move as PNG (via ``render``, imported lazily)."""

    def __init__(self, root: Path, out: TextIO) -> None:
        self.root = root
        self.folder = root
        self.out = out
        self._warned = False

    def _renderer(self) -> object | None:
        try:
            import render
        except Exception:
            return None
        return render if hasattr(render, "boards_png") else None

    def write(self, image: Image, name: str) -> Path | None:
        render = self._renderer()
        if render is None:
            if not self._warned:
                self.out.write("(render.boards_png is not available: no images are written)\n")
                self._warned = True
            return None
        highlights = render.highlights_from_events(list(image.events))  # type: ignore[attr-defined]
        names = [image.names.get(i, f"Player {i + 1}") for i in range(len(image.names))]
        if image.kind == "compare":
            data = render.before_after_png(  # type: ignore[attr-defined]
                image.before_view, image.view, names, highlights, image.alt)
        else:
            data = render.boards_png(image.view, names, highlights)  # type: ignore[attr-defined]
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / name
        path.write_bytes(data)
        (self.folder / "latest.png").write_bytes(data)
        return path


class LocalGame:
    """One terminal game: players are local users 1..n with fixed names."""

    def __init__(
        self,
        service: GameService,
        names: list[str],
        images: ImageWriter,
        out: TextIO,
        *,
        chooser: random.Random | None = None,
    ) -> None:
        self.service = service
        self.names = names
        self.users = {i + 1: n for i, n in enumerate(names)}
        self.images = images
        self.out = out
        self.chooser = chooser or random.Random()
        self.moves = 0

    def say(self, text: str) -> None:
        self.out.write(local_times(text) + "\n")

    def ctx(self, user_id: int) -> Context:
        return Context(LOCAL_CHANNEL, user_id, self.users[user_id], LOCAL_GUILD, is_admin=True)

    def user_named(self, name: str) -> int | None:
        key = name.lower()
        return next((u for u, n in self.users.items() if n.lower() == key), None)

    async def setup(self, settings: GameSettings, seed: int | None, new: bool) -> None:
        """Resume the saved local game, or create and start a new one."""
        try:
            info = await self.service.info(LOCAL_CHANNEL)
        except EngineError:
            info = None
        if info is not None and info.status in ("lobby", "active"):
            if new:
                await self.service.abandon(LOCAL_CHANNEL, info.creator_id, is_admin=True)
            else:
                self.users = {s.user_id: s.name for s in info.seats}
                self.say(f"Resuming game #{info.game_id}: "
                         + ", ".join(s.name for s in info.seats))
                if info.status == "lobby":
                    await self.show(await self.service.start(LOCAL_CHANNEL, info.creator_id,
                                                             is_admin=True))
                else:
                    await self.show(await self.service.status(LOCAL_CHANNEL))
                return
        first = 1
        await self.show(await self.service.create_game(
            LOCAL_CHANNEL, first, self.users[first], guild_id=LOCAL_GUILD,
            settings=settings, seed=seed))
        for user in list(self.users)[1:]:
            await self.show(await self.service.join(LOCAL_CHANNEL, user, self.users[user]))
        if settings.seats is None:
            await self.show(await self.service.start(LOCAL_CHANNEL, first))

    async def actor(self) -> tuple[int, str] | None:
        """The user who must act now, and a prompt; None when the game is over."""
        info, state = await self.service.snapshot(LOCAL_CHANNEL)
        seat = engine.current_seat(state)
        if seat is None:
            return None
        user = info.user_of(seat)
        assert user is not None
        p = state.players[seat]
        choice = " (choice)" if state.pending is not None else ""
        return user, f"[round {state.round}] {info.names[seat]}{choice} {p.ecus} Ecus > "

    async def show(self, outcome: Outcome) -> None:
        if outcome.game is not None:
            self.images.folder = self.images.root / f"game-{outcome.game.game_id}"
        if outcome.reply is not None:
            self.say(outcome.reply.text)
            if outcome.reply.image is not None and outcome.reply.image.kind != "hand":
                name = "compare.png" if outcome.reply.image.kind == "compare" else "status.png"
                path = self.images.write(outcome.reply.image, name)
                if path:
                    self.say(f"  [image: {path}]")
        for post in outcome.public:
            self.say(post.text)
            if post.image is not None and post.image.kind == "boards":
                version = outcome.game.version if outcome.game else 0
                path = self.images.write(post.image, f"v{version:04d}.png")
                if path:
                    self.say(f"  [image: {path}]")
        for dm in outcome.direct:
            if dm.kind in ("choice", "your_turn") or dm.user_id == self._last_user:
                who = self.users.get(dm.user_id, str(dm.user_id))
                self.say(f"  (to {who} privately) {dm.text}")
                if dm.decision is not None:
                    for i, label in enumerate(dm.decision.options, 1):
                        default = " (default)" if i - 1 == dm.decision.default else ""
                        self.say(f"      /choose {i}: {label}{default}")
        for ping in outcome.pings:
            self.say(f"@{self.users.get(ping.user_id, ping.user_id)} {ping.text}")

    _last_user: int | None = None

    async def command(self, line: str, user: int) -> bool:
        """Run one line as ``user``; returns False to stop."""
        words = line.split()
        if not words:
            return True
        head = words[0].lstrip("/").lower()
        if head in ("quit", "exit", "q"):
            return False
        if head == "as" and len(words) >= 3:
            other = self.user_named(words[1])
            if other is None:
                self.say(f"No player is called {words[1]}.")
                return True
            return await self.command(" ".join(words[2:]), other)
        if head == "random":
            count = int(words[1]) if len(words) > 1 and words[1].isdigit() else 1
            for _ in range(count):
                if not await self.random_move():
                    break
            return True
        self._last_user = user
        try:
            await self.show(await run_line(self.service, self.ctx(user), line))
        except EngineError as exc:
            rule = f" [{exc.rule}]" if exc.rule else ""
            self.say(f"Refused{rule}: {exc.message}")
        return True

    async def random_move(self) -> bool:
        info, state = await self.service.snapshot(LOCAL_CHANNEL)
        if state.over:
            return False
        seat, action = random_action(state, self.chooser)
        user = info.user_of(seat)
        assert user is not None
        self._last_user = user
        self.say(f"{info.names[seat]} (random) plays {engine.dump_action(action)}")
        await self.show(await self.service.act(LOCAL_CHANNEL, user, action))
        return True

    async def loop(self, lines: Callable[[str], str | None]) -> None:
        while True:
            now = await self.actor()
            if now is None:
                self.say("The game is over. /status shows the final fortunes; the game is saved.")
                final = await self.service.status(LOCAL_CHANNEL)
                if final.reply:
                    self.say(final.reply.text)
                return
            user, prompt = now
            line = lines(prompt)
            if line is None:
                self.say("")
                return
            if not await self.command(line.strip(), user):
                return


def _stdin_lines(out: TextIO) -> Callable[[str], str | None]:
    interactive = sys.stdin.isatty()

    def read(prompt: str) -> str | None:
        if interactive:
            try:
                return input(prompt)
            except EOFError:
                return None
        out.write(prompt)
        line = sys.stdin.readline()
        if not line:
            return None
        out.write(line if line.endswith("\n") else line + "\n")
        return line

    return read


async def run_local(
    *,
    players: int,
    data_dir: Path,
    images_dir: Path,
    holdem: bool = False,
    seed: int | None = None,
    names: Iterable[str] | None = None,
    new: bool = False,
    random_moves: int = 0,
    out: TextIO | None = None,
    lines: Callable[[str], str | None] | None = None,
) -> int:
    out = out or sys.stdout
    chosen = list(names or NAMES[:players])[:players]
    storage = Storage.in_dir(data_dir)
    await storage.open()
    try:
        service = GameService(storage)
        game = LocalGame(service, chosen, ImageWriter(images_dir, out), out,
                         chooser=random.Random(seed))
        out.write(f"Khronos in the terminal. Game file: {storage.path}\n")
        await game.setup(GameSettings(seats=None, holdem=holdem), seed, new)
        out.write(f"Board images go to {game.images.folder}/ (latest.png is the newest).\n")
        out.write("Type /help for the commands; /random N plays N random moves; /quit stops.\n")
        for _ in range(random_moves):
            if not await game.random_move():
                break
        await game.loop(lines or _stdin_lines(out))
    finally:
        await storage.close()
    return 0


def main_local(args: object) -> int:
    from argparse import Namespace

    assert isinstance(args, Namespace)
    names = args.names.split(",") if args.names else None
    return asyncio.run(
        run_local(
            players=args.players,
            data_dir=Path(args.data_dir),
            images_dir=Path(args.images),
            holdem=args.holdem,
            seed=args.seed,
            names=names,
            new=args.new,
            random_moves=args.random,
        )
    )
