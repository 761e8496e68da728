"""``hard``'s work follows the machine's speed (ai/hard.py ``machine_speed``): a machine that
searches at a third of the reference's rate does a third of the work, so that a decision takes
about the same time anywhere; measured once per process, or set by ``KHRONOS_AI_SPEED``."""

from __future__ import annotations

import math
import random
import time

import pytest

from ai import hard
from ai.hard import Search
from ai.work import WORK, Stopping, searches_stopped
from engine import player_view

from .positions import turn_starts


@pytest.fixture
def unmeasured(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process has not measured its speed yet, and nothing sets it."""
    monkeypatch.setattr(hard, "_speed", None)
    monkeypatch.delenv(hard.SPEED_ENV, raising=False)


def test_a_search_does_the_work_of_its_budget_times_the_speed() -> None:
    state = turn_starts(2, 83, 6)[-1]
    view = player_view(state, state.turn)
    works = []
    for speed in (1.0, 0.35):
        search = Search(view, random.Random(1), 0.8, speed=speed)
        works.append(search.limit - WORK.units)
    assert works[0] == pytest.approx(0.8 * hard.THINK_FACTOR * hard.UNITS_PER_S[2])
    assert works[1] == pytest.approx(0.35 * works[0])


@pytest.mark.usefixtures("unmeasured")
def test_the_speed_is_measured_once_and_rounded_to_a_quarter_doubling(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = []

    def rate() -> float:
        calls.append(1)
        return hard.REFERENCE_RATE * 0.34  # a machine three times slower (log2: -1.56)

    monkeypatch.setattr(hard, "calibration_rate", rate)
    assert hard.machine_speed() == pytest.approx(2 ** -1.5)
    assert hard.machine_speed() == pytest.approx(2 ** -1.5)
    assert len(calls) == 1
    state = turn_starts(2, 83, 6)[-1]
    search = Search(player_view(state, state.turn), random.Random(1), 0.8)
    assert search.limit - WORK.units == pytest.approx(
        2 ** -1.5 * 0.8 * hard.THINK_FACTOR * hard.UNITS_PER_S[2])


@pytest.mark.usefixtures("unmeasured")
def test_a_machine_far_slower_or_faster_is_kept_within_the_range(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for factor, expected in ((0.001, hard.SPEED_RANGE[0]), (100.0, hard.SPEED_RANGE[1])):
        monkeypatch.setattr(hard, "_speed", None)
        monkeypatch.setattr(hard, "calibration_rate", lambda f=factor: hard.REFERENCE_RATE * f)
        assert hard.machine_speed() == expected


@pytest.mark.usefixtures("unmeasured")
def test_a_set_speed_is_used_as_it_is_and_a_bad_one_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def never() -> float:
        raise AssertionError("measured although set")

    monkeypatch.setattr(hard, "calibration_rate", never)
    monkeypatch.setenv(hard.SPEED_ENV, " 0.5 ")
    assert hard.machine_speed() == 0.5
    for bad in ("fast", "0", "-1", "nan", "9"):
        monkeypatch.setattr(hard, "_speed", None)
        monkeypatch.setenv(hard.SPEED_ENV, bad)
        with pytest.raises(ValueError, match=hard.SPEED_ENV):
            hard.machine_speed()


@pytest.mark.usefixtures("unmeasured")
def test_a_process_that_stops_while_measuring_keeps_no_speed() -> None:
    with searches_stopped(), pytest.raises(Stopping):
        hard.machine_speed()
    assert hard._speed is None


def test_the_calibration_does_the_same_work_every_time() -> None:
    """Its searches are bounded by units like every search of ``hard``: only the time differs
    from one machine (or one run) to another."""
    spent, rates = [], []
    for _ in range(2):
        before = WORK.units
        rates.append(hard.calibration_rate())
        spent.append(WORK.units - before)
    assert spent[0] == spent[1]
    per_search = hard.CALIBRATION_BUDGET_S * hard.THINK_FACTOR * hard.UNITS_PER_S[2]
    assert spent[0] >= hard.CALIBRATION_TURNS * 0.5 * per_search
    assert all(math.isfinite(r) and r > 0 for r in rates)


def test_a_slow_machines_beam_still_plans_its_whole_turn() -> None:
    """The beam search of its own turn gets ``PLAN_SHARE`` of the work: enough to reach the
    turn's end on a machine at 0.42 of the reference's speed, where a third of the work (the
    share before) would have stopped it halfway, and its plans were worse (docs/ai-figures.md)."""
    state = turn_starts(2, 8, 5)[4]
    search = Search(player_view(state, state.turn), random.Random(1), 0.8, speed=0.42)
    start = WORK.units
    search.plan_root()
    spent = WORK.units - start
    assert spent < search.plan_limit - start
    assert spent > 0.35 * (search.limit - start)


def test_whether_a_process_has_its_speed_to_measure(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a worker pool asks before it starts its workers ahead (``ThinkPool``)."""
    monkeypatch.setattr(hard, "_speed", None)
    monkeypatch.setenv(hard.SPEED_ENV, "0.5")
    assert not hard.speed_to_measure()  # set: nothing to measure
    monkeypatch.setenv(hard.SPEED_ENV, "fast")
    assert not hard.speed_to_measure()  # the first search reports the bad value, as before
    monkeypatch.delenv(hard.SPEED_ENV)
    assert hard.speed_to_measure() and hard.known_speed() is None
    monkeypatch.setattr(hard, "calibration_rate", lambda: hard.REFERENCE_RATE)
    assert hard.machine_speed() == 1.0
    assert not hard.speed_to_measure() and hard.known_speed() == 1.0  # measured once


@pytest.fixture
def followed(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process has measured its speed (0.5) and timed none of its searches yet; nothing
    sets the speed."""
    monkeypatch.setattr(hard, "_speed", 0.5)
    monkeypatch.setattr(hard, "_shown", [])
    monkeypatch.delenv(hard.SPEED_ENV, raising=False)


@pytest.mark.usefixtures("followed")
def test_the_speed_follows_the_median_of_the_last_full_searches() -> None:
    """The start's measure until three searches were timed; then the median of the last nine,
    scaled so that a full search takes FOLLOW_S CPU seconds per second of budget."""
    scale = hard.FOLLOW_S / hard.THINK_FACTOR
    hard._shown[:] = [0.9, 0.3]
    assert hard.search_speed() == 0.5  # two timed: the measure still holds
    hard._shown.append(0.7)
    assert hard.search_speed() == pytest.approx(0.7 * scale)
    hard._shown[:] = [0.1] * 4 + [0.8] * 5  # the last nine: the slow ones are outvoted
    assert hard.search_speed() == pytest.approx(0.8 * scale)
    hard._shown[:] = [0.001] * 9
    assert hard.search_speed() == hard.SPEED_RANGE[0]
    hard._shown[:] = [100.0] * 9
    assert hard.search_speed() == hard.SPEED_RANGE[1]


def test_a_set_speed_is_never_followed(monkeypatch: pytest.MonkeyPatch) -> None:
    """KHRONOS_AI_SPEED holds whatever the searches showed, and a search then times nothing:
    every search does the same work (tests, benchmarks, a deployment that wants it)."""
    monkeypatch.setattr(hard, "_speed", None)
    monkeypatch.setattr(hard, "_shown", [0.2] * 9)
    monkeypatch.setenv(hard.SPEED_ENV, "0.5")
    assert hard.search_speed() == 0.5
    state = turn_starts(2, 83, 6)[-1]
    Search(player_view(state, state.turn), random.Random(1), 0.05).run()
    assert hard._shown == [0.2] * 9


def _clock(monkeypatch: pytest.MonkeyPatch, step: float) -> None:
    """The searches' CPU clock advances by ``step`` seconds at each reading."""
    now = [0.0]

    def thread_time() -> float:
        now[0] += step
        return now[0]

    monkeypatch.setattr(time, "thread_time", thread_time)


@pytest.mark.usefixtures("followed")
def test_a_full_search_shows_its_units_per_cpu_second(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a search remembers is its work over its CPU time (read at its start and its end),
    against UNITS_PER_S; the next nine searches' median then sets the work."""
    _clock(monkeypatch, 2.0)
    state = turn_starts(2, 83, 6)[-1]
    view = player_view(state, state.turn)
    for k in range(hard.FOLLOW_FROM):
        search = Search(view, random.Random(k), 0.05)
        assert search.limit - search.start == pytest.approx(
            0.5 * 0.05 * hard.THINK_FACTOR * hard.UNITS_PER_S[2])  # the measure's work
        search.run()
        done = WORK.units - search.start
        assert done >= search.limit - search.start  # all its work (not cut by the clock)
        assert hard._shown[-1] == pytest.approx(done / 2.0 / hard.UNITS_PER_S[2])
    assert len(hard._shown) == hard.FOLLOW_FROM
    search = Search(view, random.Random(9), 0.05)
    expected = hard.search_speed() * 0.05 * hard.THINK_FACTOR * hard.UNITS_PER_S[2]
    assert hard.search_speed() != 0.5
    assert search.limit - search.start == pytest.approx(expected)


@pytest.mark.usefixtures("followed")
def test_a_search_cut_short_or_too_brief_is_not_timed(monkeypatch: pytest.MonkeyPatch) -> None:
    state = turn_starts(2, 83, 6)[-1]
    view = player_view(state, state.turn)
    _clock(monkeypatch, hard.FOLLOW_MIN_S / 4)  # too brief to time: noise
    Search(view, random.Random(1), 0.05).run()
    assert hard._shown == []
    _clock(monkeypatch, 2.0)
    cap = hard.HARD_CAP_S
    monkeypatch.setattr(hard, "HARD_CAP_S", 0.0)  # the wall clock stops it at once
    Search(view, random.Random(1), 0.05).run()
    assert hard._shown == []
    monkeypatch.setattr(hard, "HARD_CAP_S", cap)
    Search(view, random.Random(1), 0.05, speed=0.5).run()  # its speed given: a benchmark's
    assert hard._shown == []
    Search(view, random.Random(1), 0.05).run()
    assert len(hard._shown) == 1


@pytest.mark.usefixtures("followed")
def test_only_the_last_nine_searches_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    _clock(monkeypatch, 2.0)
    hard._shown[:] = [float(k) for k in range(hard.FOLLOW_SEARCHES)]
    state = turn_starts(2, 83, 6)[-1]
    Search(player_view(state, state.turn), random.Random(1), 0.05).run()
    assert len(hard._shown) == hard.FOLLOW_SEARCHES
    assert hard._shown[:-1] == [float(k) for k in range(1, hard.FOLLOW_SEARCHES)]
