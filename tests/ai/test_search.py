"""``normal``'s search (docs/ai.md): it plays whole turns even when its time runs out, it always
weighs the turn ``easy`` would play, and the candidates it remembers per board are the ones it
would compute afresh."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from ai import choose_action, policy
from ai.evaluate import evaluate
from ai.policy import BEAM, candidates, finish_turn, plan_turns, shortlist
from ai.work import WORK
from engine import (
    BUILDINGS,
    PRINTED_HAMLETS,
    Age,
    BuildingType,
    Construct,
    Demolish,
    EndTurn,
    Family,
    GameState,
    Options,
    Populate,
    Renovate,
    Upgrade,
    construct_options,
    new_game,
    parse_square,
    player_view,
)

from .positions import turn_starts

CARD_ACTIONS = (Construct, Upgrade, Demolish, Populate, Renovate)


def _busy_turn(players: int, seed: int) -> GameState:
    """The first turn start where easy plays at least two card actions."""
    for state in turn_starts(players, seed, 6):
        _, actions = finish_turn(state, state.turn)
        if sum(isinstance(a, CARD_ACTIONS) for a in actions) >= 2:
            return state
    raise AssertionError("no busy turn in this game")


def test_r11_a_search_out_of_time_still_plays_the_whole_turn() -> None:
    """R11/R12: when the beam's time is up, its unfinished plans go on greedily to the end of the
    turn instead of ending it where they stand (cards left unplayed are a turn lost)."""
    state = _busy_turn(2, 4)
    plans = plan_turns(state, state.turn, BEAM, deadline=0.0)
    assert plans
    best = plans[0]
    assert isinstance(best.actions[-1], EndTurn)
    assert sum(isinstance(a, CARD_ACTIONS) for a in best.actions) >= 2


def test_normal_always_weighs_the_turn_easy_would_play() -> None:
    """Whatever the beam finds, easy's whole turn is weighed: it is among the plans compared
    after the replies unless it ends the turn more than ``SHORTLIST_MARGIN`` Ecus behind the
    best plan, and no plan that far behind is sampled."""
    kept = 0
    for state in turn_starts(2, 6, 7)[2:]:
        seat = state.turn
        after, easy_actions = finish_turn(state, seat)
        easy_score = evaluate(after, seat, policy.CAREFUL)
        plans = shortlist(state, seat, deadline=0.0)
        best = max(p.score for p in plans)
        assert all(p.score >= best - policy.SHORTLIST_MARGIN for p in plans), state.step
        if easy_score >= best - policy.SHORTLIST_MARGIN:
            assert any(p.actions == easy_actions for p in plans), state.step
            kept += 1
        else:
            assert easy_score < best
    assert kept >= 3


def test_candidates_remembered_per_board_are_those_computed_afresh() -> None:
    """The per-board memory of constructs and upgrades (keyed by board, hand, allowance, stock)
    gives the same candidates as an empty memory, over the turns of two games."""
    checked = 0
    for players, seed in ((2, 7), (4, 8)):
        for state in turn_starts(players, seed, 9)[1:]:
            seat = state.turn
            warm = candidates(state, seat)
            policy._BOARD_MOVES.clear()
            assert candidates(state, seat) == warm, state.step
            checked += 1
    assert checked > 5


def test_r11_past_the_hard_stop_a_turn_is_left_unfinished_after_one_step() -> None:
    """The hard stop bounds the thinking time on a busy machine: a greedy completion whose stop
    has passed plays one step (a decision always has an action) and leaves the turn open."""
    state = _busy_turn(2, 4)
    seat = state.turn
    _, whole = finish_turn(state, seat)
    after, cut = finish_turn(state, seat, stop_at=0.0)
    assert len(whole) > len(cut) >= 1
    assert cut == whole[: len(cut)]
    assert after.turn == seat and not after.over


def test_rivals_reply_with_the_whole_turn_easy_would_play() -> None:
    """In ``normal``'s samples each replying rival plays its whole turn as ``easy`` plays it
    (greedy steps by the plain evaluation), and only the next ``rivals`` seats reply."""
    longest = 0
    for state in turn_starts(3, 11, 8)[3:6]:
        seat = state.turn
        mine, _ = finish_turn(state, seat)
        first = mine.turn
        expected, easy_turn = finish_turn(mine, first)
        longest = max(longest, sum(isinstance(a, CARD_ACTIONS) for a in easy_turn))
        one = policy._replies(mine, seat, rivals=1)
        assert one.step == expected.step
        assert one.turn == expected.turn != first
        both = policy._replies(mine, seat)
        assert both.turn == seat or both.over
    assert longest >= 2  # a reply of several steps was among those checked


def test_the_first_sample_of_the_replies_is_taken_even_when_the_budget_is_spent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """However long the search of its own turn took, ``normal`` weighs its plans after one sample
    of the rivals' replies if that fits before the hard stop; later samples only within the
    budget. (A tiny budget with a far hard stop makes this independent of the machine.)"""
    weighed: list[list[policy.Plan]] = []
    real = policy.shortlist

    def spy(
        root: GameState,
        seat: int,
        deadline: float,
        finish_by: float | None = None,
        stop_at: float | None = None,
    ) -> list[policy.Plan]:
        plans = real(root, seat, deadline, finish_by, stop_at)
        weighed.append(plans)
        return plans

    monkeypatch.setattr(policy, "shortlist", spy)
    monkeypatch.setattr(policy, "HARD_FACTOR", 1e6)
    monkeypatch.setattr(policy, "HARD_CAP_S", 600.0)
    for state in turn_starts(2, 4, 8)[1:]:
        policy.forget_plans()
        choose_action(player_view(state, state.turn), "normal", 1e-4, random.Random(3))
        plans = weighed[-1]
        if len(plans) > 1:
            assert all(len(p.replies) == 1 for p in plans)
            return
    raise AssertionError("no turn with two plans to weigh")


def _joined(state: GameState, age: Age, building: BuildingType, square: str) -> frozenset[int]:
    """The domains (their numbers in ``domain_groups``) a construct's footprint would touch."""
    where = policy._domain_of(state, age)
    at = parse_square(square)
    return frozenset(where[c] for c in policy._PERIMETERS[BUILDINGS[building].size][at]
                     if c in where)


def test_r19_root_squares_add_one_square_per_distinct_set_of_domains_joined(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """R19: a construct joins the domains its sides touch. With ``WORK.squares`` the
    candidates keep every square kept without it, and add squares until each distinct set of
    domains a legal square joins (up to that many sets) has one; the memories of board moves
    and domains give what is computed afresh and do not mix the two."""
    added = 0
    for players, seed in ((2, 7), (4, 8)):
        for state in turn_starts(players, seed, 9)[1:]:
            seat = state.turn
            plain = set(candidates(state, seat))
            monkeypatch.setattr(WORK, "squares", 3)
            rich = set(candidates(state, seat))
            policy._BOARD_MOVES.clear()
            policy._DOMAINS.clear()
            assert set(candidates(state, seat)) == rich, state.step  # remembered = afresh
            monkeypatch.setattr(WORK, "squares", 0)
            assert plain <= rich and set(candidates(state, seat)) == plain
            added += len(rich - plain)
            for age in (Age.MIGHT, Age.FAITH):
                for building in BuildingType:
                    legal = {o.square for o in construct_options(state, seat, age, building)}
                    kept = {a.square for a in rich if isinstance(a, Construct)
                            and a.age is age and a.building is building}
                    if not legal or not kept:
                        continue
                    sets = {_joined(state, age, building, s) for s in legal} - {frozenset()}
                    have = {_joined(state, age, building, s) for s in kept} - {frozenset()}
                    assert len(have) >= min(3, len(sets)), (state.step, age, building)
    assert added > 0


def test_position_key_tells_apart_what_a_turn_depends_on() -> None:
    """The search remembers turns by ``_position_key``: equal for the same position, different
    where the hand, an adventurer's board, the turn's exchange or a building differs; without
    the hand, equal whatever the hand holds."""
    state = new_game(Options(players=3), 9)
    key = policy._position_key(state, 0)
    assert policy._position_key(state.model_copy(deep=True), 0) == key

    def changed(edit: Callable[[GameState], object], hand: bool = True) -> str:
        other = state.model_copy(deep=True)
        edit(other)
        return policy._position_key(other, 0, hand)

    first = state.players[0].hand[0]
    other_family = next(f for f in Family if f != first)
    elsewhere = Age.REASON if state.players[1].adventurers[0] != Age.REASON else Age.MIGHT

    def new_hand(s: GameState) -> None:
        s.players[0].hand[0] = other_family

    def moved(s: GameState) -> None:
        s.players[1].adventurers[0] = elsewhere

    def exchanged(s: GameState) -> None:
        s.turn_state.exchanged = True

    def populated(s: GameState) -> None:
        s.boards[Age.REASON].hamlet_cubes[PRINTED_HAMLETS[0]] = 1

    keys = [changed(new_hand), changed(moved), changed(exchanged), changed(populated)]
    assert key not in keys and len(set(keys)) == len(keys)
    assert changed(new_hand, hand=False) == policy._position_key(state, 0, hand=False)
