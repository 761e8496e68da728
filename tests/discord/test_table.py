"""The table in Discord: one living message per turn (docs/discord.md, "The table").

The real bot against the fake Discord: a whole turn edits one message and the next turn's
message pings only its player; My hand, Boards and Status; undo edits the message back; a
restart between a post and its first edit; a crash between a post and the storing of its
id (found again in the channel's history, or by the nonce); a deleted table message; edits
coalesced; the plain-message fallback; French and German games; the hand DM edited during
the player's turn."""

from __future__ import annotations

import asyncio
import io
import json
import time
from typing import Any

import discord

import engine
from bot.discord.app import KhronosBot
from bot.service import GameInfo, GameService, Image, hand_text
from bot.service import Table as TurnTable
from bot.service.outbox import delivery
from bot.storage.sqlite import SqliteStorage
from engine import Age
from engine.builder import position
from tests.discord.conftest import Scene, set_position, wait_until
from tests.discord.test_bot_game import Table, decodes
from tests.discord.test_outbox import two_seated
from tests.fakediscord.fake import FakeDiscord
from tests.fakediscord.models import FakeChannel, FakeMessage, FakeUser, Perm

TRAVEL_FAITH = engine.Travel(to=Age.FAITH, adventurer=0)
TRAVEL_REASON = engine.Travel(to=Age.REASON, adventurer=1)


def tables(fake: FakeDiscord, ch: FakeChannel) -> list[FakeMessage]:
    """The channel's table messages (a layout, or the plain fallback with its buttons)."""
    return [m for m in fake.channel_messages(ch)
            if m.is_layout or any(c.startswith("kh:tb:") for c in m.custom_ids())]


def moves_of(msg: FakeMessage) -> list[str]:
    """The moves a table message lists (its top-level list items)."""
    return [line for line in msg.text().split("\n") if line.startswith("- ")]


async def settled(bot: KhronosBot) -> None:
    """Everything committed is sent (held edits included). A drain leaves a game that another
    task is delivering at that moment to that task, so wait (at most 10 s) until no row is left
    unsent: on a loaded machine the interaction's own delivery may still be under way."""
    loop = asyncio.get_running_loop()
    end = loop.time() + 10
    while True:
        await bot.deliverer.drain(settle=True)
        if not await bot.deliverer.pending_games() or loop.time() > end:
            return
        await asyncio.sleep(0.02)


async def started(scene: Scene, bot: KhronosBot, alice: FakeUser, bob: FakeUser,
                  first_hand: str = "") -> tuple[Table, GameInfo, FakeUser, FakeUser]:
    """A started 2-player game; with ``first_hand``, the first player's turn goes on in a
    prepared position (those cards)."""
    table = Table(scene.fake, bot, scene.ch, [alice, bob])
    info, state, first, second = await two_seated(table, alice, bob)
    if first_hand:
        seat = info.seat_of(first.id)
        assert seat is not None
        await set_position(bot, scene.ch.id, position(2, hands={seat: first_hand}, turn=seat))
    await settled(bot)
    return table, info, first, second


async def test_a_whole_turn_edits_one_message_and_the_next_turn_pings_only_its_player(
        scene: Scene) -> None:
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with fake.running(scene.bot()) as bot:
        table, info, first, second = await started(scene, bot, alice, bob)
        [opening] = tables(fake, ch)
        assert opening.is_layout and opening.pinged == [first.id]
        assert opening.text().startswith(f"**Round 1 of 7** · <@{first.id}>'s turn")
        assert "Nothing played yet this turn." in opening.text()
        seen = len(fake.channel_messages(ch))
        for action in (TRAVEL_FAITH, TRAVEL_REASON, engine.EndTurn()):
            await asyncio.sleep(1.05)  # one edit per move (within a second they coalesce)
            await table.play(first, action)
            await settled(bot)
        record = fake.get_message(opening.id)
        assert len(record.history) == 3, "each move edited the turn's message"
        assert [m.pinged for m in fake.channel_messages(ch)[seen:]] == [[second.id]], (
            "one new public message: the next turn's, mentioning its player alone")
        words = moves_of(record)
        assert len(words) == 3 and "Faith" in words[0] and "Reason" in words[1]
        assert f"**Round 1 of 7** · {first.name}'s turn (over)" in record.text()
        assert f"<@{first.id}>" not in record.text() and f"Next: {second.name}." in record.text()
        assert decodes(record) and record.gallery()[0]["description"]
        nxt = tables(fake, ch)[-1]
        assert nxt.text().startswith(f"**Round 1 of 7** · <@{second.id}>'s turn")
        assert f"Waiting for {second.name}. Cards left this turn (R14)" in nxt.text()


async def test_undo_edits_the_message_back(scene: Scene) -> None:
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with fake.running(scene.bot()) as bot:
        table, info, first, second = await started(scene, bot, alice, bob)
        await table.play(first, TRAVEL_FAITH)
        await settled(bot)
        [msg] = tables(fake, ch)
        assert len(moves_of(fake.get_message(msg.id))) == 1
        await table.slash(first, "undo")
        await settled(bot)
        back = fake.get_message(msg.id)
        assert moves_of(back) == [] and "Nothing played yet this turn." in back.text()
        assert len(tables(fake, ch)) == 1, "no new message"


async def test_my_hand_is_the_readers_own_and_refused_to_others_boards_and_status(
        scene: Scene) -> None:
    fake, ch = scene.fake, scene.ch
    alice, bob, carl = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carl")
    async with fake.running(scene.bot()) as bot:
        table, info, first, second = await started(scene, bot, alice, bob)
        [msg] = tables(fake, ch)
        buttons = {c.split(":")[2]: c for c in msg.custom_ids() if c.startswith("kh:tb:")}
        assert set(buttons) == {"hand", "boards", "status"}
        _, state = await table.state()
        for user in (alice, bob):  # each sees his own hand, privately
            click = await fake.click(user, msg, buttons["hand"])
            answer = await click.wait_message(timeout=10)
            seat = info.seat_of(user.id)
            assert seat is not None
            assert answer.ephemeral and answer.content.startswith(hand_text(state, seat)[:40])
            assert decodes(answer) and answer.attachments[0].filename == "hand.png"
        click = await fake.click(carl, msg, buttons["hand"])  # not seated: refused
        refusal = await click.wait_message(timeout=10)
        assert refusal.ephemeral and not refusal.attachments
        assert refusal.content.startswith("You are not playing in this game")
        click = await fake.click(carl, msg, buttons["boards"])  # anyone may look
        boards = await click.wait_message(timeout=10)
        assert boards.ephemeral and boards.attachments[0].filename == "boards.png"
        click = await fake.click(carl, msg, buttons["status"])
        status = await click.wait_message(timeout=10)
        assert status.ephemeral and status.content.startswith("Round 1 of 7: ")
        assert len(tables(fake, ch)) == 1 and all(m.ephemeral for m in (boards, status))


async def test_the_buttons_work_after_a_restart(scene: Scene) -> None:
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with fake.running(scene.bot()) as bot:
        await started(scene, bot, alice, bob)
    [msg] = tables(fake, ch)
    hand = next(c for c in msg.custom_ids() if c.startswith("kh:tb:hand:"))
    async with fake.running(scene.bot()):
        click = await fake.click(bob, msg, hand)
        answer = await click.wait_message(timeout=10)
        assert answer.ephemeral and answer.content.startswith("Your hand:")


async def test_a_restart_between_a_post_and_its_first_edit(scene: Scene) -> None:
    """The turn's message is posted; the bot stops; a move is committed (the process dies
    before sending it); the next start edits that same message."""
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with fake.running(scene.bot()) as bot:
        table, info, first, second = await started(scene, bot, alice, bob)
    [msg] = tables(fake, ch)
    async with SqliteStorage.in_dir(scene.data) as storage:
        await GameService(storage).act(ch.id, first.id, TRAVEL_FAITH)
    posted = fake.messages_posted
    async with fake.running(scene.bot()):
        await wait_until(lambda: len(fake.get_message(msg.id).history) == 1)
    assert fake.messages_posted == posted, "nothing new: the move edited the turn's message"
    assert "Faith" in moves_of(fake.get_message(msg.id))[0]


async def crash_after_the_post(scene: Scene, bot: KhronosBot, first: FakeUser) -> int:
    """The first player ends his turn; the next turn's message is posted, and the process
    dies before storing its id (its row stays unsent). Returns the game's id."""
    out = await bot.service.act(scene.ch.id, first.id, engine.EndTurn())
    assert out.game is not None
    async with bot.service.storage.read() as q:
        rows = [await q.outbox_row(r) for r in out.outbox]
    opening = next(r for r in rows if r is not None and r.kind == "table"
                   and not json.loads(r.body)["table"]["closed"])
    await bot.deliverer.transport.send(delivery(opening, time.time()))  # posted
    key = "table:" + json.loads(opening.body)["table"]["turn"]
    async with bot.service.storage.write() as tx:  # ... its id never stored
        living = await tx.living_message(out.game.game_id, key)
        assert living is not None and living.message_id is not None
        await tx.keep_living_message(living.game_id, key, channel_id=living.channel_id,
                                     message_id=None, layout=True, now=0.0)
    return out.game.game_id


async def test_a_crash_between_a_post_and_storing_its_id_is_found_in_the_history(
        scene: Scene) -> None:
    """Minutes later (Discord has forgotten the nonce) the message is recognised among the
    channel's recent ones by its buttons: it is edited, not posted again, not pinged twice."""
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with fake.running(scene.bot()) as bot:
        table, info, first, second = await started(scene, bot, alice, bob)
        game_id = await crash_after_the_post(scene, bot, first)
        fake.nonce_window = 0.0
        await bot.deliverer.flush(game_id)
        await settled(bot)
        theirs = [m for m in tables(fake, ch) if f"<@{second.id}>" in m.text()]
        assert len(theirs) == 1, "one message for the turn"
        assert sum(m.pinged == [second.id] for m in fake.channel_messages(ch)) == 1


async def test_a_crash_between_a_post_and_storing_its_id_lands_once_by_its_nonce(
        scene: Scene) -> None:
    """Without Read Message History the message cannot be looked for: the post is sent
    again with its nonce, and Discord answers with the message already there."""
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with fake.running(scene.bot()) as bot:
        table, info, first, second = await started(scene, bot, alice, bob)
        game_id = await crash_after_the_post(scene, bot, first)
        fake.set_permissions(ch, fake.bot_user, deny=Perm.READ_MESSAGE_HISTORY)
        await bot.deliverer.flush(game_id)
        await settled(bot)
        theirs = [m for m in tables(fake, ch) if f"<@{second.id}>" in m.text()]
        assert len(theirs) == 1 and theirs[0].pinged == [second.id]
        await table.play(second, TRAVEL_FAITH)  # and its id is known again: edited
        await settled(bot)
        assert len(fake.get_message(theirs[0].id).history) >= 1


async def test_a_deleted_table_message_is_posted_anew_without_a_ping(scene: Scene) -> None:
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with fake.running(scene.bot()) as bot:
        table, info, first, second = await started(scene, bot, alice, bob)
        [msg] = tables(fake, ch)
        await fake._delete(fake.get_message(msg.id))  # someone deleted it
        await table.play(first, TRAVEL_FAITH)
        await settled(bot)
        [again] = tables(fake, ch)
        assert again.id != msg.id and again.pinged == [], "the turn was announced already"
        assert "Faith" in moves_of(again)[0]
        await asyncio.sleep(1.05)
        await table.play(first, TRAVEL_REASON)
        await settled(bot)
        assert tables(fake, ch) == [again] and len(fake.get_message(again.id).history) == 1


async def test_a_turn_over_before_its_message_went_out_is_posted_without_a_ping(
        scene: Scene) -> None:
    """A turn that opened and closed before the bot could post its message (its rows waited
    together): the one message says the turn is over and pings nobody; the turn that is open
    now pings its player."""
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with fake.running(scene.bot()) as bot:
        table, info, first, second = await started(scene, bot, alice, bob)
        seen = len(fake.channel_messages(ch))
        for user in (first, second):  # committed together, then sent
            await bot.service.act(ch.id, user.id, engine.EndTurn())
        await bot.deliverer.flush(info.game_id)
        await settled(bot)
        fresh = [m for m in tables(fake, ch) if m in fake.channel_messages(ch)[seen:]]
        assert len(fresh) == 2, "one message for the turn that went by, one for the new turn"
        gone, now = fresh
        assert f"{second.name}'s turn (over)" in gone.text() and gone.pinged == []
        assert now.pinged == [first.id]


async def test_several_moves_within_a_second_are_one_edit_of_the_latest(scene: Scene) -> None:
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with fake.running(scene.bot()) as bot:
        table, info, first, second = await started(scene, bot, alice, bob)
        [msg] = tables(fake, ch)
        await asyncio.sleep(1.05)  # a second after its post

        def edits() -> int:
            return len(fake.get_message(msg.id).history)

        for action in (TRAVEL_FAITH, TRAVEL_REASON):  # committed together, then sent
            await bot.service.act(ch.id, first.id, action)
        await bot.deliverer.flush(info.game_id)
        assert edits() == 1, "one edit"
        assert len(moves_of(fake.get_message(msg.id))) == 2, "of the latest state"
        # a move right after that edit waits a second and goes with whatever follows it
        ia = await table.slash(first, "end")
        assert ia.messages[0].ephemeral
        assert edits() == 1, "held: the message was just edited"
        await wait_until(lambda: edits() == 2, timeout=5)
        assert "(over)" in fake.get_message(msg.id).text()


async def test_the_layout_refused_falls_back_to_a_plain_message_said_once(
        scene: Scene) -> None:
    """A Discord that refuses the Components V2 flag: each turn's table is today's plain
    message (its text, its picture, its buttons), edited the same way; the channel is told
    once why."""
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    fake.allowed_message_flags &= ~(1 << 15)
    async with fake.running(scene.bot()) as bot:
        table, info, first, second = await started(scene, bot, alice, bob)
        [msg] = tables(fake, ch)
        assert not msg.is_layout and msg.pinged == [first.id]
        assert msg.content.startswith(f"**Round 1 of 7** · <@{first.id}>'s turn")
        assert msg.attachments[0].filename == "table.png" and decodes(msg)
        await table.play(first, engine.EndTurn())
        await settled(bot)
        assert "(over)" in fake.get_message(msg.id).content
        assert [m.is_layout for m in tables(fake, ch)] == [False, False]
        told = [m for m in fake.channel_messages(ch) if "could not be shown as a layout" in
                m.content]
        assert len(told) == 1 and "50035" in told[0].content


async def test_french_and_german_games(scene: Scene) -> None:
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with fake.running(scene.bot()) as bot:
        table = Table(fake, bot, ch, [alice, bob])
        await table.slash(alice, "create", players=2)
        await table.slash(alice, "game settings", language="fr")
        await table.slash(bob, "join")
        info, state = await table.state()
        first = alice if info.user_of(state.turn) == alice.id else bob
        await table.play(first, TRAVEL_FAITH)
        await settled(bot)
        [msg] = tables(fake, ch)
        text = fake.get_message(msg.id).text()
        assert text.startswith(f"**Manche 1 sur 7** · au tour de <@{first.id}>")
        assert "Foi" in moves_of(fake.get_message(msg.id))[0]
        assert "/fin termine le tour." in text
        labels = [c.get("label") for c in fake.get_message(msg.id).components[0]["components"][
            -1]["components"]]
        assert labels == ["Ma main", "Plateaux", "État"]
        assert fake.get_message(msg.id).gallery()[0]["description"].startswith("Table de")
        await table.slash(alice, "game settings", language="de")  # from now on, German
        await table.play(first, engine.EndTurn())
        await settled(bot)
        closed, opened = tables(fake, ch)
        record = fake.get_message(closed.id).text()
        assert "Zug von" in record and "(beendet)" in record and "Glaube" in record
        assert opened.text().startswith("**Runde 1 von 7** · <@")
        assert "ist am Zug" in opened.text() and "/ende beendet den Zug." in opened.text()
        labels = [c.get("label") for c in opened.components[0]["components"][-1]["components"]]
        assert labels == ["Meine Hand", "Spielpläne", "Stand"]


async def test_the_hand_dm_is_edited_during_the_players_turn(scene: Scene) -> None:
    """A new DM when his turn starts ("your turn", with his hand); edited after each of his
    moves; a new one when cards reach him outside his turn (the draw at its end)."""
    fake = scene.fake
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with fake.running(scene.bot()) as bot:
        table, info, first, second = await started(scene, bot, alice, bob, "mm")
        seat = info.seat_of(first.id)
        assert seat is not None
        [living] = [m for m in fake.dms(first) if m.content.startswith("It is your turn.")]
        assert decodes(living), "his hand's picture with it"
        dms = len(fake.dms(first))
        _, state = await table.state()  # a building: his hand changes
        build = next(a for a in engine.legal_actions(state, seat)
                     if isinstance(a, engine.Construct))
        await table.play(first, build)
        await settled(bot)
        assert len(fake.dms(first)) == dms, "no new DM in his turn"
        _, state = await table.state()
        edited = fake.get_message(living.id)
        assert edited.history and edited.content.startswith(
            "It is your turn. " + hand_text(state, seat).split(" This turn")[0])
        await asyncio.sleep(1.05)
        await table.play(first, TRAVEL_FAITH)
        await settled(bot)
        assert len(fake.dms(first)) == dms and len(fake.get_message(living.id).history) == 2
        await table.play(first, engine.EndTurn())
        await settled(bot)
        after = fake.dms(first)[-1]
        assert after.id != living.id and after.content.startswith("Your hand:"), (
            "the cards drawn at the end of his turn: a new DM")
        theirs = fake.dms(second)[-1]
        assert theirs.content.startswith("It is your turn. Your hand:") and decodes(theirs)


def long_table(lines: int, length: int) -> TurnTable:
    state = engine.new_game(engine.Options(players=3), 1)
    image = Image("table", state, {0: "a", 1: "b", 2: "c"}, lang="en")
    return TurnTable("1:0", 0, 42, "**Round 1 of 7** · <@42>'s turn", tuple(
        f"- move {i} " + "x" * length for i in range(lines)), "Waiting for a. " + "y" * 3000,
        image)


def v2_counts(components: list[dict[str, Any]]) -> tuple[int, int]:
    """(components, characters of text displays) of a Components V2 payload."""
    count = chars = 0
    stack = list(components)
    while stack:
        comp = stack.pop()
        count += 1
        chars += len(comp.get("content", "")) if comp.get("type") == 10 else 0
        stack += comp.get("components", [])
    return count, chars


def payload(view: discord.ui.LayoutView) -> list[dict[str, Any]]:
    """The view's components as Discord receives them."""
    # discord.py leaves LayoutView.to_components unannotated (View's is typed)
    components: list[dict[str, Any]] = view.to_components()  # type: ignore[no-untyped-call]
    return components


def test_a_long_turn_fits_discords_limits_latest_moves_first() -> None:
    """60 moves of 200 characters and a 3,000-character question: the layout keeps within
    4,000 characters of text displays and 40 components, the plain message within 2,000;
    both keep the latest moves whole and count the ones left out (/history has them)."""
    from bot.discord.table import TableButton, layout, plain

    table = long_table(60, 200)
    view = layout(table, 7, "en", discord.File(io.BytesIO(b"png"), "table.png"), "alt")
    count, chars = v2_counts(payload(view))
    assert count <= 40 and chars <= 4000
    shown = " ".join(c["content"] for c in payload(view)[0]["components"]
                     if c["type"] == 10)
    assert "- move 59 " in shown and "- move 0 " not in shown and "earlier: /history)" in shown
    text, buttons = plain(table, 7, "en", "the picture in words")
    assert len(text) <= 2000 and "- move 59 " in text and "(Image: the picture in words)" in text
    ids = []
    for item in buttons.children:
        assert isinstance(item, TableButton)
        ids.append(item.custom_id)
    assert ids == ["kh:tb:hand:7:1.0", "kh:tb:boards:7:1.0", "kh:tb:status:7:1.0"]


async def test_a_pause_shows_on_the_table_and_the_resume_brings_the_new_deadline(
        scene: Scene) -> None:
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with fake.running(scene.bot()) as bot:
        table = Table(fake, bot, ch, [alice, bob])
        await table.slash(alice, "create", players=2, deadline=24)
        await table.slash(bob, "join")
        await settled(bot)
        [msg] = tables(fake, ch)
        assert " · ends <t:" in msg.text(), "the turn's deadline, in each reader's time"
        await table.slash(alice, "game pause")
        await settled(bot)
        paused = fake.get_message(msg.id).text()
        assert "Paused since <t:" in paused and " · ends <t:" not in paused
        await table.slash(alice, "game resume")
        await settled(bot)
        resumed = fake.get_message(msg.id).text()
        assert " · ends <t:" in resumed and "Paused" not in resumed
