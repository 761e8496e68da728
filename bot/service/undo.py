"""Undo: a player takes back his last action of his current turn, never across a card draw
(exchange, Hold'em swap, end of turn) or another player's move; the turn's table message is
edited back."""

from __future__ import annotations

import json
from dataclasses import replace

from engine import Event, GameOver, NotYourTurn

from ..storage.api import GameRow, Queries
from .errors import UndoRefused, damaged
from .model import MoveKind, events_of
from .moves import MovesMixin, from_checkpoint, next_entry
from .outbox import outboxed
from .results import Outcome, Post
from .states import BrokenEntry, effective_moves
from .texts import events_text, say, tell


class UndoMixin(MovesMixin):
    """Undo, replayed from the checkpoint (the state after the last card draw)."""

    @outboxed
    async def undo(self, channel_id: int, user_id: int) -> Outcome:
        """Take back the user's last action of his current turn. Never across a card draw
        (exchange, Hold'em swap, end of turn) or another player's move."""
        now = self.clock()
        async with self.storage.write() as tx:
            game = await self._game(tx, channel_id)
            seats = await tx.seats(game.id)
            info = self._info(game, seats)
            state = self._state(game, info)  # damage first: a lost seat row is no stranger
            seat = self._seat(info, user_id)
            names = info.names
            lang = info.settings.language
            if state.over:
                raise GameOver(tell("undo.over"))
            self._check_running(game, state)
            if seat != state.turn:
                raise NotYourTurn(tell("undo.not_your_turn", name=names[state.turn]))
            entries = await tx.moves(game.id, after_seq=game.checkpoint_seq)
            try:
                stack = effective_moves(entries)
            except BrokenEntry as exc:
                raise damaged(game.id, "log", seq=exc.seq) from exc
            if not stack:
                raise UndoRefused(await self._floor_reason(tx, game))
            last = stack[-1]
            if last.seat != seat:
                raise UndoRefused(tell("undo.other_player", name=names.get(last.seat, "?")))
            restored = from_checkpoint(game, stack[:-1])
            undone_events = events_of(last.events, lang)
            what = events_text(undone_events, names, lang) or say("undo.last_action", lang)
            text = say("undo.takes_back", lang, name=names[seat], what=what)
            undo_event = Event(kind="undo", text=text, seat=seat)
            seq = await next_entry(tx, game.id, game.version)
            await tx.append_move(
                game_id=game.id, seq=seq, version=game.version + 1, seat=seat, user_id=user_id,
                kind=MoveKind.UNDO, action=json.dumps({"undoes": last.seq}),
                events=json.dumps([undo_event.model_dump(mode="json")]),
                step=restored.step, now=now,
            )
            version = await tx.update_game(
                game.id, game.version, now=now, state=restored.model_dump_json()
            )
            info = replace(info, version=version)
            await self._schedule(tx, info, restored, now)
            tables = await self._turn_tables(tx, info, restored)
        image = self._boards(restored, info.plain_names, (), "move",
                             lang=info.settings.language)
        out = Outcome(game=info, public=[Post(text, image, in_table=True)], events=[undo_event],
                      tables=tables)
        out.direct.append(self._hand_dm(restored, seat, info))
        self._turn_notice(out, info, state, restored, table=True)
        return out

    @staticmethod
    async def _floor_reason(q: Queries, game: GameRow) -> str:
        if game.checkpoint_seq == 0:
            return tell("undo.nothing")
        rows = await q.moves(game.id, after_seq=game.checkpoint_seq - 1)
        kind = json.loads(rows[0].action).get("kind") if rows else None
        if kind == "exchange":
            return tell("undo.after_exchange")
        if kind == "holdem":
            return tell("undo.after_holdem")
        return tell("undo.nothing")
