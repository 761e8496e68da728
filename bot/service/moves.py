"""Moves: act, choose, preview, the automatic moves of timed-out and removed seats; and the
one replay of a move log from the seed. Undo is in ``undo.py``."""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import replace

from pydantic import ValidationError

import engine
from engine import (
    Action,
    Choose,
    EndTurn,
    EngineError,
    Event,
    GameState,
    MalformedAction,
    StaleState,
)

from .. import i18n, surcharge
from ..storage.api import GameRow, MoveRow, PendingMoveRow, Queries, Tx
from .core import shape_problems
from .errors import NoGameHere, PermissionDenied, damaged
from .fairplay import finish_game, note_deal
from .model import DRAW_KINDS, GameStatus, MoveKind, is_computer, turn_key
from .outbox import outboxed
from .results import GameInfo, Image, Outcome, Post, Reply
from .states import BrokenEntry, effective_moves
from .table import TableMixin
from .texts import (
    _rename,
    events_text,
    say,
    tell,
)

# --- replay: the move log and the seed rebuild any state exactly --------------------


# BrokenEntry, effective_moves and replay live in states.py (the outbox reads states back
# with them)


def refusal(exc: EngineError, names: dict[int, str], state: GameState,
            action: Action) -> EngineError:
    """The engine's refusal for the author of the command (``_rename``: his language, names);
    a refusal for cards says the terrain surcharge of the footprint beside it (R18)."""
    exc = _rename(exc, names)
    if exc.key in surcharge.PAYMENT_REFUSALS:
        note = surcharge.refusal_note(surcharge.refused(state, action), i18n.reader())
        if note:
            exc.message += note
            exc.args = (exc.message,)
    return exc


async def next_entry(q: Queries, game_id: int, version: int) -> int:
    """The number of the game's next log entry. A game whose ``version`` is behind its
    log's (edited by hand) could save no move: a DamagedGame says so."""
    last = await q.last_moves(game_id, 1)
    if last and last[-1].version > version:
        raise damaged(game_id, "version")
    return last[-1].seq + 1 if last else 1


def from_checkpoint(game: GameRow, moves: Sequence[MoveRow]) -> GameState:
    """The state after ``moves`` (the turn's actions kept by an undo) played from the
    game's undo point; a DamagedGame when the undo point does not read or fit."""
    try:
        state = GameState.model_validate_json(game.checkpoint or "")
        if shape_problems(state):
            raise ValueError("the undo point does not fit its game")
        for m in moves:
            state, _ = engine.apply(state, m.seat, engine.parse_action(m.action))
    except (ValidationError, ValueError, EngineError) as exc:
        raise damaged(game.id, "checkpoint") from exc
    return state


def _held_refusal(state: str | None) -> str:
    """Why a preview cannot be confirmed or cancelled (already done, or gone)."""
    return tell(f"preview.{state}" if state in ("confirmed", "cancelled") else "preview.gone")


def _surcharge_words(texts: list[str], before: GameState, seat: int, user_id: int | None,
                     action: Action, events: Sequence[Event], lang: str) -> str:
    """What a construct or upgrade's terrain surcharge (R18) cost, added to ``texts`` for
    everyone ("Terrain surcharge (R18) +1: forest, paid with 1 civil (c)."); returned, when the
    engine chose the cards of a person, what to tell him in his language (which cards, and
    how to name others)."""
    p = surcharge.paid(before, seat, action, events)
    if p is None:
        return ""
    texts.append(surcharge.paid_sentence(p, lang))
    person = user_id is not None and not is_computer(user_id)
    return surcharge.default_note(p, i18n.reader()) if person else ""


def _choose(option: int) -> Choose:
    if option < 0:
        raise MalformedAction(tell("moves.choose_number"), "R37")
    return Choose(option=option)




def _logged(state: GameState, action: Action) -> str:
    """``action`` as the move log keeps it: under its one name (R1, ``canonical_action``)."""
    return json.dumps(engine.dump_action(engine.canonical_action(state, action)))

class MovesMixin(TableMixin):
    """Moves, choices, previews and undo."""

    # --- moves -----------------------------------------------------------------------------

    @outboxed
    async def act(
        self, channel_id: int, user_id: int, action: Action, *, expect_version: int | None = None
    ) -> Outcome:
        """Play ``action`` (any engine action) as the user's seat in the channel's game."""
        return await self._act(channel_id, None, user_id, action, expect_version)

    @outboxed
    async def act_in_game(
        self, game_id: int, user_id: int, action: Action, *, expect_version: int | None = None
    ) -> Outcome:
        """``act`` for a game named by its id (buttons in DMs know the game, not the channel)."""
        return await self._act(None, game_id, user_id, action, expect_version)

    @outboxed
    async def choose(
        self, channel_id: int, user_id: int, option: int, *, expect_version: int | None = None
    ) -> Outcome:
        """Answer the pending decision with option ``option`` (0-based index)."""
        return await self._act(channel_id, None, user_id, _choose(option), expect_version)

    @outboxed
    async def choose_in_game(
        self, game_id: int, user_id: int, option: int, *, expect_version: int | None = None
    ) -> Outcome:
        return await self._act(None, game_id, user_id, _choose(option), expect_version)

    # --- previews waiting for Confirm (the move is kept here, its key goes in the button) ----

    async def hold_preview(self, game_id: int, version: int, user_id: int,
                           action: Action) -> str:
        """Keep a previewed move until its player confirms or cancels it; returns its key
        (16 URL-safe characters, for a button's ``custom_id``)."""
        key = secrets.token_urlsafe(12)
        async with self.storage.write() as tx:
            await tx.add_pending_move(key=key, game_id=game_id, version=version,
                                      user_id=user_id,
                                      line=json.dumps(engine.dump_action(action)),
                                      now=self.clock())
        return key

    @outboxed
    async def confirm_preview(self, key: str, user_id: int) -> Outcome:
        """Play the previewed move ``key`` (only its player, only once, only if the game has
        not moved on). Refused if it was cancelled or already played."""
        async with self.storage.write() as tx:
            held = await self._held(tx, key, user_id)
            if not await tx.set_pending_state(key, "open", "confirmed"):
                raise PermissionDenied(_held_refusal(held.state))
            action = engine.parse_action(held.line)
            return await self._act(None, held.game_id, user_id, action, held.version)

    async def cancel_preview(self, key: str, user_id: int) -> str:
        """Cancel the previewed move ``key``; returns the sentence for the player (a move
        already confirmed is not "cancelled": it was played)."""
        async with self.storage.write() as tx:
            held = await self._held(tx, key, user_id)
            if await tx.set_pending_state(key, "open", "cancelled"):
                return tell("preview.cancel")
        return _held_refusal(held.state)

    @staticmethod
    async def _held(q: Queries, key: str, user_id: int) -> PendingMoveRow:
        held = await q.pending_move(key)
        if held is None:
            raise NoGameHere(_held_refusal(None))
        if held.user_id != user_id:
            raise PermissionDenied(tell("preview.not_yours"))
        return held

    async def _act(
        self,
        channel_id: int | None,
        game_id: int | None,
        user_id: int,
        action: Action,
        expect_version: int | None,
    ) -> Outcome:
        now = self.clock()
        async with self.storage.write() as tx:
            if game_id is not None:
                game = await self._by_id(tx, game_id)
            else:
                assert channel_id is not None
                game = await self._game(tx, channel_id)
            seats = await tx.seats(game.id)
            info = self._info(game, seats)
            state = self._state(game, info)  # damage first: a lost seat row is no stranger
            seat = self._seat(info, user_id)
            self._check_running(game, state)
            if expect_version is not None and expect_version != game.version:
                raise StaleState(tell("moves.stale"))
            return await self._move(tx, game, info, state, seat, user_id, action, now)

    async def _move(
        self,
        tx: Tx,
        game: GameRow,
        info: GameInfo,
        state: GameState,
        seat: int,
        user_id: int | None,
        action: Action,
        now: float,
    ) -> Outcome:
        """Play ``action`` for ``seat``, then whatever removed seats must play by default."""
        return await self._play(tx, game, info, state, now, first=(seat, user_id, action))

    async def _record(
        self, tx: Tx, game_id: int, version: int, state: GameState, seat: int,
        user_id: int | None, action: Action, names: dict[int, str], now: float,
    ) -> tuple[GameState, list[Event], int]:
        """Apply one action, append it to the log and save; returns (state, events, version)."""
        try:
            new, events = engine.apply(state, seat, action)
        except EngineError as exc:
            raise refusal(exc, names, state, action) from None
        seq = await next_entry(tx, game_id, version)
        state_json = new.model_dump_json()
        self._trust(game_id, state_json)
        fields: dict[str, object] = {"state": state_json}
        if action.kind in DRAW_KINDS:
            fields["checkpoint"] = fields["state"]
            fields["checkpoint_seq"] = seq
        if new.over:
            fields["status"] = GameStatus.OVER
        await tx.append_move(
            game_id=game_id, seq=seq, version=version + 1, seat=seat, user_id=user_id,
            kind=MoveKind.ACTION, action=_logged(state, action),
            events=json.dumps([e.model_dump(mode="json") for e in events]),
            step=new.step, now=now,
        )
        await note_deal(tx, game_id, seq, state, new)
        version = await tx.update_game(game_id, version, now=now, **fields)
        return new, events, version

    async def _play(
        self,
        tx: Tx,
        game: GameRow,
        info: GameInfo,
        state: GameState,
        now: float,
        *,
        first: tuple[int, int | None, Action] | None = None,
        timed_out: int | None = None,
        intro: str = "",
    ) -> Outcome:
        """One command's moves in its transaction: ``first`` (a player's action), then the
        automatic ones: while ``timed_out`` (a seat whose deadline passed) still must act, its
        pending choices take their R37 default and its turn ends (cards kept, hand refilled);
        a removed seat does the same at once whenever the game waits for it. Each automatic
        action is its own log entry with ``user_id`` NULL."""
        names = info.names
        lang = info.settings.language
        version = game.version
        new = state
        events: list[Event] = []
        texts: list[str] = [intro] if intro else []
        # per action, its turn and the state after it; the words a turn's table adds
        steps: list[tuple[str, GameState]] = []
        notes: dict[str, list[str]] = {turn_key(state): [intro]} if intro else {}
        actor, note = -1, ""  # note: for the player, the cards a surcharge took (R18)
        if first is not None:
            actor, user_id, action = first
            key = turn_key(new)
            new, evs, version = await self._record(tx, game.id, version, new, actor, user_id,
                                                   action, names, now)
            steps.append((key, new))
            events += evs
            texts.append(events_text(evs, names, lang))
            note = _surcharge_words(texts, state, actor, user_id, action, evs, lang)
        removed = {s.seat for s in info.seats if s.removed}
        told: set[int] = set()
        for _ in range(500):  # a seat's turn is a few actions; the bound only guards bugs
            seat = engine.current_seat(new)
            if seat is None:
                break
            if seat != timed_out:
                timed_out = None  # its turn passed: the deadline's work is done
            if seat != timed_out and seat not in removed:
                break
            if seat in removed and seat not in told:
                told.add(seat)
                left = say("moves.left_default", lang, name=names.get(seat, "?"))
                texts.append(left)
                notes.setdefault(turn_key(new), []).append(left)
            auto: Action
            if new.pending is not None:
                auto = Choose(option=engine.default_choice(new))
            else:
                auto = EndTurn()
            key = turn_key(new)
            new, evs, version = await self._record(tx, game.id, version, new, seat, None, auto,
                                                   names, now)
            steps.append((key, new))
            events += evs
            texts.append(events_text(evs, names, lang))
        info = replace(info, version=version, status=GameStatus.OVER if new.over else info.status)
        await self._schedule(tx, info, new, now)
        out = self._after_move(info, state, new, events, actor, "\n".join(t for t in texts if t))
        out.reply = Reply(note) if note else out.reply
        out.tables = await self._turn_tables(tx, info, new, steps, notes)
        if new.over:
            out.public += await self._game_over(tx, game, info, new, now)
        return out

    async def _game_over(
        self, tx: Tx, game: GameRow, info: GameInfo, final: GameState, now: float,
    ) -> list[Post]:
        """The end-of-game posts: the picture of where every player's Ecus came from
        (replayed from the log: none if the log is broken), then the result, rated and its
        seed revealed in the transaction that ends the game (docs/community.md)."""
        lang = info.settings.language
        posts = []
        try:
            live: list[MoveRow] | None = effective_moves(await tx.moves(game.id))
        except BrokenEntry:
            live = None
        if live is not None:
            posts.append(Post(
                say("moves.summary", lang),
                Image("summary", final, info.plain_names, (), say("moves.summary_alt", lang),
                      seed=game.seed, moves=[(m.seat, m.action) for m in live], lang=lang)))
        posts.append(Post(await finish_game(tx, game, info, final, now)))
        return posts

    def _after_move(
        self, info: GameInfo, old: GameState, new: GameState, events: list[Event], actor: int,
        text: str | None = None,
    ) -> Outcome:
        """The move's words and picture (shown by the turn's table message; the terminal
        prints them), the hands that changed, and the turn's notices."""
        names = info.names
        if text is None:
            text = events_text(events, names, info.settings.language)
        out = Outcome(
            game=info,
            public=[Post(text, self._boards(new, info.plain_names, events, "move",
                                            lang=info.settings.language), in_table=True)],
            events=list(events),
        )
        gone = {s.seat for s in info.seats if s.removed or is_computer(s.user_id)}
        for p_old, p_new in zip(old.players, new.players, strict=True):
            if p_new.seat in gone:
                continue
            if p_old.hand != p_new.hand or (p_new.seat == actor and p_old.ecus != p_new.ecus):
                out.direct.append(self._hand_dm(new, p_new.seat, info))
        self._turn_notice(out, info, old, new, table=True)
        return out
