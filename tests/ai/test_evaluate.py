"""The computers' evaluation: its income figures are the engine's (R47-R49), and it prefers
what a player would prefer."""

from __future__ import annotations

import random

import pytest

from ai import choose_action
from ai import evaluate as evaluate_module
from ai.evaluate import (
    best_placement,
    board_incomes,
    domain_groups,
    evaluate,
    incomes_to_come,
    seat_values,
)
from engine import (
    PRINTED_HAMLETS,
    Age,
    GameState,
    Options,
    apply,
    current_seat,
    income,
    new_game,
    player_view,
)
from engine.builder import position
from engine.domains import board_index, hamlet_key

M, F, R = Age.MIGHT, Age.FAITH, Age.REASON


def _played_states(players: int, seed: int, every: int = 8) -> list[GameState]:
    """States of a game between easy computers (random players build too little to pay)."""
    state = new_game(Options(players=players), seed)
    chooser = random.Random(seed)
    out = []
    while not state.over:
        seat = current_seat(state)
        assert seat is not None
        state, _ = apply(state, seat, choose_action(player_view(state, seat), "easy", 0, chooser))
        if state.step % every == 0:
            out.append(state)
    return out


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2)])
def test_r47_r48_r49_board_incomes_match_the_engine(players: int, seed: int) -> None:
    """For every seat and board, the evaluation's income is what ``engine.income`` pays an
    adventurer standing there (both adventurers on that board)."""
    checked = 0
    for state in _played_states(players, seed):
        for age in Age:
            mine, _ = board_incomes(state.boards[age], players)
            for p in state.players:
                saved = p.adventurers
                p.adventurers = [age, age]
                assert mine[p.seat] == income(state, p.seat)[0], (state.step, age, p.seat)
                p.adventurers = saved
                checked += mine[p.seat] > 0
    assert checked > 0  # the games did produce paying domains


def test_r47_domain_income_goes_to_the_unique_top_military() -> None:
    s = position(2, might="Keep C4 0; Town E4; Watchtower H8 1; Hamlet H9")
    got, control = board_incomes(s.boards[M], 2)
    assert got == [3, 1] and control == [1, 1]


def test_r21_careful_counts_a_low_top_as_less_safe() -> None:
    """A Watchtower's domain is easily overtaken by a higher building; a Castle's is not."""
    low = position(2, might="Watchtower C4 0; Town D4").boards[M]
    high = position(2, might="Castle C4 0; Town F4").boards[M]
    assert 0 < board_incomes(low, 2, careful=True)[0][0] < board_incomes(low, 2)[0][0]
    assert board_incomes(high, 2, careful=True)[0][0] == board_incomes(high, 2)[0][0] > 0


def test_r46_incomes_to_come_counts_rounds_four_and_seven() -> None:
    s = position(2, round=1)
    assert incomes_to_come(s, 0) == 2
    s = position(2, round=4, turn=1)  # seat 0 (first) has had its round-4 turn
    assert incomes_to_come(s, 0) == 1 and incomes_to_come(s, 1) == 2
    s = position(2, round=7, turn=1)
    assert incomes_to_come(s, 0) == 0 and incomes_to_come(s, 1) == 1


def test_r13_r46_income_counts_where_the_adventurers_can_stand() -> None:
    """Income on Faith is worth less to a seat whose adventurers must travel there (1 Ecu
    each, R13) than to one already standing there."""
    there = position(2, faith="Monastery C4 0; Town E4", adventurers={0: [F, F]})
    away = position(2, faith="Monastery C4 0; Town E4", adventurers={0: [M, M]})
    assert seat_values(there)[0] == seat_values(away)[0] + 1


def test_r50_a_won_game_scores_above_any_position() -> None:
    s = position(2, might="Castle C4 0; City F4")
    s.over = True
    s.winners = [0]
    s.players[0].ecus, s.players[1].ecus = 30, 20
    assert evaluate(s, 0) > 30 and evaluate(s, 1) < 0


@pytest.mark.parametrize(("players", "seed"), [(4, 5), (5, 6)])
def test_r19_domain_groups_are_the_engines_domains(players: int, seed: int) -> None:
    """The evaluation's domains (remembered by where the buildings stand) are the engine's on
    every board of a played game: the same buildings joined, whatever owns or fills them."""
    checked = 0
    for state in _played_states(players, seed, every=3):
        for board in state.boards:
            mine = {
                frozenset(
                    hamlet_key(PRINTED_HAMLETS.index(item)) if isinstance(item, int) else item.id
                    for item in group
                )
                for group in domain_groups(board)
            }
            label = board_index(board).label
            engine: dict[int, set[int]] = {}
            for key, dom in label.items():
                engine.setdefault(dom, set()).add(key)
            assert mine == {frozenset(keys) for keys in engine.values()}, (state.step, board.age)
            checked += any(len(g) > 1 for g in mine)
    assert checked > 0  # buildings did join


def test_r13_best_placement_is_the_cheapest_way_to_the_best_boards() -> None:
    """Against every way the two adventurers can go to two boards (or both to one): the income
    collected there less 1 Ecu per adventurer that changes board (R13)."""
    chooser = random.Random(4)
    for _ in range(200):
        income = [float(chooser.randint(0, 9)) for _ in Age]
        at = [chooser.choice(list(Age)), chooser.choice(list(Age))]
        best = 0.0
        for x in Age:
            for y in Age:  # the first adventurer goes to x, the second to y
                collected = income[x] + (income[y] if y != x else 0)
                best = max(best, collected - (x != at[0]) - (y != at[1]))
        assert best_placement(income, at) == best, (income, at)


def test_r19_remembered_layouts_stay_bounded_and_right(monkeypatch: pytest.MonkeyPatch) -> None:
    """The layouts remembered are forgotten all at once past their bound, and a board's domains
    are the same whether its layout was remembered or not."""
    monkeypatch.setattr(evaluate_module, "_LAYOUTS", {})
    monkeypatch.setattr(evaluate_module, "_LAYOUTS_MAX", 3)
    boards = [b for s in _played_states(3, 4, every=10) for b in s.boards]
    first = [domain_groups(b) for b in boards]
    assert 0 < len(evaluate_module._LAYOUTS) <= 3
    assert [domain_groups(b) for b in boards] == first
    evaluate_module._LAYOUTS.clear()
    assert [domain_groups(b) for b in reversed(boards)] == first[::-1]
