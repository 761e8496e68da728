"""A SQLite storage's mark of life: a lock that the kernel releases when its process dies.

A delivery claim (``outbox_claims``) names the storage that holds it (``sql.Holder``). Another
storage on the same file, in this process or another, takes a claim at once when its holder is
gone, instead of waiting for the claim to expire. On SQLite the holder is a file of its own,
``<database>.holders/<token>``, that the storage keeps open with an exclusive ``flock`` from
``open()`` to ``close()``; its holder is alive exactly while that lock is held.

Decision: an OS lock rather than the process id and start time written in the claim. The
kernel drops the lock with the process, whatever ends it (SIGKILL, a crash, the
out-of-memory killer); it works between processes in different PID namespaces that share the
data folder (two containers on one volume, where the same pid means different processes), on
any POSIX system, with no clock. ``flock`` rather than ``fcntl`` record locks: a ``flock`` is
per open file, so two storages of one process (the tests' two "processes") see each other,
and closing another file of the process never drops it.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import re
import socket
import time
import uuid
from pathlib import Path
from typing import Any

log = logging.getLogger("khronos.storage")

_TOKEN = re.compile(r"file:[A-Za-z0-9._-]{1,120}")


class FileHolder:
    """The holder files of one SQLite database, and this storage's own."""

    def __init__(self, database: Path) -> None:
        self.folder = database.with_name(database.name + ".holders")
        self.token = ""  # "file:<name>" once acquired; "" if it could not be (claims expire)
        self._fd: int | None = None

    def acquire(self) -> str:
        """Create this storage's holder file, locked, and return its token. Dead holders' files
        are removed first. If the folder cannot be written, the token is "" (a claim then
        only expires, as before) and the reason is logged."""
        try:
            self.folder.mkdir(exist_ok=True)
            self.sweep()
            host = re.sub(r"[^A-Za-z0-9.-]", "-", socket.gethostname())[:60]
            name = f"{host}-{os.getpid()}-{uuid.uuid4().hex[:12]}"
            temp = self.folder / f".{name}"
            fd = os.open(temp, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.rename(temp, self.folder / name)  # seen by others only once locked
        except OSError as exc:
            log.warning("no holder file in %s (%s): a delivery claim of a dead process will "
                        "only expire", self.folder, exc)
            return self.token
        self._fd = fd
        self.token = f"file:{name}"
        return self.token

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.folder / self.token.removeprefix("file:"))
        os.close(fd)
        self.token = ""

    async def alive(self, token: str, run: Any = None) -> bool:
        """Whether the storage that ``token`` names still holds its lock. A token of another
        form (an older claim) counts as alive: its claim only expires."""
        if token == self.token or not _TOKEN.fullmatch(token):
            return True
        path = self.folder / token.removeprefix("file:")
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            return False
        except OSError:
            return True  # cannot tell: as alive
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return True
        finally:
            os.close(fd)  # also drops the shared lock, if it was taken
        return False

    def sweep(self) -> None:
        """Remove the files of dead holders (a lock that can be taken belongs to nobody)."""
        for path in self.folder.iterdir():
            if path.name.startswith(".") and _age(path) < 60.0:
                continue  # a holder being made: not locked yet
            try:
                fd = os.open(path, os.O_RDONLY)
            except OSError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                path.unlink(missing_ok=True)
            except OSError:
                pass  # alive (or not ours to remove)
            finally:
                os.close(fd)


def _age(path: Path) -> float:
    try:
        return time.time() - path.stat().st_mtime
    except OSError:
        return 0.0


__all__ = ["FileHolder"]
