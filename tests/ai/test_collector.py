"""The searches run with Python's cyclic garbage collector paused (ai/work.py
``collector_paused``): it walked the positions a search keeps again and again, for a quarter
to a third of the search's time. The pause is shared by nested and concurrent searches, gives
the collector back as it found it, and is safe because a search leaves no cycles behind."""

from __future__ import annotations

import gc
import random
import threading
from collections.abc import Callable, Iterator
from typing import TypeVar

import pytest

from ai import Level, choose_action, hard, policy
from ai.coach import hints
from ai.policy import forget_plans
from ai.work import collector_paused
from engine import player_view

from .positions import turn_starts

_T = TypeVar("_T")


@pytest.fixture
def collector_on() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.enable()
    yield
    if not was_enabled:
        gc.disable()


@pytest.mark.usefixtures("collector_on")
def test_the_pause_is_shared_and_the_collector_given_back() -> None:
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer search still runs
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # it was off before: it stays off
    finally:
        gc.enable()


@pytest.mark.usefixtures("collector_on")
def test_concurrent_searches_share_one_pause() -> None:
    first_in, second_out = threading.Event(), threading.Event()
    seen: list[bool] = []

    def first() -> None:
        with collector_paused():
            first_in.set()
            assert second_out.wait(10)
            seen.append(gc.isenabled())  # the second has ended; this one still runs

    thread = threading.Thread(target=first)
    thread.start()
    assert first_in.wait(10)
    with collector_paused():
        pass
    second_out.set()
    thread.join(10)
    assert seen == [False]
    assert gc.isenabled()


@pytest.mark.usefixtures("collector_on")
@pytest.mark.parametrize(("level", "players"), [("hard", 2), ("normal", 3), ("hard", 4)])
def test_a_search_runs_without_a_collection_and_leaves_no_cycles(level: str, players: int) -> None:
    views = [player_view(s, s.turn) for s in turn_starts(players, 61, 4)[-2:]]
    collections: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    for k, view in enumerate(views):  # the first also warms the caches that live on
        forget_plans()
        gc.collect()
        gc.callbacks.append(count)
        try:
            choose_action(view, Level(level), 0.3, random.Random(k))
        finally:
            gc.callbacks.remove(count)
        # none while it searched (dozens before the pause); at most the one that follows it
        assert len(collections) <= 1, collections
        collections.clear()
        assert gc.isenabled()
    with collector_paused():  # the collector that follows the pause would hide cycles
        choose_action(views[-1], Level(level), 0.3, random.Random(7))
        assert gc.collect() == 0  # what the search left, reference counting freed


@pytest.mark.usefixtures("collector_on")
def test_every_search_of_a_decision_or_a_hint_runs_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, bool]] = []

    def watched(name: str, search: Callable[..., _T]) -> Callable[..., _T]:
        def run(*args: object) -> _T:
            seen.append((name, gc.isenabled()))
            return search(*args)

        return run

    monkeypatch.setattr(hard.Search, "_run", watched("hard", hard.Search._run))
    monkeypatch.setattr(policy, "_weigh_plans", watched("normal", policy._weigh_plans))
    state = turn_starts(2, 62, 4)[-1]
    view = player_view(state, state.turn)
    for level in ("hard", "normal"):
        forget_plans()
        choose_action(view, Level(level), 0.2, random.Random(1))
        assert hints(view, level, 0.2, seed=3)
    assert seen == [("hard", False)] * 2 + [("normal", False)] * 2
    assert gc.isenabled()
