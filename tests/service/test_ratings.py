"""Ratings against values worked out by hand from Weng and Lin's Plackett-Luce update (their
Algorithm 4, as OpenSkill implements it with its defaults: mu 25, sigma 25/3, beta 25/6,
tau 25/300, kappa 1e-4), and the statistics a finished game's log gives (docs/community.md)."""

from __future__ import annotations

import json
import math

import pytest

from bot.service.ratings import (
    MIN_GAMES,
    new_rating,
    player_key,
    ranks_of,
    rate,
    rate_seats,
    score,
    seat_timings,
)
from bot.storage.api import MoveRow

NEW = (25.0, 25 / 3)


def reference(priors: list[tuple[float, float]], ranks: list[int]) -> list[tuple[float, float]]:
    """The update written from the paper, independently of the library: sigma^2 += tau^2;
    c^2 = sum(sigma_i^2 + beta^2); for each seat i, over the seats q ranked at or above it,
    Omega_i = sigma_i^2 / c * sum((1[q = i] - p_iq) / A_q) and Delta_i = gamma_i sigma_i^2 /
    c^2 * sum(p_iq (1 - p_iq) / A_q), with p_iq = e^(mu_i / c) / sum(e^(mu_s / c), r(s) >=
    r(q)), A_q the seats sharing q's rank and gamma_i = sigma_i / c."""
    beta, tau = 25 / 6, 25 / 300
    var = [s * s + tau * tau for _, s in priors]
    mus = [m for m, _ in priors]
    c = math.sqrt(sum(v + beta * beta for v in var))
    n = len(priors)
    share = [sum(ranks[s] == ranks[q] for s in range(n)) for q in range(n)]
    below = [sum(math.exp(mus[s] / c) for s in range(n) if ranks[s] >= ranks[q])
             for q in range(n)]
    out = []
    for i in range(n):
        omega = delta = 0.0
        for q in range(n):
            if ranks[q] <= ranks[i]:
                p = math.exp(mus[i] / c) / below[q]
                omega += ((q == i) - p) / share[q]
                delta += p * (1 - p) / share[q]
        sigma = math.sqrt(var[i])
        delta *= (sigma / c) * var[i] / c**2
        out.append((mus[i] + omega * var[i] / c, sigma * math.sqrt(max(1 - delta, 1e-4))))
    return out


def close(got: list[tuple[float, float]], want: list[tuple[float, float]]) -> None:
    for (mu, sigma), (w_mu, w_sigma) in zip(got, want, strict=True):
        assert mu == pytest.approx(w_mu, abs=1e-5)
        assert sigma == pytest.approx(w_sigma, abs=1e-5)


def test_r50_a_two_player_win_moves_both_by_the_hand_computed_amounts() -> None:
    """By hand: sigma^2 = 69.4444 + 0.0069 = 69.4514; c^2 = 2 (69.4514 + 17.3611) = 173.625,
    c = 13.1767. Both start at 25, so p = 1/2 where both count: the winner's Omega = 1/2 x
    69.4514 / 13.1767 = 2.6354 and the loser's -2.6354. Delta = 1/4 x gamma x 69.4514 /
    173.625 with gamma = 8.3337 / 13.1767 = 0.63246: 0.063246, so sigma = 8.3337 x
    sqrt(1 - 0.063246) = 8.0659 for both."""
    got = rate([NEW, NEW], [1, 2])
    close(got, [(27.635389, 8.065901), (22.364611, 8.065901)])
    close(got, reference([NEW, NEW], [1, 2]))


def test_r50_a_four_player_order_rates_each_place() -> None:
    ranks = [1, 2, 3, 4]
    got = rate([NEW] * 4, ranks)
    close(got, [(27.795253, 8.263572), (26.552918, 8.179618), (24.689416, 8.084128),
                (20.962413, 8.084128)])
    assert got[0][0] > got[1][0] > got[2][0] > got[3][0]
    # established players, seated out of order: the library and the paper agree
    priors = [(30.0, 4.0), (22.0, 6.0), NEW, (27.0, 2.5)]
    close(rate(priors, [3, 1, 4, 2]), reference(priors, [3, 1, 4, 2]))
    close(rate(priors, [3, 1, 4, 2]), [(29.644162, 3.968275), (24.09238, 5.965314),
                                        (20.454292, 7.775416), (27.185027, 2.498474)])


def test_r50_a_shared_victory_rates_the_winners_alike() -> None:
    """Two of three tie for the win (R50): each gains what the other gains, the third loses
    what they gain together (their shared rank counts once in A_q)."""
    got = rate([NEW] * 3, ranks_of([14, 14, 9]))
    close(got, [(25.717262, 8.205243), (25.717262, 8.205243), (23.565476, 8.205243)])
    close(got, reference([NEW] * 3, [1, 1, 3]))
    assert got[0][0] - 25 == pytest.approx(-(got[2][0] - 25) / 2)


def test_r50_ranks_share_equal_fortunes() -> None:
    assert ranks_of([10, 14, 14, 3]) == [3, 1, 1, 4]
    assert ranks_of([7, 7]) == [1, 1]
    assert ranks_of([5, 9, 2]) == [2, 1, 3]


def test_a_computer_level_holding_two_seats_is_rated_once_from_both() -> None:
    hard = player_key(-1, "hard")
    assert hard == player_key(-2, "hard") == "computer:hard"
    ann = player_key(11, None)
    priors = {ann: NEW, hard: (30.0, 3.0)}
    seats, owned = rate_seats(priors, [ann, hard, hard], [1, 2, 3])
    assert seats == rate([NEW, (30.0, 3.0), (30.0, 3.0)], [1, 2, 3])
    assert owned[hard] == pytest.approx(((seats[1][0] + seats[2][0]) / 2,
                                         (seats[1][1] + seats[2][1]) / 2))
    assert owned[ann] == seats[0]


def test_the_leaderboard_score_is_mu_less_three_sigma() -> None:
    assert score(*new_rating()) == pytest.approx(0.0)
    assert score(27.0, 2.0) == 21.0
    assert MIN_GAMES >= 2


def _move(seq: int, seat: int, user: int | None, kind: str, at: float) -> MoveRow:
    return MoveRow(seq, 1, seq, seq + 1, seat, user, "action", json.dumps({"kind": kind}),
                   "[]", seq, at)


def test_times_to_move_and_deadlines_come_from_the_log() -> None:
    moves = [
        _move(1, 0, 11, "travel", 100.0),      # the game's first turn: its start is unknown
        _move(2, 0, 11, "end_turn", 110.0),
        _move(3, 1, 12, "travel", 170.0),      # 60 s after the turn began
        _move(4, 1, 12, "end_turn", 200.0),
        _move(5, 0, None, "end_turn", 5000.0),  # a deadline ended Ann's turn
        _move(6, 1, 99, "travel", 5030.0),     # the seat's former holder: no time for Bob
        _move(7, 1, 12, "end_turn", 5100.0),
        _move(8, 0, 11, "end_turn", 5400.0),   # 300 s
        _move(9, 2, None, "end_turn", 5500.0),  # a removed seat: no deadline counted
    ]
    t = seat_timings(moves, {0: 11, 1: 12, 2: 13}, excluded={2})
    assert t[0].times == [300.0] and t[0].deadlines == 1
    assert t[1].times == [60.0] and t[1].deadlines == 0
    assert t[2].times == [] and t[2].deadlines == 0
