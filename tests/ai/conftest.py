"""Shared set-up of the computer-player tests."""

from __future__ import annotations

import pytest

from ai import hard


@pytest.fixture(autouse=True)
def _no_wall_clock_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    """``hard`` is bounded by work units, and by a wall-clock stop that guards a live bot on a
    loaded machine; the tests expect its exact moves under any load, so they lift the stop
    (``test_hard`` checks what it does)."""
    monkeypatch.setattr(hard, "HARD_CAP_S", 600.0)
    monkeypatch.setattr(hard, "HARD_FLOOR_S", 600.0)
