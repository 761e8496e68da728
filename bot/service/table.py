"""The table message: one living message per turn in the game's channel (docs/discord.md,
"The table"). It opens the turn, mentioning only the player to act, and every move of that
turn edits it: the round, whose turn and the deadline; the picture after the move; the
turn's moves in words (ripples, paradoxes, junctions, as their events say them); what the
game waits for. When the turn ends it stays as the turn's record.

A turn is named by its key, ``"<round>:<seat>"`` (the key of ``games.turn_timing`` too): a
seat plays once a round, and undo never crosses the end of a turn. What a turn's message says
is read from the move log: the entries after the previous turn's ``end_turn``, the undone
ones left out. The buttons' reads (My hand, Boards, Status) name the game by its id, so a
table message of a finished game never shows the channel's next game.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from engine import CorruptState, Event, GameState

from .. import i18n, surcharge
from ..storage.api import MoveRow, Queries
from .model import MARK, MoveKind, events_of, is_computer, turn_key
from .results import GameInfo, Image, Outcome, Reply, Table
from .schedule import ScheduleMixin
from .states import effective_moves
from .texts import (
    allowance_text,
    cards_text,
    event_prompt,
    events_text,
    format_names,
    hand_text,
    say,
    status_text,
    when,
)

LOG_WINDOW = 60  # log entries read to find the turns a command touched (a turn is a few)
# actions that change a board (what the table's picture outlines): not a travel, an exchange,
# a Hold'em swap or the end of a turn
BOARD_KINDS = ("construct", "upgrade", "demolish", "populate", "renovate", "choose")

# what one command did, turn by turn: (the turn's key, the state after each of its actions)
Steps = Sequence[tuple[str, GameState]]


def turn_segments(moves: Sequence[MoveRow]) -> list[list[MoveRow]]:
    """The log cut into turns: each ends with its ``end_turn`` entry; the last one is the turn
    being played (empty right after an ``end_turn``)."""
    segments: list[list[MoveRow]] = [[]]
    for m in moves:
        segments[-1].append(m)
        if m.kind == MoveKind.ACTION and json.loads(m.action).get("kind") == "end_turn":
            segments.append([])
    return segments


def _effective(segment: Sequence[MoveRow]) -> list[MoveRow]:
    """A turn's entries still in effect (undo never reaches out of its turn); a turn cut by
    the window's start keeps its entries as they are."""
    try:
        return effective_moves(segment)
    except CorruptState:
        return [m for m in segment if m.kind == MoveKind.ACTION]


def move_words(events: Sequence[Event], names: dict[int, str], lang: str, *,
               computer: bool = False, also: str = "") -> str:
    """One move in words, as a list item: what the player did (marked when a computer did
    it), then each consequence (a ripple, a paradox, a junction, an income's lines, and
    ``also``: its terrain surcharge) as an item under it."""
    text = events_text(events, names, lang) + (f"\n{also}" if also else "")
    first, *rest = [line.strip() for line in text.split("\n") if line.strip()] or ["…"]
    mark = f"{MARK} " if computer else ""
    return "\n".join([f"- {mark}{first}", *(f"  - {line}" for line in rest)])



def own_hand(info: GameInfo, state: GameState, seat: int) -> Outcome:
    """A seat's own hand, text and picture, for its player only (in his language)."""
    lang = i18n.language(i18n.reader())  # a private answer: the picture in his words too
    image = Image("hand", state, info.plain_names, (),
                  say("image.hand_alt", lang, cards=cards_text(state.players[seat].hand, lang)),
                  seat=seat, lang=lang)
    return Outcome(game=info, reply=Reply(hand_text(state, seat, lang), image, True))

class TableMixin(ScheduleMixin):
    """The turns' table messages a command changes, and the reads of their buttons."""

    async def _turn_tables(
        self, q: Queries, info: GameInfo, final: GameState, steps: Steps = (),
        notes: dict[str, list[str]] | None = None,
    ) -> list[Table]:
        """The table messages after a command: each turn it played in (``steps``, in order;
        closed when it is over) and the turn now being played (opened, or edited). ``notes``:
        lines of this command for a turn's message beyond its log (a deadline, a departure).
        Read in the caller's transaction, after the command's moves."""
        notes = notes or {}
        lang = info.settings.language
        keys = list(dict.fromkeys(key for key, _ in steps))
        open_key = None if final.over else turn_key(final)
        ended = [k for k in keys if k != open_key]
        segments = turn_segments(await q.last_moves(info.game_id, LOG_WINDOW))
        # the open turn is the log's last segment; the turns ended before it, the ones before
        count = len(ended) + 1
        found = segments[-count:] if len(segments) >= count else [[]] * count
        tables: list[Table] = []
        for key, segment in zip(ended, found[:-1], strict=True):
            state = next(s for k, s in reversed(steps) if k == key)
            tables.append(self._table(info, key, state, _effective(segment),
                                      notes.get(key, []), lang, closed=True))
        if open_key is not None:
            due = None if info.paused else await self._turn_due(q, info.game_id, open_key)
            tables.append(self._table(info, open_key, final, _effective(found[-1]),
                                      notes.get(open_key, []), lang, due=due))
        return tables

    async def _turn_due(self, q: Queries, game_id: int, key: str) -> float | None:
        """The deadline of turn ``key``, if it has one (fixed when the turn started)."""
        timing = await self._turn_timing(q, game_id)
        if timing.get("key") != key or "due" not in timing:
            return None
        return float(timing["due"])

    def _table(
        self, info: GameInfo, key: str, state: GameState, moves: Sequence[MoveRow],
        notes: Sequence[str], lang: str, *, closed: bool = False, due: float | None = None,
    ) -> Table:
        names = info.names
        round_, seat = (int(part) for part in key.split(":"))
        user = info.user_of(seat)
        me = info.seat_info(seat)
        mention = (user is not None and not is_computer(user) and not closed
                   and not (me is not None and me.removed))
        who = f"<@{user}>" if mention else names.get(seat, "?")
        if closed:
            header = say("table.header_done", lang, round=round_, who=who)
        else:
            header = say("table.header", lang, round=round_, who=who)
            if due is not None:
                header += say("table.deadline", lang, due=when(due))
        events: list[Event] = []  # the turn's last change of a board: its age shown large
        changes: list[Event] = []  # every change of a board the turn made: all outlined
        lines = []
        for m in moves:
            said = events_of(m.events, lang)
            paid = surcharge.logged(said, m.seat, state.options.players, lang)
            lines.append(move_words(said, names, lang, also=paid,
                                    computer=m.user_id is not None and is_computer(m.user_id)))
            if json.loads(m.action).get("kind") in BOARD_KINDS:
                events = said
                changes += said
        lines += [f"- {note}" for note in notes]
        image = Image("table", state, info.plain_names, events, lang=lang, turn=changes)
        return Table(key, seat, user if mention else None, header, tuple(lines),
                     self._pending_line(info, state, seat, closed, lang), image, closed)

    @staticmethod
    def _pending_line(info: GameInfo, state: GameState, seat: int, closed: bool,
                      lang: str) -> str:
        """What the game waits for: a choice (R37), the player's cards left (R14) and the
        end of his turn, or the end of a pause; on a turn's record, who is next or who won."""
        names = info.names
        if state.over:
            winners = say("hand.and", lang).join(names.get(s, "?") for s in state.winners)
            return say("table.over", lang, names=winners)
        if info.paused_at is not None and not closed:
            return say("status.paused", lang, since=when(info.paused_at))
        if state.pending is not None:
            return say("table.waits_choice", lang, name=names.get(state.pending.seat, "?"),
                       prompt=format_names(event_prompt(state, lang), names))
        if closed:
            return say("table.next", lang, name=names.get(state.turn, "?"))
        return say("table.waits_turn", lang, name=names.get(seat, "?"),
                   allowance=allowance_text(state, seat, lang))

    # --- the buttons of a table message: reads by game id -----------------------------------

    async def _table_game(self, q: Queries, game_id: int) -> tuple[GameInfo, GameState]:
        game = await self._by_id(q, game_id)
        info = self._info(game, await q.seats(game.id))
        return info, self._state(game, info)

    async def table_hand(self, game_id: int, user_id: int) -> Outcome:
        """My hand: the reader's own hand, privately, in his language; refused to anyone who
        has no seat in the game."""
        async with self.storage.read() as q:
            info, state = await self._table_game(q, game_id)
        return own_hand(info, state, self._seat(info, user_id))

    async def table_boards(self, game_id: int) -> Outcome:
        """Boards: the three ages large, privately (the full-size picture of the table)."""
        async with self.storage.read() as q:
            info, state = await self._table_game(q, game_id)
        lang = i18n.language(i18n.reader())
        image = self._boards(state, info.plain_names, (), lang=lang)
        return Outcome(game=info, reply=Reply(say("table.boards", lang), image, True))

    async def table_status(self, game_id: int) -> Outcome:
        """Status: the players' Ecus, cards, cubes and adventurers, privately."""
        async with self.storage.read() as q:
            game = await self._by_id(q, game_id)
            info = self._info(game, await q.seats(game.id))
        state = self._state(game, info)
        lang = i18n.language(i18n.reader())
        return Outcome(game=info, reply=Reply(status_text(state, info.names, game.status, lang),
                                              None, True))


__all__ = ["TableMixin", "move_words", "turn_key", "turn_segments"]
