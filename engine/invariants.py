"""RULES.md section 9: what every state must satisfy. Used by tests and by storage on load."""

from __future__ import annotations

from collections import Counter

from .board import FOOTPRINTS, PRINTED_HAMLETS, TERRAIN, square_name
from .constants import (
    BUILDINGS,
    DECK_SIZE,
    HIERARCHY_ORDER,
    START_CUBES,
    Age,
    BuildingType,
    Family,
    Terrain,
    capacity,
)
from .domains import BoardIndex
from .state import Board, GameState, Tile


def invariant_problems(state: GameState) -> list[str]:
    """Every broken invariant, in words (empty when the state is sound)."""
    out: list[str] = []
    if len(state.players) != state.options.players:
        out.append("player count differs from the options")
    on_board: Counter[BuildingType] = Counter()
    cubes_out: Counter[int] = Counter()
    ids: set[int] = set()
    for board in state.boards:
        grid: dict[int, int] = {}
        for t in board.tiles:
            if t.id in ids and board.age is Age.MIGHT:
                out.append(f"tile id {t.id} repeated")
            ids.add(t.id)
            on_board[t.type] += 1
            out += _tile_problems(board.age, t, grid, cubes_out)
        out += _hamlet_cube_problems(board, grid, cubes_out)
        if state.pending is None and board.age is not Age.REASON:
            out += _hierarchy_problems(board)
    out += _count_problems(state, on_board, cubes_out)
    out += _card_problems(state)
    if (state.pending is None) != (not state.agenda) and not state.over:
        out.append("pending decision and agenda disagree")
    return out


def _tile_problems(age: Age, t: Tile, grid: dict[int, int], cubes_out: Counter[int]) -> list[str]:
    """One tile: inside the grid, on squares no other tile of its board (``grid``) holds, off
    the river unless civil (R18), its cube, ruin, marker and population where they may be.
    Marks its squares in ``grid`` and counts its cubes in ``cubes_out``."""
    out: list[str] = []
    fp = FOOTPRINTS[BUILDINGS[t.type].size][t.at]
    if fp is None:
        return [f"{t.type} at {square_name(t.at)} on {age.label} leaves the grid"]
    for c in fp.cells:
        if c in grid:
            out.append(f"tiles overlap at {square_name(c)} on {age.label}")
        grid[c] = t.id
        if TERRAIN[c] is Terrain.RIVER and t.type not in (BuildingType.TOWN, BuildingType.CITY):
            out.append(f"{t.type} on the river at {square_name(c)} on {age.label}")
    fam = BUILDINGS[t.type].family
    if t.owner is not None:
        cubes_out[t.owner] += 1
        if fam is Family.CIVIL or age is Age.REASON:
            out.append(f"owned {t.type} at {square_name(t.at)} on {age.label}")
    elif fam is not Family.CIVIL and age is not Age.REASON:
        out.append(f"unowned {t.type} at {square_name(t.at)} on {age.label}")
    if t.ruin and (age is not Age.REASON or BUILDINGS[t.type].ruin_value == 0):
        out.append(f"impossible ruin {t.type} on {age.label}")
    if t.marker is not None:
        cubes_out[t.marker] += 1
        if not t.ruin or BUILDINGS[t.type].ruin_value < 2:
            out.append(f"renovation marker on {t.type} at {square_name(t.at)}")
    cubes_out.update(t.cubes)
    if len(t.cubes) > capacity(t.type):
        out.append(f"{t.type} at {square_name(t.at)} holds {len(t.cubes)} cubes")
    if t.cubes and age is not Age.REASON:
        out.append("population cubes off Reason")
    return out


def _hamlet_cube_problems(board: Board, grid: dict[int, int], cubes_out: Counter[int]) -> list[str]:
    """Cubes on printed hamlets: only on Reason, only on a visible printed hamlet."""
    out: list[str] = []
    for sq, seat in board.hamlet_cubes.items():
        cubes_out[seat] += 1
        if sq not in PRINTED_HAMLETS or sq in grid:
            out.append(f"cube on a missing printed hamlet at {square_name(sq)}")
        if board.age is not Age.REASON:
            out.append("hamlet cube off Reason")
    return out


def _hierarchy_problems(board: Board) -> list[str]:
    """R21 on Might and Faith: every domain's top military and religious values are unique."""
    out: list[str] = []
    idx = BoardIndex(board)
    for dom in idx.domains:
        for fam in HIERARCHY_ORDER[board.age]:
            top = dom.top.get(fam)
            if top is not None and top[1] > 1:
                first = min(idx.buildings[k].at for k in dom.members)
                out.append(
                    f"Hierarchy broken ({fam.value}) in the domain at "
                    f"{square_name(first)} on {board.age.label}"
                )
    return out


def _count_problems(
    state: GameState, on_board: Counter[BuildingType], cubes_out: Counter[int]
) -> list[str]:
    """Tiles on boards + in stock = the R4 counts; cubes out + in supply = 25 per player;
    Ecus never negative; no more cards played than R14 allows."""
    out: list[str] = []
    for btype, spec in BUILDINGS.items():
        if on_board[btype] + state.stock[btype] != spec.stock:
            out.append(f"{btype}: {on_board[btype]} on boards + {state.stock[btype]} in stock")
        if state.stock[btype] < 0:
            out.append(f"negative stock of {btype}")
    for p in state.players:
        if p.cubes + cubes_out[p.seat] != START_CUBES:
            out.append(f"seat {p.seat}: {p.cubes} cubes in supply + {cubes_out[p.seat]} out")
        if p.ecus < 0:
            out.append(f"seat {p.seat} has negative Ecus")
        if any(u > 2 or u < 0 for u in p.used) or p.shared < 0 or sum(p.used) + p.shared > 4:
            out.append(f"seat {p.seat} played more cards than two adventurers may (R14)")
    return out


def _card_problems(state: GameState) -> list[str]:
    """Hands + draw pile + discard pile + face-up reserve = 55 cards (R7, R10)."""
    out: list[str] = []
    cards = (
        sum(len(p.hand) for p in state.players)
        + len(state.draw_pile)
        + len(state.discard)
        + len(state.reserve)
    )
    if cards != DECK_SIZE:
        out.append(f"{cards} cards in play, not {DECK_SIZE}")
    if state.options.holdem and len(state.reserve) != 3:
        out.append("the Hold'em reserve does not hold 3 cards")
    return out
