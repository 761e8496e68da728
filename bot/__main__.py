"""``python -m bot``: the Discord bot (needs DISCORD_TOKEN), or ``--local`` for a terminal game.

Whatever stops the start (a bad setting, a data folder it cannot write, a refused token, no
route to Discord, a Python without the bot's dependencies) is said in one sentence on stderr,
with a non-zero exit status: 2 for something to fix, 1 for a network failure worth retrying.
This module imports only the standard library at its top, so that a missing dependency is
that sentence and not a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

LOCAL_FLAGS = ("players", "names", "holdem", "seed", "new", "random", "images", "bots", "level",
               "lang")
OUR_PACKAGES = ("bot", "engine", "render", "ai")
MISSING = ("Khronos cannot start: the package {name} is missing from this Python ({python}); "
           "run `make local` (or `make run` for Discord), which installs what the bot needs "
           "into .venv and starts it from there.")


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
                       help="comma-separated names of the people of a new game, e.g. Ann,Bob,Cid "
                       "(--bots adds the computers: --names Me --bots 2 is a game of three)")
    local.add_argument("--holdem", action="store_true", default=None,
                       help="a new game plays with the Hold'em rule (R10)")
    local.add_argument("--seed", type=int, default=None, help="seed of a new game")
    local.add_argument("--new", action="store_true", default=None,
                       help="abandon the saved terminal game and start a new one")
    local.add_argument("--random", type=_count, default=None, metavar="N",
                       help="let random players make N moves first")
    local.add_argument("--bots", type=_count, default=None, metavar="N",
                       help="N computer players (docs/ai.md): seats added to --names, or N of "
                       "the --players seats")
    local.add_argument("--level", default=None, choices=("easy", "normal", "hard"),
                       help="the computers' level (default normal)")
    local.add_argument("--lang", default=None, choices=("en", "fr", "de"),
                       help="the game's language: prompts, replies, help, typed words and "
                       "pictures (default: LANG for a new game; a saved game keeps its own)")
    local.add_argument("--images", default=None,
                       help="folder for the board images (default ./local-games)")
    record = parser.add_argument_group("a game's record (the file of /game export)")
    record.add_argument("--verify", default=None, metavar="FILE",
                        help="check that the deck was fair: every shuffle and draw from the seed")
    record.add_argument("--replay", default=None, metavar="FILE",
                        help="play the game back in the terminal, an image per move (--images)")
    parser.add_argument("--data-dir", default=None,
                        help="folder of the SQLite file (default: KHRONOS_DATA_DIR or ./data)")
    return parser


def _count(text: str) -> int:
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"N must be a whole number, 0 or more, not {text!r}")
    return int(text)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except ModuleNotFoundError as exc:  # a Python without the pinned dependencies
        name = exc.name or "?"
        if name.split(".")[0] in OUR_PACKAGES:
            raise
        print(MISSING.format(name=name, python=sys.executable), file=sys.stderr)
        return 2


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.verify is not None or args.replay is not None:
        return _record(args)
    if not args.local:
        given = [f"--{flag}" for flag in LOCAL_FLAGS if getattr(args, flag) is not None]
        if given:
            verb = "is" if len(given) == 1 else "are"
            parser.error(f"{', '.join(given)} {verb} for a terminal game only: add --local")
    names = args.names.split(",") if args.names is not None else None
    if args.local:
        from .terminal.app import terminal_language
        from .terminal.seats import LocalError, people_names

        default_lang = terminal_language()  # LANG: a new game's language without --lang
        lang = args.lang or default_lang
        try:  # the seats checked as run_local will: --names are the people, --bots adds to them
            people_names(args.players, names, args.bots or 0, lang)
        except LocalError as exc:
            parser.error(str(exc))

    from .settings import SettingsError, data_dir_problem, load_settings

    try:
        settings = load_settings()
    except SettingsError as exc:
        print(f"{exc} Fix it in .env or in the environment (see .env.example).",
              file=sys.stderr)
        return 2
    from ai.hard import speed_problem

    problem = speed_problem()  # read by the computers' processes, not a setting of the bot
    if problem:
        print(problem, file=sys.stderr)
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
            lang=args.lang,
            default_lang=default_lang,
        )
    if args.data_dir is not None:
        settings = settings.model_copy(update={"data_dir": data_dir})
    from .discord.start import run_discord

    return run_discord(settings)


def _record(args: argparse.Namespace) -> int:
    """--verify FILE or --replay FILE [--images DIR]: no Discord, no database."""
    from .terminal.record import replay_file, verify_file

    if args.verify is not None:
        return verify_file(Path(args.verify), sys.stdout)
    path = Path(args.replay)
    folder = Path(args.images or "./local-games") / f"replay-{path.stem}"

    def wait() -> bool:
        return input("Enter: next move, q: quit ").strip().lower() != "q"

    return replay_file(path, folder, sys.stdout, wait=wait if sys.stdin.isatty() else None)


if __name__ == "__main__":
    sys.exit(main())
