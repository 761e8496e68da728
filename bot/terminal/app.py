"""The terminal adapter: play a whole game on this machine, no Discord needed.

``python -m bot --local --players 3`` seats 3 local players in one pretend channel, stores the
game in the same SQLite file the bot uses, and reads commands with the same words as the slash
commands, played as whoever must act now (``/build keep C4 might``). Extra local words:
``/as NAME /command`` acts as another player, ``/random [N]`` lets a random legal player make N
moves, ``/quit`` (or Ctrl-C, or Ctrl-D) stops; the game is saved after every move, so running
again resumes it. After every move the boards image is written as ``move-<number>.png``, the
number being the move's number in ``/history``; ``latest.png`` is always the last move's.

The loop is synchronous around one ``asyncio.Runner``: a line is read with the event loop idle,
so Ctrl-C at the prompt is an ordinary ``KeyboardInterrupt`` (no waiting for Enter), and
``readline`` (when the terminal has it) gives line editing, a history kept in the data folder,
and Tab completion of the command words.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import signal
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TextIO

import engine
from engine import EngineError, MalformedAction
from engine.random_player import random_action

from ..commands import COMMANDS, Context, excerpt, run_line
from ..images import render_image
from ..limits import chunks
from ..service import Attachment, GameInfo, GameService, GameSettings, Image, Outcome
from ..service.lobby import check_level
from ..storage import Storage, StorageUnavailable, open_checked, storage_for

LOCAL_CHANNEL = 1  # the pretend channel of terminal games
LOCAL_GUILD = 1
NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve")
MIN_PLAYERS, MAX_PLAYERS = 2, 5
MAX_NAME = 32  # as long as a Discord display name
MAX_RANDOM = 10_000  # /random N: more than any game lasts
LOCAL_WORDS = ("as", "random", "quit")
HISTORY_FILE = "terminal-history"  # readline's history, in the data folder
STOPPED = "Stopped. The game is saved; run the same command again to resume it."

_STAMP = re.compile(r"<t:(\d+)(?::[tTdDfFR])?>")
_NAME = re.compile(r"[^\W_][\w'.-]*")


class LocalError(ValueError):
    """The terminal game cannot start as asked; ``str()`` is one sentence for the user."""


def local_times(text: str) -> str:
    """Discord timestamps (``<t:1700000000:R>``) as this machine's local time. The terminal
    adapter ignores timers otherwise: nobody is reminded in a terminal."""
    return _STAMP.sub(
        lambda m: datetime.fromtimestamp(int(m.group(1))).strftime("%Y-%m-%d %H:%M"), text)


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def people_names(players: int | None, names: Sequence[str] | None, bots: int) -> list[str]:
    """The people's names of a new terminal game with ``bots`` computers: ``players`` counts
    every seat (default 3, or the names and the computers)."""
    total = (3 if names is None else len(names) + bots) if players is None else players
    if not MIN_PLAYERS <= total <= MAX_PLAYERS:
        raise LocalError(f"A game has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {total}.")
    people = total - bots
    if people < 1 or bots < 0:
        raise LocalError(f"--bots {bots} leaves no seat for a person in a game of {total}; "
                         "a game needs at least one person.")
    if names is None:
        return list(NAMES[:people])
    padding = [f"Seat{i}" for i in range(len(names), MIN_PLAYERS)]  # seat_names wants two
    chosen = seat_names(None, [*names, *padding])[:len(names)]
    if len(chosen) != people:
        raise LocalError(f"--players {total} with --bots {bots} leaves {people} seats for "
                         f"people, but --names gives {len(chosen)}.")
    return chosen


def seat_names(players: int | None, names: Sequence[str] | None) -> list[str]:
    """The players' names of a new terminal game: ``names`` if given (then ``players``, if also
    given, must match their number), else the first ``players`` default names (3 if neither).

    Raises LocalError naming what is wrong: a count outside 2-5, a count that does not match
    the names, an empty or duplicate name, or one that ``/as NAME`` could not address."""
    if names is None:
        count = 3 if players is None else players
        if not MIN_PLAYERS <= count <= MAX_PLAYERS:
            raise LocalError(f"A game has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {count}.")
        return list(NAMES[:count])
    chosen = [n.strip() for n in names]
    if not MIN_PLAYERS <= len(chosen) <= MAX_PLAYERS:
        raise LocalError(f"--names gives {plural(len(chosen), 'name')}; a game has "
                         f"{MIN_PLAYERS} to {MAX_PLAYERS} players (e.g. --names Ann,Bob,Cid).")
    if players is not None and players != len(chosen):
        raise LocalError(f"--players {players} does not match the {len(chosen)} names of "
                         f"--names ({', '.join(map(short_name, chosen))}); give one name per "
                         "player, or leave out --players.")
    seen: dict[str, str] = {}
    for name in chosen:
        if not name:
            raise LocalError("--names has an empty name; separate the names with single "
                             "commas (e.g. --names Ann,Bob,Cid).")
        if len(name) > MAX_NAME or not _NAME.fullmatch(name):
            raise LocalError(f"The name {excerpt(name)} cannot be used: a name is one word of "
                             f"letters or digits (also ' . - _ inside), at most {MAX_NAME} "
                             "characters.")
        if name.casefold() in seen:
            raise LocalError(f"The names {excerpt(seen[name.casefold()])} and {excerpt(name)} "
                             "are the same to /as; give each player a different name.")
        seen[name.casefold()] = name
    return chosen


def write(out: TextIO, text: str) -> None:
    """Print ``text`` in pieces of at most 2,000 characters, as Discord would show it."""
    for part in chunks(text) if text.strip() else [text]:
        out.write(part + "\n")


def short_name(name: str) -> str:
    """A name as typed, or an excerpt of it when it is longer than a name may be."""
    return name if len(name) <= MAX_NAME else excerpt(name)


def image_png(image: Image) -> bytes:
    """The PNG of an image the service asked for (the helper shared with Discord)."""
    return render_image(image)[0]


def flag_text(flag: str, value: object) -> str:
    """A flag as typed: ``--players 4``, ``--names Al,Bo``, ``--holdem``."""
    if value is True:
        return flag
    if isinstance(value, list | tuple):
        return f"{flag} {','.join(map(str, value))}"
    return f"{flag} {value}"


def matches(info: GameInfo, flag: str, value: object) -> bool:
    """Whether the saved game already is what new-game ``flag`` asks for."""
    by_user = [s.name for s in sorted(info.seats, key=lambda s: s.user_id)]
    if flag == "--players":
        return value == len(info.seats)
    if flag == "--names":
        return isinstance(value, list | tuple) and list(value) == by_user
    if flag == "--holdem":
        return value == info.settings.holdem
    return False  # --seed: the saved game's seed is not known here


class ImageWriter:
    """Writes images as PNG files into ``root/game-<id>/``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder = root

    def use_game(self, game_id: int) -> None:
        self.folder = self.root / f"game-{game_id}"

    def write(self, image: Image, name: str, *, latest: bool = False) -> Path:
        """Write ``image`` as ``name``; ``latest``: also as ``latest.png`` (moves only, so that
        a /status or /board never hides the last move's image)."""
        data = image_png(image)
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / name
        path.write_bytes(data)
        if latest:
            (self.folder / "latest.png").write_bytes(data)
        return path


    def write_text(self, file: Attachment) -> Path:
        """Write a reply's file (a game's record) into the game's folder."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / file.name
        path.write_text(file.text, encoding="utf-8")
        return path


def reply_image_name(image: Image) -> str:
    """File name of an image answering a command: ``status.png``, ``board-faith.png``,
    ``compare.png`` (never a move's name, never ``latest.png``)."""
    if image.kind == "compare":
        return "compare.png"
    if image.age is not None:
        return f"board-{image.age.label.lower()}.png"
    return "status.png"


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
        bots: int = 0,
        bot_level: str = "normal",
    ) -> None:
        self.service = service
        self.bots = bots  # computer seats of a new game
        self.bot_level = bot_level
        self.names = names
        self.users = {i + 1: n for i, n in enumerate(names)}
        self.images = images
        self.out = out
        self.chooser = chooser or random.Random()
        self._last_user: int | None = None

    def say(self, text: str) -> None:
        write(self.out, local_times(text))

    def ctx(self, user_id: int) -> Context:
        return Context(LOCAL_CHANNEL, user_id, self.users[user_id], LOCAL_GUILD, is_admin=True)

    def user_named(self, name: str) -> int | None:
        key = name.casefold()
        return next((u for u, n in self.users.items() if n.casefold() == key), None)

    async def saved(self) -> GameInfo | None:
        """The saved terminal game that is still being played (lobby or active), if any."""
        try:
            info = await self.service.info(LOCAL_CHANNEL)
        except EngineError:
            return None
        return info if info.status in ("lobby", "active") else None

    async def setup(self, settings: GameSettings, seed: int | None, new: bool,
                    *, asked: dict[str, object] | None = None) -> None:
        """Resume the saved local game, or create and start a new one.

        ``asked``: the new-game flags the user gave, by flag (``{"--players": 4}``). Resuming
        a saved game that does not match them would silently ignore them, so that raises
        LocalError and changes nothing (a seed cannot be checked, so it never matches)."""
        info = await self.saved()
        if info is not None and not new:
            ignored = [flag_text(flag, value) for flag, value in (asked or {}).items()
                       if not matches(info, flag, value)]
            if ignored:
                raise LocalError(
                    f"A saved terminal game is in progress (game #{info.game_id}: "
                    f"{', '.join(s.name for s in info.seats)}), and {' '.join(ignored)} "
                    f"{'does' if len(ignored) == 1 else 'do'} not fit it; run without "
                    f"{'it' if len(ignored) == 1 else 'them'} to resume that game, or add --new "
                    "to abandon it and start a new one.")
            self.users = {s.user_id: s.name for s in info.seats}
            self.images.use_game(info.game_id)
            self.say(f"Resuming game #{info.game_id}: " + ", ".join(s.name for s in info.seats))
            if info.status == "lobby":
                await self.show(await self.service.start(LOCAL_CHANNEL, info.creator_id,
                                                         is_admin=True))
            else:
                await self.show(await self.service.status(LOCAL_CHANNEL))
            return
        if info is not None:  # --new
            await self.service.abandon(LOCAL_CHANNEL, info.creator_id, is_admin=True)
            self.say(f"Game #{info.game_id} is abandoned; a new game starts.")
        first = 1
        await self.show(await self.service.create_game(
            LOCAL_CHANNEL, first, self.users[first], guild_id=LOCAL_GUILD,
            settings=settings, seed=seed, bots=self.bots, bot_level=self.bot_level))
        for user in list(self.users)[1:]:
            await self.show(await self.service.join(LOCAL_CHANNEL, user, self.users[user]))
        if settings.seats is None:
            await self.show(await self.service.start(LOCAL_CHANNEL, first))
        info = await self.service.info(LOCAL_CHANNEL)
        self.users = {s.user_id: s.name for s in info.seats}

    async def computers(self) -> None:
        """Play the computers' actions until a person must act (or the game ends)."""
        info = await self.saved()
        if info is None or info.status != "active":
            return
        for out in await self.service.play_computers(info.game_id):
            await self.show(out)

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
        name = info.plain_names[seat]
        return user, f"[round {state.round}] {name}{choice} {plural(p.ecus, 'Ecu')} > "

    async def move_number(self) -> int:
        """The number ``/history`` gives the last move (0 before the first)."""
        entries = await self.service.history_entries(LOCAL_CHANNEL, limit=1)
        return entries[-1].seq if entries else 0

    async def show(self, outcome: Outcome) -> None:
        live = outcome.game is not None and outcome.game.status in ("lobby", "active", "over")
        if outcome.game is not None:
            self.images.use_game(outcome.game.game_id)
        if outcome.reply is not None:
            self.say(outcome.reply.text)
            image = outcome.reply.image
            if image is not None and image.kind != "hand":
                self.say(f"  [image: {self.images.write(image, reply_image_name(image))}]")
            if outcome.reply.file is not None:  # a game's record (/game export)
                self.say(f"  [file: {self.images.write_text(outcome.reply.file)}]")
        for post in outcome.public:
            self.say(post.text)
            if post.image is not None and post.image.kind == "summary":
                self.say(f"  [image: {self.images.write(post.image, 'summary.png')}]")
            elif post.image is not None and post.image.kind == "move" and live:
                name = f"move-{await self.move_number():03d}.png"
                self.say(f"  [image: {self.images.write(post.image, name, latest=True)}]")
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

    async def command(self, line: str, user: int) -> bool:
        """Run one line as ``user``; returns False to stop."""
        words = line.split()
        if not words:
            return True
        head = words[0].lstrip("/").lower()
        if head in ("quit", "exit", "q"):
            return False
        if head == "as":
            if len(words) < 3:
                self.say("Usage: /as NAME /command, e.g. /as Bob /hand.")
                return True
            other = self.user_named(words[1])
            if other is None:
                self.say(f"No player is called {short_name(words[1])}; the players are "
                         + ", ".join(self.users.values()) + ".")
                return True
            return await self.command(" ".join(words[2:]), other)
        if head == "random":
            count = 1
            if len(words) > 1:
                if len(words) > 2 or not words[1].isdigit() or not 1 <= int(words[1]) <= MAX_RANDOM:
                    self.say(f"Usage: /random [N], N a number of moves from 1 to {MAX_RANDOM}.")
                    return True
                count = int(words[1])
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
        await self.computers()  # a computer's turn is its own, never a random move
        info, state = await self.service.snapshot(LOCAL_CHANNEL)
        if state.over:
            return False
        seat, action = random_action(state, self.chooser)
        user = info.user_of(seat)
        assert user is not None
        self._last_user = user
        self.say(f"{info.plain_names[seat]} (random) plays {engine.dump_action(action)}")
        await self.show(await self.service.act(LOCAL_CHANNEL, user, action))
        return True

    async def game_over(self) -> None:
        self.say("The game is over; it stays saved, with its /history.")
        final = await self.service.status(LOCAL_CHANNEL)
        if final.reply:
            self.say(final.reply.text)


# --- reading lines --------------------------------------------------------------------------

Lines = Callable[[str], str | None]  # prompt -> the typed line, None at the end of input


def completions(text: str, words: Iterable[str]) -> list[str]:
    """The command words (as ``/word``) that start with ``text`` (with or without its ``/``)."""
    stem = text.lstrip("/").lower()
    return [f"/{w}" for w in sorted(words) if w.startswith(stem)]


def _readline(history: Path) -> Callable[[], None]:
    """Turn on line editing, a saved history and Tab completion for ``input()``, if this Python
    has ``readline``; returns what saves the history at the end."""
    try:
        import readline
    except ImportError:  # e.g. Windows: input() still works, without editing
        return lambda: None
    words = [*COMMANDS, *LOCAL_WORDS]

    def complete(text: str, state: int) -> str | None:
        if readline.get_begidx() > 0:  # complete the command word only
            return None
        found = completions(text, words)
        return found[state] if state < len(found) else None

    readline.set_completer(complete)
    readline.set_completer_delims(" \t\n")
    if "libedit" in (readline.__doc__ or ""):  # macOS
        readline.parse_and_bind("bind ^I rl_complete")
    else:
        readline.parse_and_bind("tab: complete")
    readline.set_history_length(1000)
    with contextlib.suppress(OSError):  # no history yet
        readline.read_history_file(history)

    def save() -> None:
        with contextlib.suppress(OSError):  # a read-only folder loses the history, not the game
            readline.write_history_file(history)

    return save


def terminal_lines(out: TextIO, history: Path) -> tuple[Lines, Callable[[], None]]:
    """Read lines from stdin: with ``input()`` and readline on a terminal, else plainly (and
    echoed, so a piped script reads like a session). Returns the reader and the history saver."""
    if sys.stdin.isatty():
        save = _readline(history)

        def ask(prompt: str) -> str | None:
            try:
                return input(prompt)
            except EOFError:  # Ctrl-D
                return None

        return ask, save

    def read(prompt: str) -> str | None:
        out.write(prompt)
        line = sys.stdin.readline()
        if not line:
            return None
        write(out, line.removesuffix("\n"))  # echoed, cut as any printed text
        return line

    return read, _nothing


def _nothing() -> None:
    return None


# --- the session ----------------------------------------------------------------------------


@contextlib.contextmanager
def _sigint_to_this_thread_only() -> Iterator[None]:
    """Threads started inside inherit a mask that blocks SIGINT, so Ctrl-C always reaches the
    main thread. POSIX lets a process's signal go to any thread that does not block it (Linux
    prefers the main thread, other systems need not); had a database thread taken it, the main
    thread, waiting in ``input()``, would only notice it after the next Enter."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: no such choice to make
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def run_local(
    *,
    data_dir: Path,
    images_dir: Path,
    players: int | None = None,
    names: Sequence[str] | None = None,
    holdem: bool | None = None,
    seed: int | None = None,
    new: bool = False,
    random_moves: int = 0,
    out: TextIO | None = None,
    lines: Lines | None = None,
    database_url: str | None = None,
    bots: int = 0,
    bot_level: str = "normal",
    bot_budget: float = 0.8,
) -> int:
    """Play in the terminal until the game ends, the input ends, ``/quit`` or Ctrl-C.

    ``players``, ``names``, ``holdem`` and ``seed`` shape a new game; None means "not given"
    (a saved game then resumes; given, they refuse to resume it unless ``new``). ``lines``
    reads a line for a prompt (default: the terminal). ``bots`` of the ``players`` seats are
    computers of ``bot_level`` (docs/ai.md); they play at once after each command. The game is
    kept in the SQLite file of ``data_dir``, or in PostgreSQL at ``database_url``. Returns the
    exit status: 0, or 2 with a one-sentence refusal on ``out`` when the flags cannot be used
    (nothing is changed then)."""
    out = out or sys.stdout
    try:
        chosen = seat_names(players, names) if not bots else people_names(players, names, bots)
        check_level(bot_level)
    except (LocalError, MalformedAction) as exc:
        write(out, str(exc))
        return 2
    asked: dict[str, object] = {flag: value for flag, value in (
        ("--players", players), ("--names", chosen if names is not None else None),
        ("--holdem", holdem), ("--seed", seed)) if value is not None}
    save_history: Callable[[], None] = _nothing
    if lines is None:
        lines, save_history = terminal_lines(out, data_dir / HISTORY_FILE)
    with asyncio.Runner() as runner:
        storage = storage_for(data_dir, database_url)
        try:
            with _sigint_to_this_thread_only():
                runner.run(open_checked(storage))  # starts the database's threads
            # the terminal shows each outcome at once: no outbox, no deliverer (docs/service.md)
            service = GameService(storage, outbox=False, computer_delay=0.0,
                                  computer_budget=bot_budget)
            game = LocalGame(service, chosen, ImageWriter(images_dir), out,
                             chooser=random.Random(seed), bots=bots, bot_level=bot_level)
            return _play(runner, game, storage, lines, asked=asked, new=new,
                         settings=GameSettings(seats=None, holdem=bool(holdem)), seed=seed,
                         random_moves=random_moves)
        except StorageUnavailable as exc:  # KHRONOS_DATABASE_URL: no server, or refused
            write(out, str(exc))
            return exc.status
        except KeyboardInterrupt:  # Ctrl-C while a command ran: it was cancelled, not half-done
            out.write(f"\n{STOPPED}\n")
            return 0
        finally:
            runner.run(storage.close())
            save_history()


def _play(runner: asyncio.Runner, game: LocalGame, storage: Storage, lines: Lines, *,
          asked: dict[str, object], new: bool, settings: GameSettings, seed: int | None,
          random_moves: int) -> int:
    out = game.out
    where = "Game file" if isinstance(storage.path, Path) else "Games in"
    out.write(f"Khronos in the terminal. {where}: {storage.path}\n")
    try:
        runner.run(game.setup(settings, seed, new, asked=asked))
    except LocalError as exc:
        write(out, str(exc))
        return 2
    out.write(f"Board images go to {game.images.folder}/: move-<number>.png per move (the "
              "number of /history), latest.png for the last move.\n")
    out.write("Type /help for the commands. Here also: /as NAME /command acts as another "
              "player, /random N plays N random moves, /quit (or Ctrl-C) stops.\n")
    for _ in range(random_moves):
        if not runner.run(game.random_move()):
            break
    while True:
        runner.run(game.computers())
        now = runner.run(game.actor())
        if now is None:
            runner.run(game.game_over())
            return 0
        user, prompt = now
        try:
            line = lines(prompt)
        except KeyboardInterrupt:  # Ctrl-C at the prompt: the game is already saved
            out.write(f"\n{STOPPED}\n")
            return 0
        if line is None:  # end of input
            out.write(f"\n{STOPPED}\n")
            return 0
        if not runner.run(game.command(line.strip(), user)):
            out.write(f"{STOPPED}\n")
            return 0
