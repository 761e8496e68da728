"""What every test shares: each starts with the process's searches allowed (``ai.work.STOP``,
which a stopped bot leaves set, as its process ends); and ``hard`` does the reference machine's
work on any machine (``KHRONOS_AI_SPEED``, inherited by the processes the tests start), so that
what the tests see of its search does not depend on the speed of the machine they run on."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from ai.hard import SPEED_ENV
from ai.work import STOP

os.environ.setdefault(SPEED_ENV, "1")


@pytest.fixture(autouse=True)
def _searches_allowed() -> Iterator[None]:
    STOP.clear()
    yield
    STOP.clear()
