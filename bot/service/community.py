"""The community's commands (docs/community.md): /leaderboard and /stats (ratings per
server), /game export (a game's record) and /game verify (the sealed deck checked). They
store nothing; what they read was written by the transactions that started, dealt and ended
each game (``fairplay.py``)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import engine
from engine import GameState

from .. import i18n
from ..storage.api import GameRow, Queries, RatingRow
from .errors import NotStarted, ServiceError
from .fairplay import guild_key
from .model import GameStatus, is_computer
from .ratings import MIN_GAMES, player_key, score
from .reading import ReadingMixin
from .record import Record, Verdict, make_record, read_record, verify
from .results import Attachment, GameInfo, Outcome, Reply
from .states import effective_moves
from .texts import say, shown_name, tell

LEADERBOARD_SIZE = 10
SIGMA = "\N{GREEK SMALL LETTER SIGMA}"  # the uncertainty's usual name


def duration_text(seconds: float, lang: str | None) -> str:
    """``45 s``, ``12 min``, ``3 h 20 min``, ``2 d 4 h`` (units in ``lang``)."""
    s = round(seconds)
    if s < 60:
        return say("community.seconds", lang, n=s)
    minutes = s // 60
    if minutes < 60:
        return say("community.minutes", lang, n=minutes)
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return say("community.hours", lang, h=hours, m=minutes)
    days, hours = divmod(hours, 24)
    return say("community.days", lang, d=days, h=hours)


def rating_line(r: RatingRow) -> str:
    """``**21.3** (μ 27.6 ± σ 2.1)``: the conservative rating, then skill and uncertainty."""  # noqa: RUF002
    return f"**{score(r.mu, r.sigma):.1f}** (μ {r.mu:.1f} ± {SIGMA} {r.sigma:.1f})"


def verdict_text(verdict: Verdict, record: Record, lang: str | None) -> str:
    """What ``verify`` found, in words (the service's /game verify and the CLI's --verify)."""
    if verdict.problem is not None:
        key, params = verdict.problem
        return say("verify.refused", lang, why=say(key, lang, **params))
    lines = [say("verify.fair", lang)]
    if verdict.sealed:
        lines.append(say("verify.sealed", lang, seed=record.seed, salt=record.salt,
                         commitment=record.commitment))
    else:
        lines.append(say("verify.unsealed", lang))
    lines.append(say("verify.replayed", lang, moves=verdict.moves, shuffles=verdict.shuffles,
                     draws=verdict.draws))
    lines.append(say("verify.dealt" if verdict.checked_deals else "verify.no_deals", lang))
    if record.final is not None:
        lines.append(say("verify.final_ok", lang))
    return "\n".join(lines)


class CommunityMixin(ReadingMixin):
    """/leaderboard, /stats, /game export, /game verify (they store nothing)."""

    async def leaderboard(self, guild_id: int | None, *, public: bool = False) -> Outcome:
        """The server's best rated players and computer levels with ``MIN_GAMES`` games or
        more, best first."""
        guild = guild_key(guild_id)
        async with self.storage.read() as q:
            rows = await q.leaderboard(guild, MIN_GAMES, LEADERBOARD_SIZE)
            ranked = await q.ranked_count(guild, MIN_GAMES)
        if not rows:
            text = tell("community.board_empty", games=MIN_GAMES)
        else:
            lines = [tell("community.board_title", games=MIN_GAMES)]
            for i, r in enumerate(rows, 1):
                lines.append(tell("community.board_line", rank=i, name=shown_name(r.name),
                                  rating=rating_line(r), games=r.games,
                                  wins=r.wins))
            if ranked > len(rows):
                lines.append(tell("community.board_more", count=ranked - len(rows)))
            text = "\n".join(lines)
        return Outcome(game=None, reply=Reply(text, ephemeral=not public))

    async def stats(self, guild_id: int | None, asker_id: int, user_id: int | None = None,
                    name: str | None = None, *, public: bool = False) -> Outcome:
        """A player's statistics on this server (``user_id``; the asker by default). Of
        another player, only what his tables saw: not the hints he asked for privately."""
        guild = guild_key(guild_id)
        target = asker_id if user_id is None else user_id
        key = player_key(target, None)
        async with self.storage.read() as q:
            row = await q.rating(guild, key)
            median = await q.median_turn_time(guild, key, row.timed) if row else None
            above = (await q.ranked_above(guild, MIN_GAMES, score(row.mu, row.sigma))
                     if row and row.games >= MIN_GAMES else 0)
            ranked = await q.ranked_count(guild, MIN_GAMES) if row else 0
        who = shown_name(row.name if row is not None else (name or "?"))
        if row is None or row.games == 0:
            return Outcome(game=None, reply=Reply(tell("community.no_games", name=who),
                                                  ephemeral=not public))
        lines = [tell("community.stats_title", name=who),
                 tell("community.stats_rating", rating=rating_line(row))]
        if row.games >= MIN_GAMES:
            lines.append(tell("community.stats_rank", rank=above + 1, ranked=ranked))
        else:
            lines.append(tell("community.stats_unranked", games=row.games, needed=MIN_GAMES))
        lines.append(tell("community.stats_games", games=row.games, wins=row.wins,
                          percent=round(100 * row.wins / row.games)))
        lines.append(tell("community.stats_ecus", ecus=f"{row.ecus / row.games:.1f}"))
        pace = (duration_text(median, i18n.reader()) if median is not None
                else tell("community.stats_no_time"))
        lines.append(tell("community.stats_pace", time=pace))
        lines.append(tell("community.stats_deadlines", count=row.deadlines))
        if target == asker_id:  # hints are asked privately: the table never saw them
            lines.append(tell("community.stats_hints", count=row.hints))
        return Outcome(game=None, reply=Reply("\n".join(lines), ephemeral=not public))

    # --- the game's record -------------------------------------------------------------------

    async def export_record(self, channel_id: int, user_id: int, *,
                            is_admin: bool = False) -> Outcome:
        """The channel's game as a JSON record: complete (seed, salt, deals) once it is over,
        for anyone; while it is played, for its creator or an admin only, as the table sees it
        (no seed, no hidden cards)."""
        async with self.storage.read() as q:
            game = await self._game(q, channel_id)
            if game.status == GameStatus.LOBBY:
                raise NotStarted(tell("community.export_lobby"))
            over = game.status == GameStatus.OVER
            if not over:
                self._may_manage(game, user_id, is_admin, "export")
            info, data = await self._record_data(q, game, complete=over)
        text = json.dumps(data, indent=1, ensure_ascii=False)
        name = f"khronos-game-{game.id}.json"
        words = tell("community.exported" if over else "community.exported_partial")
        return Outcome(game=info, reply=Reply(words, file=Attachment(name, text)))

    async def verify_game(self, channel_id: int) -> Outcome:
        """Check the channel's finished game: its seed and salt give the commitment posted at
        the start, and the seed and the move log give every shuffle and draw that was dealt
        and the final Ecus."""
        async with self.storage.read() as q:
            game = await self._game(q, channel_id)
            if game.status != GameStatus.OVER:
                raise ServiceError(tell("verify.not_over"))
            info, data = await self._record_data(q, game, complete=True)
        record = read_record(data)
        verdict = await asyncio.to_thread(verify, record)  # a whole game's replay: ~0.1 s
        return Outcome(game=info, reply=Reply(verdict_text(verdict, record, i18n.reader())))

    async def _record_data(self, q: Queries, game: GameRow, *,
                           complete: bool) -> tuple[GameInfo, dict[str, Any]]:
        seats = await q.seats(game.id)
        info = self._info(game, seats)
        state: GameState = self._state(game)
        live = effective_moves(await q.moves(game.id))
        seal = await q.seal(game.id)
        # the deals of a sealed game only: one begun before seals has them from the middle
        deals = ({d.seq: d.cards for d in await q.deals(game.id)}
                 if complete and seal is not None else None)
        levels = info.settings.bots
        data = make_record(
            game_id=game.id,
            options=engine.Options(players=len(seats), holdem=info.settings.holdem),
            seats=[(s.seat, s.name, levels.get(s.user_id, "normal")
                    if is_computer(s.user_id) else None) for s in info.seats],
            moves=[(m.seq, m.seat, m.action) for m in live],
            seal=(seal.commitment, seal.salt) if seal else None,
            deals=deals if deals else None,
            seed=game.seed if complete else None,
            final=state if complete else None,
        )
        return info, data
