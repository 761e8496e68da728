"""The stop's bounds (``bot/discord/app.py``): every close step after the grace ends by
``STOP_CLOSED_BY``, so that the worst stop still ends before ``signals.HARD_STOP``. The stop
itself, with a delivery and the database hung, is run through the entry point in
``test_stop_inflight.py``."""

from __future__ import annotations

import time

from bot.discord import app
from bot.discord.signals import HARD_STOP

# the close steps that may start once STOP_CLOSED_BY has passed, each given CLOSE_FLOOR: the
# abandoned tasks' end, the count of the outbox rows left, the database's close
STEPS_AFTER_THE_GATEWAY = 3


def test_the_worst_stop_ends_before_the_hard_stop() -> None:
    assert app.STOP_GRACE < app.STOP_CLOSED_BY
    worst = app.STOP_CLOSED_BY + STEPS_AFTER_THE_GATEWAY * app.CLOSE_FLOOR
    assert worst <= HARD_STOP - 0.3, "time to exit is left before the hard stop"


def test_a_close_step_gets_its_bound_or_what_is_left_but_never_less_than_the_floor() -> None:
    now = time.monotonic()
    assert app.close_within(now + 60) == app.STOP_CLOSE
    left = app.close_within(now + app.STOP_CLOSE / 2)
    assert app.CLOSE_FLOOR < left <= app.STOP_CLOSE / 2
    assert app.close_within(now - 5) == app.CLOSE_FLOOR
