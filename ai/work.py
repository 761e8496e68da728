"""What one thread's search has done so far: its work in units, and its memories.

``WORK.units`` counts the search's work: one engine ``apply`` is one unit, one evaluation of a
position ``EVALUATE_UNITS``, one list of candidates ``CANDIDATE_UNITS`` (roughly their costs).
Unlike the clock, the count is the same on any machine and under any load, so a search bounded
by it (``hard``) decides the same way every time. One per thread: searches in two threads do
not spend each other's units, nor share the memory of the search in progress.

``STOP`` is the process's: while it is set, every search gives up at its next step by raising
``Stopping``. The terminal sets it on Ctrl-C, the bot at its stop's grace end when computers
think in its threads (``KHRONOS_AI_WORKERS=0``); ``searches_stopped`` sets it for a block.
Nothing is decided then; the next start thinks again and finds the same move.

``collector_paused`` holds Python's cyclic garbage collector off while a search runs (any
thread's: the last one to end turns it back on). A search builds and keeps tens of thousands
of small objects (positions, their boards and tiles, remembered turns); the collector walks
them again and again as they pile up, for nothing (almost all of them are freed by their
reference counts), and that was a quarter to a third of a search's time. The work counted
is the same either way, so the decision is too; only its time shrinks.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator
from typing import Any

CANDIDATE_UNITS = 4.0  # one ``policy.candidates`` call (one apply is one unit)
EVALUATE_UNITS = 1.0  # one ``evaluate.evaluate`` or ``evaluate_all`` call


class _Work(threading.local):
    units = 0.0
    # The expansions of one search of the seat's own turn (``policy.shortlist``): position ->
    # its steps, unscored. Only while its own turn is searched on one sample: a step that ends
    # the turn draws cards, which differ from one sample to another.
    expanded: dict[str, Any] | None = None
    lean = False  # leave out travel steps whose action needs no travel (``policy._expand``)
    # The scores of steps met so far by ``hard``'s iterations: (position without the mover's
    # hand, careful) -> actions -> score. A step's score does not depend on the hand (the
    # evaluation reads none), only whether the hand can play it; so a rival's turn on another
    # deal of its hand reuses them (``policy.steps``, ``hard.quick_rest``).
    scores: dict[tuple[str, bool], dict[tuple[Any, ...], float]] | None = None
    squares = 0  # construct squares added per set of domains joined (``policy._board_moves``)


WORK = _Work()

STOP = threading.Event()


class Stopping(RuntimeError):
    """The process stops: the search was dropped before it decided (nothing is lost: the next
    start thinks again)."""


def check_stop() -> None:
    """Raise ``Stopping`` if the process stops (``STOP``); searches call it at every step."""
    if STOP.is_set():
        raise Stopping("the search was dropped: the process stops")


@contextlib.contextmanager
def searches_stopped() -> Iterator[None]:
    """Within: every search of this process (in any thread) gives up at its next step, so that
    the threads they run in can be joined at once."""
    STOP.set()
    try:
        yield
    finally:
        STOP.clear()


_paused = 0  # searches running with the collector held off
_was_enabled = False  # the collector's state before the first of them
_pause_lock = threading.Lock()


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Within: Python's cyclic garbage collector does not run (reference counting frees what a
    search drops: it makes no cycles, tests/ai/test_collector.py). Nested and concurrent
    blocks share one pause; the collector is turned back on, if it was on, when the last
    ends (its next run frees whatever other code of the process left in cycles meanwhile)."""
    global _paused, _was_enabled
    with _pause_lock:
        if _paused == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _pause_lock:
            _paused -= 1
            if _paused == 0 and _was_enabled:
                gc.enable()
