"""The command vocabulary, in one table, and a parser for typed command lines.

``COMMANDS`` names every command, its description and its parameters in order; the Discord
adapter builds its slash commands from the same table (names, descriptions, choices), and both
front ends call ``execute(service, ctx, name, args)``. In the terminal a command is typed like
the slash command it mirrors::

    /build keep C4 might            /upgrade C4 castle might at B3      /travel 1 faith
    /populate L12 2                 /renovate C4                        /demolish H2 might
    /exchange mmr                   /holdem take cc give mr             /end discard m
    /choose 2                       /undo  /hand  /status  /history  /board  /help

Parameters are given in order; optional ones may be skipped, and any may be named
(``at B3``, ``pay mr``, ``age:might``). Cards are letters: m military, r religious, c civil.
The commands that Discord shows in a group (``/game pause``) may be typed with or without
the group's word.

The table also says what Discord needs to declare each command (``bot/discord/slash.py`` builds the
slash commands from it alone): each parameter's kind (the option type), range, choices,
description and whether it is required; ``form``, the order in which Discord asks the options
(the order a player fills them: the age before the square that depends on it), when it differs
from the typed order; ``parent``, the Discord group; ``guild_only``.
"""

from __future__ import annotations

import math
import re
import shlex
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import engine
from engine import (
    Action,
    Age,
    BuildingType,
    Construct,
    Demolish,
    EndTurn,
    Exchange,
    Family,
    HoldemSwap,
    MalformedAction,
    Populate,
    Renovate,
    Travel,
    Upgrade,
)

from . import i18n
from .service import (
    BOT_LEVELS,
    LANGUAGES,
    GameService,
    GameSettings,
    NotSeated,
    Outcome,
    Reply,
    is_computer,
)

ParamKind = Literal["building", "square", "age", "cards", "int", "flag", "number", "topic", "hours",
                    "user", "language", "level", "seat"]
Group = Literal["lobby", "turn", "info", "self", "admin"]


@dataclass(frozen=True)
class UserRef:
    """A user named in a command: by id (a Discord mention ``<@123>``, or the user option's
    object, whose display name the adapter passes along) or, in the terminal, by a seated
    player's name."""

    id: int | None
    name: str | None = None

    @property
    def label(self) -> str:
        return self.name or (f"<@{self.id}>" if self.id is not None else "?")


@dataclass(frozen=True)
class Param:
    name: str
    kind: ParamKind
    description: str
    required: bool = True
    minimum: int | None = None
    maximum: int | None = None
    only: tuple[str, ...] = ()  # a subset of the kind's choices (the ages one may build on)

    @property
    def choices(self) -> tuple[str, ...]:
        """Fixed choices for a slash-command option (empty when free or autocompleted)."""
        every: tuple[str, ...] = ()
        if self.kind == "building":
            every = tuple(b.value for b in BuildingType)
        elif self.kind == "age":
            every = tuple(a.label.lower() for a in Age)
        elif self.kind == "topic":
            every = HELP_TOPICS
        elif self.kind == "language":
            every = LANGUAGES
        elif self.kind == "level":
            every = BOT_LEVELS
        return tuple(c for c in every if c in self.only) if self.only else every


@dataclass(frozen=True)
class CommandSpec:
    name: str
    description: str
    group: Group
    params: tuple[Param, ...] = ()
    usage: str = ""
    keywords: tuple[str, ...] = field(default=())  # params usually given by name ("at B3")
    form: tuple[str, ...] = ()  # Discord's order of the options, when not the typed order
    parent: str | None = None  # the Discord group ("game": /game pause)
    guild_only: bool = True  # False: also in a direct message with the bot

    @property
    def form_params(self) -> tuple[Param, ...]:
        """The parameters in the order Discord asks them (required ones first, as Discord
        demands)."""
        if not self.form:
            return self.params
        by_name = {p.name: p for p in self.params}
        return tuple(by_name[n] for n in self.form)

    @property
    def path(self) -> str:
        """How Discord spells it: ``pause`` or, in a group, ``game pause``."""
        return f"{self.parent} {self.name}" if self.parent else self.name


_CARDS = "cards as letters: m military, r religious, c civil (e.g. mmr)"
_BOARDS = ("might", "faith")  # R40: no construction, upgrade or demolition on Reason
GROUPS = {"game": "Manage this channel's game (its creator or a server admin)"}

COMMANDS: dict[str, CommandSpec] = {
    c.name: c
    for c in (
        # --- lobby ---
        CommandSpec("create", "Open a game of Khronos in this channel", "lobby", (
            Param("players", "int", "Start automatically when this many have joined (2-5)",
                  False, 2, 5),
            Param("holdem", "flag", "Play with the Hold'em rule (R10)", False),
            Param("reminder", "number", "Hours before a reminder (default 24)", False, 1, 720),
            Param("deadline", "number", "Hours before the turn ends by itself (optional)",
                  False, 1, 720),
            Param("bots", "int", "Computer players to seat at once (0-4)", False, 0, 4),
            Param("level", "level", "The computers' level: easy or normal (default normal)",
                  False),
        ), "/create 3 holdem"),
        CommandSpec("join", "Take a seat in this channel's game", "lobby", (), "/join"),
        CommandSpec("leave", "Leave the game before it starts", "lobby", (), "/leave"),
        CommandSpec("start", "Start the game (creator or admin)", "lobby", (), "/start"),
        CommandSpec("addbot", "Seat a computer player (creator or admin)", "lobby", (
            Param("level", "level", "How well it plays: easy or normal (default normal)",
                  False),
        ), "/addbot easy"),
        CommandSpec("removebot", "Remove the last computer player (creator or admin)", "lobby",
                    (), "/removebot"),
        # --- turn ---
        CommandSpec("exchange", "R9: discard cards and draw back to 4, for 2 Ecus", "turn", (
            Param("cards", "cards", f"The cards to discard, {_CARDS}"),
        ), "/exchange mmr"),
        CommandSpec("holdem", "R10: take face-up cards of one family, give as many back", "turn", (
            Param("take", "cards", f"Face-up cards to take, {_CARDS}"),
            Param("give", "cards", f"Cards from your hand to put back, {_CARDS}"),
        ), "/holdem take cc give mr", ("take", "give")),
        CommandSpec("travel", "R13: move an adventurer to another age, for 1 Ecu", "turn", (
            Param("adventurer", "int", "Which adventurer, 1 or 2 (default: the freer one)",
                  False, 1, 2),
            Param("age", "age", "The age to travel to"),
        ), "/travel 1 faith", form=("age", "adventurer")),
        CommandSpec("build", "R15: construct a building on Might or Faith", "turn", (
            Param("building", "building", "The building type"),
            Param("square", "square", "Its top-left square, like C4"),
            Param("age", "age", "The board: might or faith", only=_BOARDS),
            Param("pay", "cards", f"Terrain surcharge cards (R18), {_CARDS}", False),
        ), "/build keep C4 might", ("pay",), form=("age", "building", "square", "pay")),
        CommandSpec("upgrade", "R16: replace a building by a bigger one of its family", "turn", (
            Param("square", "square", "The building's top-left square"),
            Param("to", "building", "The new, bigger building type"),
            Param("age", "age", "The board: might or faith", only=_BOARDS),
            Param("at", "square", "Top-left square of the new tile, when several fit", False),
            Param("pay", "cards", f"Terrain surcharge cards (R18), {_CARDS}", False),
        ), "/upgrade C4 castle might at B3", ("at", "pay"),
            form=("age", "square", "to", "at", "pay")),
        CommandSpec("demolish", "R22: remove a size-1 tile for 1 Ecu and 1 card", "turn", (
            Param("square", "square", "The tile's square"),
            Param("age", "age", "The board: might or faith", only=_BOARDS),
        ), "/demolish H2 might", form=("age", "square")),
        CommandSpec("populate", "R41: put your cubes on a civil building on Reason", "turn", (
            Param("square", "square", "The civil building's top-left square"),
            Param("count", "int", "How many cubes (1 civil card each)", False, 1, 4),
        ), "/populate L12 2"),
        CommandSpec("renovate", "R42: pay cards to renovate a ruin on Reason", "turn", (
            Param("square", "square", "The ruin's top-left square"),
            Param("cards", "int", "How many cards now (default: all still owed)", False, 1, 2),
        ), "/renovate C4"),
        CommandSpec("end", "R12: end your turn, optionally discarding, and draw up to 4", "turn", (
            Param("discard", "cards", f"Cards to discard first, {_CARDS}", False),
        ), "/end discard m", ("discard",)),
        CommandSpec("choose", "R37: answer the choice the game is waiting for", "turn", (
            Param("option", "int", "The option's number", True, 1, 99),
        ), "/choose 2"),
        CommandSpec("undo", "Take back your last action of this turn (not across a draw)",
                    "turn", (), "/undo"),
        # --- info ---
        CommandSpec("hand", "Show your hand, privately", "info", (), "/hand"),
        CommandSpec("status", "Round, whose turn, everyone's Ecus, cards and cubes", "info", (),
                    "/status"),
        CommandSpec("board", "Show the boards, one age large, or a move before and after",
                    "info", (
            Param("age", "age", "One board, shown large", False),
            Param("move", "int", "A move's number from /history: the boards before and after it",
                  False, 1, 1_000_000),
        ), "/board might  /board move:12"),
        CommandSpec("history", "The last moves of the game", "info", (
            Param("count", "int", "How many moves (default 15)", False, 1, 100),
        ), "/history"),
        CommandSpec("help", "The commands, or a summary of the rules (/help rules)", "info", (
            Param("topic", "topic", "commands (default) or rules", False),
        ), "/help rules", guild_only=False),
        CommandSpec("mygames", "Your games on every server: whose turn, and links", "info", (),
                    "/mygames", guild_only=False),
        # --- reminders and absence ---
        CommandSpec("mute", "Stop reminder DMs for you in this game", "self", (), "/mute"),
        CommandSpec("unmute", "Turn your reminder DMs in this game back on", "self", (),
                    "/unmute"),
        CommandSpec("away", "Declare an absence: no reminders, your deadlines extended", "self", (
            Param("hours", "number", "How long you will be away, in hours (up to 336)",
                  True, 1, 336),
        ), "/away 48"),
        CommandSpec("back", "End your declared absence", "self", (), "/back"),
        # --- the game's keepers: /game ... in Discord ---
        CommandSpec("settings", "Show or change reminder and deadline hours (creator or admin)",
                    "admin", (
            Param("reminder", "number", "Hours without a move before a reminder (1-720)",
                  False, 1, 720),
            Param("deadline", "hours", "Hours before a turn ends by itself; 0 for none",
                  False, 0, 720),
            Param("language", "language", "Language of the game's pictures: en, fr or de", False),
        ), "/game settings reminder:12", ("reminder", "deadline", "language"), parent="game"),
        CommandSpec("pause", "Pause the game: no moves, reminders or deadlines (creator or admin)",
                    "admin", (), "/game pause", parent="game"),
        CommandSpec("resume", "Resume a paused game (creator or admin)", "admin", (),
                    "/game resume", parent="game"),
        CommandSpec("abandon", "End the game without a winner (creator or admin)", "admin", (),
                    "/game abandon", parent="game"),
        CommandSpec("rebuild", "Restore a damaged game from its move log (a player, creator "
                    "or admin)", "admin", (), "/game rebuild", parent="game"),
        CommandSpec("replace", "Give a player's seat to another user or a computer (creator "
                    "or admin)", "admin", (
            Param("old", "user", "The player who leaves the seat", False),
            Param("new", "user", "The user who takes it over", False),
            Param("level", "level", "Or: a computer of this level takes it over", False),
            Param("computer", "seat", "Or: the computer seat a person takes back (its name "
                  "or number, like Computer 1)", False),
        ), "/game replace old:@bob new:@dee", parent="game"),
        CommandSpec("kick", "Remove a player who left; his turns then end by default, or a "
                    "computer plays them (creator or admin)", "admin", (
            Param("player", "user", "The player to remove"),
            Param("level", "level", "A computer of this level takes the seat over", False),
        ), "/game kick @bob", parent="game"),
    )
}

ALIASES = {"construct": "build", "endturn": "end", "pass": "end", "swap": "holdem"}


@dataclass(frozen=True)
class Context:
    """Who typed the command, and where."""

    channel_id: int
    user_id: int
    user_name: str
    guild_id: int | None = None
    is_admin: bool = False
    locale: str | None = None  # the user's Discord locale ("fr", "de", "en-US"...), if known


# --- converting one value -----------------------------------------------------------------------

_LETTERS = {"m": Family.MILITARY, "r": Family.RELIGIOUS, "c": Family.CIVIL}


def parse_cards(text: str) -> tuple[Family, ...]:
    """``"mmr"`` or ``"military,military,religious"`` -> families."""
    raw = text.strip().lower()
    if not raw or raw in ("-", "none"):
        return ()
    words = [w for w in raw.replace(",", " ").split() if w]
    out: list[Family] = []
    for w in words:
        fam = next((f for f in Family if f.value == w), None)
        if fam is not None:
            out.append(fam)
            continue
        for ch in w:
            if ch not in _LETTERS:
                raise ValueError(i18n.private("parse.cards", value=excerpt(text)))
            out.append(_LETTERS[ch])
    return tuple(out)


def _option_name(param: Param) -> str:
    """The option's name as the reader's Discord client shows it (``joueurs``, ``spieler``)."""
    return i18n.lookup(f"options.{param.name}", i18n.reader()) or param.name


def convert(param: Param, text: str) -> Any:
    """One value from text; raises ValueError with a sentence for the user."""
    t = text.strip()
    match param.kind:
        case "building":
            key = t.lower()
            hits = [b for b in BuildingType if b.value == key] or [
                b for b in BuildingType if b.value.startswith(key)
            ]
            if len(hits) != 1 or not key:
                names = ", ".join(b.value for b in BuildingType)
                raise ValueError(i18n.private("parse.building", value=excerpt(text), names=names))
            return hits[0]
        case "square":
            try:
                engine.parse_square(t)
            except ValueError:  # the engine's English, said again in the reader's language
                on_grid = re.fullmatch(r"\s*[A-Ta-t]\s*\d{1,2}\s*", t)
                raise ValueError(i18n.private("parse.outside" if on_grid else "parse.square",
                                              value=repr(t))) from None
            return t.upper()
        case "age":
            key = t.lower()
            for age in Age:
                if key and not key.isdigit() and age.label.lower().startswith(key):
                    return age
            raise ValueError(i18n.private("parse.age", value=excerpt(text)))
        case "cards":
            return parse_cards(t)
        case "int":
            if not t.lstrip("-").isdigit() or len(t) > 12:
                raise ValueError(i18n.private("parse.int", name=_option_name(param),
                                              value=excerpt(text)))
            value = int(t)
            if (param.minimum is not None and value < param.minimum) or (
                param.maximum is not None and value > param.maximum
            ):
                raise OutOfRange(i18n.private("parse.range", name=_option_name(param),
                                              minimum=param.minimum, maximum=param.maximum))
            return value
        case "number" | "hours":
            if param.kind == "hours" and t.lower() in ("off", "none", "no"):
                return 0.0
            try:
                value_f = float(t)
            except ValueError:
                raise ValueError(i18n.private("parse.number", name=_option_name(param),
                                              value=excerpt(text))) from None
            if not math.isfinite(value_f):
                raise OutOfRange(i18n.private("parse.finite", name=_option_name(param)))
            if value_f < 0 or (value_f == 0 and param.kind == "number"):
                raise OutOfRange(i18n.private("parse.positive", name=_option_name(param)))
            if param.maximum is not None and value_f > param.maximum:
                raise OutOfRange(i18n.private("parse.at_most", name=_option_name(param),
                                              maximum=param.maximum))
            return value_f
        case "user":
            match = re.fullmatch(r"<@!?(\d+)>|(\d+)", t)
            if match:
                uid = int(match.group(1) or match.group(2))
                if not 0 < uid < MAX_SNOWFLAKE:
                    raise OutOfRange(i18n.private("parse.user_id", name=_option_name(param),
                                                  value=excerpt(text)))
                return UserRef(uid)
            if not t:
                raise ValueError(i18n.private("parse.user", name=_option_name(param)))
            return UserRef(None, t.lstrip("@"))
        case "language":
            key = t.lower()
            if key not in LANGUAGES:
                raise ValueError(i18n.private("parse.language", value=excerpt(text),
                                              names=", ".join(LANGUAGES)))
            return key
        case "topic":
            key = t.lower()
            if key not in HELP_TOPICS:
                topics = ", ".join(HELP_TOPICS)
                raise ValueError(i18n.private("parse.topic", value=excerpt(text), names=topics))
            return key
        case "level":
            key = t.lower()
            if key not in BOT_LEVELS:
                raise ValueError(i18n.private("parse.level", value=excerpt(text),
                                              names=", ".join(BOT_LEVELS)))
            return key
        case "seat":
            if not t:
                raise ValueError(i18n.private("parse.seat", name=_option_name(param)))
            return t
        case "flag":
            key = t.lower()
            if key in ("yes", "true", "on", "1", param.name):
                return True
            if key in ("no", "false", "off", "0"):
                return False
            raise ValueError(i18n.private("parse.flag", name=_option_name(param),
                                          value=excerpt(text)))
    raise ValueError(f"unknown parameter kind {param.kind}")


MAX_SNOWFLAKE = 2**63  # Discord ids are 64-bit; SQLite integers are signed 64-bit
EXCERPT = 40  # characters of what the user typed that a refusal may repeat


class OutOfRange(ValueError):
    """A value of the parameter's kind, outside its range: a refusal, never a reason to read
    the word as the next parameter (``/create 6`` is not "reminder 6 h")."""


def excerpt(text: str) -> str:
    """What the user typed, quoted and cut to a short excerpt."""
    return repr(text if len(text) <= EXCERPT else text[:EXCERPT] + "…")


# --- parsing a line ------------------------------------------------------------------------


@dataclass(frozen=True)
class Parsed:
    name: str
    args: dict[str, Any]


def parse_line(line: str) -> Parsed:
    """``"/build keep C4 might"`` -> Parsed("build", {...}). Raises MalformedAction."""
    try:
        tokens = shlex.split(line.strip())
    except ValueError as exc:
        raise MalformedAction(i18n.private("parse.unreadable", error=exc)) from None
    if not tokens:
        raise MalformedAction(i18n.private("parse.empty"))
    word = tokens[0].lstrip("/!").lower()
    if word in GROUPS:  # "/game pause": the Discord spelling, also fine in the terminal
        members = [s.name for s in COMMANDS.values() if s.parent == word]
        if len(tokens) < 2 or tokens[1].lower() not in members:
            raise MalformedAction(i18n.private("parse.group", group=word,
                                               names=", ".join(members)))
        tokens = tokens[1:]
        word = tokens[0].lower()
    word = ALIASES.get(word, word)
    spec = COMMANDS.get(word)
    if spec is None:
        raise MalformedAction(i18n.private("parse.unknown", name=excerpt(word)[1:-1]))
    return Parsed(spec.name, parse_args(spec, tokens[1:]))


def parse_args(spec: CommandSpec, tokens: list[str]) -> dict[str, Any]:
    by_name = {p.name: p for p in spec.params}
    args: dict[str, Any] = {}
    positional: list[str] = []
    i = 0
    try:
        while i < len(tokens):
            tok = tokens[i]
            key, sep, value = tok.partition(":") if ":" in tok else tok.partition("=")
            if sep and key.lower() in by_name:
                args[key.lower()] = convert(by_name[key.lower()], value)
            elif tok.lower() in spec.keywords:
                if i + 1 >= len(tokens):
                    raise ValueError(i18n.private("parse.after", value=excerpt(tok)))
                args[tok.lower()] = convert(by_name[tok.lower()], tokens[i + 1])
                i += 1
            else:
                positional.append(tok)
            i += 1
        free = [p for p in spec.params if p.name not in args]
        for tok in positional:
            while free:
                p = free.pop(0)
                try:
                    args[p.name] = convert(p, tok)
                    break
                except OutOfRange:
                    raise  # a value of the right kind, out of range: never read as the next
                except ValueError:
                    if p.required or not free:
                        raise
            else:
                raise ValueError(i18n.private("parse.too_many", value=excerpt(tok)))
    except ValueError as exc:
        usage = i18n.private("parse.usage", usage=spec.usage) if spec.usage else ""
        raise MalformedAction(f"/{spec.name}: {exc}.{usage}") from None
    missing = [p.name for p in spec.params if p.required and p.name not in args]
    if missing:
        usage = i18n.private("parse.usage", usage=spec.usage) if spec.usage else ""
        raise MalformedAction(i18n.private("parse.missing", command=spec.name,
                                           names=", ".join(missing)) + usage)
    return args


def format_value(param: Param, value: Any) -> str:
    """The text ``convert(param, text)`` reads back as ``value``."""
    match value:
        case BuildingType():
            return value.value
        case Age():
            return value.label.lower()
        case tuple():
            letters = {f: k for k, f in _LETTERS.items()}
            return "".join(letters[f] for f in value) or "-"
        case bool():
            return "yes" if value else "no"
        case UserRef():
            return f"<@{value.id}>" if value.id is not None else f"@{value.name}"
    return str(value)


def format_line(name: str, args: dict[str, Any]) -> str:
    """The typed line of a command with these converted ``args``: ``parse_line`` reads it back
    as the same arguments (a Confirm button carries it)."""
    spec = COMMANDS[name]
    words = [f"/{name}"] + [f"{p.name}:{format_value(p, args[p.name])}" for p in spec.params
                            if args.get(p.name) is not None]
    return " ".join(words)


def to_action(name: str, args: dict[str, Any]) -> Action:
    """The engine action for a turn command's arguments."""
    match name:
        case "exchange":
            return Exchange(discard=args["cards"])
        case "holdem":
            return HoldemSwap(take=args["take"], give=args["give"])
        case "travel":
            adv = args.get("adventurer")
            return Travel(to=args["age"], adventurer=None if adv is None else adv - 1)
        case "build":
            return Construct(age=args["age"], building=args["building"], square=args["square"],
                             surcharge=args.get("pay"))
        case "upgrade":
            return Upgrade(age=args["age"], square=args["square"], to=args["to"],
                           at=args.get("at"), surcharge=args.get("pay"))
        case "demolish":
            return Demolish(age=args["age"], square=args["square"])
        case "populate":
            return Populate(square=args["square"], count=args.get("count", 1))
        case "renovate":
            return Renovate(square=args["square"], cards=args.get("cards"))
        case "end":
            return EndTurn(discard=args.get("discard", ()))
    raise MalformedAction(i18n.private("parse.not_a_move", name=name))


HELP_TOPICS = ("commands", "rules")

RULES_SUMMARY = i18n.text("help.rules")  # bot/locales/en.toml; French and German beside it


def rules_text(locale: str | None = None) -> str:
    """/help rules: the rules in short, in the language of ``locale`` (English by default)."""
    return i18n.lookup("help.rules", locale) or RULES_SUMMARY


HELP_GROUPS = ("lobby", "turn", "info", "self", "admin")


def help_text(locale: str | None = None) -> str:
    """The command reference, in the language of ``locale`` (a Discord locale; English by
    default). English shows the typed examples; French and German show the command names a
    Discord client in that language shows (``/construire``), with their descriptions."""
    english = i18n.language(locale) == i18n.DEFAULT

    def local_name(key: str, name: str) -> str:
        return name if english else i18n.lookup(key, locale) or name

    lines = [i18n.text("help.intro", locale)]
    for group in HELP_GROUPS:
        lines.append(i18n.text(f"help.groups.{group}", locale))
        for spec in COMMANDS.values():
            if spec.group != group:
                continue
            words = [local_name(f"commands.{spec.name}.name", spec.name)]
            if spec.parent:
                words.insert(0, local_name(f"groups.{spec.parent}.name", spec.parent))
            left = spec.usage if english and spec.usage else "/" + " ".join(words)
            description = local_name(f"commands.{spec.name}.description", spec.description)
            lines.append(f"  {left:34} {description}")
    lines.append(i18n.text("help.languages", locale))
    lines.append(i18n.text("help.cards", locale))
    return "\n".join(lines)


# --- running a command -------------------------------------------------------------------


async def execute(service: GameService, ctx: Context, name: str, args: dict[str, Any]) -> Outcome:
    """Run command ``name`` with converted ``args`` (see ``COMMANDS``) for ``ctx``'s user; what
    is said to him alone (the reply, a refusal) is in his language (``ctx.locale``)."""
    with i18n.reading(ctx.locale):
        return await _execute(service, ctx, name, args)


async def _execute(service: GameService, ctx: Context, name: str,
                   args: dict[str, Any]) -> Outcome:
    ch, user = ctx.channel_id, ctx.user_id
    match name:
        case "create":
            settings = GameSettings(
                seats=args.get("players"),
                holdem=bool(args.get("holdem", False)),
                reminder_hours=args.get("reminder", 24.0),
                deadline_hours=args.get("deadline"),
            )
            return await service.create_game(ch, user, ctx.user_name, guild_id=ctx.guild_id,
                                             settings=settings, bots=args.get("bots", 0),
                                             bot_level=args.get("level", "normal"))
        case "join":
            return await service.join(ch, user, ctx.user_name)
        case "leave":
            return await service.leave(ch, user)
        case "start":
            return await service.start(ch, user, is_admin=ctx.is_admin)
        case "addbot":
            return await service.add_bot(ch, user, args.get("level", "normal"),
                                         is_admin=ctx.is_admin)
        case "removebot":
            return await service.remove_bot(ch, user, is_admin=ctx.is_admin)
        case "abandon":
            return await service.abandon(ch, user, is_admin=ctx.is_admin)
        case "rebuild":
            return await service.rebuild(ch, user, is_admin=ctx.is_admin)
        case "choose":
            return await service.choose(ch, user, int(args["option"]) - 1)
        case "undo":
            return await service.undo(ch, user)
        case "hand":
            return await service.hand(ch, user)
        case "status":
            return await service.status(ch)
        case "board" if args.get("move") is not None:
            return await service.move_comparison(ch, int(args["move"]))
        case "board":
            out = await service.status(ch)
            age = args.get("age")
            if out.reply is not None and out.reply.image is not None and age is not None:
                lang = out.game.settings.language if out.game else None  # a public answer
                name = i18n.lookup(f"choices.age.{age.label.lower()}", lang) or age.label
                out.reply = replace(out.reply, text=i18n.text("board.age", lang, age=name),
                                    image=out.reply.image.with_age(age))
            return out
        case "history":
            return await service.history(ch, args.get("count", 15))
        case "help":
            rules = args.get("topic") == "rules"
            text = rules_text(ctx.locale) if rules else help_text(ctx.locale)
            return Outcome(game=None, reply=Reply(text))
        case "mygames":
            return await service.my_games(user)
        case "mute" | "unmute":
            return await service.set_muted(ch, user, name == "mute")
        case "away":
            return await service.away(ch, user, float(args["hours"]))
        case "back":
            return await service.back(ch, user)
        case "settings":
            return await service.update_settings(
                ch, user, reminder_hours=args.get("reminder"), deadline_hours=args.get("deadline"),
                language=args.get("language"), is_admin=ctx.is_admin)
        case "pause":
            return await service.pause(ch, user, is_admin=ctx.is_admin)
        case "resume":
            return await service.resume(ch, user, is_admin=ctx.is_admin)
        case "replace":
            return await _replace(service, ctx, args)
        case "kick":
            target = await _seated_user(service, ch, args["player"])
            if args.get("level"):
                return await service.seat_to_computer(ch, user, target, args["level"],
                                                      is_admin=ctx.is_admin)
            return await service.kick(ch, user, target, is_admin=ctx.is_admin)
        case _ if COMMANDS.get(name) is not None and COMMANDS[name].group == "turn":
            return await service.act(ch, user, to_action(name, args))
    raise MalformedAction(i18n.private("parse.unknown", name=name))


async def _replace(service: GameService, ctx: Context, args: dict[str, Any]) -> Outcome:
    """/game replace: old → new (a person), old → a computer (level), or a computer seat →
    a person (computer, new)."""
    ch, user = ctx.channel_id, ctx.user_id
    if (args.get("old") is None) == (args.get("computer") is None):
        raise MalformedAction(i18n.private("replace.which_seat"))
    if args.get("computer") is not None:
        old = await _computer_seat(service, ch, args["computer"])
    else:
        old = await _seated_user(service, ch, args["old"])
    new = args.get("new")
    level = args.get("level")
    if level is not None:
        if new is not None or args.get("computer") is not None:
            raise MalformedAction(i18n.private("replace.to_whom"))
        return await service.seat_to_computer(ch, user, old, level, is_admin=ctx.is_admin)
    if new is None or new.id is None:
        raise MalformedAction(i18n.private("replace.new_player"))
    return await service.replace_player(ch, user, old, new.id, new.name or f"Player {new.id}",
                                        is_admin=ctx.is_admin)


async def _computer_seat(service: GameService, channel_id: int, name: str) -> int:
    """The user id of the computer seat called ``name`` ("Computer 1", or its full name)."""
    info = await service.info(channel_id)
    key = name.strip().lower()
    for seat in info.seats:
        short = seat.name.split(" (")[0].lower()  # "computer 1"
        if is_computer(seat.user_id) and key in (
                seat.name.lower(), short, short.replace(" ", ""), str(-seat.user_id)):
            return seat.user_id
    names = ", ".join(s.name for s in info.seats if is_computer(s.user_id))
    raise NotSeated(i18n.private("replace.no_computer" if names else "replace.no_computers",
                                 name=name[:40], names=names))


async def _seated_user(service: GameService, channel_id: int, ref: UserRef) -> int:
    """The user id of ``ref``: its id, or the seated player of that name (terminal)."""
    if ref.id is not None:
        return ref.id
    info = await service.info(channel_id)
    key = (ref.name or "").lower()
    for seat in info.seats:
        if seat.name.lower() == key:
            return seat.user_id
    raise NotSeated(i18n.private("replace.nobody", name=ref.name))


async def run_line(service: GameService, ctx: Context, line: str) -> Outcome:
    """Parse and run one typed command line (a refusal in ``ctx.locale``'s language)."""
    with i18n.reading(ctx.locale):
        parsed = parse_line(line)
    return await execute(service, ctx, parsed.name, parsed.args)
