"""Reads: status, hand, history, snapshots, before/after comparisons."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from pydantic import ValidationError

import engine
from engine import (
    Action,
    EngineError,
    Event,
    GameState,
    PublicView,
)

from .. import i18n
from ..storage.api import GameRow, MoveRow, Queries
from .errors import DamagedGame, NotSeated, NotStarted, ServiceError, damaged
from .model import (
    GameStatus,
    TimerKind,
    events_of,
)
from .moves import MovesMixin, refusal
from .results import GameInfo, HistoryEntry, Image, Outcome, Reply
from .states import BrokenEntry, effective_moves, replay
from .table import own_hand
from .texts import (
    channel_link,
    events_text,
    say,
    shown_name,
    status_text,
    tell,
    when,
)


class ReadingMixin(MovesMixin):
    """Status, hand, history, snapshots and the move comparison (stores nothing)."""

    # --- reading -----------------------------------------------------------------------------

    async def info(self, channel_id: int) -> GameInfo:
        async with self.storage.read() as q:
            game = await self._game(q, channel_id)
            seats = await q.seats(game.id)
        return self._info(game, seats)

    async def snapshot(self, channel_id: int) -> tuple[GameInfo, GameState]:
        """The full state (hidden cards included) for autocomplete and local tools; never
        show it to users as it is."""
        async with self.storage.read() as q:
            game = await self._game(q, channel_id)
            seats = await q.seats(game.id)
        info = self._info(game, seats)
        return info, self._state(game, info)

    async def status(self, channel_id: int) -> Outcome:
        async with self.storage.read() as q:
            game = await self._game(q, channel_id)
            seats = await q.seats(game.id)
            timers = await q.timers(game.id)
        info = self._info(game, seats)
        lang = info.settings.language  # the answer is public: the table's language
        if game.status == GameStatus.LOBBY:
            names = ", ".join(shown_name(s.name) for s in seats) or say("status.nobody", lang)
            return Outcome(game=info, reply=Reply(
                say("status.lobby", lang, names=names), ephemeral=False))
        state = self._state(game, info)
        text = status_text(state, info.names, game.status, lang)
        if game.status == GameStatus.ACTIVE:
            if game.paused_at is not None:
                text += "\n" + say("status.paused", lang, since=when(game.paused_at))
            for t in timers:
                if t.kind == TimerKind.DEADLINE and t.seat is not None:
                    text += "\n" + say("status.deadline", lang, name=info.names.get(t.seat, "?"),
                                       due=when(t.due_at))
            away = [s for s in info.seats if s.away_until and s.away_until > self.clock()]
            for s in away:
                assert s.away_until is not None
                text += "\n" + say("status.away", lang, name=s.shown,
                                   until=when(s.away_until, "f"))
            gone = [s.shown for s in info.seats if s.removed]
            if gone:
                text += "\n" + say("status.removed", lang, names=", ".join(gone))
        image = self._boards(state, info.plain_names, (), lang=info.settings.language)
        out = Outcome(game=info, reply=Reply(text, image, False))
        if state.pending is not None:
            out.decision = self._decision(info, state)
        return out

    async def hand(self, channel_id: int, user_id: int) -> Outcome:
        """The user's own hand, for him only."""
        async with self.storage.read() as q:
            game = await self._game(q, channel_id)
            seats = await q.seats(game.id)
        info = self._info(game, seats)
        state = self._state(game, info)
        return own_hand(info, state, self._seat(info, user_id))

    async def history(self, channel_id: int, limit: int = 15) -> Outcome:
        entries = await self.history_entries(channel_id, limit)
        info = await self.info(channel_id)
        async with self.storage.read() as q:
            notes = await q.notes(info.game_id)
        # the moves, with the notes (replacements, pauses …) after the move they follow
        keyed = [((e.seq, 0, i), f"#{e.seq} {e.text}") for i, e in enumerate(entries)]
        first = entries[0].seq if entries else 0
        keyed += [((n.after_seq, 1, n.id), f"  ({n.text})") for n in notes
                  if n.after_seq >= first - 1 or not entries]
        lines = [text for _, text in sorted(keyed)][-limit:]
        text = "\n".join(lines) if lines else tell("history.none")
        return Outcome(game=info, reply=Reply(text, None, True))

    async def history_entries(self, channel_id: int, limit: int = 1000) -> list[HistoryEntry]:
        async with self.storage.read() as q:
            game = await self._game(q, channel_id)
            seats = await q.seats(game.id)
            moves = await q.last_moves(game.id, limit)
        names = {s.seat: shown_name(s.name) for s in seats}
        lang = i18n.reader()  # /history answers its reader privately
        out = []
        for m in moves:
            events = events_of(m.events, lang)
            text = events_text(events, names, lang).replace("\n", " ")
            out.append(HistoryEntry(m.seq, m.seat, names.get(m.seat, "?"), m.kind, text,
                                    m.created_at))
        return out

    async def _replayed(self, q: Queries, game: GameRow, players: int, *,
                        holdem: bool | None = None) -> tuple[GameState, GameState, int]:
        """Replay the game's log from its seed (``holdem``: the option when the settings are
        not to be trusted). Raises DamagedGame if the log cannot be replayed."""
        if holdem is None:
            holdem = self._info(game, []).settings.holdem
        moves = await q.moves(game.id)
        options = engine.Options(players=players, holdem=holdem)
        try:  # off the event loop: a whole game takes up to ~100 ms (defect 16)
            state, checkpoint, seq = await asyncio.to_thread(replay, options, game.seed, moves)
        except BrokenEntry as exc:
            raise damaged(game.id, "log", seq=exc.seq) from exc
        if engine.invariant_problems(state):
            raise damaged(game.id, "broken_log")
        return state, checkpoint, seq

    async def move_comparison(self, channel_id: int, seq: int | None = None) -> Outcome:
        """The boards before and after move ``seq`` (its number in /history; the last move when
        None), rebuilt from the seed and the move log. Stores nothing."""
        async with self.storage.read() as q:
            game = await self._game(q, channel_id)
            seats = await q.seats(game.id)
            moves = await q.moves(game.id)
        info = self._info(game, seats)
        if game.status == GameStatus.LOBBY:
            raise NotStarted(tell("compare.not_started"))
        try:
            live = effective_moves(moves)
        except BrokenEntry as exc:
            raise damaged(game.id, "log", seq=exc.seq) from exc
        if seq is None and not live:
            raise ServiceError(tell("compare.no_move"))
        target = live[-1] if seq is None else next((m for m in live if m.seq == seq), None)
        if target is None:
            if any(m.seq == seq for m in moves):
                raise ServiceError(tell("compare.undone", seq=seq))
            raise ServiceError(tell("compare.missing", seq=seq))
        options = engine.Options(players=len(seats), holdem=info.settings.holdem)
        try:  # a whole game's replay takes up to ~100 ms: off the event loop (defect 16)
            before, after, events = await asyncio.to_thread(
                _replay_to, options, game.seed, live, target)
        except (EngineError, ValidationError, ValueError) as exc:
            raise damaged(game.id, "log", seq=target.seq) from exc
        lang = i18n.reader()

        def title(names: dict[int, str]) -> str:
            what = events_text(events, names, lang).split("\n")[0]
            return tell("compare.title", seq=target.seq, what=what)

        # drawn on the picture and read out in its alt text: the names as they are
        image = Image("compare", after, info.plain_names, events, title(info.plain_names),
                      before=before, lang=i18n.language(lang))  # the reader's language
        return Outcome(game=info, reply=Reply(title(info.names) + "\n" + tell("compare.sides"),
                                              image), events=list(events))

    async def since_last_move(self, channel_id: int, user_id: int) -> Outcome | None:
        """What the other players did since the user's last entry in the log (the start, if
        he has none): each move in words, and the boards before and after them all, changes
        outlined. None when nobody moved since. For him alone, in his language."""
        async with self.storage.read() as q:
            game = await self._game(q, channel_id)
            seats = await q.seats(game.id)
            moves = await q.moves(game.id)
        info = self._info(game, seats)
        seat = self._seat(info, user_id)
        last = max((m.seq for m in moves if m.seat == seat), default=0)
        later = [m for m in moves if m.seq > last]
        if game.status == GameStatus.LOBBY or not later:
            return None
        options = engine.Options(players=len(seats), holdem=info.settings.holdem)
        try:
            live = effective_moves(moves)
        except BrokenEntry as exc:
            raise damaged(game.id, "log", seq=exc.seq) from exc
        try:  # off the event loop, as a whole game's replay may take ~100 ms
            before, after, events = await asyncio.to_thread(
                _replay_since, options, game.seed, live, last)
        except (EngineError, ValidationError, ValueError) as exc:
            raise damaged(game.id, "broken_log") from exc
        lang = i18n.reader()
        lines = [tell("since.title")]
        for m in later:
            text = events_text(events_of(m.events, lang), info.names, lang)
            lines.append(f"#{m.seq} " + text.replace("\n", " "))
        # drawn on the picture: the names as they are
        image = Image("compare", after, info.plain_names, events, tell("since.title"),
                      before=before, lang=i18n.language(lang))
        return Outcome(game=info, reply=Reply("\n".join(lines), image), events=events)

    async def replayed_state(self, channel_id: int) -> GameState:
        """The state the move log and seed give (for checks and tests)."""
        async with self.storage.read() as q:
            game = await self._game(q, channel_id)
            seats = await q.seats(game.id)
            state, _, _ = await self._replayed(q, game, len(seats))
        return state

    async def seat_state(
        self, channel_id: int, user_id: int
    ) -> tuple[GameInfo, GameState, int | None]:
        """The channel's game, its full state and the user's seat (None if not seated), for
        autocomplete. The state holds hidden cards: never show it as it is."""
        info, state = await self.snapshot(channel_id)
        return info, state, info.seat_of(user_id)

    async def preview(
        self, channel_id: int, user_id: int, action: Action
    ) -> tuple[GameInfo, PublicView, dict[int, str], list[Event]]:
        """What ``action`` would do, stored nowhere: the public view after it and its events.
        Raises the same refusals as ``act``."""
        info, state, seat = await self.seat_state(channel_id, user_id)
        if seat is None:
            raise NotSeated(tell("refusal.not_seated"))
        try:
            after, events = engine.preview(state, seat, action)
        except EngineError as exc:
            raise refusal(exc, info.names, state, action) from None
        return info, engine.public_view(after), info.names, events

    async def my_games(self, user_id: int, *, plain: bool = False) -> Outcome:
        """Every live game the user sits in, on any server: where, whose turn, a link.
        ``plain``: for a front end without Discord's markup (the terminal): the game's number
        instead of a channel mention and a link, and no bold."""
        async with self.storage.read() as q:
            rows = [(g, await q.seats(g.id)) for g in await q.games_of_user(user_id)]
        lines = []
        for game, seats in rows[:25]:
            where = (tell("mygames.game", id=game.id) if plain else
                     f"<#{game.channel_id}> {channel_link(game.guild_id, game.channel_id)}")
            try:
                info = self._info(game, seats)
            except DamagedGame:  # one damaged game never hides the others
                lines.append(tell("mygames.entry", where=where, what=tell("mygames.damaged")))
                continue
            lines.append(tell("mygames.entry", where=where,
                              what=self._game_line(game, info, user_id, plain)))
        if not lines:
            text = tell("mygames.none")
        else:
            text = tell("mygames.title") + "\n" + "\n".join(lines)
            if len(rows) > 25:
                text += "\n" + tell("mygames.more", count=len(rows) - 25)
        return Outcome(game=None, reply=Reply(text))

    def _game_line(self, game: GameRow, info: GameInfo, user_id: int, plain: bool) -> str:
        if game.status == GameStatus.LOBBY:
            return tell("mygames.lobby", count=len(info.seats))
        try:
            state = self._state(game, info)
        except EngineError:
            return tell("mygames.damaged_state")
        seat = engine.current_seat(state)
        if seat is None:
            return tell("mygames.finished")
        choice = state.pending is not None
        if info.user_of(seat) == user_id:
            who = tell("mygames.your_choice" if choice else "mygames.your_turn")
            who = who if plain else f"**{who}**"
        else:
            who = tell("mygames.their_choice" if choice else "mygames.their_turn",
                       name=info.names.get(seat, "?"))
        line = tell("mygames.line", round=state.round, who=who, since=when(game.updated_at))
        if game.paused_at is not None:
            line += tell("mygames.paused")
        return line


def _replay_to(options: engine.Options, seed: int, live: Sequence[MoveRow],
               target: MoveRow) -> tuple[GameState, GameState, list[Event]]:
    """The state before ``target`` (replayed from the seed), the state after it, its events."""
    before = engine.new_game(options, seed)
    for m in live:
        if m.seq == target.seq:
            break
        before, _ = engine.apply(before, m.seat, engine.parse_action(m.action))
    after, events = engine.apply(before, target.seat, engine.parse_action(target.action))
    return before, after, events


def _replay_since(options: engine.Options, seed: int, live: Sequence[MoveRow],
                  last: int) -> tuple[GameState, GameState, list[Event]]:
    """The state after log entry ``last`` (the start for 0), the state now, and the events of
    the moves in between."""
    state = engine.new_game(options, seed)
    before = state
    events: list[Event] = []
    for m in live:
        state, evs = engine.apply(state, m.seat, engine.parse_action(m.action))
        if m.seq <= last:
            before = state
        else:
            events += evs
    return before, state, events
