"""The computer players' decisions: ``random``, ``easy`` (one step, best immediate gain) and
``normal`` (its whole turn searched, then the rivals' replies sampled), plus R37 answers.

Everything here works on a ``PlayerView`` and on states sampled from it (``determinize``):
nothing reads another hand or the deck order. The engine is used only through its public
surface (``construct_options``, ``upgrade_options``, ``check``, ``apply``, ``legal_actions``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from engine import (
    BUILDINGS,
    PRINTED_HAMLETS,
    Action,
    Age,
    BuildingType,
    Choose,
    Construct,
    Demolish,
    EndTurn,
    EngineError,
    GameState,
    PlayerView,
    Populate,
    Renovate,
    Travel,
    Upgrade,
    apply,
    check,
    construct_options,
    current_seat,
    legal_actions,
    parse_square,
    player_view,
    square_name,
    upgrade_options,
)

from .determinize import sample_state
from .evaluate import COLS, ROWS, _cells, domain_groups, evaluate
from .work import CANDIDATE_UNITS, WORK, check_stop, collector_paused

# --- knobs (docs/ai.md) ----------------------------------------------------------------------
SQUARES_NEAR = 4  # construct squares kept per (board, building) that touch a domain
SQUARES_APART = 1  # ... and that touch nothing (a new domain)
SHORTLIST = 3  # whole-turn plans ``normal`` weighs against the rivals' replies
SHORTLIST_MARGIN = 3.0  # ... those at most this far (Ecus) behind the best at the end of the turn
BEAM = (6, 3, 2)  # positions kept per level of ``normal``'s search of its own turn (then 2)
REPLY_WEIGHT = 0.5  # share of the replies in a plan's value (the rest: its end-of-turn score)
TURN_STEPS = 8  # actions planned in one turn, at most, before ending it
REPLY_RIVALS = 4  # rivals that reply in ``normal``'s samples (the next ones in seat order)
REPLY_STEPS_FORESEEN = 3  # steps a rival's reply is expected to take (to foresee a sample's cost)
PLAN_SHARE = 0.5  # part of ``normal``'s time budget for searching its own turn
HARD_CAP_S = 4.0  # ``normal`` stops searching after this, whatever its budget and the machine
HARD_FACTOR = 3.0  # ... or after this many times its budget, if that comes first
COMPLETE = 3  # unfinished positions of the beam completed greedily when its time is up
CAREFUL = True  # ``normal`` judges positions with the careful evaluation
GAIN_EPSILON = 1e-6


class Level(StrEnum):
    """How well a computer seat plays."""

    RANDOM = "random"  # uniform over the legal actions: a baseline for the benchmark
    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"




# When a search stops: a ``time.perf_counter()`` instant, a predicate, or never (None).
Limit = float | Callable[[], bool] | None


def passed(limit: Limit) -> bool:
    """Whether ``limit`` has passed."""
    if limit is None:
        return False
    if callable(limit):
        return limit()
    return time.perf_counter() > limit


# --- candidate actions -----------------------------------------------------------------------


def _occupied(state: GameState, age: Age) -> set[int]:
    board = state.boards[age]
    cells: set[int] = set()
    for t in board.tiles:
        size = BUILDINGS[t.type].size
        row, col = divmod(t.at, COLS)
        cells.update((row + r) * COLS + col + c for r in range(size) for c in range(size))
    cells.update(PRINTED_HAMLETS)
    return cells


def _perimeter(at: int, size: int) -> tuple[int, ...]:
    """The squares along the sides of a footprint, inside the grid (R19: sides, not corners)."""
    row, col = divmod(at, COLS)
    out = []
    for i in range(size):
        for r, c in ((row - 1, col + i), (row + size, col + i), (row + i, col - 1),
                     (row + i, col + size)):
            if 0 <= r < ROWS and 0 <= c < COLS:
                out.append(r * COLS + c)
    return tuple(out)


# size -> top-left square -> the squares along its footprint's sides (computed once)
_PERIMETERS = {size: [_perimeter(at, size) for at in range(COLS * ROWS)] for size in (1, 2, 3)}


def _contacts(at: int, size: int, occupied: set[int]) -> int:
    """Occupied squares along the footprint's sides (R19: domains join through sides)."""
    return sum(1 for c in _PERIMETERS[size][at] if c in occupied)


def _is_legal(state: GameState, seat: int, action: Action) -> bool:
    try:
        check(state, seat, action)
    except EngineError:
        return False
    return True


def _room(state: GameState, seat: int, age: Age) -> int:
    """Cards the seat may still play on ``age`` this turn (R14)."""
    p = state.players[seat]
    return sum(2 - used for where, used in zip(p.adventurers, p.used, strict=True) if where is age)


def _board_key(state: GameState, age: Age) -> tuple[tuple[object, ...], ...]:
    """What construct and upgrade legality read of a board (tile ids left out)."""
    return tuple((t.type, t.at, t.owner) for t in state.boards[age].tiles)


def _seat_key(state: GameState, seat: int) -> tuple[object, ...]:
    """What the card queries read of the seat: its hand, allowance (R14), cubes and the stock."""
    p = state.players[seat]
    return (
        seat,
        tuple(sorted(p.hand)),
        tuple(p.adventurers),
        tuple(p.used),
        p.shared,
        p.cubes > 0,
        tuple(state.stock.values()),
        len(state.players),
    )


# (board, seat, hand ...) -> the construct and upgrade candidates there; a search meets the same
# board with the same hand again and again (a travel, a move on another board).
_BOARD_MOVES: dict[tuple[object, ...], list[Action]] = {}
_BOARD_MOVES_MAX = 20_000


def _board_moves(state: GameState, seat: int, age: Age) -> list[Action]:
    """Constructs and upgrades worth weighing on ``age`` (Might or Faith), remembered."""
    key = (age, _board_key(state, age), _seat_key(state, seat), WORK.squares)
    found = _BOARD_MOVES.get(key)
    if found is not None:
        return found
    hand = state.players[seat].hand
    room = _room(state, seat, age)
    out: list[Action] = []
    occupied: set[int] | None = None
    where: dict[int, int] | None = None
    for btype in BuildingType:
        spec = BUILDINGS[btype]
        if hand.count(spec.family) < spec.value or spec.value > room:
            continue
        options = construct_options(state, seat, age, btype)
        if not options:
            continue
        if occupied is None:
            occupied = _occupied(state, age)
        ranked = []
        for o in options:
            at = parse_square(o.square)
            ranked.append((_contacts(at, spec.size, occupied), o.extra, at, o.square))
        near = sorted((r for r in ranked if r[0] > 0), key=lambda r: (r[1], -r[0], r[2]))
        apart = sorted((r for r in ranked if r[0] == 0), key=lambda r: (r[1], r[2]))
        kept = near[:SQUARES_NEAR] + apart[:SQUARES_APART]
        if WORK.squares:
            where = _domain_of(state, age) if where is None else where
            kept += [r for r in _by_domain(where, spec.size, near) if r not in kept]
        for r in kept:
            out.append(Construct(age=age, building=btype, square=r[3]))
    for square, to, option in upgrade_options(state, seat, age):
        out.append(Upgrade(age=age, square=square, to=to, at=option.square))
    if len(_BOARD_MOVES) >= _BOARD_MOVES_MAX:
        _BOARD_MOVES.clear()
    _BOARD_MOVES[key] = out
    return out


# board (tiles as _board_key reads them) -> square -> the number of its domain
_DOMAINS: dict[tuple[tuple[object, ...], ...], dict[int, int]] = {}


def _domain_of(state: GameState, age: Age) -> dict[int, int]:
    """Square -> the number of its domain (R19), for the squares buildings cover; remembered
    by the board's tiles (with their owners: the same key as the board's moves)."""
    key = _board_key(state, age)
    found = _DOMAINS.get(key)
    if found is not None:
        return found
    if len(_DOMAINS) >= _BOARD_MOVES_MAX:
        _DOMAINS.clear()
    where = _DOMAINS[key] = {}
    for i, group in enumerate(domain_groups(state.boards[age])):
        for item in group:
            if isinstance(item, int):
                where[item] = i
                continue
            for c in _cells(item.at, BUILDINGS[item.type].size):
                where[c] = i
    return where


def _by_domain(
    where: dict[int, int], size: int, near: list[tuple[int, int, int, str]],
) -> list[tuple[int, int, int, str]]:
    """Of the ranked squares that touch buildings, the first for each distinct set of domains
    its footprint joins (R19), up to ``WORK.squares`` sets."""
    seen: set[frozenset[int]] = set()
    out = []
    for r in near:
        joined = frozenset(where[c] for c in _PERIMETERS[size][r[2]] if c in where)
        if joined not in seen:
            seen.add(joined)
            out.append(r)
            if len(out) == WORK.squares:
                break
    return out


def candidates(state: GameState, seat: int, only: Age | None = None) -> list[Action]:
    """The legal actions worth weighing, in a stable order.

    Built from the engine's cheap queries (``construct_options``, ``upgrade_options``) and
    ``check``, not from the full ``legal_actions`` list, which spells out every way to pay.
    Left out: exchanges and Hold'em swaps (a gamble the evaluation cannot price), discards at
    the end of the turn, alternative ways to pay a terrain surcharge (the engine's default
    payment is kept), and most construct squares: per board and building, the few that touch
    the most buildings and the cheapest one that touches none. With ``only``: the card actions
    on that board and the end of the turn (what a travel there is for)."""
    WORK.units += CANDIDATE_UNITS
    if state.pending is not None:
        return [Choose(option=i) for i in range(len(state.pending.options))]
    player = state.players[seat]
    hand = player.hand
    out: list[Action] = []
    for age in (Age.MIGHT, Age.FAITH):
        if only is not None and age is not only:
            continue
        if _room(state, seat, age) == 0:
            continue
        out.extend(_board_moves(state, seat, age))
        for t in state.boards[age].tiles:
            if BUILDINGS[t.type].size == 1 and BUILDINGS[t.type].family in hand:
                demolish = Demolish(age=age, square=square_name(t.at))
                if _is_legal(state, seat, demolish):
                    out.append(demolish)
    if (only is None or only is Age.REASON) and _room(state, seat, Age.REASON):
        reason = state.boards[Age.REASON]
        squares = [square_name(t.at) for t in reason.tiles]
        squares += [square_name(sq) for sq in PRINTED_HAMLETS]
        for square in squares:
            for count in (1, 2):
                for action in (Populate(square=square, count=count),
                               Renovate(square=square, cards=count)):
                    if _is_legal(state, seat, action):
                        out.append(action)
    if player.ecus >= 1 and only is None:
        adv, used = player.adventurers, player.used
        for i, where in enumerate(adv):
            twin = i == 1 and adv[0] is where and used[0] == used[1]
            for dest in Age:
                if dest is not where and not twin:
                    out.append(Travel(to=dest, adventurer=i))
    out.append(EndTurn())
    return out


def _board_of(action: Action) -> Age | None:
    match action:
        case Construct() | Upgrade() | Demolish():
            return action.age
        case Populate() | Renovate():
            return Age.REASON
        case _:
            return None


# --- steps: one action, or a travel and what it is for ---------------------------------------


@dataclass
class Step:
    """One step and its score; the position it leads to is played when first asked for if the
    score was known already (``WORK.scores``: ``after`` None, played from ``start``)."""

    actions: list[Action]
    after: GameState | None
    score: float
    start: GameState | None = None
    seat: int = 0

    @property
    def state(self) -> GameState:
        if self.after is None:
            assert self.start is not None
            state = self.start
            for action in self.actions:
                state = _play(state, self.seat, action)
            self.after = state
        return self.after


def _resolve_choices(state: GameState) -> GameState:
    """Inside a simulation, pending R37 choices take their default (any seat)."""
    while state.pending is not None:
        state, _ = apply(state, state.pending.seat, Choose(option=state.pending.default),
                         worded=False)
    return state


def _play(state: GameState, seat: int, action: Action) -> GameState:
    check_stop()  # every search steps through here: it gives up at once when the process stops
    WORK.units += 1
    new, _ = apply(state, seat, action, worded=False)  # the search never reads the events
    return _resolve_choices(new)


_EXPAND_S = 0.0  # seconds per expansion in the last search (to foresee what a sample costs)


def _step_lists(state: GameState, seat: int) -> list[tuple[list[Action], GameState]]:
    """The candidate steps from ``state``, each with the position its last action is played
    from (a travel's is the board reached)."""
    out: list[tuple[list[Action], GameState]] = []
    here = candidates(state, seat)
    # lean: a travel is not weighed with a card action the seat can play without it (the same
    # action, 1 Ecu cheaper; the travel can still follow it): 2 in 5 travel steps
    without = {a for a in here if not isinstance(a, Travel | EndTurn)} if WORK.lean else set()
    for action in here:
        if isinstance(action, Travel):
            moved = _play(state, seat, action)
            for follow in candidates(moved, seat, only=action.to):
                if follow in without:
                    continue
                if isinstance(follow, EndTurn) or _board_of(follow) is action.to:
                    out.append(([action, follow], moved))
            continue
        out.append(([action], state))
    return out


def _expand(state: GameState, seat: int) -> list[tuple[list[Action], GameState]]:
    key = ""
    memory: dict[str, list[tuple[list[Action], GameState]]] | None = WORK.expanded
    if memory is not None:
        key = _position_key(state, seat)
        found = memory.get(key)
        if found is not None:
            return found
    out = [(actions, _play(last, seat, actions[-1])) for actions, last in _step_lists(state, seat)]
    if memory is not None:
        memory[key] = out
    return out


def known_scores(state: GameState, seat: int, careful: bool) -> dict[tuple[Any, ...], float] | None:
    """The scores of the steps from this position already met on any hand of ``seat``
    (``WORK.scores``), or None when none are kept."""
    memo = WORK.scores
    if memo is None:
        return None
    return memo.setdefault((_position_key(state, seat, hand=False), careful), {})


def steps(state: GameState, seat: int, careful: bool = False) -> list[Step]:
    """Every candidate step from ``state`` with the position it leads to, scored for ``seat``.

    A travel alone gains nothing, so it is weighed together with what it enables: a card action
    on the board it reaches, or the end of the turn (income is collected where the adventurers
    stand, R46)."""
    known = known_scores(state, seat, careful)
    if known is None:
        return [
            Step(list(actions), after, evaluate(after, seat, careful))
            for actions, after in _expand(state, seat)
        ]
    out = []
    for actions, last in _step_lists(state, seat):
        score = known.get(tuple(actions))
        if score is None:
            after = _play(last, seat, actions[-1])
            score = known[tuple(actions)] = evaluate(after, seat, careful)
            out.append(Step(actions, after, score))
        else:
            out.append(Step(actions, None, score, state, seat))
    return out


def best_step(state: GameState, seat: int, careful: bool = False) -> Step:
    """The step with the best evaluation; ending the turn wins ties (no pointless moves)."""
    options = steps(state, seat, careful)
    end = next(s for s in options if isinstance(s.actions[0], EndTurn))
    best = max(options, key=lambda s: s.score)
    return best if best.score > end.score + GAIN_EPSILON else end


def finish_turn(
    state: GameState,
    seat: int,
    limit: int = TURN_STEPS,
    careful: bool = False,
    stop_at: Limit = None,
) -> tuple[GameState, list[Action]]:
    """Play ``seat``'s turn to its end with the easy policy (greedy steps, by the ``careful``
    evaluation if asked); returns the state and the actions. Past ``stop_at`` (a
    ``time.perf_counter()`` instant or a predicate) it stops where it stands after one step at
    least, the turn unfinished."""
    done: list[Action] = []
    while not state.over and state.turn == seat and current_seat(state) == seat:
        if done and passed(stop_at):
            break
        if len(done) >= limit:
            step = Step([EndTurn()], _play(state, seat, EndTurn()), 0.0)
        else:
            step = best_step(state, seat, careful)
        for action in step.actions:
            state = _play(state, seat, action)
            done.append(action)
            if state.turn != seat or state.over:
                break
    return state, done


# --- R37 answers -----------------------------------------------------------------------------


def answer_choice(view: PlayerView) -> Choose:
    """R37: which building is downsized (R32/R36) or where a downsized tile sits (R33).

    Downsizing: spare its own buildings; among the rivals', hit the richest rival's most
    valuable one. Placement: the R37 default, which keeps the tile in the largest domain."""
    pending = view.pending
    assert pending is not None
    if pending.kind != "downsize_which":
        return Choose(option=pending.default)
    board = view.boards[pending.age]
    ecus = {p.seat: p.ecus for p in view.players}
    best, best_key = pending.default, None
    for i, option in enumerate(pending.options):
        tile = board.tile(option.tile_id) if option.tile_id is not None else None
        if tile is None:
            continue
        mine = tile.owner == view.seat
        rival = -1 if tile.owner is None else ecus.get(tile.owner, 0)
        key = (not mine, rival, BUILDINGS[tile.type].value, -i)
        if best_key is None or key > best_key:
            best, best_key = i, key
    return Choose(option=best)


# --- the levels ------------------------------------------------------------------------------


def choose_random(view: PlayerView, chooser: random.Random) -> Action:
    state = sample_state(view, chooser)
    if view.pending is not None:
        return Choose(option=chooser.randrange(len(view.pending.options)))
    return chooser.choice(legal_actions(state, view.seat))


def choose_easy(view: PlayerView, chooser: random.Random) -> Action:
    """One step ahead: the action (or travel and action) that raises the evaluation most."""
    if view.pending is not None:
        return answer_choice(view)
    state = sample_state(view, chooser)
    return best_step(state, view.seat).actions[0]


# --- normal: the turn searched, then the replies ---------------------------------------------


def fingerprint(view: PlayerView) -> str:
    """What a decision depends on, without tile ids (a sampled state numbers new tiles its own
    way): equal fingerprints, equal positions for the seat."""
    boards = [
        (
            sorted((t.type, t.at, t.owner, t.ruin, t.marker, sorted(t.cubes)) for t in b.tiles),
            sorted(b.hamlet_cubes.items()),
        )
        for b in view.boards
    ]
    players = [(p.ecus, p.cubes, p.adventurers, p.used, p.hand_count) for p in view.players]
    return repr(
        (view.seat, view.step, view.round, view.turn, view.hand, view.reserve, view.stock,
         view.draw_count, view.discard_count, view.turn_state, boards, players)
    )


def _position_key(state: GameState, seat: int, hand: bool = True) -> str:
    """``fingerprint`` of a sampled state during the search, without building the view
    (without the seat's hand if not ``hand``). Enums enter by their values: the key is built
    thousands of times a search, and an enum's ``repr`` costs many times its value's."""
    boards = [
        (
            sorted(
                (t.type._value_, t.at, t.owner, t.ruin, t.marker, sorted(t.cubes))
                for t in b.tiles
            ),
            sorted(b.hamlet_cubes.items()),
        )
        for b in state.boards
    ]
    players = [
        (p.ecus, p.cubes, [a._value_ for a in p.adventurers], p.used, p.shared, len(p.hand))
        for p in state.players
    ]
    return repr((seat, state.turn, state.round, state.over,
                 [f._value_ for f in state.players[seat].hand] if hand else None,
                 tuple(state.turn_state.__dict__.values()), boards, players))


@dataclass
class Plan:
    """A whole turn: its actions, the position after it (on one sample), and its score."""

    actions: list[Action]
    state: GameState
    score: float
    replies: list[float] = field(default_factory=list)

    @property
    def value(self) -> float:
        """The score at the end of the turn, blended with the mean score after the rivals'
        replies when there are any (``REPLY_WEIGHT``)."""
        if not self.replies:
            return self.score
        after = sum(self.replies) / len(self.replies)
        return (1 - REPLY_WEIGHT) * self.score + REPLY_WEIGHT * after


def _turn_over(state: GameState, seat: int) -> bool:
    return state.over or state.turn != seat


def plan_turns(
    state: GameState,
    seat: int,
    beam: tuple[int, ...],
    deadline: Limit,
    finish_by: Limit = None,
    stop_at: Limit = None,
) -> list[Plan]:
    """Beam search over ``seat``'s action sequences to the end of its turn; best first.

    Level ``d`` expands the ``beam[d]`` best unfinished positions by every step; positions reached
    by the same actions in another order are kept once. When ``deadline`` passes, the best
    unfinished positions play the rest of their turn greedily: the best one always, the next
    ones (up to ``COMPLETE``) while ``finish_by`` (default: ``deadline``) has not passed; past
    ``stop_at`` a completion stops where it stands. Each limit is a ``time.perf_counter()``
    instant or a predicate (``passed``)."""
    frontier: list[Plan] = [Plan([], state, evaluate(state, seat, CAREFUL))]
    done: list[Plan] = []
    for depth in range(TURN_STEPS):
        children: dict[str, Plan] = {}
        for plan in frontier:
            for step in steps(plan.state, seat, careful=CAREFUL):
                child = Plan(plan.actions + step.actions, step.state, step.score)
                if _turn_over(step.state, seat):
                    done.append(child)
                    continue
                key = _position_key(step.state, seat)
                if key not in children or children[key].score < child.score:
                    children[key] = child
            if passed(deadline):
                break
        width = beam[min(depth, len(beam) - 1)]
        frontier = sorted(children.values(), key=lambda p: -p.score)[:width]
        if not frontier or passed(deadline):
            break
    for i, plan in enumerate(frontier[:COMPLETE]):  # out of depth or time: finish greedily
        if i and passed(deadline if finish_by is None else finish_by):
            break
        after, rest = finish_turn(
            plan.state, seat, TURN_STEPS - len(plan.actions), CAREFUL, stop_at
        )
        done.append(Plan(plan.actions + rest, after, evaluate(after, seat, CAREFUL)))
    return sorted(done, key=lambda p: -p.score)


def _replies(state: GameState, seat: int, rivals: int = REPLY_RIVALS) -> GameState:
    """The rivals' replies: the next ``rivals`` seats in turn each play their whole turn as
    ``easy`` plays it (``finish_turn``: greedy steps by the plain evaluation). Stops earlier when
    ``seat`` is to play again or the game ends."""
    for _ in range(rivals):
        if state.over or state.turn == seat:
            break
        state, _ = finish_turn(state, state.turn)
    return state


# Rest of the chosen turn, keyed by the fingerprint of the view expected before each action: a
# later decision of the same turn that finds its position here plays on without searching again.
_PLANNED: dict[str, Action] = {}
_PLANNED_MAX = 256


def forget_plans() -> None:
    """Drop the remembered turn plans (the next decision searches from scratch)."""
    _PLANNED.clear()


def _remember(view: PlayerView, plan: Plan, chooser: random.Random) -> None:
    """Store the plan's later actions under the views they expect; stop at anything random (a
    card drawn) or a pending choice, where the next decision must look again."""
    if len(_PLANNED) > _PLANNED_MAX:
        _PLANNED.clear()
    state = sample_state(view, chooser)
    for action, nxt in zip(plan.actions, plan.actions[1:], strict=False):
        if isinstance(action, EndTurn):
            break
        state, _ = apply(state, view.seat, action, worded=False)
        if state.pending is not None or state.turn != view.seat:
            break
        _PLANNED[fingerprint(player_view(state, view.seat))] = nxt


def shortlist(
    root: GameState,
    seat: int,
    deadline: Limit,
    finish_by: Limit = None,
    stop_at: Limit = None,
    size: int = SHORTLIST,
    margin: float = SHORTLIST_MARGIN,
    beam: tuple[int, ...] = BEAM,
) -> list[Plan]:
    """The whole-turn plans ``normal`` weighs against the replies: the best ``size`` of the beam
    search (distinct first actions first: that is what is decided now) and, always, the turn
    easy would play, so that the search can only add to what easy sees; only those within
    ``margin`` Ecus of the best at the end of the turn."""
    global _EXPAND_S
    memory: dict[str, list[tuple[list[Action], GameState]]] = {}
    WORK.expanded = memory  # the easy turn, the beam and its completions meet the same positions
    began = time.perf_counter()
    try:
        after, actions = finish_turn(root, seat, stop_at=stop_at)
        easy_plan = Plan(actions, after, evaluate(after, seat, CAREFUL))
        plans = plan_turns(root, seat, beam, deadline, finish_by, stop_at)
        _EXPAND_S = (time.perf_counter() - began) / max(1, len(memory))
    finally:
        WORK.expanded = None
    short: list[Plan] = []
    for plan in plans:
        if all(repr(p.actions[0]) != repr(plan.actions[0]) for p in short):
            short.append(plan)
    short = short[:size]
    short += [p for p in plans if p not in short][: max(0, size - len(short))]
    if all(p.actions != easy_plan.actions for p in short):
        short.append(easy_plan)
    # a plan far behind the best at the end of the turn is not worth a sample of the replies
    best = max(p.score for p in short)
    return [p for p in short if p.score >= best - margin]


def choose_normal(view: PlayerView, chooser: random.Random, budget_s: float) -> Action:
    """Its turn searched, then the rivals' replies, over sampled hidden hands (``weigh_plans``).
    The chosen plan's later actions are remembered, so the rest of the turn costs no search
    while the position is as planned."""
    if view.pending is not None:
        return answer_choice(view)
    planned = _PLANNED.pop(fingerprint(view), None)
    if planned is not None:
        return planned
    best = weigh_plans(view, chooser, budget_s)[0]
    _remember(view, best, chooser)
    return best.actions[0]


def weigh_plans(view: PlayerView, chooser: random.Random, budget_s: float) -> list[Plan]:
    """``normal``'s whole-turn plans for the seat of ``view``, best first.

    A beam search over its own action sequences to the end of the turn (on one sample: its own
    moves do not depend on hidden cards) gives the best few whole-turn plans; the rivals then
    play their turns on freshly sampled hands (easy policy), and each plan is scored by its mean
    evaluation after those replies. Samples go on while time remains (with the garbage
    collector paused: ``work.collector_paused``)."""
    with collector_paused():
        return _weigh_plans(view, chooser, budget_s)


def _weigh_plans(view: PlayerView, chooser: random.Random, budget_s: float) -> list[Plan]:
    start = time.perf_counter()
    deadline = start + budget_s
    # a hard stop, whatever the machine's load: searches on a busy machine run long
    hard = start + min(HARD_CAP_S, max(budget_s, HARD_FACTOR * budget_s)) if budget_s else None
    seat = view.seat
    root = sample_state(view, chooser)
    short = shortlist(root, seat, start + budget_s * PLAN_SHARE, deadline, hard)
    # The samples of the replies. The first is begun if it should end before the hard stop
    # (foreseen from the search's time per expansion), even when the search of the turn used
    # the budget: it is the one that shows what the rivals take next; later ones only if they
    # should end within the budget (foreseen from the last one). A sample counts only when
    # every plan has seen it.
    replying = min(REPLY_RIVALS, len(view.players) - 1)
    last = _EXPAND_S * len(short) * replying * REPLY_STEPS_FORESEEN
    taken = 0
    over = all(p.state.over for p in short)  # the game ends with this turn: nobody replies
    while len(short) > 1 and hard is not None and not over:
        now = time.perf_counter()
        if now + last > (hard if taken == 0 else deadline):
            break
        sample = sample_state(view, chooser)
        scores: list[float] = []
        for plan in short:
            state = sample
            for action in plan.actions:
                state = _play(state, seat, action)
                if _turn_over(state, seat):
                    break
            if not _turn_over(state, seat):
                state, _ = finish_turn(state, seat, careful=CAREFUL, stop_at=hard)
            scores.append(evaluate(_replies(state, seat), seat, CAREFUL))
            if time.perf_counter() > hard:
                break
        if len(scores) == len(short):
            for plan, score in zip(short, scores, strict=True):
                plan.replies.append(score)
            taken += 1
        last = time.perf_counter() - now
    return sorted(short, key=lambda p: -p.value)  # stable: the first best stays first

