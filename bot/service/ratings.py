"""Ratings and the statistics of a finished game (docs/community.md): pure functions.

The rating is OpenSkill's Plackett-Luce model (Weng and Lin's Bayesian approximation for
free-for-all games of several players), with its published defaults: a new player is
``mu`` 25, ``sigma`` 25/3; ``tau`` 25/300 adds a little uncertainty before each game, so
ratings keep moving. A game is one ranking of its seats by final Ecus (R50: equal fortunes
share the rank, the shared victory included). A leaderboard orders by ``mu - 3 sigma``, the
skill a player has with about 99.7 % confidence, so a newcomer's lucky win does not put him
first.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from openskill.models import PlackettLuce

from ..storage.api import MoveRow

MODEL = PlackettLuce()  # mu 25, sigma 25/3, beta 25/6, tau 25/300 (the library's defaults)
MIN_GAMES = 3  # games before a player is ranked on the leaderboard
Rating = tuple[float, float]  # (mu, sigma)


def new_rating() -> Rating:
    return MODEL.mu, MODEL.sigma


def score(mu: float, sigma: float) -> float:
    """The conservative rating a leaderboard orders by (OpenSkill's ordinal)."""
    return mu - 3 * sigma


def player_key(user_id: int, level: str | None) -> str:
    """A rating's owner on a server: a person, or a computer level (``computer:hard``): every
    computer of one level shares its rating, so beating ``hard`` counts as beating it."""
    return f"computer:{level}" if level is not None else f"user:{user_id}"


def ranks_of(ecus: Sequence[int]) -> list[int]:
    """R50: 1 for the richest, equal fortunes sharing a rank (1, 1, 3 …)."""
    return [1 + sum(other > mine for other in ecus) for mine in ecus]


def rate(priors: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
    """The ratings after one game of ``len(priors)`` seats ranked ``ranks`` (1: won)."""
    teams = [[MODEL.create_rating([float(mu), float(sigma)])] for mu, sigma in priors]
    result = MODEL.rate(teams, ranks=[float(r) for r in ranks])
    return [(team[0].mu, team[0].sigma) for team in result]


def rate_seats(priors: Mapping[str, Rating], owners: Sequence[str],
               ranks: Sequence[int]) -> tuple[list[Rating], dict[str, Rating]]:
    """Rate one game whose seat ``i`` belongs to ``owners[i]`` (a computer level may hold
    several seats). Each seat is rated from its owner's rating before the game; an owner of
    several seats gets the mean of their new ratings. Returns (each seat's new rating, each
    owner's new rating)."""
    after = rate([priors[o] for o in owners], ranks)
    merged: dict[str, list[Rating]] = {}
    for owner, rating in zip(owners, after, strict=True):
        merged.setdefault(owner, []).append(rating)
    owned = {o: (sum(r[0] for r in rs) / len(rs), sum(r[1] for r in rs) / len(rs))
             for o, rs in merged.items()}
    return after, owned


@dataclass
class SeatTiming:
    """What a seat's turns tell: seconds from the turn's start to the player's first move
    (``times``), and how many of its turns a deadline ended (``deadlines``)."""

    times: list[float] = field(default_factory=list)
    deadlines: int = 0


def seat_timings(moves: Sequence[MoveRow], holders: Mapping[int, int],
                 excluded: set[int]) -> dict[int, SeatTiming]:
    """The timings of each seat from the raw move log. A turn runs from the end of the turn
    before it (the game's first turn, whose start is not logged, gives no time) to its own
    ``end_turn``; its time to move is that of the holder's first entry in it (``holders``:
    seat -> the user who holds it at the end; a predecessor's moves give no time). A turn
    closed by an entry without a user was ended by a deadline, unless the seat is in
    ``excluded`` (removed players, computers)."""
    out = {seat: SeatTiming() for seat in holders}
    start: float | None = None
    first: dict[int, MoveRow] = {}
    for m in moves:
        if m.kind != "action":
            continue
        first.setdefault(m.seat, m)
        if _kind(m.action) != "end_turn":
            continue
        seat = m.seat
        timing = out.get(seat)
        opener = first.get(seat)
        if timing is not None and seat not in excluded:
            if m.user_id is None:
                timing.deadlines += 1
            if (start is not None and opener is not None and opener.user_id is not None
                    and opener.user_id == holders.get(seat)):
                timing.times.append(max(0.0, opener.created_at - start))
        start = m.created_at
        first = {}
    return out


def _kind(action: str) -> str | None:
    """An entry's action kind; None for a record that does not read (never a crash: the game
    ends, and is rated, whatever one entry of its log says)."""
    try:
        kind = json.loads(action).get("kind")
    except (ValueError, AttributeError):
        return None
    return kind if isinstance(kind, str) else None
