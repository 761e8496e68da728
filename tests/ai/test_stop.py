"""A process that stops does not wait for its searches: with ``STOP`` set (``searches_stopped``)
every search, in any thread, gives up at its next step by raising ``Stopping``, and decides
nothing. The terminal and the bot set it when computers think in their own threads."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable

import pytest

from ai import choose_action, hard, policy
from ai.coach import hints
from ai.pool import PoolClosed
from ai.work import STOP, Stopping, searches_stopped
from engine import player_view

from .positions import turn_starts

HANG_GUARD_S = 120.0  # a search STOP does not reach would run for hours with these knobs


@pytest.fixture(autouse=True)
def _endless(monkeypatch: pytest.MonkeyPatch) -> None:
    """No wall-clock stop: only the work (a huge budget) or STOP ends a search."""
    monkeypatch.setattr(hard, "HARD_CAP_S", 1e9)
    monkeypatch.setattr(hard, "HARD_FLOOR_S", 1e9)
    monkeypatch.setattr(policy, "HARD_CAP_S", 1e9)
    monkeypatch.setattr(policy, "HARD_FACTOR", 1e9)


def _decide(level: str) -> Callable[[], object]:
    state = turn_starts(2, 90, 6)[-1]  # a turn whose searches, unstopped, run on and on
    view = player_view(state, state.turn)
    if level == "coach":
        return lambda: hints(view, "hard", 1e6, seed=3)
    return lambda: choose_action(view, level, 1e6, random.Random(3))


@pytest.mark.parametrize("level", ["normal", "hard", "coach"])
def test_a_search_in_a_thread_gives_up_when_the_process_stops(
    level: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    decide = _decide(level)
    started = threading.Event()
    play = policy._play

    def spy(*args: object) -> object:
        started.set()  # the search is under way
        return play(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(policy, "_play", spy)
    monkeypatch.setattr(hard, "_play", spy)
    ended: list[BaseException | object] = []

    def run() -> None:
        try:
            ended.append(decide())
        except BaseException as exc:  # what the thread ended with is the result
            ended.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    assert started.wait(HANG_GUARD_S)
    with searches_stopped():
        assert STOP.is_set()
        thread.join(HANG_GUARD_S)
        assert not thread.is_alive(), "the search did not give up"
    assert not STOP.is_set()
    assert len(ended) == 1 and isinstance(ended[0], Stopping)  # nothing decided


def test_searches_run_again_once_the_stop_is_over() -> None:
    """Inside ``searches_stopped`` a search gives up at its first step; after it, the same
    decision is made in full (the terminal's next game in the same process, a test's)."""
    view = player_view(turn_starts(2, 31, 5)[-1], turn_starts(2, 31, 5)[-1].turn)
    with searches_stopped(), pytest.raises(Stopping, match="process stops"):
        choose_action(view, "easy", 0.0, random.Random(3))
    action = choose_action(view, "easy", 0.0, random.Random(3))
    assert action == choose_action(view, "easy", 0.0, random.Random(3))


def test_a_closed_pool_is_a_stop_too() -> None:
    """The service tells a stop from a failure of the search by ``Stopping``: the worker pool's
    ``PoolClosed`` is one, so either way no default move is played in the computer's place."""
    assert issubclass(PoolClosed, Stopping)
