"""Thinking off the event loop: ``think`` runs the search in an executor (a worker process or
a thread) while the loop keeps serving everything else."""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import pytest

from ai import Level, choose_action, think
from ai.policy import forget_plans
from ai.worker import decide_json
from engine import GameState, Options, PlayerView, check, new_game, parse_action, player_view


def _view() -> tuple[GameState, PlayerView]:
    state = new_game(Options(players=3), 21)
    return state, player_view(state, state.turn)


async def _ticks_while(awaitable: asyncio.Future[object] | asyncio.Task[object]) -> int:
    ticks = 0
    while not awaitable.done():
        await asyncio.sleep(0.01)
        ticks += 1
    return ticks


async def test_think_in_a_worker_process_leaves_the_loop_free() -> None:
    state, view = _view()
    with ProcessPoolExecutor(max_workers=1) as pool:
        task = asyncio.ensure_future(think(view, "normal", 0.5, seed=5, executor=pool))
        ticks = await _ticks_while(task)
        action = task.result()
    check(state, view.seat, action)
    assert ticks >= 3  # the loop ran other work during the search


async def test_think_in_a_thread_gives_the_same_move_as_choose_action() -> None:
    state, view = _view()
    forget_plans()
    with ThreadPoolExecutor(max_workers=1) as pool:
        action = await think(view, Level.EASY, 0.2, seed=5, executor=pool)
    check(state, view.seat, action)
    assert action == choose_action(view, Level.EASY, 0.2, random.Random(5))


def test_decide_json_round_trips_through_plain_data() -> None:
    state, view = _view()
    data = decide_json(view.model_dump_json(), "easy", 0.0, 3)
    check(state, view.seat, parse_action(data))


def test_an_unknown_level_is_refused_with_the_levels_named() -> None:
    _, view = _view()
    with pytest.raises(ValueError, match="'expert' is not a valid Level"):
        choose_action(view, "expert", 1.0, random.Random(0))


def test_a_view_whose_seat_is_not_to_act_is_refused() -> None:
    state, view = _view()
    other = player_view(state, (view.seat + 1) % 3)
    with pytest.raises(ValueError, match="not to act"):
        choose_action(other, "easy", 0.0, random.Random(0))
