"""What every test shares: each starts with the process's searches allowed (``ai.work.STOP``,
which a stopped bot leaves set, as its process ends)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ai.work import STOP


@pytest.fixture(autouse=True)
def _searches_allowed() -> Iterator[None]:
    STOP.clear()
    yield
    STOP.clear()
