"""The whole game as one pydantic model that round-trips through JSON.

Seats (0..n-1, in play order) stand for players; the bot maps them to Discord users.
Squares are stored as indexes (``row * 20 + col``); see ``board.square_name``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .constants import (
    ADVENTURERS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    ROUNDS,
    Age,
    BuildingType,
    Family,
)

SCHEMA_VERSION = 1


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Tile(_Model):
    """A building tile on one board. ``at`` is its top-left square."""

    id: int
    type: BuildingType
    at: int = Field(ge=0, lt=320)
    owner: int | None = None  # the control cube's seat (military/religious on Might and Faith)
    ruin: bool = False  # R25: a Reason copy of a Keep/Castle/Monastery/Abbey, until renovated
    marker: int | None = None  # R42: seat whose cube marks the first renovation card
    cubes: list[int] = Field(default_factory=list)  # R41: population cubes (seats) on Reason
    origin: int | None = None  # id of the tile on the previous board that this one copies


class Board(_Model):
    age: Age
    tiles: list[Tile] = Field(default_factory=list)
    hamlet_cubes: dict[int, int] = Field(default_factory=dict)  # printed hamlet square -> seat

    def tile(self, tile_id: int) -> Tile | None:
        for t in self.tiles:
            if t.id == tile_id:
                return t
        return None


class Player(_Model):
    seat: int
    ecus: int = Field(ge=0)
    cubes: int = Field(ge=0)  # control cubes in the player's supply
    adventurers: list[Age]
    used: list[int]  # cards this turn that only this adventurer could pay (R14)
    shared: int = 0  # cards this turn played where both adventurers stood: either may pay (R14)
    hand: list[Family]

    @field_validator("adventurers", "used")
    @classmethod
    def _two(cls, v: list[object]) -> list[object]:
        if len(v) != ADVENTURERS:
            raise ValueError("a player has exactly two adventurers")
        return v


class Options(_Model):
    players: int = Field(ge=MIN_PLAYERS, le=MAX_PLAYERS)
    holdem: bool = False


class TurnState(_Model):
    exchanged: bool = False  # R9: the paid exchange was used
    holdem_used: bool = False  # R10
    acted: bool = False  # a phase-II action was taken: no more exchange or Hold'em


# --- the pending resolution (R37): tasks on an agenda, and a decision it waits for ----------


class JunctionTask(_Model):
    """R31-R32: the domain joined by ``joiner`` on ``age`` must obey Hierarchy."""

    kind: Literal["junction"] = "junction"
    age: Age
    joiner: int  # the civil tile that joined the domains
    originals: list[list[int]]  # building keys of each original domain
    families: list[Family]  # families still to check, in the age's order


class SweepTask(_Model):
    """R36: every domain of ``age`` must obey Hierarchy (after divisions and removals)."""

    kind: Literal["sweep"] = "sweep"
    age: Age


class DownsizeTask(_Model):
    """R33-R35: downsize one building; its owner chooses where the smaller tile sits."""

    kind: Literal["downsize"] = "downsize"
    age: Age
    tile_id: int


Task = Annotated[JunctionTask | SweepTask | DownsizeTask, Field(discriminator="kind")]


class Choice(_Model):
    """One option of a pending decision."""

    label: str  # for the player: "Red's Keep at F6", "G7"
    words: dict[str, Any] | None = None  # the label as a catalogue phrase (engine/words.py)
    tile_id: int | None = None  # which building (downsize_which)
    at: int | None = None  # where the smaller tile sits (place_downsized)


class Decision(_Model):
    seat: int
    kind: Literal["downsize_which", "place_downsized"]
    age: Age
    prompt: str
    words: dict[str, Any] | None = None  # the prompt as a catalogue phrase (engine/words.py)
    options: list[Choice]
    default: int  # index of the R37 default option


class GameState(_Model):
    schema_version: int = SCHEMA_VERSION
    options: Options
    seed: int
    rng: int
    round: int = Field(ge=1, le=ROUNDS)
    first_seat: int
    turn: int  # seat whose turn it is
    over: bool = False
    winners: list[int] = Field(default_factory=list)
    step: int = 0  # actions applied so far (a version for stale checks)
    boards: list[Board]
    stock: dict[BuildingType, int]
    players: list[Player]
    draw_pile: list[Family]
    discard: list[Family] = Field(default_factory=list)
    reserve: list[Family] = Field(default_factory=list)  # R10 face-up cards
    turn_state: TurnState = Field(default_factory=TurnState)
    next_tile_id: int = 1
    agenda: list[Task] = Field(default_factory=list)
    pending: Decision | None = None
    provoker: int | None = None  # R32/R36: the player who caused the running chain

    def board(self, age: Age) -> Board:
        return self.boards[age]

    def player(self, seat: int) -> Player:
        return self.players[seat]

    def clone(self) -> GameState:
        """A deep copy, much faster than ``model_copy(deep=True)`` for this shape."""
        return _clone_state(self)

    def clone_sharing_tiles(self) -> GameState:
        """``clone()`` whose boards hold this state's own ``Tile`` objects (each board's list
        and dict are new). Only for ``apply``, which copies a tile before changing it
        (``writable_tile``): see docs/engine.md "Copy-on-write tiles"."""
        return _clone_state(self, share_tiles=True)


_M = TypeVar("_M", bound=_Model)
_new = object.__new__
_set = object.__setattr__


def _copy(m: _M, **mutable: Any) -> _M:
    """A shallow copy of ``m`` with ``mutable`` fields replaced by the given copies.

    The same steps as pydantic's ``BaseModel.__copy__`` (``model_copy()``), minus its checks:
    these models forbid extra fields and have no private attributes, so both stay ``None``.
    About three times faster than ``model_construct``, which re-runs field defaults.
    """
    c = _new(type(m))
    d = m.__dict__.copy()
    d.update(mutable)
    _set(c, "__dict__", d)
    _set(c, "__pydantic_fields_set__", set(m.__pydantic_fields_set__))
    _set(c, "__pydantic_extra__", None)
    _set(c, "__pydantic_private__", None)
    return c


def _copy_tile(t: Tile) -> Tile:
    """``_copy(t, cubes=list(t.cubes))`` without the keyword arguments: the clone's most
    frequent copy (every tile of every board)."""
    c = _new(Tile)
    d = t.__dict__.copy()
    d["cubes"] = d["cubes"][:]
    _set(c, "__dict__", d)
    _set(c, "__pydantic_fields_set__", set(t.__pydantic_fields_set__))
    _set(c, "__pydantic_extra__", None)
    _set(c, "__pydantic_private__", None)
    return c


def _clone_state(s: GameState, share_tiles: bool = False) -> GameState:
    boards = [
        _copy(
            b,
            tiles=b.tiles[:] if share_tiles else [_copy_tile(t) for t in b.tiles],
            hamlet_cubes=dict(b.hamlet_cubes),
        )
        for b in s.boards
    ]
    players = [
        _copy(p, adventurers=list(p.adventurers), used=list(p.used), hand=list(p.hand))
        for p in s.players
    ]
    return _copy(
        s,
        winners=list(s.winners),
        boards=boards,
        stock=dict(s.stock),
        players=players,
        draw_pile=list(s.draw_pile),
        discard=list(s.discard),
        reserve=list(s.reserve),
        turn_state=_copy(s.turn_state),
        agenda=[t.model_copy(deep=True) for t in s.agenda],
        pending=s.pending.model_copy(deep=True) if s.pending else None,
    )


# --- copy-on-write tiles (apply) ----------------------------------------------------------------

# The state ``apply`` is working on (by ``id``) -> the state it was given, while the move runs:
# their boards may hold the same ``Tile`` objects. An entry lives exactly as long as one
# ``apply`` (``SharingTiles``); concurrent applies work on different live states.
_SHARING: dict[int, GameState] = {}


class SharingTiles:
    """``with SharingTiles(new, parent):`` marks ``new``'s tiles that are still ``parent``'s
    as shared until the block ends: ``writable_tile`` copies them before they change."""

    def __init__(self, new: GameState, parent: GameState) -> None:
        self.key = id(new)
        self.parent = parent

    def __enter__(self) -> None:
        _SHARING[self.key] = self.parent

    def __exit__(self, *exc: object) -> None:
        del _SHARING[self.key]


def writable_tile(state: GameState, age: int, tile: Tile) -> Tile:
    """``tile`` of ``state.boards[age]``, made safe to change in place: while ``apply`` runs, a
    tile still shared with the state it was given is replaced on the board by its own copy,
    which is returned (use it, not ``tile``, from then on). Outside ``apply`` (positions being
    built, deep clones) every tile is the state's own and ``tile`` itself is returned."""
    parent = _SHARING.get(id(state))
    if parent is None or not any(t is tile for t in parent.boards[age].tiles):
        return tile
    tiles = state.boards[age].tiles
    for i, t in enumerate(tiles):
        if t is tile:
            copy = _copy_tile(tile)
            tiles[i] = copy
            return copy
    raise AssertionError(f"tile {tile.id} is not on board {age}")
