"""The states a game went through, read back from its move log: the replay of a log (the seed
and the entries still in effect rebuild any state exactly), and the state an outbox row's image
shows, found again when the row is delivered.

An outbox row does not carry a copy of the state its image shows (about 8 KB a state, several
rows a move: 3.3 MB for a finished 5-player game). Its image names a position in the log
instead, a ``StateRef``: the state after log entry ``seq`` (the undo entries up to it
applied), and that state's ``step`` as a check. ``state_refs`` finds the position when the row
is written (in the command's transaction); ``StateReader`` reads the state when the row is
delivered: the game's current state when nothing was logged since (the common case, right
after the move), else the checkpoint and the entries after it, else the seed and the log.
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import ValidationError

import engine
from engine import CorruptState, EngineError, GameState

from ..storage.api import GameRow, MoveRow, Queries
from .model import DRAW_KINDS, GameSettings, MoveKind

LOOKBACK = 50  # the log entries a written image's state is looked for in (the command's own)


class BrokenEntry(CorruptState):
    """A move-log entry that cannot be read or played from the entries before it (edited by
    hand, or a failing disk); ``seq`` is its number."""

    def __init__(self, seq: int, why: str) -> None:
        super().__init__(f"move-log entry {seq}: {why}", "")
        self.seq = seq


def effective_moves(moves: Sequence[MoveRow]) -> list[MoveRow]:
    """The log's actions still in effect: each ``undo`` entry cancels the action it names.
    Raises BrokenEntry for an undo entry that names no action in effect."""
    stack: list[MoveRow] = []
    for m in moves:
        if m.kind == MoveKind.UNDO:
            try:
                undone = json.loads(m.action)["undoes"]
            except (ValueError, TypeError, KeyError):
                raise BrokenEntry(m.seq, "an unreadable undo") from None
            if not stack or stack[-1].seq != undone:
                raise BrokenEntry(m.seq, "an undo of no action in effect")
            stack.pop()
        else:
            stack.append(m)
    return stack


def replay(
    options: engine.Options, seed: int, moves: Sequence[MoveRow]
) -> tuple[GameState, GameState, int]:
    """Replay a move log from the seed. Returns (state, checkpoint state, checkpoint seq): the
    checkpoint is the state after the last card draw (the undo floor). Raises BrokenEntry for
    the first entry that cannot be read or played."""
    state = engine.new_game(options, seed)
    checkpoint, checkpoint_seq = state, 0
    for m in effective_moves(moves):
        try:
            action = engine.parse_action(m.action)
            state, _ = engine.apply(state, m.seat, action)
        except (EngineError, ValidationError, ValueError, KeyError, TypeError) as exc:
            raise BrokenEntry(m.seq, str(exc)[:200]) from exc
        if action.kind in DRAW_KINDS:
            checkpoint, checkpoint_seq = state, m.seq
    return state, checkpoint, checkpoint_seq


@dataclass(frozen=True)
class StateRef:
    """A state of a game as a position in its log: after entry ``seq`` (0: the start), with
    ``step`` (the state's count of actions) to check the state found."""

    seq: int
    step: int

    def to_json(self) -> dict[str, int]:
        return {"seq": self.seq, "step": self.step}

    @classmethod
    def from_json(cls, data: object) -> StateRef:
        if not isinstance(data, dict):
            raise ValueError(f"not a state reference: {data!r}")
        return cls(int(data["seq"]), int(data["step"]))


async def state_refs(q: Queries, game_id: int,
                     states: Sequence[GameState]) -> dict[int, StateRef]:
    """The log position of each state (by identity) that is the game's state after one of its
    latest entries: the latest entry whose step is the state's (within a command, steps only
    grow; an undo's entry has the step of the state it restores). A state with no such entry
    (the start, before any entry) is position 0. A state not found is left out: its image
    keeps a copy of it."""
    entries = await q.last_moves(game_id, LOOKBACK)
    refs: dict[int, StateRef] = {}
    for state in states:
        match = next((m for m in reversed(entries) if m.step == state.step), None)
        if match is not None:
            refs[id(state)] = StateRef(match.seq, state.step)
        elif not entries and state.step == 0:
            refs[id(state)] = StateRef(0, 0)
    return refs


@dataclass(frozen=True)
class Shown:
    """What an image needs of the game at a position: the state, and for the end-of-game
    summary the seed and the actions in effect (``(seat, action JSON)``)."""

    state: GameState
    seed: int
    moves: tuple[tuple[int, str], ...] | None  # None: not read


class StateReader:
    """Finds the states outbox rows name, keeping the last few (one move's rows share one)."""

    def __init__(self, keep: int = 16) -> None:
        self.keep = keep
        self._found: OrderedDict[tuple[int, int], Shown] = OrderedDict()

    async def read(self, q: Queries, game_id: int, ref: StateRef, *,
                   moves: bool = False) -> Shown | None:
        """The game's state at ``ref`` (and with ``moves`` the actions in effect then); None
        if it cannot be had (the game is gone or damaged, or the state found is not the one
        named: its ``step`` differs)."""
        key = (game_id, ref.seq)
        shown = self._found.get(key)
        if shown is None or (moves and shown.moves is None):
            found = await _fetch(q, game_id, ref.seq, moves)  # the storage's errors go on
            try:
                shown = None if found is None else await _build(found, ref.seq, moves)
            except (EngineError, ValidationError, ValueError, KeyError, TypeError):
                shown = None
            if shown is None:
                return None
            self._found[key] = shown
            while len(self._found) > self.keep:
                self._found.popitem(last=False)
        self._found.move_to_end(key)
        return shown if shown.state.step == ref.step else None


@dataclass(frozen=True)
class _Found:
    """What the log holds for a state: read from the storage, not yet understood."""

    game: GameRow
    latest: bool
    entries: list[MoveRow]
    seats: int


async def _fetch(q: Queries, game_id: int, seq: int, with_moves: bool) -> _Found | None:
    """The rows a state is rebuilt from (None if the game is gone). Only the storage is read
    here, so that its failure (a lost connection) is not taken for a damaged game."""
    game = await q.game(game_id)
    if game is None:
        return None
    latest = seq == await q.last_seq(game_id) and game.state is not None
    entries = [m for m in await q.moves(game_id) if m.seq <= seq] if (
        with_moves or not latest) else []
    from_start = not latest and not _from_checkpoint(game, seq)  # the deal needs the seats
    seats = len(await q.seats(game_id)) if from_start else 0
    return _Found(game, latest, entries, seats)


def _from_checkpoint(game: GameRow, seq: int) -> bool:
    """Whether the state after entry ``seq`` is rebuilt from the game's checkpoint (undo
    never crosses it) rather than from its deal."""
    return game.checkpoint is not None and game.checkpoint_seq <= seq


async def _build(found: _Found, seq: int, with_moves: bool) -> Shown:
    """The state (and the moves in effect) from the rows read; raises if they are damaged."""
    game, entries = found.game, found.entries
    moves = tuple((m.seat, m.action) for m in effective_moves(entries)) if with_moves else None
    if found.latest:  # nothing logged since: the state as stored (right after the move)
        assert game.state is not None
        return Shown(GameState.model_validate_json(game.state), game.seed, moves)
    if _from_checkpoint(game, seq):
        assert game.checkpoint is not None
        state = GameState.model_validate_json(game.checkpoint)
        after = effective_moves([m for m in entries if m.seq > game.checkpoint_seq])
    else:
        holdem = GameSettings.model_validate_json(game.settings).holdem
        options = engine.Options(players=found.seats, holdem=holdem)
        state, after = engine.new_game(options, game.seed), effective_moves(entries)
    if after:  # off the event loop: a whole game takes up to ~100 ms
        state = await asyncio.to_thread(_apply_all, state, after)
    return Shown(state, game.seed, moves)


def _apply_all(state: GameState, entries: Sequence[MoveRow]) -> GameState:
    for m in entries:
        state, _ = engine.apply(state, m.seat, engine.parse_action(m.action))
    return state


__all__ = ["BrokenEntry", "Shown", "StateReader", "StateRef", "effective_moves", "replay",
           "state_refs"]
