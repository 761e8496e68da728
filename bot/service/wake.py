"""One wait shared by the bot's background loops (the timer dispatcher, the outbox deliverer):
sleep for a delay, or less if someone sets the loop's wake event."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable


async def sleep_or_wake(sleep: Callable[[float], Awaitable[None]], wake: asyncio.Event,
                        delay: float) -> None:
    """Return after ``sleep(delay)`` or as soon as ``wake`` is set, whichever comes first
    (at once if it is already set); neither waiting task outlives the call."""
    if wake.is_set():
        return
    sleeper = asyncio.ensure_future(sleep(delay))
    waker = asyncio.ensure_future(wake.wait())
    try:
        await asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (sleeper, waker):
            task.cancel()
        await asyncio.gather(sleeper, waker, return_exceptions=True)
