"""Engine speed: prints the engine's figures.

- median ``apply`` of a typical action (all actions of random games, per kind of action, and
  constructs/upgrades alone, which include ripple and cascade resolution);
- full legal construct placements for one building type on one board (mid-game);
- the legal actions of each position of random 4-player games, asked as a game asks them
  (right after the move that made the position): every action built (``legal_actions``), and
  counted with one of them built (``legal_action_list``, as the random player does);
- complete random 4-player games;
- the cascades (R23-R37) per 1,000 games of each random player, estimated from
  ``KHRONOS_BENCH_GAMES`` games of each (default 50; 2-5 players, Hold'em in a third; 0 skips
  the tally).
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import (
    Action,
    Age,
    BuildingType,
    GameState,
    Options,
    apply,
    current_seat,
    legal_action_list,
    legal_actions,
    new_game,
)
from engine.domains import clear_index_cache
from engine.moves.construct import legal_construct_squares
from engine.random_player import (
    CASCADE_KINDS,
    Chooser,
    cascade_counts,
    play_random_game,
    random_action,
    seeking_action,
)
from engine.rules import Ctx


def main() -> None:
    apply_all: list[float] = []
    apply_build: list[float] = []
    apply_kind: dict[str, list[float]] = {}
    placements: list[float] = []
    placements_fresh: list[float] = []
    for state, action, dt in _timed_applies(worded=True):
        apply_all.append(dt)
        apply_kind.setdefault(action.kind, []).append(dt)
        if action.kind in ("construct", "upgrade", "choose"):
            apply_build.append(dt)
        if state.round == 4 and len(placements) < 200:
            clear_index_cache()  # the board's index computed afresh, then shared
            for times in (placements_fresh, placements):
                t0 = time.perf_counter()
                legal_construct_squares(Ctx(state), Age.MIGHT, BuildingType.KEEP)
                times.append((time.perf_counter() - t0) * 1000)
    # the search's apply over the same games, not helped by the first pass's board indexes
    apply_quiet = [dt for _, _, dt in _timed_applies(worded=False, fresh=True)]
    listing = _timed_listing(lambda state, seat: legal_actions(state, seat))
    counted = _timed_listing(lambda state, seat: _one_of(legal_action_list(state, seat)))
    games: list[float] = []
    for seed in range(100, 110):
        t0 = time.perf_counter()
        play_random_game(Options(players=4), seed)
        games.append(time.perf_counter() - t0)
    print(f"apply, any action:          median {statistics.median(apply_all):.3f} ms "
          f"(p95 {statistics.quantiles(apply_all, n=20)[18]:.3f} ms, n={len(apply_all)})")
    print(f"apply, construct/upgrade/choose with ripples and cascades: median "
          f"{statistics.median(apply_build):.3f} ms (n={len(apply_build)})")
    for kind, times in sorted(apply_kind.items()):
        print(f"  apply {kind:<12} median {statistics.median(times):.3f} ms (n={len(times)})")
    print(f"apply(..., worded=False), the same games: median "
          f"{statistics.median(apply_quiet):.3f} ms (n={len(apply_quiet)})")
    print(f"legal_actions per position (every action built): median "
          f"{statistics.median(listing):.3f} ms, mean {statistics.mean(listing):.3f} ms "
          f"(n={len(listing)})")
    print(f"legal_action_list per position (counted, one built): median "
          f"{statistics.median(counted):.3f} ms, mean {statistics.mean(counted):.3f} ms")
    med = statistics.median(placements_fresh)
    print(f"legal Keep placements on Might (mid-game): median {med:.2f} ms "
          f"({statistics.median(placements):.3f} ms asked again of the same board)")
    print(f"random 4-player game (uniform random legal player): median "
          f"{statistics.median(games):.2f} s, max {max(games):.2f} s")
    cascades()


def _timed_applies(
    worded: bool, fresh: bool = False
) -> Iterator[tuple[GameState, Action, float]]:
    """Twenty random 4-player games: each action applied, with the state after it and the
    time ``apply`` took (ms). ``fresh``: the board indexes cleared at the start of each game."""
    for seed in range(20):
        if fresh:
            clear_index_cache()
        state = new_game(Options(players=4), seed)
        chooser = random.Random(seed)
        while not state.over:
            seat = current_seat(state)
            assert seat is not None
            _, action = random_action(state, chooser)
            t0 = time.perf_counter()
            state, _ = apply(state, seat, action, worded=worded)
            yield state, action, (time.perf_counter() - t0) * 1000


def _timed_listing(ask: Callable[[GameState, int], object]) -> list[float]:
    """The time (ms) ``ask(state, seat)`` takes at each position of twenty random 4-player
    games, right after the move that made it (the board indexes cleared at each game's start;
    the moves are those of the uniform random player)."""
    times = []
    for seed in range(20):
        clear_index_cache()
        state = new_game(Options(players=4), seed)
        chooser = random.Random(seed)
        while not state.over:
            seat = current_seat(state)
            assert seat is not None
            t0 = time.perf_counter()
            ask(state, seat)
            times.append((time.perf_counter() - t0) * 1000)
            _, action = random_action(state, chooser)
            state, _ = apply(state, seat, action)
    return times


def _one_of(legal: Sequence[Action]) -> Action:
    return legal[len(legal) // 2]


def _tally(player: Chooser, games: int) -> tuple[Counter[str], float]:
    counts: Counter[str] = Counter()
    t0 = time.perf_counter()
    for seed in range(games):
        chooser = random.Random(seed)
        state = new_game(Options(players=2 + seed % 4, holdem=seed % 3 == 0), seed)
        while not state.over:
            seat, action = player(state, chooser)
            mover = state.turn
            state, events = apply(state, seat, action)
            counts.update(cascade_counts(events, mover))
    return counts, (time.perf_counter() - t0) / games


def cascades() -> None:
    games = int(os.environ.get("KHRONOS_BENCH_GAMES", "50"))
    if games <= 0:
        return
    uniform, t_uniform = _tally(random_action, games)
    seeking, t_seeking = _tally(seeking_action, games)
    scale = 1000 / games
    print(f"cascades per 1,000 games (from {games} games of each player; "
          f"{t_uniform:.2f} s and {t_seeking:.2f} s per game):")
    print(f"  {'':<45} {'uniform':>8} {'seeking':>8}")
    for kind in CASCADE_KINDS:
        print(f"  {kind:<45} {uniform[kind] * scale:>8.0f} {seeking[kind] * scale:>8.0f}")


if __name__ == "__main__":
    main()
