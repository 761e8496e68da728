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
from .state import GameState


def invariant_problems(state: GameState) -> list[str]:
    """Every broken invariant, in words (empty when the state is sound)."""
    out: list[str] = []
    n = len(state.players)
    if n != state.options.players:
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
            fp = FOOTPRINTS[BUILDINGS[t.type].size][t.at]
            if fp is None:
                out.append(f"{t.type} at {square_name(t.at)} on {board.age.label} leaves the grid")
                continue
            for c in fp.cells:
                if c in grid:
                    out.append(f"tiles overlap at {square_name(c)} on {board.age.label}")
                grid[c] = t.id
                if TERRAIN[c] is Terrain.RIVER and t.type not in (
                    BuildingType.TOWN,
                    BuildingType.CITY,
                ):
                    out.append(f"{t.type} on the river at {square_name(c)} on {board.age.label}")
            fam = BUILDINGS[t.type].family
            if t.owner is not None:
                cubes_out[t.owner] += 1
                if fam is Family.CIVIL or board.age is Age.REASON:
                    out.append(f"owned {t.type} at {square_name(t.at)} on {board.age.label}")
            elif fam is not Family.CIVIL and board.age is not Age.REASON:
                out.append(f"unowned {t.type} at {square_name(t.at)} on {board.age.label}")
            if t.ruin and (board.age is not Age.REASON or BUILDINGS[t.type].ruin_value == 0):
                out.append(f"impossible ruin {t.type} on {board.age.label}")
            if t.marker is not None:
                cubes_out[t.marker] += 1
                if not t.ruin or BUILDINGS[t.type].ruin_value < 2:
                    out.append(f"renovation marker on {t.type} at {square_name(t.at)}")
            cubes_out.update(t.cubes)
            if len(t.cubes) > capacity(t.type):
                out.append(f"{t.type} at {square_name(t.at)} holds {len(t.cubes)} cubes")
            if t.cubes and board.age is not Age.REASON:
                out.append("population cubes off Reason")
        for sq, seat in board.hamlet_cubes.items():
            cubes_out[seat] += 1
            if sq not in PRINTED_HAMLETS or sq in grid:
                out.append(f"cube on a missing printed hamlet at {square_name(sq)}")
            if board.age is not Age.REASON:
                out.append("hamlet cube off Reason")
        if state.pending is None and board.age is not Age.REASON:
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
    if (state.pending is None) != (not state.agenda) and not state.over:
        out.append("pending decision and agenda disagree")
    return out
