"""The transactional outbox: what a command or a timer must tell people, stored in the same
transaction as the move, then delivered in order per game and marked sent.

``record(tx, outcome, now)`` writes an ``Outcome``'s public posts, the turns' table messages,
pings, DMs and the author's reply as rows (in that order) before the command commits: a move
that is stored is always announced, after a crash or a SIGTERM too, and a command that is
refused stores nothing to say. ``Deliverer`` sends the rows through a ``Transport`` (the
Discord adapter), one game at a time in row order, with backoff for transient failures; the
transport applies the fallbacks of a permanent refusal (text instead of an image, a channel
notice for closed DMs) and returns how the row was delivered. Rows older than ``LATE_AFTER``
when sent are marked late.

A ``table`` row is a turn's table message as it must look now: the transport posts it when
the turn has no message yet and edits it otherwise (docs/discord.md, "The table"). Several
table rows of one turn waiting together are one edit, of the latest (the earlier ones are
marked ``superseded``), and a turn's message is edited at most once per ``EDIT_SPACING``
seconds: a row that comes sooner waits (the game's later rows with it), so a burst of
moves coalesces into one edit.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import os
import socket
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import asdict, dataclass, replace
from typing import Any, Concatenate, Literal, ParamSpec, Protocol, TypeVar

from .. import i18n
from ..storage.api import OutboxRow, Queries, Storage, Tx
from .core import ServiceCore
from .results import Attachment, DecisionInfo, Direct, DirectKind, Image, Outcome, Table
from .states import StateReader, StateRef, state_refs
from .wake import sleep_or_wake

log = logging.getLogger("khronos.outbox")

LATE_AFTER = 300.0  # seconds: a row delivered later than this says it is late
REPLY_WINDOW = 15 * 60.0  # an interaction's token lives 15 minutes (Discord)
MAX_ATTEMPTS = 8  # transient failures, then the row is given up (logged)
BACKOFF = (2.0, 5.0, 15.0, 60.0, 300.0)  # seconds before the 1st, 2nd … retry
KEEP_SENT = 24 * 3600.0  # delivered rows are pruned after a day
PRUNE_EVERY = 60.0  # seconds: the background task prunes at most this often
DRAIN_GAMES = 4  # games a drain delivers at the same time
EDIT_SPACING = 1.0  # seconds (real time) between two edits of one turn's table message
# several processes on one database: a game's rows are sent by the deliverer that claims the
# game (outbox_claims), for CLAIM_FOR seconds, renewed while it sends; a command whose game
# another process is delivering waits up to CLAIM_WAIT for it, then leaves its rows to it
CLAIM_FOR = 60.0
CLAIM_WAIT = 5.0
CLAIM_POLL = 0.05
# the background task looks at the outbox at least this often: rows that another process left
# (it gave up waiting for a claim, or it died holding one) are sent within it
IDLE_POLL = 2.0
# this process, as the writer of a reply row: only the process whose interaction asked can
# answer it (the interaction lives in its memory), so another process delivering the game
# skips the row, without waiting for it, until the token is dead (REPLY_WINDOW after the
# commit), then drops it (docs/storage-postgres.md, "A reply row belongs to its writer")
PROCESS = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"

# post: a channel message; table: a turn's table message, posted or edited; ping: a channel
# message mentioning one user; direct: a DM (edited in place when it is a turn's hand DM)
RowKind = Literal["post", "table", "ping", "direct", "reply"]


@dataclass(frozen=True)
class Delivery:
    """One outbox row, ready to send. ``late``: created more than ``LATE_AFTER`` ago."""

    row_id: int
    game_id: int
    channel_id: int
    kind: RowKind
    user_id: int | None
    text: str
    image: Image | None = None
    decision: DecisionInfo | None = None
    fallback: str | None = None
    direct_kind: DirectKind | None = None
    ephemeral: bool = True
    name: str = ""  # the addressee's display name in this game (notices)
    created_at: float = 0.0
    late: bool = False
    # the language of the words the transport adds (a fallback, a notice), fixed when the row
    # was written: the game's, or the reader's for a reply (a later change rewrites nothing)
    lang: str = "en"
    writer: str = ""  # a reply: the process that wrote it (``PROCESS``); "" in older rows
    file: Attachment | None = None  # a reply's file that is not an image (a game's record)
    # an image that names its state's place in the log (``states.py``): the deliverer reads
    # the state back and sets ``image`` before sending
    image_at: dict[str, Any] | None = None
    table: Table | None = None  # a table row: the turn's message as it must look now
    turn: str | None = None  # a direct row: the turn whose hand DM it is (edited in place)

    @property
    def nonce(self) -> str:
        """Discord's message nonce for this row (at most 25 characters): with
        ``enforce_nonce`` a resend after a crash lands only once."""
        return f"kh{self.row_id}"

    def as_direct(self) -> Direct:
        assert self.direct_kind is not None and self.user_id is not None
        return Direct(self.user_id, self.direct_kind, self.text, self.image, self.decision,
                      self.fallback, self.turn)


class RetryLater(Exception):
    """A transient failure (Discord 5xx, rate limit, network): try the row again later."""


class Undeliverable(Exception):
    """A permanent refusal with no fallback left (channel gone, no Send Messages)."""


class Stopped(Exception):
    """The send was cut by this process's stop (its connection to Discord closed or closing):
    no fault of the row, which is left exactly as it was, due at once for the next start."""


class ReadFailed(Exception):
    """The storage failed while a row's image was read back (a lost connection): no fault of
    the row, which waits, as it was, for the next pass."""


class Transport(Protocol):
    async def send(self, item: Delivery) -> str:
        """Deliver one row; returns how (``sent``, ``text-only``, ``dm-closed`` …; a table
        row that edited its turn's message: ``edited`` …). Raises RetryLater,
        Undeliverable or Stopped."""
        ...


# the interaction's answer to a reply row; raises Stopped when this process's stop cut it
ReplySender = Callable[[Delivery], Awaitable[None]]


# --- writing ---------------------------------------------------------------------------------

P = ParamSpec("P")
S = TypeVar("S", bound=ServiceCore)
R = TypeVar("R", bound=Outcome | None)


def outboxed(
    method: Callable[Concatenate[S, P], Awaitable[R]],
) -> Callable[Concatenate[S, P], Awaitable[R]]:
    """Run a service command in one write transaction that also stores what its ``Outcome``
    says to people (``record``): the move and its announcement commit together or not at
    all. The command's own ``storage.write()`` joins this transaction."""

    @functools.wraps(method)
    async def wrapper(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        if not self.use_outbox:
            return await method(self, *args, **kwargs)
        async with self.storage.write() as tx:
            out = await method(self, *args, **kwargs)
            if out is not None:
                await record(tx, out, self.clock())
        return out

    return wrapper


def _decision_json(decision: DecisionInfo | None) -> dict[str, Any] | None:
    return asdict(decision) if decision is not None else None


def _decision_from(data: dict[str, Any] | None) -> DecisionInfo | None:
    if data is None:
        return None
    return DecisionInfo(**{**data, "options": tuple(data["options"])})


def _image_json(image: Image | None, refs: dict[int, Any]) -> dict[str, Any] | None:
    """An image for a row: naming its state's place in the log when ``refs`` has it (see
    ``states.py``), else with a copy of its state (``refs`` then caches the copy)."""
    if image is None or image.state is None:
        return None
    ref = refs.get(id(image.state))
    if isinstance(ref, StateRef) and not image.has_before:
        return image.to_ref_json(ref.to_json())
    return image.to_json(refs)


def _table_json(table: Table, refs: dict[int, Any]) -> dict[str, Any]:
    return {"turn": table.turn, "seat": table.seat, "mention": table.user_id,
            "header": table.header, "lines": list(table.lines), "pending": table.pending,
            "closed": table.closed, "image": _image_json(table.image, refs)}


def _table_from(data: dict[str, Any]) -> Table:
    """A table row's message, without its picture: the row's ``Delivery.image`` is it (read
    back like any image's state by ``with_image``)."""
    return Table(turn=str(data["turn"]), seat=int(data["seat"]), user_id=data.get("mention"),
                 header=str(data["header"]), lines=tuple(data["lines"]),
                 pending=str(data["pending"]), image=None,
                 closed=bool(data.get("closed", False)))


def _turn_of(row: OutboxRow) -> str | None:
    """The turn of a table row (None if its body cannot be read: it is sent, and dropped, on
    its own)."""
    try:
        return str(json.loads(row.body)["table"]["turn"])
    except (ValueError, KeyError, TypeError):
        return None


def superseded(row: OutboxRow, rows: list[OutboxRow]) -> bool:
    """Whether a later table row of the same turn waits too: only the latest is sent."""
    if row.kind != "table":
        return False
    turn = _turn_of(row)
    return turn is not None and any(
        r.kind == "table" and r.id > row.id and _turn_of(r) == turn for r in rows)


def _images(outcome: Outcome) -> list[Image]:
    posts = [p.image for p in outcome.public if not p.in_table] + [
        t.image for t in outcome.tables] + [d.image for d in outcome.direct]
    reply = [outcome.reply.image] if outcome.reply is not None else []
    return [i for i in posts + reply if i is not None]


async def record(tx: Tx, outcome: Outcome, now: float) -> None:
    """Write ``outcome``'s messages as outbox rows in the caller's transaction (posts, tables,
    pings, DMs, then the reply) and note their ids in ``outcome.outbox`` /
    ``outcome.reply_row``."""
    game = outcome.game
    if game is None:
        return
    base = {"channel_id": game.channel_id, "lang": game.settings.language}
    # where each image's state is in the game's log: a row names it instead of copying it
    states = list({id(i.state): i.state for i in _images(outcome) if i.state}.values())
    dumped: dict[int, Any] = dict(await state_refs(tx, game.game_id, states)) if states else {}

    def name_of(user_id: int) -> str:
        return next((s.shown for s in game.seats if s.user_id == user_id), "")

    rows: list[tuple[RowKind, int | None, dict[str, Any]]] = []
    for post in outcome.public:
        if post.in_table:  # the table message shows it
            continue
        rows.append(("post", None, {"text": post.text, "image": _image_json(post.image, dumped),
                                    **({"tag": post.tag} if post.tag else {})}))
    for table in outcome.tables:
        rows.append(("table", table.user_id, {"text": table.header,
                                               "table": _table_json(table, dumped)}))
    for ping in outcome.pings:
        if ping.user_id < 0 or ping.in_table:  # a computer seat (docs/ai.md); the table's
            continue
        rows.append(("ping", ping.user_id, {"text": ping.text, "name": name_of(ping.user_id)}))
    for d in outcome.direct:
        if d.user_id < 0:  # a computer seat gets no DM
            continue
        rows.append(("direct", d.user_id, {
            "text": d.text, "image": _image_json(d.image, dumped),
            "decision": _decision_json(d.decision), "fallback": d.fallback,
            "direct_kind": d.kind, "name": name_of(d.user_id), "turn": d.turn}))
    for kind, user_id, body in rows:
        outcome.outbox.append(await tx.add_outbox(
            game_id=game.game_id, kind=kind, user_id=user_id,
            body=json.dumps({**base, **body}), now=now))
    if outcome.reply is not None:
        reply = outcome.reply
        outcome.reply_row = await tx.add_outbox(
            game_id=game.game_id, kind="reply", user_id=None, now=now, body=json.dumps({
                **base, "lang": i18n.language(i18n.reader()),
                "text": reply.text, "image": _image_json(reply.image, dumped),
                "ephemeral": reply.ephemeral, "decision": _decision_json(outcome.decision),
                "writer": PROCESS, "file": _file_json(reply.file)}))
        outcome.outbox.append(outcome.reply_row)


def _file_json(file: Attachment | None) -> dict[str, str] | None:
    return {"name": file.name, "text": file.text} if file is not None else None


def _file_from(data: dict[str, str] | None) -> Attachment | None:
    return Attachment(str(data["name"]), str(data["text"])) if data else None


async def undelivered(q: Queries, game_id: int, *, kind: RowKind, user_id: int | None = None,
                      **body: str) -> bool:
    """Whether the game has an undelivered row of ``kind`` (for ``user_id``) whose body
    holds ``body`` (``direct_kind="reminder"``, ``tag="offline"``): a timer does not say it
    again before the last one is out (a stalled delivery, a crash before it)."""
    for row in await q.unsent(game_id):
        if row.kind != kind or (user_id is not None and row.user_id != user_id):
            continue
        try:
            data = json.loads(row.body)
        except ValueError:
            continue
        if isinstance(data, dict) and all(data.get(k) == v for k, v in body.items()):
            return True
    return False


def delivery(row: OutboxRow, now: float) -> Delivery:
    """The row's message, rebuilt from its JSON (images validated again)."""
    body = json.loads(row.body)
    table = body["table"] if row.kind == "table" else None
    image = table["image"] if table is not None else body.get("image")
    return Delivery(
        row_id=row.id, game_id=row.game_id, channel_id=int(body["channel_id"]),
        kind=row.kind,  # type: ignore[arg-type]  # the CHECK-free column holds our kinds
        user_id=row.user_id, text=body["text"],
        image=Image.from_json(image) if image and "at" not in image else None,
        image_at=image if image and "at" in image else None,
        decision=_decision_from(body.get("decision")), fallback=body.get("fallback"),
        direct_kind=body.get("direct_kind"), ephemeral=bool(body.get("ephemeral", True)),
        name=body.get("name", ""), created_at=row.created_at,
        late=now - row.created_at > LATE_AFTER, lang=str(body.get("lang", "en")),
        writer=str(body.get("writer", "")), file=_file_from(body.get("file")),
        table=_table_from(table) if table is not None else None,
        turn=body.get("turn"),
    )


async def with_image(storage: Storage, states: StateReader, item: Delivery) -> Delivery:
    """The row with its image, when the image names its state's place in the log: the state
    is read back (``states.StateReader``). A state that cannot be had (the game was deleted or
    damaged since) leaves the message without its image, logged."""
    data = item.image_at
    if data is None:
        return item
    ref = StateRef.from_json(data["at"])
    try:
        async with storage.read() as q:
            shown = await states.read(q, item.game_id, ref, moves=data.get("kind") == "summary")
    except Exception as exc:  # the storage failed, not the row: neither dropped nor bare
        raise ReadFailed(f"the state of outbox row {item.row_id} could not be read") from exc
    if shown is None:
        log.warning("outbox row %s: the state its image shows (log entry %s of game %s) "
                    "cannot be read; sent without it", item.row_id, ref.seq, item.game_id)
        return replace(item, image_at=None)
    image = Image.from_json(data, state=shown.state, seed=shown.seed, moves=shown.moves or ())
    return replace(item, image=image, image_at=None)


def reply_delivery(outcome: Outcome) -> Delivery:
    """The reply of an outcome that stored nothing (a read: status, hand, history)."""
    reply = outcome.reply
    game = outcome.game
    return Delivery(
        row_id=0, game_id=game.game_id if game else 0, channel_id=game.channel_id if game else 0,
        kind="reply", user_id=None, text=reply.text if reply else "",
        image=reply.image if reply else None, decision=outcome.decision,
        ephemeral=reply.ephemeral if reply else True, lang=i18n.language(i18n.reader()),
        file=reply.file if reply else None)


# --- delivering ------------------------------------------------------------------------------


class EditSpacing:
    """A turn's table message is edited at most once per ``EDIT_SPACING`` seconds (Discord's
    rate limits on edits): a row that comes sooner waits, holding its game's later rows, and
    the rows its game commits meanwhile are coalesced with it. Real time
    (``time.monotonic()``), whatever the service's clock says."""

    def __init__(self) -> None:
        self._sent: dict[tuple[int, str], float] = {}  # (game, turn) -> last edited
        self._held: dict[int, float] = {}  # game -> until when its rows wait

    def holds(self, row: OutboxRow, wake: asyncio.Event) -> bool:
        """Whether ``row`` must wait (its message was edited less than ``EDIT_SPACING``
        ago): its game is held, and ``wake`` set the first time, so that the background
        task sends it when the wait is over."""
        turn = _turn_of(row) if row.kind == "table" else None
        last = self._sent.get((row.game_id, turn)) if turn is not None else None
        wait = 0.0 if last is None else last + EDIT_SPACING - time.monotonic()
        if wait <= 0:
            self._held.pop(row.game_id, None)
            return False
        if row.game_id not in self._held:
            wake.set()
        self._held[row.game_id] = time.monotonic() + wait
        return True

    def sent(self, row: OutboxRow, result: str) -> None:
        """Note that ``row`` went out; only an edit (the transport's result ``edited …``)
        counts: posting the turn's message is not editing it."""
        turn = _turn_of(row) if row.kind == "table" else None
        if turn is None or not result.startswith("edited"):
            return
        now = time.monotonic()
        if len(self._sent) > 1000:  # only recent edits matter
            self._sent = {k: t for k, t in self._sent.items() if t > now - EDIT_SPACING}
        self._sent[(row.game_id, turn)] = now

    def held_for(self) -> list[float]:
        """Seconds each held game still waits."""
        now = time.monotonic()
        return [until - now for until in self._held.values() if until > now]


async def unsent_count(storage: Storage) -> int:
    """How many rows are unsent (what a stop leaves for the next start)."""
    async with storage.read() as q:
        return await q.unsent_count()


def reply_may_come(item: Delivery, now: float, *, process: str, started_at: float) -> bool:
    """Whether a reply row's interaction may still answer it: no process can once its token
    is dead; another process's row is its writer's until then (alive or not: this process
    cannot tell, and cannot answer it either); a row of this process, only if it was written
    in this run (``started_at``; rows without a writer, from before, count as this
    process's)."""
    if now - item.created_at >= REPLY_WINDOW:
        return False
    if item.writer and item.writer != process:
        return True
    return item.created_at >= started_at


class GameLocks:
    """One flush of a game at a time in this process. Per game with a flush running or
    waiting: its lock and how many flushes use it (the entry goes with the last one, so a
    long-lived process keeps none for idle games)."""

    def __init__(self) -> None:
        self._locks: dict[int, tuple[asyncio.Lock, list[int]]] = {}

    def __len__(self) -> int:
        return len(self._locks)

    @contextlib.asynccontextmanager
    async def hold(self, game_id: int, deadline: float) -> AsyncIterator[bool]:
        """The game's lock, waited for until ``deadline`` (``time.monotonic``): yields
        whether it was taken. The lock is dropped when unused."""
        lock, users = self._locks.setdefault(game_id, (asyncio.Lock(), [0]))
        users[0] += 1
        taken = False
        try:
            left = deadline - time.monotonic()
            if not lock.locked():  # taken at once, even with no time to wait
                taken = await lock.acquire()
            elif left > 0:
                with contextlib.suppress(TimeoutError):
                    taken = await asyncio.wait_for(lock.acquire(), left)
            yield taken
        finally:
            if taken:
                lock.release()
            users[0] -= 1
            if not users[0]:
                del self._locks[game_id]


class Deliverer:
    """Sends outbox rows through ``transport``, one game at a time, in row order.

    ``flush(game_id)`` delivers the game's rows that are due (a command awaits it before its
    reply); ``drain()`` does every game (at start: what a crash or a stop left unsent); the
    background task started by ``start()`` retries rows whose backoff has passed. A reply row
    is sent through the sender registered for it (``expect_reply``), the interaction that
    asked; without one, it is skipped (the game's later rows go on) while that interaction
    may still come, and is then dropped as ``expired``: a row of this process, while it is of
    this run and younger than ``REPLY_WINDOW``; a row another process wrote (its ``writer``),
    while it is younger than ``REPLY_WINDOW``, whether that process lives or not.
    """

    def __init__(self, storage: Storage, transport: Transport, *,
                 clock: Callable[[], float] = time.time,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.storage = storage
        self.transport = transport
        self.clock = clock
        self.sleep = sleep
        self.started_at = clock()
        self.process = PROCESS  # the writer of this process's reply rows
        self._locks = GameLocks()  # one flush of a game at a time in this process
        self._replies: dict[int, ReplySender] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = False  # stop() asked the background task to end after its pass
        self.delivered = 0  # rows delivered (for tests and benchmarks)
        # who holds a game's claim: this deliverer of this process
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._claimed_until: dict[int, float] = {}
        self._pruned_at = float("-inf")  # delivered rows are pruned at most every PRUNE_EVERY
        self._states = StateReader()  # the states the rows' images show, read back
        self.spacing = EditSpacing()  # table edits a second apart, coalesced

    def expect_reply(self, row_id: int, sender: ReplySender) -> None:
        self._replies[row_id] = sender

    async def reply_now(self, row_id: int) -> None:
        """Send the reply ``row_id`` now if ``flush`` left it waiting (an earlier row of its
        game must be retried later): the author is answered within his interaction's life."""
        sender = self._replies.pop(row_id, None)
        if sender is None:
            return
        async with self.storage.read() as q:
            row = await q.outbox_row(row_id)
        if row is None or row.sent_at is not None:
            return
        self._replies[row_id] = sender
        await self._one(row)

    async def flush(self, game_id: int, *, wait: float = CLAIM_WAIT) -> int:
        """Deliver the game's due rows in order; returns how many were delivered. Stops at a
        row that must be retried later (the order of a game's messages is kept).

        The game is claimed first (``claim_outbox``), so that no other deliverer, in this
        process or another, sends its rows meanwhile. ``wait`` bounds the whole wait, for
        this process's flush of the game already under way and for another process's claim:
        then this returns 0, and the rows go with that flush (it sends the game's rows until
        none is left), the claim's holder, or the background task (``start``), which looks
        again within a second or two. A claim whose holder is gone is free at once (the
        storage checks that its process lives)."""
        deadline = time.monotonic() + wait
        async with self._locks.hold(game_id, deadline) as taken:
            if not taken:
                self._look_again()
                return 0
            async with self.storage.read() as q:
                if not await q.unsent(game_id, limit=1):
                    return 0
            if not await self._claim_within(game_id, deadline):
                self._look_again()
                return 0
            try:
                return await self._flush_claimed(game_id)
            finally:
                await self._release(game_id)

    def _look_again(self) -> None:
        """A flush gave up: the background task looks again soon (not if it is the one that
        gave up: it would spin; its own next look is at most ``IDLE_POLL`` away)."""
        if asyncio.current_task() is not self._task:
            self._wake.set()

    async def _claim(self, game_id: int) -> bool:
        now = self.clock()
        async with self.storage.write() as tx:
            claimed = await tx.claim_outbox(game_id, self.owner, now, now + CLAIM_FOR)
        if claimed:
            self._claimed_until[game_id] = now + CLAIM_FOR
        return claimed

    async def _claim_within(self, game_id: int, deadline: float) -> bool:
        """Claim the game, polling while another deliverer holds it, until ``deadline``
        (``time.monotonic``; the holder is sending: milliseconds, usually)."""
        while not await self._claim(game_id):
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(CLAIM_POLL)
        return True

    async def _still_claimed(self, game_id: int) -> bool:
        """Before each row: renew the claim once half of it has passed; False if it was lost
        (this deliverer was stalled past its claim and another took the game)."""
        if self.clock() < self._claimed_until.get(game_id, 0.0) - CLAIM_FOR / 2:
            return True
        return await self._claim(game_id)

    async def _release(self, game_id: int) -> None:
        self._claimed_until.pop(game_id, None)
        try:
            async with self.storage.write() as tx:
                await tx.release_outbox(game_id, self.owner)
        except Exception:  # the claim then simply expires (or dies with this process)
            if self._closing:  # the stop closed the database under an abandoned send
                log.debug("stopping: the outbox claim of game %s dies with the process",
                          game_id)
            else:
                log.exception("could not release the outbox claim of game %s", game_id)

    async def _flush_claimed(self, game_id: int) -> int:
        count = 0
        while True:
            async with self.storage.read() as q:
                rows = await q.unsent(game_id)
            if not rows:
                return count
            progressed = False
            for row in rows:
                if not await self._still_claimed(game_id):
                    return count
                if superseded(row, rows):  # a later row of its turn says more
                    await self._mark(row.id, "superseded")
                    progressed = True
                    continue
                if self.spacing.holds(row, self._wake):
                    return count
                outcome = await self._one(row)
                if outcome == "blocked":
                    return count
                if outcome == "done":
                    count += 1
                    progressed = True
            if not progressed:
                return count

    async def _one(self, row: OutboxRow) -> Literal["done", "skipped", "blocked"]:
        now = self.clock()
        if row.next_at > now:
            return "blocked"
        try:
            item = await with_image(self.storage, self._states, delivery(row, now))
        except ReadFailed:
            log.warning("outbox row %s waits: its image's state could not be read now", row.id,
                        exc_info=True)
            return "blocked"  # the background task looks again within IDLE_POLL
        except (ValueError, KeyError, TypeError):
            log.exception("outbox row %s cannot be read; dropped", row.id)
            await self._mark(row.id, "unreadable")
            return "done"
        if item.kind == "reply":
            sender = self._replies.pop(row.id, None)
            if sender is None:
                if reply_may_come(item, now, process=self.process, started_at=self.started_at):
                    return "skipped"  # its interaction is still being handled, here or there
                await self._mark(row.id, "expired")
                return "done"
            try:
                await sender(item)
            except Stopped:  # left as it was (the interaction dies with this process)
                return "blocked"
            except Exception:
                log.exception("the reply of outbox row %s could not be sent", row.id)
                await self._mark(row.id, "failed")
                return "done"
            await self._mark(row.id, "sent")
            return "done"
        try:
            result = await self.transport.send(item)
        except Stopped:  # left exactly as it was: due at once for the next start
            return "blocked"
        except RetryLater as exc:
            if row.attempts + 1 >= MAX_ATTEMPTS:
                log.error("outbox row %s given up after %d attempts: %s", row.id,
                          row.attempts + 1, exc)
                await self._mark(row.id, "failed")
                return "done"
            delay = BACKOFF[min(row.attempts, len(BACKOFF) - 1)]
            async with self.storage.write() as tx:
                await tx.retry_later(row.id, now + delay, f"retry: {exc}"[:200])
            self._wake.set()
            return "blocked"
        except Undeliverable as exc:
            log.warning("outbox row %s (%s) cannot be delivered: %s", row.id, row.kind, exc)
            await self._mark(row.id, "failed")
            return "done"
        except Exception:
            log.exception("outbox row %s failed unexpectedly; it will be retried", row.id)
            async with self.storage.write() as tx:
                await tx.retry_later(row.id, now + BACKOFF[-1], "error")
            self._wake.set()
            return "blocked"
        self.spacing.sent(row, result)
        await self._mark(row.id, f"late {result}" if item.late else result)
        self.delivered += 1
        return "done"

    async def message(self, row: OutboxRow) -> Delivery:
        """The row's message as it would be sent now, its image read back (for checks)."""
        return await with_image(self.storage, self._states, delivery(row, self.clock()))

    async def _mark(self, row_id: int, result: str) -> None:
        async with self.storage.write() as tx:
            await tx.mark_sent(row_id, self.clock(), result)

    async def pending_games(self) -> list[int]:
        async with self.storage.read() as q:
            rows = await q.unsent(limit=10_000)
        return list(dict.fromkeys(r.game_id for r in rows))

    async def drain(self, *, settle: bool = False) -> int:
        """Deliver every game's due rows, ``DRAIN_GAMES`` games at a time (each game's rows
        in order, by one flush): after a restart many games' backlogs go out side by side.
        Returns the count. With ``settle`` (stopping), also wait for the table edits held by
        ``EDIT_SPACING`` and send them (the caller bounds the time)."""
        counts: list[int] = []

        async def worker(games: Iterator[int]) -> None:  # one shared iterator of games
            for game_id in games:
                counts.append(await self.flush(game_id, wait=0))  # claimed elsewhere: left
        while True:
            games = iter(await self.pending_games())
            await asyncio.gather(*(worker(games) for _ in range(DRAIN_GAMES)))
            if not settle or not self.spacing.held_for():
                break
            await asyncio.sleep(min(self.spacing.held_for(), default=0.0))
        count = sum(counts)
        now = self.clock()
        if now - self._pruned_at >= PRUNE_EVERY:
            async with self.storage.write() as tx:
                await tx.prune_outbox(now - KEEP_SENT)
            self._pruned_at = now
        return count

    async def next_due(self) -> float | None:
        """When the background task should look again (a reply row waits for its
        interaction up to ``REPLY_WINDOW``; a held table edit, until its spacing is over)."""
        async with self.storage.read() as q:
            rows = await q.unsent(limit=10_000)
        due = [max(r.next_at, r.created_at + REPLY_WINDOW) if r.kind == "reply" else r.next_at
               for r in rows] + [self.clock() + wait for wait in self.spacing.held_for()]
        return min(due, default=None)

    # --- the background task: what is left after a restart, and retries -----------------

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._closing = False
            self._task = asyncio.create_task(self._run(), name="khronos-outbox")

    def wake(self) -> None:
        self._wake.set()

    async def stop(self, grace: float = 0.0) -> None:
        """End the background task. A pass under way (a row being sent) goes on for up to
        ``grace`` seconds, so that a message Discord takes is marked sent: cut halfway, the
        row would stay unsent while its message may be out, and a later row of the same
        turn's table (``superseded``) would post a second table message. Then it is
        cancelled."""
        task, self._task = self._task, None
        if task is None:
            return
        self._closing = True
        self._wake.set()  # a task between passes ends at once
        if grace > 0:
            await asyncio.wait({task}, timeout=grace)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def _run(self) -> None:
        failing = 0
        while not self._closing:
            self._wake.clear()
            delay = IDLE_POLL
            try:
                await self.drain()
                nxt = await self.next_due()
                if nxt is not None:  # a held table edit is due within a second: on time
                    floor = 0.05 if self.spacing.held_for() else 0.5
                    delay = min(max(nxt - self.clock(), floor), IDLE_POLL)
                if failing:
                    log.warning("the outbox deliverer works again")
                failing = 0
            except Exception:
                if not failing:  # said once, not once a minute (a full disk, a lost file)
                    log.exception("the outbox deliverer failed; retrying every minute")
                failing += 1
                delay = 60.0
            await sleep_or_wake(self.sleep, self._wake, delay)


__all__ = [
    "Deliverer",
    "Delivery",
    "ReadFailed",
    "RetryLater",
    "Stopped",
    "Transport",
    "Undeliverable",
    "outboxed",
    "record",
    "reply_delivery",
    "undelivered",
    "unsent_count",
]
