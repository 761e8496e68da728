"""``python -m bot``: the Discord bot (needs DISCORD_TOKEN), or ``--local`` for a terminal game.

Whatever stops the start (a bad setting, a data folder it cannot write, a refused token, no
route to Discord) is said in one sentence on stderr, with a non-zero exit status: 2 for
something to fix in the settings, 1 for a network failure worth retrying.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .settings import Settings

LOCAL_FLAGS = ("players", "names", "holdem", "seed", "new", "random", "images", "bots", "level")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="Khronos for Discord. Without a token, try --local to play in the terminal.",
    )
    parser.add_argument("--local", action="store_true",
                        help="play a game in this terminal (no Discord needed)")
    # the new-game flags default to None, so that "not given" can be told from a value: a
    # saved game resumes only when the given flags fit it (bot.terminal.app)
    local = parser.add_argument_group("terminal game (--local)")
    local.add_argument("--players", type=int, default=None, choices=range(2, 6), metavar="2-5",
                       help="number of seats of a new game (default 3, or one per --names)")
    local.add_argument("--names", default=None,
                       help="comma-separated player names of a new game, e.g. Ann,Bob,Cid")
    local.add_argument("--holdem", action="store_true", default=None,
                       help="a new game plays with the Hold'em rule (R10)")
    local.add_argument("--seed", type=int, default=None, help="seed of a new game")
    local.add_argument("--new", action="store_true", default=None,
                       help="abandon the saved terminal game and start a new one")
    local.add_argument("--random", type=_count, default=None, metavar="N",
                       help="let random players make N moves first")
    local.add_argument("--bots", type=_count, default=None, metavar="N",
                       help="N of the seats are computer players (docs/ai.md)")
    local.add_argument("--level", default=None, choices=("easy", "normal"),
                       help="the computers' level (default normal)")
    local.add_argument("--images", default=None,
                       help="folder for the board images (default ./local-games)")
    parser.add_argument("--data-dir", default=None,
                        help="folder of the SQLite file (default: KHRONOS_DATA_DIR or ./data)")
    return parser


def _count(text: str) -> int:
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"N must be a whole number, 0 or more, not {text!r}")
    return int(text)


def data_dir_problem(path: Path) -> str | None:
    """None if the data folder exists (or can be made) and this user can write in it; else
    the sentence that says what to do."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        who = f"user id {os.getuid()}" if hasattr(os, "getuid") else "this user"
        return (f"Cannot write in the data folder {path} ({exc.strerror or exc}): make it "
                f"writable by {who}, or set KHRONOS_DATA_DIR (or --data-dir) to another folder.")
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.local:
        given = [f"--{flag}" for flag in LOCAL_FLAGS if getattr(args, flag) is not None]
        if given:
            verb = "is" if len(given) == 1 else "are"
            parser.error(f"{', '.join(given)} {verb} for a terminal game only: add --local")
    names = args.names.split(",") if args.names is not None else None
    if args.local:
        from .terminal.app import LocalError, seat_names

        try:
            seat_names(args.players, names)
        except LocalError as exc:
            parser.error(str(exc))

    from .settings import SettingsError, load_settings

    try:
        settings = load_settings()
    except SettingsError as exc:
        print(f"{exc} Fix it in .env or in the environment (see .env.example).",
              file=sys.stderr)
        return 2
    data_dir = Path(args.data_dir) if args.data_dir is not None else settings.data_dir
    if args.local:
        problem = data_dir_problem(data_dir)
        if problem:
            print(problem, file=sys.stderr)
            return 2
        from .terminal.app import run_local

        return run_local(
            data_dir=data_dir,
            images_dir=Path(args.images or "./local-games"),
            players=args.players,
            names=names,
            holdem=args.holdem,
            seed=args.seed,
            new=bool(args.new),
            random_moves=args.random or 0,
            database_url=settings.database_url,
            bots=args.bots or 0,
            bot_level=args.level or "normal",
            bot_budget=settings.computer_budget,
        )
    if args.data_dir is not None:
        settings = settings.model_copy(update={"data_dir": data_dir})
    return run_discord(settings)


def startup_failure(exc: BaseException) -> tuple[int, str] | None:
    """The exit status and the one sentence for an exception that ends the bot's start, or
    None for an exception that is a bug (it keeps its traceback)."""
    import aiohttp
    import discord

    from .storage import StorageUnavailable

    if isinstance(exc, StorageUnavailable):  # KHRONOS_DATABASE_URL: no server, or refused
        return exc.status, str(exc)
    if isinstance(exc, discord.LoginFailure):
        return 2, ("Discord refused the token in DISCORD_TOKEN; copy it again from the developer "
                   "portal (your application > Bot > Reset Token).")
    if isinstance(exc, discord.PrivilegedIntentsRequired):
        return 2, "Discord refused the bot's intents; this bot needs no privileged intent."
    if isinstance(exc, discord.DiscordServerError):
        return 1, (f"Discord answered with a server error ({exc.status}); start the bot again "
                   "in a few minutes.")
    if isinstance(exc, aiohttp.ClientConnectionError | ConnectionError | TimeoutError
                  | discord.GatewayNotFound):
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        return 1, (f"Cannot reach Discord ({reason}): check this machine's network connection, "
                   "then start the bot again.")
    return None


def run_discord(settings: Settings) -> int:
    """Run the Discord bot until it is stopped. Whatever stops its start is one sentence."""
    if not settings.discord_token:
        print(
            "No Discord token: set DISCORD_TOKEN in .env or the environment (see .env.example), "
            "or run `python -m bot --local` to play in the terminal.",
            file=sys.stderr,
        )
        return 2
    problem = data_dir_problem(settings.data_dir)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    import logging

    from .discord.app import create_bot

    where = (f"server {settings.test_guild_id} (at once)" if settings.test_guild_id
             else "every server (global sync: up to an hour the first time)")
    games = str(settings.data_dir.resolve())
    if settings.database_url:
        from .storage.api import safe_url

        games = safe_url(settings.database_url)
    shards = settings.shard_options()
    mine = (f"; shards {','.join(map(str, shards['shard_ids']))} of {shards['shard_count']}"
            if shards else "")
    workers = settings.ai_workers
    thinking = (f"; computers think in {workers} worker process{'es' if workers > 1 else ''}"
                if workers else "; computers think in a thread")
    print(f"Khronos bot: games in {games}; slash commands go to {where}{mine}{thinking}.",
          flush=True)
    level = getattr(logging, settings.log_level.upper(), logging.INFO)
    # docker stop: finish deliveries, close; KHRONOS_SHARD_COUNT/IDS: this process's shards
    bot = create_bot(settings, handle_sigterm=True, **settings.shard_options())
    try:
        bot.run(settings.discord_token, log_level=level, root_logger=True)
    except Exception as exc:
        failure = startup_failure(exc)
        if failure is None:
            raise
        code, sentence = failure
        print(sentence, file=sys.stderr)
        return code
    return 0


if __name__ == "__main__":
    sys.exit(main())
