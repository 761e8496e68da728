"""Random legal players for tests and benchmarks.

- ``random_action``: uniform over ``legal_actions``.
- ``seeking_action``: scenario-seeking: it first picks a kind of action with weights that favour
  upgrades, demolitions and building, then an action of that kind with weights towards civil
  buildings that join domains, footprints whose copies would land on buildings of later boards
  (paradoxes), crowded squares and populated buildings over printed hamlets. Both only ever play
  legal actions; the second reaches the rare cascades (R27-R37) far more often.
- ``cascade_counts``: what a move's events set off, by kind, for the property test and the
  benchmark.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from .actions import Action
from .board import FOOTPRINTS, PRINTED_HAMLETS, square_name
from .constants import BUILDINGS, COLS, ROWS, Age, BuildingType, Family
from .domains import BoardIndex, board_index
from .events import Event
from .game import apply, current_seat, legal_action_list, new_game
from .masks import BORDERS, CELLS
from .resolve import cells_of
from .state import GameState, Options

Chooser = Callable[[GameState, random.Random], tuple[int, Action]]


def random_action(state: GameState, chooser: random.Random) -> tuple[int, Action]:
    """Uniform over the legal actions; only the one picked is listed and built (the same pick
    as ``chooser.choice(legal_actions(state, seat))``)."""
    seat = current_seat(state)
    assert seat is not None
    return seat, chooser.choice(legal_action_list(state, seat))


# Weights of each kind of action for the scenario-seeking player (when the kind is legal).
KIND_WEIGHTS = {
    "choose": 1.0,
    "exchange": 1.0,
    "holdem": 0.5,
    "travel": 2.5,
    "construct": 10.0,
    "upgrade": 14.0,
    "demolish": 9.0,
    "populate": 6.0,
    "renovate": 2.0,
    "end_turn": 1.5,
}
OPPORTUNITY = 0.7  # how often it looks first for a move that sets off a rare cascade
RARE = 40.0  # the weight from which a move counts as one


_SQUARE = {square_name(i): i for i in range(COLS * ROWS)}
_KIND: dict[type[Action], str] = {}


def _kind(cls: type[Action]) -> str:
    kind = _KIND.get(cls)
    if kind is None:
        kind = _KIND[cls] = str(cls.model_fields["kind"].default)
    return kind


class _Boards:
    """Per-step facts about the boards that the weights need."""

    def __init__(self, state: GameState) -> None:
        self.memo: dict[tuple[Age, BuildingType, int, int], float] = {}
        self.split_memo: dict[tuple[Age, frozenset[int]], bool] = {}
        self.boards = state.boards
        self.idx = [board_index(b) for b in state.boards]
        self.populated = {c for t in state.boards[Age.REASON].tiles if t.cubes for c in cells_of(t)}
        self.hamlets = set(PRINTED_HAMLETS)

    def footprint_weight(self, age: Age, btype: BuildingType, at: int, own: int = 0) -> float:
        key = (age, btype, at, own)
        w = self.memo.get(key)
        if w is None:
            w = self.memo[key] = self._footprint_weight(age, btype, at, own)
        return w

    def _footprint_weight(self, age: Age, btype: BuildingType, at: int, own: int) -> float:
        size = BUILDINGS[btype].size
        fp = FOOTPRINTS[size][at]
        if fp is None:
            return 1.0
        idx = self.idx[age]
        if not own and self._apart(age, size, at):
            return 3.0 if btype in (BuildingType.CASTLE, BuildingType.ABBEY) else 1.0
        w = 1.0
        domains = {idx.label[k] for k in idx.neighbour_keys(fp.cells, fp.border) if k != own}
        if BUILDINGS[btype].family is Family.CIVIL and len(domains) >= 2:
            w *= 20.0  # a junction (R31)
            if age is not Age.REASON and self._tied(idx, domains):
                w *= 40.0  # ... that breaks Hierarchy: downsizing (R32, R33)
        elif domains:
            w *= 3.0  # a crowded board
            fam, value = BUILDINGS[btype].family, BUILDINGS[btype].value
            if fam is not Family.CIVIL and any(
                idx.buildings[k].family is fam and idx.buildings[k].value == value
                for d in domains
                for k in idx.domains[d].members
                if k != own
            ):
                w *= 30.0 if value >= 2 else 8.0  # a second one under the top: to divide later
        if btype in (BuildingType.CASTLE, BuildingType.ABBEY):
            w *= 3.0  # the rarest buildings, to downsize later
        if BUILDINGS[btype].size >= 2:
            for later in range(age + 1, len(self.idx)):
                grid = self.idx[later].grid
                hit = {grid[c] for c in fp.cells if grid[c] != 0}
                if hit:
                    w *= 12.0  # its copy would erase something (R29)
                    if any(c in self.populated for c in fp.cells):
                        w *= 6.0  # ... with cubes on it (R30)
                    if later == Age.FAITH and self._splits(Age.FAITH, hit):
                        w *= 10.0  # ... and divide a domain there (R36)
                    break
        return w

    def _apart(self, age: Age, size: int, at: int) -> bool:
        """Nothing shares a side with the footprint (no domain, crowded or joined) and, from
        size 2, its copies would land on no building of a later board: what the weight below
        finds then is the Castle or Abbey factor alone (read as bits, engine/masks.py)."""
        if BORDERS[size][at] & self.idx[age].occupied:
            return False
        cells = CELLS[size][at]
        return size < 2 or not any(cells & i.occupied for i in self.idx[age + 1 :])

    def _splits(self, age: Age, keys: set[int]) -> bool:
        key = (age, frozenset(keys))
        found = self.split_memo.get(key)
        if found is None:
            after = BoardIndex(self.boards[age], exclude=keys)
            found = any(count > 1 for dom in after.domains for _, count in dom.top.values())
            self.split_memo[key] = found
        return found

    @staticmethod
    def _tied(idx: BoardIndex, domains: set[int]) -> bool:
        """Would joining these domains tie their top military or religious values?"""
        for fam in (Family.MILITARY, Family.RELIGIOUS):
            tops = [idx.domains[d].top[fam][0] for d in domains if fam in idx.domains[d].top]
            if len(tops) >= 2 and tops.count(max(tops)) >= 2:
                return True
        return False

    def divides(self, age: Age, square: int) -> bool:
        """Would removing the building at ``square`` leave a domain breaking Hierarchy (R36)?"""
        b = self.idx[age].at(square)
        return b is not None and self._splits(age, {b.key})


def _weight(state: GameState, boards: _Boards, cls: type[Action], fields: dict[str, Any]) -> float:
    kind = _kind(cls)
    if kind == "construct":
        return boards.footprint_weight(fields["age"], fields["building"], _SQUARE[fields["square"]])
    if kind == "upgrade":
        old = boards.idx[fields["age"]].at(_SQUARE[fields["square"]])
        own = old.key if old is not None else 0
        return boards.footprint_weight(fields["age"], fields["to"], _SQUARE[fields["at"]], own)
    if kind == "populate":
        b = boards.idx[Age.REASON].at(_SQUARE[fields["square"]])
        tile = None if b is None or b.printed else state.boards[Age.REASON].tile(b.key)
        if b is not None and tile is not None and boards.hamlets & set(b.cells):
            cubes = Counter(tile.cubes)
            mine = cubes.pop(state.turn, 0) + fields["count"]
            if cubes and mine == max(cubes.values()):
                return 40.0  # a tie for the most cubes, should a paradox come (R30)
            return 8.0  # a populated building over a printed hamlet (R30)
        return 1.0
    if kind == "demolish":
        return 60.0 if boards.divides(fields["age"], _SQUARE[fields["square"]]) else 1.0
    if kind == "exchange":
        return 1.0 / (1 + len(fields["discard"]))
    return 1.0


def seeking_action(state: GameState, chooser: random.Random) -> tuple[int, Action]:
    """A legal action of the player to act, chosen to reach rare cascades (module docstring)."""
    seat = current_seat(state)
    assert seat is not None
    legal = legal_action_list(state, seat)
    kinds = sorted(legal.counts())
    if state.pending is None and chooser.random() < OPPORTUNITY:
        # A move that sets off a rare cascade right away, when there is one.
        boards = _Boards(state)
        rare = [
            spec
            for k in ("construct", "upgrade", "demolish", "populate")
            for spec in legal.specs(k)
            if _weight(state, boards, *spec) >= RARE
        ]
        if rare:
            cls, fields = chooser.choice(rare)
            return seat, cls.model_construct(**fields)
    kind = chooser.choices(kinds, [KIND_WEIGHTS[k] for k in kinds])[0]
    specs = list(legal.specs(kind))
    if kind in ("construct", "upgrade", "populate", "exchange", "demolish"):
        boards = _Boards(state)
        weights = [_weight(state, boards, cls, fields) for cls, fields in specs]
        cls, fields = chooser.choices(specs, weights)[0]
    else:
        cls, fields = chooser.choice(specs)
    return seat, cls.model_construct(**fields)


def play_random_game(
    options: Options,
    seed: int,
    chooser_seed: int | None = None,
    max_steps: int = 5000,
    player: Chooser = random_action,
) -> tuple[GameState, list[tuple[int, Action]]]:
    """Play a whole game; returns the final state and the (seat, action) log."""
    chooser = random.Random(seed if chooser_seed is None else chooser_seed)
    state = new_game(options, seed)
    log: list[tuple[int, Action]] = []
    for _ in range(max_steps):
        if state.over:
            break
        seat, action = player(state, chooser)
        state, _ = apply(state, seat, action)
        log.append((seat, action))
    return state, log


# --- what the events show -------------------------------------------------------------------

CASCADE_KINDS = (
    "ripple",
    "ripple blocked (R27)",
    "ripple stopped, no tile or cube (R26)",
    "paradox (R29)",
    "paradox over a hamlet, clear majority (R30)",
    "paradox over a hamlet, tie (R30)",
    "junction (R31)",
    "junction decided by power (R32)",
    *(f"downsized {t.label} (R33)" for t in BuildingType if t.family is not Family.CIVIL),
    "division (R36)",
    "choice by the mover (R37)",
    "choice by another player (R37)",
)
_DOWNSIZED = re.compile(r"'s (\w+) at \w+ on \w+ is downsized")


def cascade_counts(events: list[Event], mover: int) -> Counter[str]:
    """How many of each ``CASCADE_KINDS`` a move's events hold (``mover``: the turn's seat)."""
    out: Counter[str] = Counter()
    for e in events:
        if e.kind == "rippled":
            out["ripple"] += 1
        elif e.kind == "not_rippled":
            out[
                "ripple blocked (R27)"
                if "(R27)" in e.text
                else "ripple stopped, no tile or cube (R26)"
            ] += 1
        elif e.kind == "removed" and "(paradox, R29)" in e.text:
            out["paradox (R29)"] += 1
        elif e.kind == "hamlet_cube":
            tie = e.seat is None or "provoker" in e.text
            out[f"paradox over a hamlet, {'tie' if tie else 'clear majority'} (R30)"] += 1
        elif e.kind == "junction":
            out["junction (R31)"] += 1
        elif e.kind == "junction_power":
            out["junction decided by power (R32)"] += 1
        elif e.kind in ("downsized", "removed") and (m := _DOWNSIZED.search(e.text)):
            out[f"downsized {m.group(1)} (R33)"] += 1
        elif e.kind == "division":
            out["division (R36)"] += 1
        elif e.kind == "decision":
            by = "the mover" if e.seat == mover else "another player"
            out[f"choice by {by} (R37)"] += 1
    return out
