"""Thinking off the event loop: ``think`` runs ``choose_action`` in an executor, ``advise`` the
coach's ``hints``.

The view goes out as JSON and the action comes back as a dict, so the executor may be a
``concurrent.futures.ProcessPoolExecutor`` (the gateway heartbeat and the other games never wait
on the search) as well as a thread pool. Nothing is kept between decisions: after a restart the
computer simply thinks again from the stored state.
"""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import Executor
from typing import Any

from engine import Action, PlayerView, dump_action, parse_action

from .choose import choose_action
from .coach import Hint, hint_data, hints, parse_hint
from .policy import Level


def decide_json(view_json: str, level: str, budget_s: float, seed: int) -> dict[str, object]:
    """``choose_action`` with plain arguments and result (picklable, for a worker process)."""
    view = PlayerView.model_validate_json(view_json)
    action = choose_action(view, Level(level), budget_s, random.Random(seed))
    return dump_action(action)


async def think(
    view: PlayerView,
    level: Level | str,
    budget_s: float,
    seed: int,
    executor: Executor | None = None,
) -> Action:
    """The computer's action for ``view``, computed in ``executor`` (None: the loop's default
    thread pool). ``seed`` makes the decision reproducible: derive it from the game and its step
    so that thinking again after a restart gives the same move."""
    loop = asyncio.get_running_loop()
    data = await loop.run_in_executor(
        executor, decide_json, view.model_dump_json(), str(Level(level)), budget_s, seed
    )
    return parse_action(data)


def hints_json(view_json: str, level: str, budget_s: float, seed: int) -> list[dict[str, Any]]:
    """``coach.hints`` with plain arguments and result (picklable, for a worker process)."""
    view = PlayerView.model_validate_json(view_json)
    return [hint_data(h) for h in hints(view, level, budget_s, seed)]


async def advise(
    view: PlayerView,
    level: Level | str,
    budget_s: float,
    seed: int,
    executor: Executor | None = None,
) -> list[Hint]:
    """The coach's hints for ``view`` (``coach.hints``), computed in ``executor`` as ``think``
    computes a move; ``coach.CoachRefusal`` comes back as it was raised. Derive ``seed`` from
    the game, its step and the seat: asking again gives the same hints."""
    loop = asyncio.get_running_loop()
    data = await loop.run_in_executor(
        executor, hints_json, view.model_dump_json(), str(level), budget_s, seed
    )
    return [parse_hint(d) for d in data]
