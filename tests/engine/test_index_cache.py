"""The shared board indexes (``engine.domains.board_index``) are never stale.

An index is shared by every board whose tiles read the same, and boards are mutated in place
inside ``apply`` (on the clone). These tests compare each shared index, and the construct
squares and the generators' tables kept on it, with an index computed afresh from the same
board: after every action of random games (every kind of action, on the new state and on the
state it was applied to), and after each kind of in-place change to a board's tiles.
"""

from __future__ import annotations

import random
from typing import get_args

from engine import Age, BuildingType, Choose, Construct, Options, apply, legal_actions, new_game
from engine.actions import Action
from engine.board import outer_positions
from engine.builder import position
from engine.constants import BUILDINGS
from engine.domains import BoardIndex, board_index
from engine.moves.construct import (
    _board_squares,
    _construct_counts,
    _construct_mask,
    _construct_rows,
    _free_mask,
    _touch_masks,
    construct_problem,
    legal_construct_squares,
)
from engine.moves.upgrade import (
    _board_upgrade_squares,
    _candidates,
    _upgrade_rows,
    legal_upgrade_placements,
    upgrade_problem,
    upgrade_targets,
)
from engine.random_player import random_action, seeking_action
from engine.resolve import _first_tie
from engine.rules import Ctx
from engine.state import Board, GameState, Tile

M, F, R = Age.MIGHT, Age.FAITH, Age.REASON
KINDS = {str(cls.model_fields["kind"].default) for cls in get_args(get_args(Action)[0])}


def _facts(idx: BoardIndex, squares: bool) -> tuple[object, ...]:
    """Everything an index answers (``squares``: also the construct squares of every type and
    the tables the generators keep)."""
    return (
        idx.grid,
        idx.buildings,
        idx.label,
        [(d.members, d.top) for d in idx.domains],
        idx.cell_domain,
        [idx.empty_footprints(size) for size in (1, 2, 3)],
        {t: _board_squares(idx, t) for t in BuildingType} if squares else None,
        {
            (b.key, to): _board_upgrade_squares(idx, M, b, to)
            for b in idx.buildings.values()
            for to in upgrade_targets(b.type)
        }
        if squares
        else None,
        {age: _first_tie(idx, age) for age in (M, F)},
        _tables(idx) if squares else None,
    )


def _tables(idx: BoardIndex) -> tuple[object, ...]:
    """What the legal actions' generators keep on an index (engine.moves.construct, .upgrade):
    the masks the construct squares are made of, their rows and counts per number of players,
    the upgrade candidates per seat and their rows."""
    assert idx.occupied == sum(1 << c for c, key in enumerate(idx.grid) if key)
    return (
        idx.occupied,
        idx.in_reading_order,
        {s: (_free_mask(idx, s), _touch_masks(idx, s)) for s in (1, 2, 3)},
        {t: _construct_mask(idx, t) for t in BuildingType},
        {
            (t, n): (_construct_rows(idx, t, n), _construct_counts(idx, t, n))
            for t in BuildingType
            for n in range(2, 6)
        },
        {seat: _candidates(idx, seat) for seat in range(5)},
        {
            (b.key, to, n): _upgrade_rows(idx, M, b, to, n)
            for b in idx.buildings.values()
            for to in upgrade_targets(b.type)
            for n in range(2, 6)
        },
    )


def _assert_fresh(board: Board, squares: bool = True) -> tuple[object, ...]:
    """The shared index of ``board`` answers exactly what a fresh one does; returns it."""
    shared = _facts(board_index(board), squares)
    assert shared == _facts(BoardIndex(board), squares)
    return shared


def _warm(state: GameState, squares: bool) -> None:
    for age, board in zip(Age, state.boards, strict=True):
        _facts(board_index(board), squares=squares and age is not R)


def _step(state: GameState, seat: int, action: Action, squares: bool) -> GameState:
    """Apply with every index of ``state`` shared first (the clone that apply mutates starts
    with the same boards), then check both states' shared indexes against fresh ones."""
    _warm(state, squares)
    new, _ = apply(state, seat, action)
    for age in Age:
        _assert_fresh(new.boards[age], squares=squares and age is not R)
        _assert_fresh(state.boards[age], squares=squares and age is not R)
    return new


def test_shared_indexes_equal_fresh_ones_after_every_kind_of_action() -> None:
    kinds: set[str] = set()
    for seed in range(10):
        state = new_game(Options(players=2 + seed % 3, holdem=seed % 2 == 1), seed)
        chooser = random.Random(seed)
        player = seeking_action if seed % 5 else random_action
        while not state.over:
            seat, action = player(state, chooser)
            if state.options.holdem and not state.turn_state.acted and chooser.random() < 0.3:
                swaps = [a for a in legal_actions(state, state.turn) if a.kind == "holdem"]
                action = swaps[0] if swaps and state.pending is None else action
            kinds.add(action.kind)
            # the construct squares too, on every third action
            state = _step(state, seat, action, squares=state.step % 3 == 0)
    # A junction whose weaker Monastery's owner places the Chapel (R32, R33): a choice.
    state = position(3, faith="Monastery F4 1; Chapel F6 1; Monastery J4 2", hands={0: "cccm"})
    state = _step(state, 0, Construct(age=M, building=BuildingType.TOWN, square="H5"), True)
    assert state.pending is not None
    state = _step(state, state.pending.seat, Choose(option=3), True)
    kinds |= {"choose", "construct"}
    assert kinds == KINDS, KINDS - kinds


def test_every_change_to_a_board_in_place_is_seen() -> None:
    """Each change below alters what an index answers; the shared one must follow it."""
    state = position(might="Keep C4 0; Town F6; Watchtower H2 1; Chapel C6 1", reason="Town J9")
    board = state.boards[M]
    seen = [_assert_fresh(board)]

    def changed() -> None:
        facts = _assert_fresh(board)
        assert facts not in seen  # the change mattered: a stale index would have been caught
        seen.append(facts)

    keep = board.tiles[0]
    board.tiles.append(Tile(id=90, type=BuildingType.CHAPEL, at=keep.at + 2, owner=1))
    changed()  # a tile added (construct, ripple)
    keep.owner = 1
    changed()  # an owner changed (a ripple over a lineage)
    keep.ruin = True
    changed()  # a ruin (a Reason copy; renovation)
    keep.type = BuildingType.CASTLE
    changed()  # a type changed (upgrade, downsizing)
    keep.at -= 1
    changed()  # moved (upgrade, a downsized tile placed)
    board.tiles = [t for t in board.tiles if t.id != 90]
    changed()  # a tile removed (demolition, paradox)
    board.tiles.reverse()
    changed()  # the same tiles in another order: the buildings' order changes
    # Cubes and markers are not read by an index: a change to them keeps the shared one.
    reason = state.boards[R]
    before = board_index(reason)
    reason.tiles[0].cubes.append(0)
    reason.tiles[0].marker = 1
    assert board_index(reason) is before
    _assert_fresh(reason, squares=False)


def test_a_mutated_clone_leaves_the_original_index_alone() -> None:
    state = position(might="Keep C4 0; Town F6")
    original = _assert_fresh(state.boards[M])
    clone = state.clone()
    assert board_index(clone.boards[M]) is board_index(state.boards[M])  # shared while equal
    clone.boards[M].tiles[0].type = BuildingType.CASTLE
    assert _assert_fresh(clone.boards[M]) != original
    assert _assert_fresh(state.boards[M]) == original


def test_construct_and_upgrade_squares_are_those_their_rule_functions_accept() -> None:
    """The fast squares equal the rule functions ``check`` uses, square by square."""
    chooser = random.Random(3)
    state = new_game(Options(players=3), 3)
    positions = 0
    while not state.over:
        seat, action = seeking_action(state, chooser)
        state, _ = apply(state, seat, action)
        if state.step % 8:
            continue
        positions += 1
        for age in Age:
            for btype in BuildingType:
                ctx = Ctx(state)
                fast = [p.at for p in legal_construct_squares(ctx, age, btype)]
                slow = [
                    at
                    for at in range(320)
                    if construct_problem(Ctx(state), age, btype, at, explain=False) is None
                ]
                assert fast == slow, (age, btype)
            for seat in range(len(state.players)):
                ctx = Ctx(state)
                for b in list(ctx.index(age).buildings.values()):
                    for to in BuildingType:
                        size = BUILDINGS[to].size
                        fast = [p.at for p in legal_upgrade_placements(ctx, seat, age, b, to)]
                        slow = [
                            at
                            for at in outer_positions(b.at, BUILDINGS[b.type].size, size)
                            if upgrade_problem(Ctx(state), seat, age, b, to, at) is None
                        ]
                        assert fast == slow, (age, b, to)
    assert positions >= 8
