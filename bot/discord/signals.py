"""SIGTERM (``docker stop``) and SIGINT (Ctrl-C) for ``python -m bot``.

The first signal asks the bot to stop (``KhronosBot.request_stop``: no new commands, the
committed deliveries sent, then the gateway, the workers and the database connections closed)
and the process exits with status 0. A second signal during the stop exits at once, with
status 128 + the signal's number, as a shell reports a process killed by it: what is committed
is safe in the database and is delivered at the next start. And whatever hangs (a connection
that does not close), the process is gone ``HARD_STOP`` seconds after the first signal, with
status 1, before Docker's SIGKILL at 10 s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import threading
from typing import Protocol

log = logging.getLogger("khronos.discord")

HARD_STOP = 9.5  # seconds after the first signal: the process is gone, whatever hangs
SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Stoppable(Protocol):
    stopping: bool

    def request_stop(self) -> None: ...


def install(bot: Stoppable) -> None:
    """Make SIGTERM and SIGINT stop ``bot`` (call it with the event loop running)."""
    loop = asyncio.get_running_loop()
    for signum in SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, _on_signal, bot, signum)


def _on_signal(bot: Stoppable, signum: int) -> None:
    name = signal.Signals(signum).name
    if bot.stopping:
        exit_now(128 + signum, f"{name} again while stopping: exiting at once")
    log.info("%s received", name)
    timer = threading.Timer(HARD_STOP, exit_now,
                            (1, f"the stop did not end within {HARD_STOP:g} s; exiting"))
    timer.daemon = True  # never keeps the process alive by itself
    timer.start()
    bot.request_stop()


def exit_now(status: int, why: str) -> None:
    """Log ``why``, flush the logs and end the process with ``status`` at once: no thread,
    connection or exit handler is waited for."""
    log.warning(why)
    with contextlib.suppress(Exception):
        for handler in logging.getLogger().handlers:
            handler.flush()
        sys.stderr.flush()
    os._exit(status)


__all__ = ["HARD_STOP", "exit_now", "install"]
