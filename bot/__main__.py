"""``python -m bot``: the Discord bot (needs DISCORD_TOKEN), or ``--local`` for a terminal game."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .settings import Settings


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="Khronos for Discord. Without a token, try --local to play in the terminal.",
    )
    parser.add_argument("--local", action="store_true",
                        help="play a game in this terminal (no Discord needed)")
    local = parser.add_argument_group("terminal game (--local)")
    local.add_argument("--players", type=int, default=3, choices=range(2, 6), metavar="2-5",
                       help="number of seats (default 3)")
    local.add_argument("--names", default="", help="comma-separated player names")
    local.add_argument("--holdem", action="store_true", help="play with the Hold'em rule (R10)")
    local.add_argument("--seed", type=int, default=None, help="seed of a new game")
    local.add_argument("--new", action="store_true",
                       help="abandon the saved terminal game and start a new one")
    local.add_argument("--random", type=int, default=0, metavar="N",
                       help="let random players make N moves first")
    local.add_argument("--images", default="./local-games",
                       help="folder for the board images (default ./local-games)")
    parser.add_argument("--data-dir", default=None,
                        help="folder of the SQLite file (default: KHRONOS_DATA_DIR or ./data)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from .settings import load_settings

    settings = load_settings()
    if args.data_dir is None:
        args.data_dir = str(settings.data_dir)
    if args.local:
        from .local import main_local

        return main_local(args)
    return run_discord(settings)


def run_discord(settings: Settings) -> int:
    """Run the Discord bot until it is stopped. A missing or refused token is one sentence."""
    if not settings.discord_token:
        print(
            "No Discord token: set DISCORD_TOKEN in .env or the environment (see .env.example), "
            "or run `python -m bot --local` to play in the terminal.",
            file=sys.stderr,
        )
        return 2
    import logging

    import discord

    from .discord_app import create_bot

    level = getattr(logging, settings.log_level.upper(), logging.INFO)
    bot = create_bot(settings)
    try:
        bot.run(settings.discord_token, log_level=level, root_logger=True)
    except discord.LoginFailure:
        print(
            "Discord refused the token in DISCORD_TOKEN; copy it again from the developer "
            "portal (your application > Bot > Reset Token).",
            file=sys.stderr,
        )
        return 2
    except discord.PrivilegedIntentsRequired:
        print("Discord refused the bot's intents; this bot needs no privileged intent.",
              file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
