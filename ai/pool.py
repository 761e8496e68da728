"""The computers' worker processes for the live bot (``KHRONOS_AI_WORKERS``, docs/ai.md).

``ThinkPool`` is the executor ``GameService(ai_executor=...)`` thinks in: a
``ProcessPoolExecutor`` (``spawn``: never ``fork`` from a process that runs threads) whose
worker, if it dies (killed, out of memory), is replaced, and the decision it was computing is
submitted again to the new worker. ``ai.worker.think`` sends the view as JSON and derives the
seed from the game and its step, so thinking again gives the same move: nothing is lost. After
``retries`` replacements for one decision the error reaches the service, which plays the
default rather than stall the game. ``close()`` stops the workers (waiting for a decision in
progress at most ``grace`` seconds, then terminating), so no process outlives the bot; what
was in progress or waiting then fails with ``PoolClosed`` (not as a dead worker: nothing is
wrong, the bot stops, and a /hint tells its player to ask again after the restart); and a
bot that dies without closing (SIGKILL, a crash) takes them along: each worker watches its
parent (``watch_parent``) and exits as soon as it is gone.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, InvalidStateError, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.process import BaseProcess
from typing import Any, ParamSpec, TypeVar

from .hard import machine_speed, speed_to_measure
from .work import Stopping

log = logging.getLogger("khronos.ai")

P = ParamSpec("P")
T = TypeVar("T")

RETRIES = 2  # replacements of a dead worker for one decision before the service is told


class PoolClosed(Stopping):
    """The pool is closed (the bot stops): the decision or the hints asked were not computed,
    or were dropped in progress when ``close`` ended their worker."""


def watch_parent() -> None:
    """In a worker process: exit as soon as the process that started it is gone, however it
    ended (SIGKILL, a crash, the out-of-memory killer), so that no worker outlives the bot.

    multiprocessing gives each child a sentinel of its parent, a pipe whose other end only
    the parent holds: the kernel closes that end when the parent dies, whatever kills it, and
    the sentinel becomes readable. A daemon thread waits on it (no polling; a search in
    progress yields to it within the interpreter's switch interval). Decision: this rather
    than Linux's PR_SET_PDEATHSIG, which fires when the *thread* that started the worker
    ends (the pool starts workers from short-lived threads), and works on Linux only."""
    parent = multiprocessing.parent_process()
    if parent is None:  # not started by multiprocessing: nothing to watch
        return

    def watch() -> None:
        parent.join()  # returns once the parent's end of the pipe is closed: it is gone
        os._exit(1)

    threading.Thread(target=watch, name="khronos-parent-watch", daemon=True).start()


def _worker_start() -> None:
    # Ctrl-C in a terminal reaches the whole process group; the bot's close() stops the workers
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch_parent()


class ThinkPool(Executor):
    """``workers`` processes that compute the computers' decisions; see the module."""

    def __init__(self, workers: int, *, retries: int = RETRIES,
                 measure: bool | None = None) -> None:
        if workers < 1:
            raise ValueError("a pool needs at least one worker process")
        self.workers = workers
        self.retries = retries
        # start the workers at once and let each measure the machine's speed (2-4 s on a slow
        # machine) before any decision needs it; None: when it has to be measured (no
        # KHRONOS_AI_SPEED), so a bot whose speed is set starts no process before its first
        # decision
        self.measure = speed_to_measure() if measure is None else measure
        self.measured = 0  # workers that have measured their speed ahead (for tests and logs)
        self.submitted = 0  # decisions sent to a worker (for tests and logs)
        self.replaced = 0  # pools replaced because a worker died
        self._lock = threading.Lock()
        self._closed = False
        self._pool = self._new()

    def _new(self) -> ProcessPoolExecutor:
        pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_worker_start)
        if self.measure:
            # one task per worker, submitted together: each starts a worker (the pool starts
            # one per task waiting while it has fewer than ``workers``); a decision that
            # comes meanwhile waits for a worker's measure, which it would have made itself
            for _ in range(self.workers):
                pool.submit(machine_speed).add_done_callback(self._measured)
        return pool

    def _measured(self, f: Future[float]) -> None:
        if f.cancelled() or f.exception() is not None:  # closed or replaced meanwhile
            return
        with self._lock:
            self.measured += 1
        log.info("a computer's worker process measured this machine's speed: %.3g of the "
                 "reference's work", f.result())

    def pids(self) -> list[int]:
        """The process ids of the live workers (started on the first decision, or at once
        when they measure the machine's speed ahead)."""
        with self._lock:
            procs = dict(self._pool._processes or {})  # no public accessor
        return sorted(pid for pid, p in procs.items() if p.is_alive())

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        outer: Future[T] = Future()
        self._attempt(outer, fn, args, kwargs, self.retries)
        return outer

    def _attempt(self, outer: Future[T], fn: Callable[..., T], args: tuple[Any, ...],
                 kwargs: dict[str, Any], retries: int) -> None:
        with self._lock:
            if self._closed:
                raise PoolClosed("the computers' worker pool is shut down")
            pool = self._pool
            try:
                inner = pool.submit(fn, *args, **kwargs)
            except BrokenProcessPool:  # a worker died while idle: replace the pool now
                pool = self._replace_locked(pool)
                inner = pool.submit(fn, *args, **kwargs)
            self.submitted += 1

        def done(f: Future[T]) -> None:
            if outer.done():  # cancelled by the caller meanwhile
                return
            exc = None if f.cancelled() else f.exception()
            if self._closed and (f.cancelled() or isinstance(exc, BrokenProcessPool)):
                # close() dropped it before it started, or ended its worker: the stop, not
                # a crash (a cancellation here would cancel the task that awaits it)
                with contextlib.suppress(InvalidStateError):
                    outer.set_exception(PoolClosed("dropped: the computers' worker pool "
                                                   "was shut down"))
                return
            if isinstance(exc, BrokenProcessPool) and retries > 0:
                # not in this thread: it may be the dead pool's own management thread
                threading.Thread(target=self._retry, args=(outer, pool, fn, args, kwargs,
                                                           retries - 1), daemon=True).start()
                return
            with contextlib.suppress(InvalidStateError):
                if f.cancelled():
                    outer.cancel()
                elif exc is not None:
                    outer.set_exception(exc)
                else:
                    outer.set_result(f.result())

        inner.add_done_callback(done)
        outer.add_done_callback(lambda o: inner.cancel() if o.cancelled() else None)

    def _retry(self, outer: Future[T], broken: ProcessPoolExecutor, fn: Callable[..., T],
               args: tuple[Any, ...], kwargs: dict[str, Any], retries: int) -> None:
        with self._lock:
            if self._pool is broken and not self._closed:
                self._replace_locked(broken)
        log.warning("a computer's worker process died; it thinks again in a new one")
        try:
            self._attempt(outer, fn, args, kwargs, retries)
        except Exception as exc:  # shut down meanwhile
            with contextlib.suppress(InvalidStateError):
                outer.set_exception(exc)

    def _replace_locked(self, broken: ProcessPoolExecutor) -> ProcessPoolExecutor:
        self._pool = self._new()
        self.replaced += 1
        broken.shutdown(wait=False, cancel_futures=True)
        return self._pool

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._closed = True
            pool = self._pool
        pool.shutdown(wait=wait, cancel_futures=cancel_futures)

    def close(self, grace: float = 1.0) -> None:
        """Stop the workers: a decision in progress may finish within ``grace`` seconds, then
        the workers still alive are terminated. Blocking: call it in a thread from async code."""
        with self._lock:
            self._closed = True
            pool = self._pool
            procs: list[BaseProcess] = list((pool._processes or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        end = time.monotonic() + grace
        for proc in procs:
            proc.join(max(end - time.monotonic(), 0.0))
        for proc in procs:
            if proc.is_alive():  # a decision in progress: the next start makes it again
                log.info("stopping: a computer's decision, a hint or the measure of the "
                         "machine's speed in progress is dropped; its worker process is ended")
                proc.terminate()
                proc.join(2.0)
        with contextlib.suppress(Exception):
            pool.shutdown(wait=True)


__all__ = ["PoolClosed", "ThinkPool", "watch_parent"]
