"""Compact positions for tests and examples (the project's FEN).

Each board is a string of buildings separated by ``;``::

    "Keep C4 0; Town F6; Watchtower H2 1; Castle K9 2 ruin marker=1; Town B3 cubes=0,0,1 copy"

- type name (any case), top-left square, then optional words:
- a bare seat number: the owner (the control cube);
- ``ruin``: a Reason ruin; ``marker=S``: a renovation cube of seat S;
- ``cubes=S,S``: population cubes on Reason; ``copy``: the tile copies the tile whose top-left is
  the same square on the previous board (its shadow lineage).

Tiles come from the stock and cubes from their owners' supplies, so every invariant of
RULES.md section 9 holds for the result as it would in a real game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .board import FOOTPRINTS, TERRAIN, parse_square
from .constants import BUILDINGS, Age, BuildingType, Family, Terrain
from .domains import BoardIndex
from .game import new_game
from .rules import FAMILY_ORDER
from .state import GameState, Options, Tile

_LETTER = {"m": Family.MILITARY, "r": Family.RELIGIOUS, "c": Family.CIVIL}


def cards(text: str) -> list[Family]:
    """``"mmrc"`` -> [military, military, religious, civil]."""
    return [_LETTER[ch] for ch in text.lower() if not ch.isspace()]


def position(
    players: int = 2,
    *,
    might: str = "",
    faith: str = "",
    reason: str = "",
    hands: Mapping[int, str] | None = None,
    adventurers: Mapping[int, Sequence[Age]] | None = None,
    ecus: Mapping[int, int] | None = None,
    turn: int = 0,
    round: int = 1,
    holdem: bool = False,
    seed: int = 0,
    hamlet_cubes: Mapping[str, int] | None = None,
    stock: Mapping[BuildingType, int] | None = None,
    cubes: Mapping[int, int] | None = None,
) -> GameState:
    """A game state with exactly these buildings, hands and adventurers (turn of ``turn``).

    ``stock`` and ``cubes`` lower a tile stock or a supply by putting the tiles (cubes) on
    free squares of the Reason board, bottom-right first, so the counts stay true."""
    state = new_game(Options(players=players, holdem=holdem), seed)
    state.first_seat = 0
    state.turn = turn
    state.round = round
    for age, text in ((Age.MIGHT, might), (Age.FAITH, faith), (Age.REASON, reason)):
        for chunk in text.split(";"):
            if chunk.strip():
                _place(state, age, chunk.split())
    for sq, seat in (hamlet_cubes or {}).items():
        state.boards[Age.REASON].hamlet_cubes[parse_square(sq)] = seat
        state.players[seat].cubes -= 1
    for seat, text in (hands or {}).items():
        _set_hand(state, seat, cards(text))
    for seat, where in (adventurers or {}).items():
        state.players[seat].adventurers = list(where)
    for seat, amount in (ecus or {}).items():
        state.players[seat].ecus = amount
    for btype, n in (stock or {}).items():
        _exhaust(state, btype, n)
    for seat, n in (cubes or {}).items():
        _spend_cubes(state, seat, n)
    return state


def _free_spots(state: GameState, size: int) -> list[int]:
    grid = list(BoardIndex(state.boards[Age.REASON]).grid)
    out = []
    for fp in reversed(FOOTPRINTS[size]):
        if fp is not None and all(
            grid[c] == 0 and TERRAIN[c] is not Terrain.RIVER for c in fp.cells
        ):
            out.append(fp.top_left)
            for c in fp.cells:
                grid[c] = -999
    return out


def _exhaust(state: GameState, btype: BuildingType, leave: int) -> None:
    spots = _free_spots(state, BUILDINGS[btype].size)
    while state.stock[btype] > leave:
        ruin = BUILDINGS[btype].ruin_value > 0
        tile = Tile(id=state.next_tile_id, type=btype, at=spots.pop(0), ruin=ruin)
        state.next_tile_id += 1
        state.stock[btype] -= 1
        state.boards[Age.REASON].tiles.append(tile)


def _spend_cubes(state: GameState, seat: int, leave: int) -> None:
    spots = _free_spots(state, 3)
    player = state.players[seat]
    while player.cubes > leave:
        n = min(5, player.cubes - leave)
        tile = Tile(
            id=state.next_tile_id, type=BuildingType.CITY, at=spots.pop(0), cubes=[seat] * n
        )
        state.next_tile_id += 1
        state.stock[BuildingType.CITY] -= 1
        player.cubes -= n
        state.boards[Age.REASON].tiles.append(tile)


def _place(state: GameState, age: Age, words: list[str]) -> None:
    btype = BuildingType(words[0].lower())
    at = parse_square(words[1])
    tile = Tile(id=state.next_tile_id, type=btype, at=at)
    state.next_tile_id += 1
    for word in words[2:]:
        if word.isdigit():
            tile.owner = int(word)
            state.players[tile.owner].cubes -= 1
        elif word == "ruin":
            tile.ruin = True
        elif word.startswith("marker="):
            tile.marker = int(word.split("=")[1])
            state.players[tile.marker].cubes -= 1
        elif word.startswith("cubes="):
            tile.cubes = [int(s) for s in word.split("=")[1].split(",") if s]
            for s in tile.cubes:
                state.players[s].cubes -= 1
        elif word == "copy":
            prev = state.boards[age - 1]
            src = next(t for t in prev.tiles if t.at == at)
            tile.origin = src.id
        else:
            raise ValueError(f"unknown word {word!r} in a position")
    state.stock[btype] -= 1
    state.boards[age].tiles.append(tile)


def _set_hand(state: GameState, seat: int, hand: list[Family]) -> None:
    player = state.players[seat]
    state.draw_pile.extend(player.hand)
    player.hand = []
    for card in hand:
        state.draw_pile.remove(card)
    player.hand = sorted(hand, key=FAMILY_ORDER.index)


def tile_at(state: GameState, age: Age, square: str) -> Tile | None:
    """The tile covering ``square`` on ``age`` (any of its squares), or None."""

    idx = BoardIndex(state.boards[age])
    b = idx.at(parse_square(square))
    return None if b is None or b.printed else state.boards[age].tile(b.key)
