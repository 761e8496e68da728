"""``hard``: information-set Monte Carlo tree search over whole turns (docs/ai.md).

The tree's moves are whole turns. At the root, the seat's own turns found by ``normal``'s beam
search (one sample suffices: its own moves do not depend on hidden cards). Every iteration
deals the hidden cards afresh (``determinize``), plays a root turn chosen by UCB, then the turns
that follow: a node below the root holds the turns its seat was seen to consider (its greedy
turn and the best turn with another first step, computed on the sample for the hand it holds
there), and each seat picks among those available by UCB on **its own** mean result (the
multi-player backup: every seat maximises its own evaluation, not the root's). Past the tree,
every seat plays its greedy turn, until the next income has been paid to every seat or a few
turns have passed; the position is then scored by the evaluation, for every seat at once. With
four players no turn below the root travels (``STAYING``): twice the iterations for the work.

The search is bounded by work units (``work.WORK``), not by the clock: the same view, seed and
work give the same move under any load. The work per second of budget is the machine's speed:
measured once per process, then following the process's own searches (``search_speed``), so
that a decision takes about the same time anywhere; set by ``KHRONOS_AI_SPEED``, it is the same
on any machine, and thinking again after a restart finds the same move. A wall-clock hard stop
bounds a decision on a loaded machine.
"""

from __future__ import annotations

import math
import os
import random
import statistics
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import (
    Action,
    EndTurn,
    GameState,
    Options,
    PlayerView,
    Travel,
    apply,
    new_game,
    player_view,
)

from .determinize import sample_state
from .evaluate import INCOME_ROUNDS, evaluate, evaluate_all
from .policy import (
    _PLANNED,
    CAREFUL,
    GAIN_EPSILON,
    TURN_STEPS,
    Plan,
    Step,
    _play,
    _position_key,
    _remember,
    answer_choice,
    best_step,
    candidates,
    choose_easy,
    fingerprint,
    finish_turn,
    known_scores,
    shortlist,
    steps,
)
from .work import WORK, collector_paused

# --- knobs (docs/ai.md) ----------------------------------------------------------------------
# work units per second of budget, by the number of players (one core of the 2-core machine,
# measured in CPU time by benchmarks/bench_hard.py: a unit costs more with more seats; two
# players lowered from 8200 on 29 November 2026 to keep whole games' median decision under 2 s;
# four raised from 4300 the same day by half a doubling: their decisions took half the 2 s;
# five kept where they were, when 6100 took a median of 2.1 s and won no more)
UNITS_PER_S = {2: 7600.0, 3: 6850.0, 4: 6100.0, 5: 4250.0}
THINK_FACTOR = 2.0  # hard's work: this many times the budget's units (normal thinks the budget)
# part of the units for the beam search of the seat's own turn (the rest: the iterations); the
# beam stops where this runs out, and a slow machine's work (machine_speed) often runs it out
PLAN_SHARE = 0.6
ROOT_PLANS = 6  # whole-turn plans weighed at the root (distinct first actions first) + easy's
ROOT_BEAM = (12, 6, 4)  # its beam search's widths, twice normal's (policy.BEAM)
ROOT_MARGIN = 6.0  # ... those at most this far (Ecus) behind the best at the end of the turn
ROOT_SQUARES = 8  # WORK.squares (this thread's) while the root plans are searched
# share of a root plan's end-of-turn score in its value (the rest: its iterations' mean): this
# much while the search has made PRIOR_FEW iterations per plan or fewer, PRIOR_SHARE_MANY from
# PRIOR_MANY on, and between them by the logarithm (docs/ai.md, step 5)
PRIOR_SHARE = 0.3
PRIOR_SHARE_MANY = 0.15
PRIOR_FEW = 10.0
PRIOR_MANY = 80.0
OPTIONS = 2  # turns a seat below the root chooses between: its greedy turn and another
TREE_TURNS = 1  # turns below the root kept in the tree; the rest of an iteration is greedy
EXTRA_TURNS = 0  # turns played after every rival has replied once (fewer if the income comes)
EXPLORE = 3.0  # UCB's exploration constant, in Ecus of the evaluation
LATER_CAREFUL = True  # the evaluation the seats' greedy turns use below the root
QUICK_FROM = 2  # with this many players or more, a greedy turn below the root is quick_turn's
# with these numbers of players, the turns below the root never travel: a seat plays where its
# adventurers stand, and an iteration costs half as much (docs/ai.md, step 4)
STAYING = (4,)
SHARED_SCORES = True  # the iterations' steps scored once per position, whatever the hand
LEAN = True  # no travel step whose card action needs no travel (policy._expand)
HARD_CAP_S = 8.0  # wall-clock stop, whatever the budget, for a loaded machine
HARD_FACTOR = 4.0  # ... or this many times its thinking time, if that comes first
HARD_FLOOR_S = 2.0  # ... but never sooner (a small budget on a loaded machine stays exact)
# This machine's speed against the one UNITS_PER_S was measured on (``machine_speed``): what
# ``calibration_rate`` gives there (units per CPU second), and where to set the speed instead.
# Set on 27 November 2026 (docs/ai-figures.md) at 16,400, so that the machine of that day,
# where it gives 5,900-7,500, did 0.35-0.42 of UNITS_PER_S's work; lowered by half a doubling
# on 28 November with SHARED_SCORES, which buys more iterations for the work: the machine of
# that day, where it gives 4,100-6,700, does 0.35-0.6 (mostly 0.35-0.42), and its two-player
# decisions of whole games take what they took on the reference machine (median 1.6 s)
REFERENCE_RATE = 11_600.0
SPEED_ENV = "KHRONOS_AI_SPEED"
CALIBRATION_SEED = 501
CALIBRATION_TURNS = 4  # searches timed
CALIBRATION_BUDGET_S = 0.1  # ... each with this budget
SPEED_STEPS = 4  # the measured ratio is rounded to this many steps per doubling
SPEED_RANGE = (0.125, 4.0)  # ... and kept within these
# Once the process has timed a few of its own searches, its speed follows them (``search_speed``)
# unless KHRONOS_AI_SPEED sets it: the measure above, taken once at the start, varies from one
# process to the next by more than a quarter-doubling either way (0.5-0.84 on the machine of 29
# November 2026), and so did the time and the strength of hard's decisions
FOLLOW_SEARCHES = 9  # the last full searches whose speed the next search follows
FOLLOW_FROM = 3  # ... once this many were timed (before: the measured speed)
FOLLOW_S = 2.3  # ... so that a full search takes this many CPU seconds per second of budget
#                 (1.84 s at the default budget of 0.8 s: a median decision under 2 s)
FOLLOW_MIN_S = 0.2  # a search that took less CPU time than this is not timed (too noisy)

Turn = tuple[Action, ...]


@dataclass
class Arm:
    """One turn of a node's seat: how often it was played and available, and what each seat
    got on average after it (``totals``: the sum of every seat's evaluation)."""

    actions: Turn
    seats: int
    visits: int = 0
    seen: int = 0  # iterations in which it was available (ISMCTS's availability count)
    totals: list[float] = field(default_factory=list)
    child: Node | None = None

    def __post_init__(self) -> None:
        if not self.totals:
            self.totals = [0.0] * self.seats

    def mean(self, seat: int) -> float:
        return self.totals[seat] / self.visits if self.visits else 0.0

    def ucb(self, seat: int) -> float:
        if self.visits == 0:
            return math.inf
        bonus = EXPLORE * math.sqrt(math.log(max(self.seen, 1)) / self.visits)
        return self.mean(seat) + bonus


@dataclass
class RootArm(Arm):
    """A whole-turn plan of the root seat, with its score at the end of the turn (``prior``)."""

    prior: float = 0.0

    def value(self, seat: int, drop: float, share: float) -> float:
        """The plan's worth: its end-of-turn score blended with its mean after the iterations
        (``share``, from ``prior_share``); a plan never iterated is given the mean ``drop`` from
        its end-of-turn score that the others showed."""
        after = self.mean(seat) if self.visits else self.prior - drop
        return share * self.prior + (1 - share) * after

    def ucb(self, seat: int, share: float = PRIOR_SHARE) -> float:
        if self.visits == 0:
            return math.inf
        bonus = EXPLORE * math.sqrt(math.log(max(self.seen, 1)) / self.visits)
        return self.value(seat, 0.0, share) + bonus


def prior_share(per_plan: float) -> float:
    """The end-of-turn score's share in every root plan's value when the search has made
    ``per_plan`` iterations per plan: ``PRIOR_SHARE`` up to ``PRIOR_FEW``, ``PRIOR_SHARE_MANY``
    from ``PRIOR_MANY``, log-linear between. The more iterations, the less the score is needed
    to steady their means; every plan gets the same share, so none is favoured for being
    iterated less."""
    if per_plan <= PRIOR_FEW:
        return PRIOR_SHARE
    if per_plan >= PRIOR_MANY:
        return PRIOR_SHARE_MANY
    along = math.log(per_plan / PRIOR_FEW) / math.log(PRIOR_MANY / PRIOR_FEW)
    return PRIOR_SHARE + along * (PRIOR_SHARE_MANY - PRIOR_SHARE)


@dataclass
class Node:
    """A seat's turn in the tree: the turns it was seen to consider, by their actions."""

    seat: int
    arms: dict[Turn, Arm] = field(default_factory=dict)


def _turn_over(state: GameState, seat: int) -> bool:
    return state.over or state.turn != seat


def quick_rest(
    state: GameState, seat: int, careful: bool, limit: int
) -> tuple[GameState, list[Action]]:
    """The rest of ``seat``'s turn, greedily, on the boards where its adventurers stand: each
    step is the card action that raises the evaluation most, until ending the turn is as good.
    Without travel a step weighs a handful of actions instead of dozens. While ``hard``'s
    iterations run, the scores met on other hands are read, not played again (``WORK.scores``)."""
    done: list[Action] = []
    while not _turn_over(state, seat):
        if len(done) >= limit:
            return _play(state, seat, EndTurn()), [*done, EndTurn()]
        known = known_scores(state, seat, careful)
        played: dict[Action, GameState] = {}
        best: Action = EndTurn()
        best_score = _score(state, seat, best, careful, known, played)
        for action in candidates(state, seat):
            if isinstance(action, Travel | EndTurn):
                continue
            score = _score(state, seat, action, careful, known, played)
            if score > best_score + GAIN_EPSILON:
                best, best_score = action, score
        done.append(best)
        found = played.get(best)
        state = _play(state, seat, best) if found is None else found
    return state, done


def _score(
    state: GameState,
    seat: int,
    action: Action,
    careful: bool,
    known: dict[tuple[Any, ...], float] | None,
    played: dict[Action, GameState],
) -> float:
    """The score after ``action``: known, or played (kept in ``played``), evaluated and
    remembered in ``known`` if scores are kept."""
    found = None if known is None else known.get((action,))
    if found is None:
        after = played[action] = _play(state, seat, action)
        found = evaluate(after, seat, careful)
        if known is not None:
            known[(action,)] = found
    return found


def staying_steps(state: GameState, seat: int, careful: bool) -> list[Step]:
    """The steps of ``seat`` that need no travel (the card actions on the boards where its
    adventurers stand, and the end of the turn), scored as ``quick_rest`` scores them: what
    ``steps`` gives, less every step that travels."""
    known = known_scores(state, seat, careful)
    played: dict[Action, GameState] = {}
    out = []
    for action in candidates(state, seat):
        if isinstance(action, Travel):
            continue
        score = _score(state, seat, action, careful, known, played)
        out.append(Step([action], played.get(action), score, state, seat))
    return out


def quick_turn(state: GameState, seat: int, careful: bool) -> list[Action]:
    """A greedy turn at a third of the cost: the first step weighs everything (travel and the
    action it is for included), the later ones only the boards reached (``quick_rest``)."""
    first = best_step(state, seat, careful)
    if _turn_over(first.state, seat):
        return list(first.actions)
    _, rest = quick_rest(first.state, seat, careful, TURN_STEPS - len(first.actions))
    return [*first.actions, *rest]


def play_turn(state: GameState, seat: int, actions: Sequence[Action]) -> GameState:
    """``actions`` played by ``seat`` until its turn ends (a turn cut short by the clock is
    ended where it stands)."""
    for action in actions:
        state = _play(state, seat, action)
        if _turn_over(state, seat):
            return state
    if not _turn_over(state, seat):
        state = _play(state, seat, EndTurn())
    return state


def _next_income_round(round_: int) -> int:
    return next((r for r in INCOME_ROUNDS if r >= round_), INCOME_ROUNDS[-1])


class Search:
    """One decision of ``hard``: the root plans, the iterations, the best plan."""

    def __init__(
        self,
        view: PlayerView,
        chooser: random.Random,
        budget_s: float,
        speed: float | None = None,
    ) -> None:
        self.view = view
        self.seat = view.seat
        self.seats = len(view.players)
        self.chooser = chooser
        thinking_s = budget_s * THINK_FACTOR
        self.follows = speed is None and not speed_set()  # its time is remembered (search_speed)
        units = thinking_s * UNITS_PER_S[self.seats] * (search_speed() if speed is None else speed)
        start = self.start = WORK.units
        self.began = time.thread_time()
        self.plan_limit = start + units * PLAN_SHARE
        self.limit = start + units
        wall = min(HARD_CAP_S, max(HARD_FLOOR_S, HARD_FACTOR * thinking_s))
        self.stop_at = time.perf_counter() + wall
        self.income_round = _next_income_round(view.round)
        self.horizon = self.seats - 1 + EXTRA_TURNS  # turns played after the root's, at most
        self.quick = self.seats >= QUICK_FROM
        self.stay = self.seats in STAYING
        self.samples: list[GameState] = []
        self.greedy: dict[str, Turn] = {}  # position (with the mover's hand) -> its greedy turn
        self.options: dict[str, list[Turn]] = {}  # position -> the turns a seat considers there
        self.root = Node(view.seat)
        self.iterations = 0

    # --- limits ---------------------------------------------------------------------------

    def planning_over(self) -> bool:
        return WORK.units >= self.plan_limit or time.perf_counter() > self.stop_at

    def out_of_work(self) -> bool:
        return WORK.units >= self.limit or time.perf_counter() > self.stop_at

    def stopped(self) -> bool:
        return time.perf_counter() > self.stop_at

    # --- the root ----------------------------------------------------------------------------

    def plan_root(self) -> list[Plan]:
        """The root's plans: the beam search's best whole turns and easy's, on one sample."""
        root = sample_state(self.view, self.chooser)
        squares, WORK.squares = WORK.squares, ROOT_SQUARES
        try:
            plans = shortlist(
                root, self.seat, self.planning_over, self.planning_over, self.stopped,
                size=ROOT_PLANS, margin=ROOT_MARGIN, beam=ROOT_BEAM,
            )
        finally:
            WORK.squares = squares
        unique = []
        for plan in plans:
            actions = tuple(plan.actions)
            if actions not in self.root.arms:
                self.root.arms[actions] = RootArm(actions, self.seats, prior=plan.score)
                unique.append(plan)
        return unique

    def run(self) -> list[tuple[Plan, RootArm]]:
        """Search; returns the root plans with their arms, best first."""
        lean, WORK.lean = WORK.lean, LEAN
        try:
            with collector_paused():
                ranked = self._run()
        finally:
            WORK.lean = lean
        if self.follows:
            self._time_it()
        return ranked

    def _time_it(self) -> None:
        """Remember the speed this search showed, if it did all its work (not cut short by
        the clock, nor ended early by a game decided or a single plan) and took long enough to
        be timed: its units per CPU second against ``UNITS_PER_S`` (the speed at which a search
        takes its thinking time)."""
        seconds = time.thread_time() - self.began
        if WORK.units < self.limit or self.stopped() or seconds < FOLLOW_MIN_S:
            return
        shown = (WORK.units - self.start) / seconds / UNITS_PER_S[self.seats]
        with _speed_lock:
            _shown.append(shown)
            del _shown[:-FOLLOW_SEARCHES]

    def _run(self) -> list[tuple[Plan, RootArm]]:
        plans = self.plan_root()
        arms = [self.root.arms[tuple(p.actions)] for p in plans]
        assert all(isinstance(a, RootArm) for a in arms)
        roots = [a for a in arms if isinstance(a, RootArm)]
        over = all(p.state.over for p in plans)  # the game ends with this turn
        scores, WORK.scores = WORK.scores, ({} if SHARED_SCORES else None)
        try:
            while len(roots) > 1 and not over and not self.out_of_work():
                # every plan once (in the beam's order), then UCB on the seat's own value
                share = self.share(len(roots))
                arm = max(roots, key=lambda a: (a.ucb(self.seat, share), -roots.index(a)))
                for a in roots:
                    a.seen += 1
                self.iterate(arm)
                self.iterations += 1
        finally:
            WORK.scores = scores
        tried = [a for a in roots if a.visits]
        drop = sum(a.prior - a.mean(self.seat) for a in tried) / len(tried) if tried else 0.0
        share = self.share(len(roots))
        ranked = sorted(zip(plans, roots, strict=True),
                        key=lambda pa: -pa[1].value(self.seat, drop, share))
        return ranked

    def share(self, plans: int) -> float:
        """The end-of-turn score's share in the values of this search's ``plans`` root plans,
        by the iterations made so far (``prior_share``)."""
        return prior_share(self.iterations / max(plans, 1))

    # --- one iteration -----------------------------------------------------------------------

    def sample(self, index: int) -> GameState:
        """The ``index``-th determinization: every root plan's ``k``-th iteration meets the same
        hidden cards (common random numbers: plans are compared on equal deals)."""
        while len(self.samples) <= index:
            self.samples.append(sample_state(self.view, self.chooser))
        return self.samples[index]

    def iterate(self, arm: Arm) -> None:
        state = self.play_turn(self.sample(arm.visits), self.seat, arm.actions)
        path = [arm]
        turns = 0
        while not self.cut(state, turns) and turns < TREE_TURNS and not self.stopped():
            if arm.child is None:
                arm.child = Node(state.turn)
            node = arm.child
            arm, fresh = self.select(node, state)
            state = self.play_turn(state, node.seat, arm.actions)
            path.append(arm)
            turns += 1
            if fresh:
                break
        rewards = evaluate_all(self.play_out(state, turns), CAREFUL)
        for a in path:
            a.visits += 1
            for s, r in enumerate(rewards):
                a.totals[s] += r

    def play_out(self, state: GameState, turns: int) -> GameState:
        """Past the tree, every seat plays its greedy turn until the iteration's cut (``turns``:
        those played after the root's so far)."""
        while not self.cut(state, turns) and not self.stopped():
            state = self.play_turn(state, state.turn, self.greedy_turn(state, state.turn))
            turns += 1
        return state

    def cut(self, state: GameState, turns: int) -> bool:
        """Where an iteration stops: the game's end, the next income paid to every seat, or
        every rival's reply (and ``EXTRA_TURNS`` more)."""
        return state.over or state.round > self.income_round or turns >= self.horizon

    def select(self, node: Node, state: GameState) -> tuple[Arm, bool]:
        """The turn ``node``'s seat plays on this sample: a turn it considers here that was never
        tried (expansion), else the best by UCB on its own mean."""
        available = []
        for actions in self.turn_options(state, node.seat):
            arm = node.arms.get(actions)
            if arm is None:
                arm = node.arms[actions] = Arm(actions, self.seats)
            arm.seen += 1
            available.append(arm)
        fresh = [a for a in available if a.visits == 0]
        if fresh:
            return fresh[0], True
        return max(available, key=lambda a: a.ucb(node.seat)), False

    # --- turns ---------------------------------------------------------------------------------

    def play_turn(self, state: GameState, seat: int, actions: Turn) -> GameState:
        """Every turn of the search is played here (``play_turn``)."""
        return play_turn(state, seat, actions)

    def greedy_turn(self, state: GameState, seat: int) -> Turn:
        """The turn ``seat`` plays greedily from here (remembered by the position and its hand,
        all it depends on)."""
        key = _position_key(state, seat)
        found = self.greedy.get(key)
        if found is None:
            if self.stay:
                _, actions = quick_rest(state, seat, LATER_CAREFUL, TURN_STEPS)
            elif self.quick:
                actions = quick_turn(state, seat, LATER_CAREFUL)
            else:
                _, actions = finish_turn(state, seat, careful=LATER_CAREFUL, stop_at=self.stopped)
            found = self.greedy[key] = tuple(actions)
        return found

    def turn_options(self, state: GameState, seat: int) -> list[Turn]:
        """The turns ``seat`` considers here: its greedy turn, then the best turns that begin
        with another step, each completed greedily (``OPTIONS`` in all); one expansion."""
        key = _position_key(state, seat)
        found = self.options.get(key)
        if found is not None:
            return found
        if self.stay:
            ranked = staying_steps(state, seat, LATER_CAREFUL)
        else:
            ranked = steps(state, seat, LATER_CAREFUL)
        end = next(s for s in ranked if isinstance(s.actions[0], EndTurn))
        best = max(ranked, key=lambda s: s.score)
        first = best if best.score > end.score + GAIN_EPSILON else end
        out: list[Turn] = []
        for step in [first, *sorted(ranked, key=lambda s: -s.score)]:
            if len(out) >= OPTIONS or (out and self.stopped()):
                break
            if any(t[: len(step.actions)] == tuple(step.actions) for t in out):
                continue
            rest: list[Action] = []
            if not _turn_over(step.state, seat):
                limit = TURN_STEPS - len(step.actions)
                if self.quick:
                    _, rest = quick_rest(step.state, seat, LATER_CAREFUL, limit)
                else:
                    _, rest = finish_turn(step.state, seat, limit, LATER_CAREFUL, self.stopped)
            out.append((*step.actions, *rest))
        self.greedy.setdefault(key, out[0])
        self.options[key] = out
        return out


# --- this machine's speed ------------------------------------------------------------------

_speed: float | None = None
_shown: list[float] = []  # the speeds the process's last full searches showed (Search._time_it)
_speed_lock = threading.Lock()


def calibration_rate() -> float:
    """Work units per CPU second of this thread over fixed searches: the turn starts of a
    two-player game between easy computers after the first (``CALIBRATION_TURNS``), each
    searched with the reference's units for a budget of ``CALIBRATION_BUDGET_S``; timed the
    second time (the first warms the engine's caches, as the searches of a running process
    find them)."""
    chooser = random.Random(CALIBRATION_SEED)
    state = new_game(Options(players=2), CALIBRATION_SEED)
    views: list[PlayerView] = []
    while not state.over and len(views) <= CALIBRATION_TURNS:
        views.append(player_view(state, state.turn))
        turn = state.turn
        while not state.over and (state.turn == turn or state.pending is not None):
            seat = state.pending.seat if state.pending is not None else state.turn
            action = choose_easy(player_view(state, seat), chooser)
            state, _ = apply(state, seat, action, worded=False)
    units = seconds = 0.0
    for timed in (False, True):
        for k, view in enumerate(views[1:]):  # the game's first position is the cheapest
            before, began = WORK.units, time.thread_time()
            Search(view, random.Random(k), CALIBRATION_BUDGET_S, speed=1.0).run()
            if timed:
                units += WORK.units - before
                seconds += time.thread_time() - began
    return units / max(seconds, 1e-6)


def machine_speed() -> float:
    """How much work a search of this process does per second of budget, against the machine
    ``UNITS_PER_S`` was measured on: ``KHRONOS_AI_SPEED`` if set (a positive number), else
    measured once per process (``calibration_rate`` against ``REFERENCE_RATE``) and rounded
    to a quarter of a doubling, so that small differences of the measure leave the work (hence
    the move) as it was; the measure varies by up to a tenth or more either way from one
    process to the next, so a restart may find the step above or below. Raises
    ValueError for a bad ``KHRONOS_AI_SPEED``, ``Stopping`` if the process stops meanwhile
    (nothing is kept: the next search measures again)."""
    global _speed
    with _speed_lock:
        if _speed is None:
            _speed = _configured_speed()
            if _speed is None:
                ratio = calibration_rate() / REFERENCE_RATE
                stepped = 2 ** (round(math.log2(ratio) * SPEED_STEPS) / SPEED_STEPS)
                _speed = min(max(stepped, SPEED_RANGE[0]), SPEED_RANGE[1])
        return _speed


def search_speed() -> float:
    """The speed of this process's next search: ``machine_speed`` until the process has timed
    ``FOLLOW_FROM`` of its full searches, then the median speed its last ``FOLLOW_SEARCHES``
    showed, scaled so that a full search takes ``FOLLOW_S`` CPU seconds per second of budget
    (within ``SPEED_RANGE``), whatever the start's measure found and whatever the size of its
    games; ``KHRONOS_AI_SPEED``, if set, holds instead (the same work every time)."""
    speed = machine_speed()
    if speed_set():
        return speed
    with _speed_lock:
        shown = list(_shown)
    if len(shown) < FOLLOW_FROM:
        return speed
    followed = statistics.median(shown) * FOLLOW_S / THINK_FACTOR
    return min(max(followed, SPEED_RANGE[0]), SPEED_RANGE[1])


def speed_set() -> bool:
    """Whether ``KHRONOS_AI_SPEED`` sets the speed (any value: a bad one is refused by
    ``machine_speed``)."""
    return bool(os.environ.get(SPEED_ENV, "").strip())


def speed_to_measure() -> bool:
    """Whether this process's first search of level ``hard`` would measure its speed: it has
    not yet, and ``KHRONOS_AI_SPEED`` does not set it (a bad value counts as set: the first
    search reports it, as before)."""
    try:
        return _speed is None and _configured_speed() is None
    except ValueError:
        return False


def speed_problem() -> str | None:
    """What is wrong with ``KHRONOS_AI_SPEED``, in one sentence, or None (unset or right): the
    bot says it at its start rather than let every search of ``hard`` fail on it."""
    try:
        _configured_speed()
    except ValueError as exc:
        return f"{exc}; set it right, or unset it and the computers measure the machine."
    return None


def known_speed() -> float | None:
    """The speed this process has found (``machine_speed``), without measuring it."""
    return _speed


def _configured_speed() -> float | None:
    text = os.environ.get(SPEED_ENV, "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not SPEED_RANGE[0] <= value <= SPEED_RANGE[1]:
        raise ValueError(
            f"{SPEED_ENV}={text!r}: expected a number from {SPEED_RANGE[0]:g} to "
            f"{SPEED_RANGE[1]:g} (the computers' work per second of thinking, against the "
            "reference machine's)"
        )
    return value


def search(
    view: PlayerView, chooser: random.Random, budget_s: float
) -> list[tuple[Plan, RootArm]]:
    """``hard``'s search of the seat's turn: its root plans with their statistics, best first."""
    return Search(view, chooser, budget_s).run()


def choose_hard(view: PlayerView, chooser: random.Random, budget_s: float) -> Action:
    """The first action of the best root plan; the rest of the plan is remembered (as normal
    does), so the later decisions of the turn cost nothing while the position is as planned."""
    if view.pending is not None:
        return answer_choice(view)
    planned = _PLANNED.pop(fingerprint(view), None)
    if planned is not None:
        return planned
    ranked = search(view, chooser, budget_s)
    best = ranked[0][0]
    _remember(view, best, chooser)
    return best.actions[0]
