"""The end-of-game summary: the figures from a replayed game, and the
picture of them."""

from __future__ import annotations

import io
import random
from collections.abc import Sequence

import pytest
from PIL import Image

import render
from engine import (
    Action,
    Age,
    BuildingType,
    Construct,
    Demolish,
    EndTurn,
    Event,
    Exchange,
    Family,
    GameState,
    Options,
    Travel,
    apply,
    new_game,
)
from engine.builder import position
from engine.random_player import random_action
from render.summary import GameSummary, PlayerScore, game_summary, summary_from_moves

from . import states


def test_income_is_split_by_board_and_round() -> None:
    """R47/R48: Alice controls the top military building of a Might domain and the top
    religious building of a Faith domain, each with a Town (3): 3 + 3 in round 4."""
    start = position(2, might="Keep C4 0; Town E4", faith="Monastery C4 0; Town E4 copy",
                     adventurers={0: [Age.MIGHT, Age.FAITH], 1: [Age.MIGHT, Age.MIGHT]},
                     round=4, hands={0: "mmrc", 1: "mrcc"}, ecus={0: 5, 1: 2})
    after, events = apply(start, 0, EndTurn())
    assert [e.amount for e in events if e.kind == "income"] == [6]
    summary = game_summary(start, [(after, events)])
    alice = summary.players[0]
    assert alice.income[4] == {Age.MIGHT: 3, Age.FAITH: 3, Age.REASON: 0}
    assert alice.income[7] == dict.fromkeys(Age, 0)
    assert (alice.start, alice.final, alice.other) == (5, 11, 0)
    assert summary.players[1].final == 2
    assert alice.by_round == [5, 5, 5, 5, 11]  # rounds before the start keep the start value


def _play(start: GameState, moves: Sequence[tuple[int, Action]]) -> list[tuple[GameState,
                                                                               list[Event]]]:
    steps = []
    state = start
    for seat, action in moves:
        state, events = apply(state, seat, action)
        steps.append((state, events))
    return steps


def test_bonuses_per_board_and_each_kind_of_spending() -> None:
    start = position(2, might="Watchtower H8 1", faith="Town P2",
                     hands={0: "mmmr", 1: "mmcc"}, ecus={0: 10, 1: 10},
                     adventurers={0: [Age.MIGHT, Age.FAITH], 1: [Age.MIGHT, Age.MIGHT]})
    steps = _play(start, [
        (0, Exchange(discard=[Family.RELIGIOUS])),
        (0, Construct(age=Age.MIGHT, building=BuildingType.KEEP, square="F4")),  # R17: +1
        (0, Travel(adventurer=1, to=Age.REASON)),
    ])
    summary = game_summary(start, steps)
    alice = summary.players[0]
    assert alice.bonus == {Age.MIGHT: 1, Age.FAITH: 0, Age.REASON: 0}
    assert alice.spent == {"travel": 1, "exchange": 2, "demolish": 0}
    assert alice.final == steps[-1][0].players[0].ecus == 10 - 2 + 1 - 1
    assert alice.accounted == alice.final and alice.other == 0


def test_a_demolition_is_spending() -> None:
    start = position(2, might="Watchtower H8 1", hands={0: "mmcc"}, ecus={0: 3})
    steps = _play(start, [(0, Demolish(age=Age.MIGHT, square="H8"))])
    alice = game_summary(start, steps).players[0]
    assert alice.spent["demolish"] == 1
    assert alice.final == 2 and alice.accounted == 2


def _random_game(seed: int, players: int) -> tuple[GameState, list[tuple[GameState,
                                                                          list[Event]]],
                                                    list[tuple[int, Action]]]:
    chooser = random.Random(seed)
    start = new_game(Options(players=players, holdem=seed % 2 == 0), seed)
    state, steps, moves = start, [], []
    while not state.over:
        seat, action = random_action(state, chooser)
        state, events = apply(state, seat, action)
        steps.append((state, events))
        moves.append((seat, action))
    return start, steps, moves


@pytest.mark.parametrize(("seed", "players"), [(5, 2), (11, 5)])
def test_every_ecu_of_a_whole_game_is_accounted_for(seed: int, players: int) -> None:
    start, steps, moves = _random_game(seed, players)
    summary = game_summary(start, steps)
    final = steps[-1][0]
    assert summary.over and summary.round == 7
    assert summary.winners == final.winners
    for score in summary.players:
        assert score.final == final.players[score.seat].ecus
        assert score.accounted == score.final
        assert score.other == 0
        assert len(score.by_round) == 8 and score.by_round[-1] == score.final
        collected = [e.amount for _, evs in steps for e in evs
                     if e.kind == "income" and e.seat == score.seat]
        assert sum(score.income_total(r) for r in (4, 7)) == sum(a or 0 for a in collected)
    assert summary.ranking()[0].seat in summary.winners
    again = summary_from_moves(start.options, start.seed, moves)
    assert again == summary


def test_an_unfinished_game_is_summed_up_so_far() -> None:
    start, steps, _ = _random_game(5, 2)
    partial = [s for s in steps if s[0].round <= 3]
    summary = game_summary(start, partial)
    assert not summary.over
    assert all(len(p.by_round) == 4 for p in summary.players)  # start, rounds 1-3
    png = render.summary_png(summary, ["Ann", "Ben"])
    assert Image.open(io.BytesIO(png)).width == render.summary.WIDTH


def test_the_picture_and_its_words() -> None:
    start, steps, _ = _random_game(11, 5)
    summary = game_summary(start, steps)
    img = Image.open(io.BytesIO(render.summary_png(summary, states.NAMES_5)))
    assert img.mode == "P" and img.width == render.summary.WIDTH
    text = render.summary_alt_text(summary, states.NAMES_5)
    assert len(text) <= render.ALT_TEXT_LIMIT
    best = summary.ranking()[0]
    assert text.startswith("Final scores of the Khronos game.")
    assert f"{states.NAMES_5[best.seat]}: {best.final} Ecu" in text
    long_names = ["N" * 32 + str(i) for i in range(5)]
    assert len(render.summary_alt_text(summary, long_names)) <= render.ALT_TEXT_LIMIT


def fixed_summary() -> GameSummary:
    """A five-player game's summary written out by hand (for the golden image)."""
    def score(seat: int, m4: int, f4: int, r4: int, m7: int, f7: int, r7: int, bm: int, bf: int,
              travel: int, exchange: int, curve: list[int]) -> PlayerScore:
        p = PlayerScore(seat=seat, start=4)
        p.income[4] = {Age.MIGHT: m4, Age.FAITH: f4, Age.REASON: r4}
        p.income[7] = {Age.MIGHT: m7, Age.FAITH: f7, Age.REASON: r7}
        p.bonus = {Age.MIGHT: bm, Age.FAITH: bf, Age.REASON: 0}
        p.spent = {"travel": travel, "exchange": exchange, "demolish": 0}
        p.final = p.accounted
        p.by_round = [*curve, p.final]
        return p

    players = [
        score(0, 4, 3, 0, 6, 5, 4, 2, 4, 3, 2, [4, 5, 6, 7, 13, 14, 16]),
        score(1, 2, 0, 5, 3, 0, 8, 1, 2, 2, 0, [4, 4, 5, 3, 10, 11, 11]),
        score(2, 6, 2, 0, 7, 4, 0, 3, 2, 1, 4, [4, 5, 5, 6, 14, 14, 15]),
        score(3, 0, 0, 3, 0, 2, 5, 1, 0, 4, 2, [4, 3, 2, 1, 3, 3, 3]),
        score(4, 3, 3, 3, 3, 3, 3, 0, 2, 3, 2, [4, 4, 4, 5, 14, 15, 14]),
    ]
    best = max(p.final for p in players)
    return GameSummary(players, [p.seat for p in players if p.final == best], True, 7)


def test_the_fixed_summary_adds_up() -> None:
    summary = fixed_summary()
    assert [p.final for p in summary.ranking()] == sorted((p.final for p in summary.players),
                                                          reverse=True)
