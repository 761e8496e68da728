"""The command vocabulary, in one table (``COMMANDS``): every command's name, description,
parameters in order, the Discord group it belongs to, and its handler (``handlers.py``): a
new command is one entry here and one handler. Both front ends run commands from this table
(``lines.execute``), and the Discord adapter builds its slash commands from it alone (names,
descriptions, choices; ``bot/discord/slash.py``); the help is made from it (``helptext.py``).

Each parameter's kind says how its value is read (``params.PARSERS``) and which option type
Discord shows; ``form`` is the order in which Discord asks the options (the order a player
fills them: the age before the square that depends on it), when it differs from the typed
order; ``parent``, the Discord group; ``guild_only``.
"""

from __future__ import annotations

from .. import i18n
from ..service import GameService, Outcome, Reply
from . import handlers as h
from . import helptext
from .handlers import Args, Context
from .params import Param
from .spec import CommandSpec


async def help_command(service: GameService, ctx: Context, args: Args) -> Outcome:
    """/help: the command reference; with a topic, the rules in short, the buildings, or one
    command's options (``helptext.topic_text``)."""
    return Outcome(game=None, reply=Reply(
        helptext.topic_text(args.get("topic"), COMMANDS, ALIASES, ctx.locale)))


_CARDS = "as letters: m military, r religious, c civil (e.g. mmr)"
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
            Param("level", "level",
                  "The computers' level: easy, normal or hard (default normal)", False),
        ), "/create 3 holdem", run=h.create),
        CommandSpec("join", "Take a seat in this channel's game", "lobby", (), "/join", run=h.join),
        CommandSpec("leave", "Leave the game before it starts", "lobby", (), "/leave", run=h.leave),
        CommandSpec("start", "Start the game (creator or admin)", "lobby", (), "/start",
                    run=h.start),
        CommandSpec("addbot", "Seat a computer player (creator or admin)", "lobby", (
            Param("level", "level", "How well it plays: easy, normal or hard (default normal)",
                  False),
        ), "/addbot easy", run=h.addbot),
        CommandSpec("removebot", "Remove the last computer player (creator or admin)", "lobby",
                    (), "/removebot", run=h.removebot),
        # --- turn ---
        CommandSpec("exchange", "R9: discard cards and draw back to 4, for 2 Ecus", "turn", (
            Param("cards", "cards", f"The cards to discard, {_CARDS}"),
        ), "/exchange mmr", action=h.exchange),
        CommandSpec("holdem", "R10: take face-up cards of one family, give as many back", "turn", (
            Param("take", "cards", f"Face-up cards to take, {_CARDS}"),
            Param("give", "cards", f"Cards from your hand to put back, {_CARDS}"),
        ), "/holdem take cc give mr", ("take", "give"), action=h.holdem),
        CommandSpec("travel", "R13: move an adventurer to another age, for 1 Ecu", "turn", (
            Param("adventurer", "int", "Which adventurer, 1 or 2 (default: the freer one)",
                  False, 1, 2),
            Param("age", "age", "The age to travel to"),
        ), "/travel 1 faith", form=("age", "adventurer"), action=h.travel),
        CommandSpec("build", "R15: construct a building on Might or Faith", "turn", (
            Param("building", "building", "The building type"),
            Param("square", "square", "Its top-left square, like C4"),
            Param("age", "age", "The board: might or faith", only=_BOARDS),
            Param("pay", "cards", f"Terrain surcharge cards (R18), {_CARDS}", False),
        ), "/build keep C4 might", ("pay",), form=("age", "building", "square", "pay"),
            action=h.build),
        CommandSpec("upgrade", "R16: replace a building by a bigger one of its family", "turn", (
            Param("square", "square", "The building's top-left square"),
            Param("to", "building", "The new, bigger building type"),
            Param("age", "age", "The board: might or faith", only=_BOARDS),
            Param("at", "square", "Top-left square of the new tile, when several fit", False),
            Param("pay", "cards", f"Terrain surcharge cards (R18), {_CARDS}", False),
        ), "/upgrade C4 castle might at B3", ("at", "pay"),
            form=("age", "square", "to", "at", "pay"), action=h.upgrade),
        CommandSpec("demolish", "R22: remove a size-1 tile for 1 Ecu and 1 card", "turn", (
            Param("square", "square", "The tile's square"),
            Param("age", "age", "The board: might or faith", only=_BOARDS),
        ), "/demolish H2 might", form=("age", "square"), action=h.demolish),
        CommandSpec("populate", "R41: put your cubes on a civil building on Reason", "turn", (
            Param("square", "square", "The civil building's top-left square"),
            Param("count", "int", "How many cubes (1 civil card each)", False, 1, 4),
        ), "/populate L12 2", action=h.populate),
        CommandSpec("renovate", "R42: pay cards to renovate a ruin on Reason", "turn", (
            Param("square", "square", "The ruin's top-left square"),
            Param("cards", "int", "How many cards now (default: all still owed)", False, 1, 2),
        ), "/renovate C4", action=h.renovate),
        CommandSpec("end", "R12: end your turn, optionally discarding, and draw up to 4", "turn", (
            Param("discard", "cards", f"Cards to discard first, {_CARDS}", False),
        ), "/end discard m", ("discard",), action=h.end),
        CommandSpec("choose", "R37: answer the choice the game is waiting for", "turn", (
            Param("option", "int", "The option's number", True, 1, 99),
        ), "/choose 2", run=h.choose),
        CommandSpec("undo", "Take back your last action of this turn (not across a draw)",
                    "turn", (), "/undo", run=h.undo),
        # --- info ---
        CommandSpec("hand", "Show your hand, privately", "info", (), "/hand", run=h.hand),
        CommandSpec("hint", "The computer's best plans for your turn, privately", "info", (),
                    "/hint", run=h.hint),
        CommandSpec("status", "Round, whose turn, everyone's Ecus, cards and cubes", "info", (),
                    "/status", run=h.status),
        CommandSpec("board", "Show the boards, one age large, or a move before and after",
                    "info", (
            Param("age", "age", "One board, shown large", False),
            Param("move", "int", "A move's number from /history: the boards before and after it",
                  False, 1, 1_000_000),
        ), "/board might  /board move:12", run=h.board),
        CommandSpec("history", "The last moves of the game", "info", (
            Param("count", "int", "How many moves (default 15)", False, 1, 100),
        ), "/history", run=h.history),
        CommandSpec("help", "The commands; /help rules, /help buildings, /help build …",
                    "info", (
            Param("topic", "topic", "rules, buildings, or a command's name (default: every "
                  "command)", False),
        ), "/help buildings", guild_only=False, run=help_command),
        CommandSpec("mygames", "Your games on every server: whose turn, and links", "info", (),
                    "/mygames", guild_only=False, run=h.mygames),
        CommandSpec("leaderboard", "This server's best rated players, with their games",
                    "info", (
            Param("public", "flag", "Show it to the channel (default: to you only)", False),
        ), "/leaderboard", run=h.leaderboard),
        CommandSpec("stats", "A player's rating, games, wins, Ecus and pace on this server",
                    "info", (
            Param("player", "user", "Whose statistics (default: yours)", False),
            Param("public", "flag", "Show them to the channel (default: to you only)", False),
        ), "/stats @bob", run=h.stats),
        # --- reminders and absence ---
        CommandSpec("mute", "Stop reminder DMs for you in this game", "self", (), "/mute",
                    run=h.mute),
        CommandSpec("unmute", "Turn your reminder DMs in this game back on", "self", (),
                    "/unmute", run=h.unmute),
        CommandSpec("away", "Declare an absence: no reminders, your deadlines extended", "self", (
            Param("hours", "number", "How long you will be away, in hours (up to 336)",
                  True, 1, 336),
        ), "/away 48", run=h.away),
        CommandSpec("back", "End your declared absence", "self", (), "/back", run=h.back),
        # --- the game's keepers: /game ... in Discord ---
        CommandSpec("settings", "Show or change reminders, deadline, language and hints "
                    "(creator or admin)", "admin", (
            Param("reminder", "number", "Hours without a move before a reminder (1-720)",
                  False, 1, 720),
            Param("deadline", "hours", "Hours before a turn ends by itself; 0 for none",
                  False, 0, 720),
            Param("language", "language", "Language of the game's pictures: en, fr or de", False),
            Param("hints", "flag", "Whether /hint answers in this game: on or off", False),
        ), "/game settings reminder:12", ("reminder", "deadline", "language", "hints"),
            parent="game",
            run=h.settings),
        CommandSpec("pause", "Pause the game: no moves, reminders or deadlines (creator or admin)",
                    "admin", (), "/game pause", parent="game", run=h.pause),
        CommandSpec("resume", "Resume a paused game (creator or admin)", "admin", (),
                    "/game resume", parent="game", run=h.resume),
        CommandSpec("abandon", "End the game without a winner (creator or admin)", "admin", (),
                    "/game abandon", parent="game", run=h.abandon),
        CommandSpec("rebuild", "Restore a damaged game from its move log (a player, creator "
                    "or admin)", "admin", (), "/game rebuild", parent="game", run=h.rebuild),
        CommandSpec("replace", "Give a player's seat to another user or a computer (creator "
                    "or admin)", "admin", (
            Param("old", "user", "The player who leaves the seat", False),
            Param("new", "user", "The user who takes it over", False),
            Param("level", "level", "Or: a computer of this level takes it over", False),
            Param("computer", "seat", "Or: the computer seat a person takes back (its name "
                  "or number, like Computer 1)", False),
        ), "/game replace old:@bob new:@dee", parent="game", run=h.replace_seat),
        CommandSpec("kick", "Remove a player who left: his turns end by default or go to a "
                    "computer (creator or admin)", "admin", (
            Param("player", "user", "The player to remove"),
            Param("level", "level", "A computer of this level takes the seat over", False),
        ), "/game kick @bob", parent="game", run=h.kick),
        CommandSpec("export", "The game's record as a JSON file (at the end; its creator "
                    "any time)", "admin", (), "/game export", parent="game", run=h.export),
        CommandSpec("verify", "Check that the deck was fair: every shuffle and draw from the "
                    "revealed seed", "admin", (), "/game verify", parent="game", run=h.verify),
    )
}

ALIASES = {"construct": "build", "endturn": "end", "pass": "end", "swap": "holdem"}


RULES_SUMMARY = i18n.text("help.rules")  # bot/locales/en.toml; French and German beside it
HELP_GROUPS = helptext.HELP_GROUPS
rules_text = helptext.rules_text


def command_label(spec: CommandSpec, locale: str | None = None) -> str:
    """The command as a Discord client in the language of ``locale`` shows it: ``/build``,
    ``/game rebuild``; ``/construire``, ``/partie reconstruire``; ``/bauen``."""
    words = [i18n.lookup(f"commands.{spec.name}.name", locale) or spec.name]
    if spec.parent:
        words.insert(0, i18n.lookup(f"groups.{spec.parent}.name", locale) or spec.parent)
    return "/" + " ".join(words)


def help_text(locale: str | None = None) -> str:
    """The command reference in the language of ``locale`` (``helptext.help_text``)."""
    return helptext.help_text(COMMANDS, locale)
