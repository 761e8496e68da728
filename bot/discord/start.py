"""Starting the Discord bot from ``python -m bot``: the start-up line, the bot's run until it
is stopped, and whatever stops its start said in one sentence with an exit status (2: fix the
settings; 1: a network failure worth retrying)."""

from __future__ import annotations

import asyncio
import logging
import sys

import aiohttp
import discord

from ..settings import Settings, data_dir_problem
from ..storage import StorageUnavailable
from ..storage.api import safe_url
from . import signals
from .app import create_bot


def startup_failure(exc: BaseException) -> tuple[int, str] | None:
    """The exit status and the one sentence for an exception that ends the bot's start, or
    None for an exception that is a bug (it keeps its traceback)."""
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
    where = (f"server {settings.test_guild_id} (at once)" if settings.test_guild_id
             else "every server (global sync: up to an hour the first time)")
    games = str(settings.data_dir.resolve())
    if settings.database_url:
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
    except asyncio.CancelledError:
        if not bot.stopping:
            raise
        # a stop during the start (KhronosBot.request_stop): its run was cancelled, closed
    except Exception as exc:
        failure = startup_failure(exc)
        if failure is None:
            raise
        code, sentence = failure
        print(sentence, file=sys.stderr)
        return code
    if bot.left_open:  # their threads (aiosqlite's) would keep the process until the hard stop
        signals.exit_now(0, f"stopped; exiting without waiting for {' or '.join(bot.left_open)}")
    return 0
