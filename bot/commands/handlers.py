"""One handler per command: the service call a command makes with its converted arguments
(``Handler``), and the engine action each turn command stands for (``ActionOf``). The table
(``table.py``) names the handler of every command."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from engine import (
    Action,
    Construct,
    Demolish,
    EndTurn,
    Exchange,
    HoldemSwap,
    MalformedAction,
    Populate,
    Renovate,
    Travel,
    Upgrade,
)

from .. import i18n
from ..service import GameService, GameSettings, NotSeated, Outcome, is_computer
from .params import UserRef, excerpt


@dataclass(frozen=True)
class Context:
    """Who typed the command, and where."""

    channel_id: int
    user_id: int
    user_name: str
    guild_id: int | None = None
    is_admin: bool = False
    locale: str | None = None  # the user's Discord locale ("fr", "de", "en-US"...), if known
    plain: bool = False  # a front end without Discord's markup (the terminal): no mentions,
    # links or bold in what is said to him


Args = dict[str, Any]
Handler = Callable[[GameService, Context, Args], Awaitable[Outcome]]
ActionOf = Callable[[Args], Action]


# --- the engine action of each turn command ----------------------------------------------------


def exchange(args: Args) -> Action:
    return Exchange(discard=args["cards"])


def holdem(args: Args) -> Action:
    return HoldemSwap(take=args["take"], give=args["give"])


def travel(args: Args) -> Action:
    adv = args.get("adventurer")
    return Travel(to=args["age"], adventurer=None if adv is None else adv - 1)


def build(args: Args) -> Action:
    return Construct(age=args["age"], building=args["building"], square=args["square"],
                     surcharge=args.get("pay"))


def upgrade(args: Args) -> Action:
    return Upgrade(age=args["age"], square=args["square"], to=args["to"], at=args.get("at"),
                   surcharge=args.get("pay"))


def demolish(args: Args) -> Action:
    return Demolish(age=args["age"], square=args["square"])


def populate(args: Args) -> Action:
    return Populate(square=args["square"], count=args.get("count", 1))


def renovate(args: Args) -> Action:
    return Renovate(square=args["square"], cards=args.get("cards"))


def end(args: Args) -> Action:
    return EndTurn(discard=args.get("discard", ()))


def play(action_of: ActionOf) -> Handler:
    """The handler of a turn command: the engine action, played for the user."""

    async def run(service: GameService, ctx: Context, args: Args) -> Outcome:
        return await service.act(ctx.channel_id, ctx.user_id, action_of(args))

    return run


# --- the lobby ----------------------------------------------------------------------------------


async def create(service: GameService, ctx: Context, args: Args) -> Outcome:
    settings = GameSettings(
        seats=args.get("players"),
        holdem=bool(args.get("holdem", False)),
        reminder_hours=args.get("reminder", 24.0),
        deadline_hours=args.get("deadline"),
    )
    return await service.create_game(ctx.channel_id, ctx.user_id, ctx.user_name,
                                     guild_id=ctx.guild_id, settings=settings,
                                     bots=args.get("bots", 0),
                                     bot_level=args.get("level", "normal"))


async def join(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.join(ctx.channel_id, ctx.user_id, ctx.user_name)


async def leave(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.leave(ctx.channel_id, ctx.user_id)


async def start(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.start(ctx.channel_id, ctx.user_id, is_admin=ctx.is_admin)


async def addbot(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.add_bot(ctx.channel_id, ctx.user_id, args.get("level", "normal"),
                                 is_admin=ctx.is_admin)


async def removebot(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.remove_bot(ctx.channel_id, ctx.user_id, is_admin=ctx.is_admin)


# --- the turn's other commands, and reading ------------------------------------------------


async def choose(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.choose(ctx.channel_id, ctx.user_id, int(args["option"]) - 1)


async def undo(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.undo(ctx.channel_id, ctx.user_id)


async def hint(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.hint(ctx.channel_id, ctx.user_id, plain=ctx.plain)


async def hand(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.hand(ctx.channel_id, ctx.user_id)


async def status(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.status(ctx.channel_id)


async def board(service: GameService, ctx: Context, args: Args) -> Outcome:
    if args.get("move") is not None:
        return await service.move_comparison(ctx.channel_id, int(args["move"]))
    out = await service.status(ctx.channel_id)
    age = args.get("age")
    if out.reply is not None and out.reply.image is not None and age is not None:
        lang = i18n.reader()  # his answer: the sentence and the picture in his language
        name = i18n.lookup(f"choices.age.{age.label.lower()}", lang) or age.label
        image = out.reply.image.with_age(age)
        image.lang = i18n.language(lang)
        out.reply = replace(out.reply, text=i18n.text("board.age", lang, age=name), image=image)
    return out


async def history(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.history(ctx.channel_id, args.get("count", 15))


async def mygames(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.my_games(ctx.user_id, plain=ctx.plain)


async def leaderboard(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.leaderboard(ctx.guild_id, public=bool(args.get("public", False)))


async def stats(service: GameService, ctx: Context, args: Args) -> Outcome:
    ref: UserRef | None = args.get("player")
    user_id = name = None
    if ref is not None:
        user_id = ref.id if ref.id is not None else await _seated_user(service, ctx.channel_id,
                                                                       ref)
        name = ref.name
    return await service.stats(ctx.guild_id, ctx.user_id, user_id, name,
                               public=bool(args.get("public", False)))


# --- reminders and absence ------------------------------------------------------------------


async def mute(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.set_muted(ctx.channel_id, ctx.user_id, True)


async def unmute(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.set_muted(ctx.channel_id, ctx.user_id, False)


async def away(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.away(ctx.channel_id, ctx.user_id, float(args["hours"]))


async def back(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.back(ctx.channel_id, ctx.user_id)


# --- the game's keepers (/game ...) -----------------------------------------------------------


async def settings(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.update_settings(
        ctx.channel_id, ctx.user_id, reminder_hours=args.get("reminder"),
        deadline_hours=args.get("deadline"), language=args.get("language"),
        hints=args.get("hints"), is_admin=ctx.is_admin)


async def pause(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.pause(ctx.channel_id, ctx.user_id, is_admin=ctx.is_admin)


async def resume(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.resume(ctx.channel_id, ctx.user_id, is_admin=ctx.is_admin)


async def abandon(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.abandon(ctx.channel_id, ctx.user_id, is_admin=ctx.is_admin)


async def rebuild(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.rebuild(ctx.channel_id, ctx.user_id, is_admin=ctx.is_admin)


async def export(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.export_record(ctx.channel_id, ctx.user_id, is_admin=ctx.is_admin)


async def verify(service: GameService, ctx: Context, args: Args) -> Outcome:
    return await service.verify_game(ctx.channel_id)


async def kick(service: GameService, ctx: Context, args: Args) -> Outcome:
    ch, user = ctx.channel_id, ctx.user_id
    target = await _seated_user(service, ch, args["player"])
    if args.get("level"):
        return await service.seat_to_computer(ch, user, target, args["level"],
                                              is_admin=ctx.is_admin)
    return await service.kick(ch, user, target, is_admin=ctx.is_admin)


async def replace_seat(service: GameService, ctx: Context, args: Args) -> Outcome:
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
    names = ", ".join(s.shown for s in info.seats if is_computer(s.user_id))
    raise NotSeated(i18n.private("replace.no_computer" if names else "replace.no_computers",
                                 name=excerpt(name), names=names))


async def _seated_user(service: GameService, channel_id: int, ref: UserRef) -> int:
    """The user id of ``ref``: its id, or the seated player of that name (terminal)."""
    if ref.id is not None:
        return ref.id
    info = await service.info(channel_id)
    key = (ref.name or "").lower()
    for seat in info.seats:
        if seat.name.lower() == key:
            return seat.user_id
    raise NotSeated(i18n.private("replace.nobody", name=excerpt(ref.name or "")))
