"""For the processes the PostgreSQL tests kill inside a commit (``worker.py``,
``bot_child.py``): which transactions stored a move. Importing this module wraps
``PgTx.append_move`` so that ``stored_a_move(tx)`` tells, in ``_commit``, a commit that stores
a move from the bot's other writes (marking messages delivered, timers)."""

from __future__ import annotations

import weakref

from bot.storage.postgres import PgTx
from bot.storage.sql import SqlTx

_appended: weakref.WeakSet[SqlTx] = weakref.WeakSet()  # the transactions that stored a move
_append_move = PgTx.append_move


async def _append_and_mark(self: SqlTx, *, game_id: int, seq: int, version: int, seat: int,
                           user_id: int | None, kind: str, action: str, events: str, step: int,
                           now: float) -> None:
    await _append_move(self, game_id=game_id, seq=seq, version=version, seat=seat,
                       user_id=user_id, kind=kind, action=action, events=events, step=step,
                       now=now)
    _appended.add(self)


PgTx.append_move = _append_and_mark  # type: ignore[method-assign]


def stored_a_move(tx: SqlTx) -> bool:
    """Whether ``tx`` stored a move (``append_move``)."""
    return tx in _appended
