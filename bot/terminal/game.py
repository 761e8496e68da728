"""One terminal game (``LocalGame``): local players 1..n around one pretend channel, the
commands they type run through the command table as in Discord, and what the service says
printed, in the game's language. A construct or upgrade whose effects reach beyond its
squares is previewed and asks y/n first; a command missing its square lists where it fits;
after computers play, the person to act sees what changed since his last move."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import engine
from engine import EngineError
from engine.random_player import random_action

from .. import i18n
from ..commands import (
    COMMANDS,
    PREVIEWED,
    Context,
    MissingArgs,
    action_line,
    completion_order,
    execute,
    local_name,
    parse_line,
    preview_of,
)
from ..commands.words import normalize
from ..service import GameInfo, GameService, GameSettings, Image, Outcome, is_computer
from ..service.texts import count_text
from .complete import Table, local_word_of, values_of
from .screen import ImageWriter, Screen, reply_image_name
from .seats import not_fitting, short_name

LOCAL_CHANNEL = 1  # the pretend channel of terminal games
LOCAL_GUILD = 1
MAX_RANDOM = 10_000  # /random N: more than any game lasts
LISTED = 24  # squares a command missing its square lists at most
YES = ("y", "yes", "o", "oui", "j", "ja")

Ask = Callable[[str], str | None]


class LocalGame:
    """One terminal game: players are local users 1..n with fixed names."""

    def __init__(self, service: GameService, names: list[str], images: ImageWriter,
                 screen: Screen, ask: Ask, *, chooser: random.Random | None = None,
                 bots: int = 0, bot_level: str = "normal", lang: str | None = None) -> None:
        self.service = service
        self.bots = bots  # computer seats of a new game
        self.bot_level = bot_level
        self.users = {i + 1: n for i, n in enumerate(names)}
        self.images = images
        self.screen = screen
        self.ask = ask
        self.lang_asked = lang  # --lang (or LANG for a new game): the game speaks it
        self.chooser = chooser or random.Random()
        self.table = Table(locale=screen.lang)  # what Tab completion sees
        self._last_user: int | None = None

    @property
    def lang(self) -> str:
        return self.screen.lang

    def ctx(self, user_id: int) -> Context:
        return Context(LOCAL_CHANNEL, user_id, self.users[user_id], LOCAL_GUILD, is_admin=True,
                       locale=self.lang, plain=True)

    @contextmanager
    def reading(self) -> Iterator[None]:
        """The service speaks the terminal's language to its reader inside the block."""
        with i18n.reading(self.lang):
            yield

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
            problem = not_fitting(info, asked or {}, self.lang)
            if problem is not None:
                raise problem
            await self._resume(info)
            return
        with self.reading():
            if info is not None:  # --new
                await self.service.abandon(LOCAL_CHANNEL, info.creator_id, is_admin=True)
                self.screen.put("abandoned", id=info.game_id)
            first = 1
            settings = settings.model_copy(update={"language": self.lang})
            await self.show(await self.service.create_game(
                LOCAL_CHANNEL, first, self.users[first], guild_id=LOCAL_GUILD,
                settings=settings, seed=seed, bots=self.bots, bot_level=self.bot_level))
            for user in list(self.users)[1:]:
                await self.show(await self.service.join(LOCAL_CHANNEL, user, self.users[user]))
            if settings.seats is None:
                await self.show(await self.service.start(LOCAL_CHANNEL, first))
        info = await self.service.info(LOCAL_CHANNEL)
        self.users = {s.user_id: s.name for s in info.seats}

    async def _resume(self, info: GameInfo) -> None:
        """Resume ``info``'s game in its language (or the one asked, which it then takes):
        the status, and the hand of whoever acts."""
        self.users = {s.user_id: s.name for s in info.seats}
        self.images.use_game(info.game_id)
        self.screen.lang = info.settings.language
        if self.lang_asked is not None:
            self.screen.lang = self.lang_asked
        self.screen.put("resuming", id=info.game_id,
                        names=", ".join(s.name for s in info.seats))
        with self.reading():
            if self.lang_asked is not None and self.lang_asked != info.settings.language:
                await self.show(await self.service.update_settings(
                    LOCAL_CHANNEL, info.creator_id, language=self.lang_asked, is_admin=True))
            if info.status == "lobby":
                await self.show(await self.service.start(LOCAL_CHANNEL, info.creator_id,
                                                         is_admin=True))
                return
            await self.show(await self.service.status(LOCAL_CHANNEL))
            now = await self.actor()
            if now is not None and not is_computer(now[0]):
                self._last_user = now[0]
                await self.show(await self.service.hand(LOCAL_CHANNEL, now[0]))

    async def computers(self, *, summary: bool = True) -> None:
        """Play the computers' actions until a person must act (or the game ends), each shown
        (and its image written) as soon as it is played; then, with ``summary``, what changed
        since that person's last move, in words and as a before-and-after picture."""
        info = await self.saved()
        if info is None or info.status != "active":
            return
        with self.reading():
            played = await self.service.play_computers(info.game_id, each=self.show)
        now = await self.actor() if played and summary else None
        if now is not None and not is_computer(now[0]):
            with self.reading():
                since = await self.service.since_last_move(LOCAL_CHANNEL, now[0])
            if since is not None:
                await self.show(since, image_name="since-last-turn.png")

    async def actor(self) -> tuple[int, str] | None:
        """The user who must act now, and a prompt in the game's language; None when the game
        is over. What Tab completion sees follows."""
        info, state = await self.service.snapshot(LOCAL_CHANNEL)
        self.screen.lang = info.settings.language
        seat = engine.current_seat(state)
        self.table = Table(state, seat, info.plain_names, self.lang)
        if seat is None:
            return None
        user = info.user_of(seat)
        assert user is not None
        p = state.players[seat]
        choice = self.screen.text("choice") if state.pending is not None else ""
        return user, self.screen.text("prompt", round=state.round, name=info.plain_names[seat],
                                      choice=choice, ecus=count_text("ecus", p.ecus, self.lang))

    async def move_number(self) -> int:
        """The number ``/history`` gives the last move (0 before the first)."""
        entries = await self.service.history_entries(LOCAL_CHANNEL, limit=1)
        return entries[-1].seq if entries else 0

    def image(self, image: Image, name: str, *, latest: bool = False) -> None:
        self.screen.put("image", path=self.images.write(image, name, latest=latest))

    async def show(self, outcome: Outcome, *, image_name: str | None = None) -> None:
        """Print what a command or a computer's move did: the posts (each move's image
        written under its number), the reply, the private messages meant for the player at
        the keyboard (his hand, a choice, his turn) and the pings."""
        live = outcome.game is not None and outcome.game.status in ("lobby", "active", "over")
        if outcome.game is not None:
            self.images.use_game(outcome.game.game_id)
        for post in outcome.public:
            if post.text:  # the start's picture comes without words
                self.screen.say(post.text)
            if post.image is not None and post.image.kind == "summary":
                self.image(post.image, "summary.png")
            elif post.image is not None and post.image.kind == "move" and live:
                self.image(post.image, f"move-{await self.move_number():03d}.png", latest=True)
        if outcome.reply is not None:  # after the posts, as Discord answers last
            self.screen.say(outcome.reply.text)
            image = outcome.reply.image
            if image is not None and image.kind != "hand":
                self.image(image, image_name or reply_image_name(image))
            if outcome.reply.file is not None:  # a game's record (/game export)
                self.screen.put("file", path=self.images.write_text(outcome.reply.file))
        for dm in outcome.direct:
            if dm.kind in ("choice", "your_turn") or dm.user_id == self._last_user:
                who = self.users.get(dm.user_id, str(dm.user_id))
                self.screen.put("private", name=who, text=dm.text)
                if dm.decision is not None:
                    for i, label in enumerate(dm.decision.options, 1):
                        default = self.screen.text("default") if i - 1 == \
                            dm.decision.default else ""
                        self.screen.put("option", number=i, label=label, default=default)
                    self.screen.put("numbered", path=self.images.folder / "latest.png")
        for ping in outcome.pings:
            self.screen.say(f"@{self.users.get(ping.user_id, ping.user_id)} {ping.text}")

    async def command(self, line: str, user: int) -> bool:
        """Run one line as ``user``; returns False to stop."""
        words = line.split()
        if not words:
            return True
        local = local_word_of(words[0])
        if local == "quit":
            return False
        if local == "as":
            return await self._as(words)
        if local == "random":
            await self._random(words)
            return True
        self._last_user = user
        try:
            await self._run(line, user)
        except EngineError as exc:
            self.refused(exc)
            if isinstance(exc, MissingArgs):
                await self._list_missing(exc, user)
        return True

    def refused(self, exc: EngineError) -> None:
        """A refusal, naming its rule once (the message usually names it already)."""
        if exc.rule and exc.rule not in exc.message:
            self.screen.put("refused_rule", rule=exc.rule, message=exc.message)
        else:
            self.screen.put("refused", message=exc.message)

    async def _run(self, line: str, user: int) -> None:
        """Parse and run a line; a construct or upgrade whose effects reach beyond its own
        squares is first previewed, and played only on a yes."""
        ctx = self.ctx(user)
        with self.reading():
            parsed = parse_line(line)
        if parsed.name in PREVIEWED:
            seen = await preview_of(self.service, ctx, parsed.name, parsed.args)
            if seen is not None:
                self.screen.put("preview")
                self.screen.say(seen.text)
                self.image(seen.image, "preview.png")
                if not yes(self.ask(self.screen.text("confirm"))):
                    self.screen.say(i18n.text("preview.cancel", self.lang))
                    return
        await self.show(await execute(self.service, ctx, parsed.name, parsed.args))

    async def _list_missing(self, exc: MissingArgs, user: int) -> None:
        """After "missing square": where the command fits now, with the cost (the legal
        squares; else the values of the first parameter missing)."""
        spec = COMMANDS[exc.command]
        missing = [p for p in completion_order(spec) if p.name in exc.missing]
        if not missing:
            return
        param = next((p for p in missing if p.kind == "square"), missing[0])
        info, state = await self.service.snapshot(LOCAL_CHANNEL)
        table = Table(state, info.seat_of(user), info.plain_names, self.lang)
        found = values_of(spec, param, exc.given, table)
        if not found:
            self.screen.put("legal_none", command=local_name(spec.name, self.lang))
            return
        self.screen.put("legal")
        for _, label in found[:LISTED]:
            self.screen.say("  " + label)
        if len(found) > LISTED:
            self.screen.put("legal_more", count=len(found) - LISTED)

    async def _as(self, words: list[str]) -> bool:
        if len(words) < 3:
            self.screen.put("as_usage")
            return True
        other = self.user_named(words[1])
        if other is None:
            self.screen.put("no_player", name=short_name(words[1]),
                            names=", ".join(self.users.values()))
            return True
        return await self.command(" ".join(words[2:]), other)

    async def _random(self, words: list[str]) -> None:
        count = 1
        if len(words) > 1:
            if len(words) > 2 or not words[1].isdigit() or not 1 <= int(words[1]) <= MAX_RANDOM:
                self.screen.put("random_usage", max=MAX_RANDOM)
                return
            count = int(words[1])
        for _ in range(count):
            if not await self.random_move():
                break

    async def random_move(self) -> bool:
        await self.computers(summary=False)  # a computer's turn is its own, never a random move
        info, state = await self.service.snapshot(LOCAL_CHANNEL)
        if state.over:
            return False
        seat, action = random_action(state, self.chooser)
        user = info.user_of(seat)
        assert user is not None
        self._last_user = user
        self.screen.put("random_plays", name=info.plain_names[seat],
                         line=action_line(action, self.lang))
        with self.reading():
            await self.show(await self.service.act(LOCAL_CHANNEL, user, action))
        return True

    async def game_over(self) -> None:
        self.screen.put("over")
        with self.reading():
            final = await self.service.status(LOCAL_CHANNEL)
        if final.reply:
            self.screen.say(final.reply.text)


def yes(answer: Any) -> bool:
    """y, yes, o, oui, j, ja: a yes in any of the terminal's languages."""
    return isinstance(answer, str) and normalize(answer) in YES
