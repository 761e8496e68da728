"""A game's record and its sealed deck (docs/community.md): pure functions, no storage.

- **The seal.** At the start the game's post carries ``commitment(seed, salt)``, the SHA-256 of
  the seed and a random salt; the seed and the salt are revealed at the end. Anyone can then
  check that the seed was fixed before the first card was dealt: no later choice of the deck
  could give the same commitment.
- **The deals.** Every draw is written down when it is made (``deal_of_start``,
  ``hands_gained``): what each seat received. ``verify`` replays the seed and the move log and
  compares every shuffle and draw it recomputes with what was dealt.
- **The record** (``FORMAT``, a JSON file): the seed and salt (only once the game is over), the
  seats, the actions, the deals, the final Ecus. ``python -m bot --verify FILE`` checks it and
  ``python -m bot --replay FILE`` plays it back.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

import engine
from engine import EngineError, Event, Family, GameState

FORMAT = "khronos-record"
RECORD_VERSION = 1
LETTERS = {Family.MILITARY: "m", Family.RELIGIOUS: "r", Family.CIVIL: "c"}
DECK_DRAWS = ("exchange", "end_turn")  # the actions that draw from the deck (R7, R9, R12)
HIDDEN_DISCARDS = ("exchange", "end_turn")  # their discards are seen by nobody but the player


def new_salt() -> str:
    """128 random bits, as hex: the seed cannot be found from the commitment by trying seeds."""
    return secrets.token_hex(16)


def commitment(seed: int, salt: str) -> str:
    """The SHA-256 (hex) of ``khronos:<seed>:<salt>``: what the start post shows."""
    return hashlib.sha256(f"khronos:{seed}:{salt}".encode()).hexdigest()


def letters(cards: Sequence[Family]) -> str:
    return "".join(LETTERS[c] for c in cards)


def deal_of_start(state: GameState) -> dict[str, Any]:
    """What the start dealt: every hand, the Hold'em reserve (R10) and the first player."""
    return {"hands": {str(p.seat): letters(p.hand) for p in state.players},
            "reserve": letters(state.reserve), "first": state.turn}


def hands_gained(before: GameState, after: GameState) -> dict[str, str]:
    """The cards each seat received between two states (its hand after, less its hand
    before, as a multiset), as letters; seats that received nothing are left out."""
    out: dict[str, str] = {}
    for old, new in zip(before.players, after.players, strict=True):
        gained = Counter(new.hand)
        gained.subtract(old.hand)
        cards = [f for f in engine.Family for _ in range(max(0, gained[f]))]
        if cards:
            out[str(new.seat)] = letters(cards)
    return out


def public_action(action: Mapping[str, Any]) -> dict[str, Any]:
    """An action as the table saw it: the cards discarded by an exchange (R9) or at the end
    of a turn (R12) become their number."""
    out = dict(action)
    if out.get("kind") in HIDDEN_DISCARDS and isinstance(out.get("discard"), list):
        out["discard"] = len(out["discard"])
    return out


# --- reading a record ---------------------------------------------------------------------


class RecordError(ValueError):
    """A file that is not a record this program can read; ``key``/``params`` word it."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


@dataclass(frozen=True)
class RecordMove:
    seq: int
    seat: int
    action: dict[str, Any]


@dataclass(frozen=True)
class Record:
    """A record as read from its JSON: ``seed`` and ``salt`` are None before the end."""

    options: engine.Options
    names: dict[int, str]
    moves: tuple[RecordMove, ...]
    commitment: str | None = None
    salt: str | None = None
    seed: int | None = None
    deals: dict[int, dict[str, Any]] | None = None  # seq -> what was dealt (0: the start)
    final: dict[int, int] | None = None  # seat -> final Ecus


def read_record(data: Any) -> Record:
    """The record in ``data`` (parsed JSON); ``RecordError`` if it is not one."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RecordError("record.not_a_record")
    if data.get("version") != RECORD_VERSION:
        raise RecordError("record.version", version=str(data.get("version"))[:20])
    try:
        opts = data["options"]
        options = engine.Options(players=int(opts["players"]), holdem=bool(opts["holdem"]))
        names = {int(s["seat"]): str(s["name"]) for s in data["seats"]}
        moves = tuple(RecordMove(int(m["seq"]), int(m["seat"]), dict(m["action"]))
                      for m in data["moves"])
        deals = data.get("deals")
        final = data.get("final")
        seed = data.get("seed")
        return Record(
            options=options, names=names, moves=moves, commitment=data.get("commitment"),
            salt=data.get("salt"), seed=None if seed is None else int(seed),
            deals=None if deals is None else {int(k): dict(v) for k, v in deals.items()},
            final=None if final is None else {int(k): int(v)
                                              for k, v in final["ecus"].items()},
        )
    except (KeyError, TypeError, ValueError, AttributeError, ValidationError) as exc:
        raise RecordError("record.malformed") from exc


def load_record(text: str) -> Record:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise RecordError("record.not_json") from exc
    return read_record(data)


# --- verifying and replaying ------------------------------------------------------------------


@dataclass
class Verdict:
    """What ``verify`` found: ``problem`` (a catalogue key and its parameters) is None when
    every check passed."""

    moves: int = 0
    shuffles: int = 0
    draws: int = 0
    checked_deals: bool = False
    sealed: bool = False
    problem: tuple[str, dict[str, Any]] | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None


@dataclass(frozen=True)
class Step:
    """One move of a replay: the state before and after it, and its events."""

    move: RecordMove
    before: GameState
    after: GameState
    events: list[Event]


def replay_steps(record: Record) -> Iterator[Step]:
    """Every move of a complete record applied from its seed, in order. Raises
    ``RecordError`` for a record without its seed or a move that cannot be played."""
    if record.seed is None:
        raise RecordError("record.no_seed")
    state = engine.new_game(record.options, record.seed)
    for move in record.moves:
        try:
            action = engine.parse_action(json.dumps(move.action))
            after, events = engine.apply(state, move.seat, action)
        except (EngineError, ValidationError, ValueError, KeyError, IndexError,
                TypeError) as exc:  # a hand-edited file: any move may be nonsense
            raise RecordError("record.bad_move", seq=move.seq) from exc
        yield Step(move, state, after, events)
        state = after


def start_state(record: Record) -> GameState:
    assert record.seed is not None
    return engine.new_game(record.options, record.seed)


def verify(record: Record) -> Verdict:
    """Check a complete record: the seed and salt give the commitment; the seed deals the
    start that was dealt; every move, replayed from the seed, is legal and deals the cards
    that were dealt; the final Ecus are those of the record. Stops at the first problem."""
    verdict = Verdict()
    if record.seed is None:
        verdict.problem = ("verify.no_seed", {})
        return verdict
    if record.commitment is not None:
        verdict.sealed = True
        if record.salt is None or commitment(record.seed, record.salt) != record.commitment:
            verdict.problem = ("verify.commitment", {})
            return verdict
    start = start_state(record)
    verdict.shuffles = 2 if record.options.holdem else 1  # R6, and R10's reshuffle
    deals = record.deals
    if deals is not None and 0 not in deals:
        deals = None  # deals recorded from the middle of a game (begun before they were)
    verdict.checked_deals = deals is not None
    if deals is not None and deals[0] != deal_of_start(start):
        verdict.problem = ("verify.start", {})
        return verdict
    last = start
    try:
        for step in replay_steps(record):
            verdict.moves += 1
            _check_step(verdict, step, deals, record.names)
            if verdict.problem is not None:
                return verdict
            last = step.after
    except RecordError as exc:
        verdict.problem = ("verify.illegal", {"seq": exc.params.get("seq", "?")})
        return verdict
    _check_end(verdict, record, last, deals)
    return verdict


def _check_step(verdict: Verdict, step: Step, deals: dict[int, dict[str, Any]] | None,
                names: Mapping[int, str]) -> None:
    gained = hands_gained(step.before, step.after)
    if step.before.rng != step.after.rng:
        verdict.shuffles += 1  # R7: the discard pile shuffled into a new draw pile
    if step.move.action.get("kind") in DECK_DRAWS:
        verdict.draws += sum(len(v) for v in gained.values())
    if deals is None:
        return
    dealt = deals.get(step.move.seq, {})
    if dealt != gained:
        seat = next(s for s in sorted(set(dealt) | set(gained), key=int)
                    if dealt.get(s) != gained.get(s))
        verdict.problem = ("verify.draw", {
            "seq": step.move.seq, "name": names.get(int(seat), "?"),
            "dealt": dealt.get(seat, "") or "-", "seeded": gained.get(seat, "") or "-"})


def _check_end(verdict: Verdict, record: Record, last: GameState,
               deals: dict[int, dict[str, Any]] | None) -> None:
    if deals is not None:
        played = {m.seq for m in record.moves} | {0}
        stray = sorted(set(deals) - played)
        if stray:
            verdict.problem = ("verify.stray_deal", {"seq": stray[0]})
            return
    if record.final is not None:
        ecus = {p.seat: p.ecus for p in last.players}
        if ecus != record.final or not last.over:
            verdict.problem = ("verify.final", {})


# --- writing a record --------------------------------------------------------------------------


def make_record(
    *,
    game_id: int,
    options: engine.Options,
    seats: Sequence[tuple[int, str, str | None]],
    moves: Sequence[tuple[int, int, str]],
    seal: tuple[str, str] | None,
    deals: Mapping[int, str] | None,
    seed: int | None,
    final: GameState | None,
) -> dict[str, Any]:
    """The record of a game as JSON data. ``seats``: (seat, name, computer level or None);
    ``moves``: the effective log as (seq, seat, action JSON); ``seal``: (commitment, salt);
    ``deals``: seq -> the deal's JSON. ``seed`` None makes the record of a game still played,
    as the table sees it: no seed, salt nor deals, and hidden discards as their number."""
    complete = seed is not None
    actions = [json.loads(a) for _, _, a in moves]
    return {
        "format": FORMAT,
        "version": RECORD_VERSION,
        "game": game_id,
        "complete": complete,
        "options": {"players": options.players, "holdem": options.holdem},
        "seats": [{"seat": s, "name": n, "computer": level} for s, n, level in seats],
        "commitment": seal[0] if seal else None,
        "salt": seal[1] if seal and complete else None,
        "seed": seed if complete else None,
        "deals": ({str(k): json.loads(v) for k, v in sorted(deals.items())}
                  if complete and deals is not None else None),
        "moves": [{"seq": seq, "seat": seat, "action": a if complete else public_action(a)}
                  for (seq, seat, _), a in zip(moves, actions, strict=True)],
        "final": ({"ecus": {str(p.seat): p.ecus for p in final.players},
                   "winners": list(final.winners)} if final is not None else None),
    }
