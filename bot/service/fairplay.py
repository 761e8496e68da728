"""What the transactions that start a game, draw cards and end a game write for the community
(docs/community.md): the seal of the seed, each deal, and the game's results and ratings.
Each runs inside the caller's transaction, so it commits with the move or not at all: a game
is rated exactly once, in the transaction that ends it."""

from __future__ import annotations

import json
from collections.abc import Sequence

from engine import GameState

from ..storage.api import GameRow, MoveRow, RatingRow, ResultRow, Tx
from .model import is_computer
from .ratings import Rating, new_rating, player_key, ranks_of, rate_seats, seat_timings
from .record import commitment, deal_of_start, hands_gained, new_salt
from .results import GameInfo
from .texts import say, shown_name


def guild_key(guild_id: int | None) -> int:
    """Ratings are per server; games outside any server (the terminal) share server 0."""
    return guild_id or 0


async def seal_game(tx: Tx, game: GameRow, state: GameState, now: float) -> str:
    """Seal the seed of a game that starts (a new salt; the commitment stored) and write what
    the start dealt; returns the commitment, for the start post."""
    salt = new_salt()
    sealed = commitment(game.seed, salt)
    await tx.add_seal(game.id, salt, sealed, now)
    await tx.add_deal(game.id, 0, json.dumps(deal_of_start(state)))
    return sealed


async def note_deal(tx: Tx, game_id: int, seq: int, before: GameState,
                    after: GameState) -> None:
    """Write what entry ``seq`` dealt, if it gave anyone a card."""
    gained = hands_gained(before, after)
    if gained:
        await tx.add_deal(game_id, seq, json.dumps(gained))


def _level(info: GameInfo, user_id: int) -> str | None:
    if not is_computer(user_id):
        return None
    return info.settings.bots.get(user_id, "normal")


async def rate_game(tx: Tx, game: GameRow, info: GameInfo, state: GameState,
                    moves: Sequence[MoveRow], now: float) -> str:
    """Rate a game that just ended and store each seat's result and times to move; returns
    the ratings line of the end post (in the game's language)."""
    guild = guild_key(game.guild_id)
    seats = sorted(info.seats, key=lambda s: s.seat)
    owners = [player_key(s.user_id, _level(info, s.user_id)) for s in seats]
    # a computer level is named in English, as its seats are (computer_name)
    names = {o: s.name if o.startswith("user:") else f"Computer ({_level(info, s.user_id)})"
             for o, s in zip(owners, seats, strict=True)}
    known = {r.player: r for r in await tx.ratings_for_update(guild, owners)}
    priors: dict[str, Rating] = {o: (known[o].mu, known[o].sigma) if o in known
                                 else new_rating() for o in owners}
    ecus = [state.players[s.seat].ecus for s in seats]
    ranks = ranks_of(ecus)
    after, owned = rate_seats(priors, owners, ranks)
    excluded = {s.seat for s in seats if s.removed or is_computer(s.user_id)}
    timings = seat_timings(moves, {s.seat: s.user_id for s in seats}, excluded)
    results = [ResultRow(game.id, s.seat, guild, o, names[o], rank, e, *priors[o], *new,
                         timings[s.seat].deadlines, s.hints, now)
               for s, o, rank, e, new in zip(seats, owners, ranks, ecus, after, strict=True)]
    await tx.add_results(results)
    sums: dict[str, RatingRow] = {}
    for r in results:
        old = sums.get(r.player) or known.get(r.player) or RatingRow(guild, r.player, r.name,
                                                                      *new_rating())
        times = timings[r.seat].times
        if times:
            await tx.add_turn_times(guild, r.player, game.id, times)
        sums[r.player] = RatingRow(
            guild, r.player, r.name, *owned[r.player], old.games + 1,
            old.wins + (r.rank == 1), old.ecus + r.ecus, old.deadlines + r.deadlines,
            old.hints + r.hints, old.timed + len(times), now)
    await tx.save_ratings(list(sums.values()))
    lang = info.settings.language
    parts = [f"{shown_name(r.name)} {r.mu_after:.1f} ({r.mu_after - r.mu_before:+.1f})"
             for r in results]
    return say("community.rated", lang, ratings=", ".join(parts))


async def finish_game(tx: Tx, game: GameRow, info: GameInfo, state: GameState,
                      now: float) -> str:
    """The end of a game, in the transaction of its last move: rate it, and reveal its seed
    and salt; returns the post that says both (in the game's language)."""
    lang = info.settings.language
    lines = []
    seal = await tx.seal(game.id)
    if seal is not None:
        lines.append(say("community.reveal", lang, seed=game.seed, salt=seal.salt,
                         commitment=seal.commitment))
    lines.append(await rate_game(tx, game, info, state, await tx.moves(game.id), now))
    hinted = hints_line(info)
    if hinted:
        lines.append(hinted)
    return "\n".join(lines)


def hints_line(info: GameInfo) -> str | None:
    """The end post's count of each person's hints (/hint), when hints were on or asked for;
    in the game's language."""
    people = [s for s in sorted(info.seats, key=lambda s: s.seat) if not is_computer(s.user_id)]
    if not info.settings.hints_on and not any(s.hints for s in people):
        return None
    counts = ", ".join(f"{s.shown} {s.hints}" for s in people)
    return say("community.hints_used", info.settings.language, counts=counts)
