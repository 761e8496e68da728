"""``hard``'s search (ai/hard.py): bounded by work, not by the clock, so the same view and seed
give the same move whatever ran before; every seat below the root picks its turn by its own
result; its iterations stop at the next income; and it is a level wherever levels are read."""

from __future__ import annotations

import random
import threading

import pytest

from ai import Level, choose_action, hard, policy
from ai.hard import Arm, Node, RootArm, Search, Turn
from ai.work import WORK
from ai.worker import decide_json
from engine import EndTurn, Family, GameState, Travel, apply, check, parse_action, player_view

from .positions import turn_starts

BUDGET_S = 0.1


def _search(state: GameState, budget_s: float = BUDGET_S, seed: int = 1) -> Search:
    search = Search(player_view(state, state.turn), random.Random(seed), budget_s)
    search.run()
    return search


def test_the_same_view_and_seed_give_the_same_move_whatever_ran_before() -> None:
    """Restart-safe: a worker that thinks again (fresh, or after other games warmed its caches)
    finds the same move for the same view and seed."""
    states = turn_starts(3, 81, 10)
    view = player_view(states[7], states[7].turn)
    policy.forget_plans()
    first = choose_action(view, Level.HARD, BUDGET_S, random.Random(4))
    for other in states[2:6]:
        policy.forget_plans()
        choose_action(player_view(other, other.turn), Level.HARD, BUDGET_S, random.Random(9))
    policy.forget_plans()
    assert choose_action(view, Level.HARD, BUDGET_S, random.Random(4)) == first


def test_the_budget_is_counted_in_work_units() -> None:
    """A search spends about its budget times ``THINK_FACTOR`` times ``UNITS_PER_S`` units (it
    may finish the iteration in progress), and a larger budget buys more iterations."""
    for state in turn_starts(2, 82, 12)[3:]:
        start = WORK.units
        small = _search(state, 0.1)
        if len(small.root.arms) > 1:  # a choice to weigh
            break
    small_units = WORK.units - start
    large = _search(state, 0.4)
    assert small_units >= 0.1 * hard.THINK_FACTOR * hard.UNITS_PER_S[2]
    assert small.iterations < large.iterations


def test_hard_thinks_longer_than_its_budget_says() -> None:
    """``hard`` may think ``THINK_FACTOR`` times the budget ``normal`` thinks: twice the units
    of a factor of one."""
    state = turn_starts(2, 88, 8)[-1]
    view = player_view(state, state.turn)
    limits = []
    for factor in (1.0, hard.THINK_FACTOR):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(hard, "THINK_FACTOR", factor)
            search = Search(view, random.Random(5), BUDGET_S)
            limits.append(search.limit - WORK.units)
    assert hard.THINK_FACTOR > 1.0
    assert limits[1] == pytest.approx(hard.THINK_FACTOR * limits[0], rel=1e-3)


def test_two_player_replies_below_the_root_are_quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """With two players too, a reply below the root is completed by ``quick_rest`` (the boards
    the seat stands on), never by the full greedy ``finish_turn``: many more iterations."""
    def refused(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("finish_turn below the root")

    monkeypatch.setattr(hard, "finish_turn", refused)
    for state in turn_starts(2, 89, 12)[3:]:
        search = _search(state, 0.2)
        if search.iterations:
            break
    assert search.iterations > 0


def test_every_seat_below_the_root_picks_the_turn_best_for_itself() -> None:
    """The multi-player backup: a node of seat 1 picks, once both turns were tried, the one
    with seat 1's best mean, not the root seat's (without exploration)."""
    node = Node(seat=1)
    good_for_root = Arm((EndTurn(),), 2, visits=4, seen=4, totals=[40.0, -40.0])
    good_for_rival = Arm((EndTurn(discard=(Family.CIVIL,)),), 2, visits=4, seen=4,
                         totals=[-8.0, 8.0])
    node.arms = {arm.actions: arm for arm in (good_for_root, good_for_rival)}
    assert len(node.arms) == 2
    best = max(node.arms.values(), key=lambda a: a.mean(node.seat))
    assert best is good_for_rival
    assert good_for_rival.ucb(1) > good_for_root.ucb(1)
    assert good_for_root.ucb(0) > good_for_rival.ucb(0)


def test_the_end_of_turn_score_weighs_less_as_the_iterations_per_plan_grow() -> None:
    """Step 5: with few iterations per plan the end-of-turn score steadies their means; with
    many, the means decide. A plan that scores well at the end of its turn but loses it to the
    replies comes first only while the iterations are few."""
    many = hard.PRIOR_MANY * 2
    assert hard.prior_share(0) == hard.prior_share(hard.PRIOR_FEW) == hard.PRIOR_SHARE
    assert hard.prior_share(many) == hard.PRIOR_SHARE_MANY < hard.PRIOR_SHARE
    shares = [hard.prior_share(n) for n in (10, 14, 20, 28, 40, 56, 80)]
    assert shares == sorted(shares, reverse=True) and len(set(shares)) == len(shares)
    flashy = RootArm((EndTurn(),), 2, visits=50, seen=50, totals=[200.0, -200.0], prior=12.0)
    steady = RootArm((EndTurn(discard=(Family.CIVIL,)),), 2, visits=50, seen=50,
                     totals=[300.0, -300.0], prior=6.0)
    few, plenty = hard.prior_share(hard.PRIOR_FEW), hard.prior_share(many)
    assert flashy.value(0, 0.0, few) > steady.value(0, 0.0, few)
    assert steady.value(0, 0.0, plenty) > flashy.value(0, 0.0, plenty)


def test_the_search_ranks_its_plans_with_the_share_of_its_own_iterations() -> None:
    """The plans are ranked with the share their search's iterations per plan call for, the
    same for every plan: past ``PRIOR_FEW`` a plan's end-of-turn score counts for less."""
    state = turn_starts(2, 86, 12)[4]  # round 3: the two shares order its plans differently
    search = Search(player_view(state, state.turn), random.Random(3), 0.7)
    ranked = search.run()
    per_plan = search.iterations / len(ranked)
    assert per_plan > hard.PRIOR_FEW
    share = hard.prior_share(per_plan)
    assert share < hard.PRIOR_SHARE
    tried = [arm for _, arm in ranked if arm.visits]
    drop = sum(a.prior - a.mean(search.seat) for a in tried) / len(tried)
    values = [arm.value(search.seat, drop, share) for _, arm in ranked]
    assert values == sorted(values, reverse=True)
    fixed = [arm.value(search.seat, drop, hard.PRIOR_SHARE) for _, arm in ranked]
    assert fixed != sorted(fixed, reverse=True)


class _CountingSearch(Search):
    """A ``Search`` that counts the turns it plays."""

    calls = 0

    def play_turn(self, state: GameState, seat: int, actions: Turn) -> GameState:
        self.calls += 1
        return super().play_turn(state, seat, actions)


def _turns_per_iteration(state: GameState) -> float:
    search = _CountingSearch(player_view(state, state.turn), random.Random(2), 0.3)
    search.run()
    assert search.iterations > 0
    return search.calls / search.iterations


def test_r46_iterations_stop_at_the_next_income() -> None:
    """With three players, an iteration plays the root's turn and both rivals' replies; but
    when the next income comes first (R46: the root seat second to last of round 4), it stops
    once the last seat has collected it: one reply only."""
    states = turn_starts(3, 83, 60)
    n = 3

    def place(s: GameState) -> int:
        return (s.turn - s.first_seat) % n

    early = next(s for s in states if s.round == 2 and place(s) == n - 2)
    assert _turns_per_iteration(early) == 3
    income = next(s for s in states if s.round == 4 and place(s) == n - 2)
    assert _turns_per_iteration(income) == 2


@pytest.mark.parametrize(("players", "seed"), [(2, 84), (4, 85)])
def test_hard_plays_legal_moves_and_remembers_its_turn(players: int, seed: int) -> None:
    """Its first decision of a turn searches; the rest of the plan is played from memory (the
    later decisions of the turn need no search) and every action is legal."""
    state = turn_starts(players, seed, 6)[-1]
    seat = state.turn
    policy.forget_plans()
    moves = 0
    while state.turn == seat and not state.over and moves < 12:
        if state.pending is not None:
            break
        action = choose_action(player_view(state, seat), "hard", BUDGET_S, random.Random(3))
        check(state, seat, action)
        state, _ = apply(state, seat, action)
        moves += 1
    assert state.turn != seat or state.pending is not None


def test_hard_is_a_level_for_the_worker() -> None:
    state = turn_starts(2, 86, 3)[-1]
    data = decide_json(player_view(state, state.turn).model_dump_json(), "hard", 0.05, 3)
    check(state, state.turn, parse_action(data))
    assert Level("hard") is Level.HARD


def test_past_the_wall_clock_stop_it_still_plays_a_legal_move(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a machine too loaded for its budget, the wall-clock stop ends the search early: no
    iteration, the beam's first plans, and still a legal action."""
    monkeypatch.setattr(hard, "HARD_CAP_S", 0.0)
    monkeypatch.setattr(hard, "HARD_FLOOR_S", 0.0)
    state = turn_starts(2, 87, 6)[-1]
    search = _search(state, 5.0)
    assert search.iterations == 0
    policy.forget_plans()
    action = choose_action(player_view(state, state.turn), "hard", 5.0, random.Random(1))
    check(state, state.turn, action)


def test_its_root_plans_come_from_a_beam_wider_than_normals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``hard`` searches its own turn with ``ROOT_BEAM``, wider than ``normal``'s at every
    level, so its plans include every one ``normal``'s beam keeps at the same positions."""
    widths: list[tuple[int, ...]] = []
    plan_turns = policy.plan_turns

    def spy(state: GameState, seat: int, beam: tuple[int, ...], deadline: policy.Limit,
            finish_by: policy.Limit = None, stop_at: policy.Limit = None) -> list[policy.Plan]:
        widths.append(beam)
        return plan_turns(state, seat, beam, deadline, finish_by, stop_at)

    monkeypatch.setattr(policy, "plan_turns", spy)
    _search(turn_starts(2, 90, 6)[-1])
    assert widths == [hard.ROOT_BEAM]
    assert all(w > n for w, n in zip(hard.ROOT_BEAM, policy.BEAM, strict=True))


def test_r19_more_squares_for_its_own_turn_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """R19: ``hard``'s own turn weighs a square for each distinct set of domains a construct
    could join (``ROOT_SQUARES``); the rivals' turns in its iterations, and a search in another
    thread meanwhile, keep the usual few squares."""
    seen: list[tuple[str, int]] = []
    plan_turns, iterate = policy.plan_turns, Search.iterate

    def spy_plan(state: GameState, seat: int, beam: tuple[int, ...], deadline: policy.Limit,
                 finish_by: policy.Limit = None, stop_at: policy.Limit = None) -> list[policy.Plan]:
        seen.append(("root", WORK.squares))
        other: list[int] = []  # another thread (the bot's threads, KHRONOS_AI_WORKERS=0)
        thread = threading.Thread(target=lambda: other.append(WORK.squares))
        thread.start()
        thread.join()
        seen.append(("other thread", other[0]))
        return plan_turns(state, seat, beam, deadline, finish_by, stop_at)

    def spy_iterate(search: Search, arm: Arm) -> None:
        seen.append(("iteration", WORK.squares))
        iterate(search, arm)

    monkeypatch.setattr(policy, "plan_turns", spy_plan)
    monkeypatch.setattr(Search, "iterate", spy_iterate)
    _search(turn_starts(2, 90, 6)[-1])
    assert hard.ROOT_SQUARES > 0
    assert seen[:2] == [("root", hard.ROOT_SQUARES), ("other thread", 0)]
    assert ("iteration", 0) in seen
    assert {s for s in seen if s[0] == "iteration"} == {("iteration", 0)}
    assert WORK.squares == 0


def test_four_player_turns_below_the_root_never_travel(monkeypatch: pytest.MonkeyPatch) -> None:
    """With four players (``STAYING``) every turn an iteration plays after the root's own stays
    on the boards where the seat's adventurers stand; the root's plans may still travel."""
    below: list[Turn] = []
    play_turn = Search.play_turn

    def spy(search: Search, state: GameState, seat: int, actions: Turn) -> GameState:
        if state.turn != search.seat or state.round != search.view.round:
            below.append(actions)
        return play_turn(search, state, seat, actions)

    monkeypatch.setattr(Search, "play_turn", spy)
    assert 4 in hard.STAYING
    for state in turn_starts(4, 91, 14)[4::3]:
        _search(state, 0.3)
    assert below
    assert not [t for t in below if any(isinstance(a, Travel) for a in t)]


def test_staying_steps_are_the_steps_without_travel() -> None:
    """``staying_steps`` gives what ``steps`` gives less every step that travels, with the
    same scores (by either evaluation)."""
    for state in turn_starts(4, 92, 10)[2:]:
        for careful in (False, True):
            seat = state.turn
            every = {tuple(s.actions): s.score for s in policy.steps(state, seat, careful)}
            staying = {tuple(s.actions): s.score
                       for s in hard.staying_steps(state, seat, careful)}
            assert staying == {actions: score for actions, score in every.items()
                               if not any(isinstance(a, Travel) for a in actions)}
            assert any(isinstance(a, EndTurn) for t in staying for a in t)


def test_staying_buys_more_iterations_for_the_same_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Why the four-player turns below the root stay: at the same work a search makes more
    iterations (a seat's first step weighs its own boards only, not every travel)."""
    state = turn_starts(4, 93, 12)[9]
    counts = []
    for staying in ((), (4,)):
        monkeypatch.setattr(hard, "STAYING", staying)
        counts.append(_search(state, 0.3).iterations)
    assert 0 < counts[0] < counts[1]
