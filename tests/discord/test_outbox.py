"""End to end: what the table is told follows the commit (the transactional outbox).

The real bot against the fake Discord: a refused image, a server error, a stop or a crash
between a move's commit and its post, closed DMs across a restart, Confirm then Cancel, and
mentions that never reach @everyone."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import replace

import pytest

import engine
from bot.discord import app
from bot.service import GameInfo, GameService, PermissionDenied
from bot.storage.sqlite import SqliteStorage
from engine import Age, BuildingType
from tests.discord.conftest import Scene, set_position, wait_until
from tests.discord.test_bot_game import Table, decodes
from tests.fakediscord.fake import FakeDiscord
from tests.fakediscord.models import FakeChannel, FakeMessage, FakeUser, Perm


def bot_messages(fake: FakeDiscord, ch: FakeChannel) -> list[FakeMessage]:
    return [m for m in fake.channel_messages(ch) if m.author.id == fake.bot_user.id]


async def two_seated(table: Table, alice: FakeUser,
                     bob: FakeUser) -> tuple[GameInfo, engine.GameState, FakeUser, FakeUser]:
    """alice creates a 2-player game and bob joins (it starts): the game's info and state, and
    who plays first and second."""
    await table.slash(alice, "create", players=2)
    await table.slash(bob, "join")
    info, state = await table.state()
    first = alice if info.user_of(state.turn) == alice.id else bob
    return info, state, first, bob if first is alice else alice


async def test_boards_refused_403_the_move_stands_and_is_told_in_words(
        scene: Scene) -> None:
    """No Attach Files in the channel: the post comes as text with the alt text, the channel
    hears once which permission is missing, the ping and the DMs still go out, and the player
    never reads that nothing was changed (the move is played exactly once)."""
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    fake.set_permissions(ch, fake.bot_user, deny=Perm.ATTACH_FILES)
    async with fake.running(scene.bot()) as bot:
        table = Table(fake, bot, ch, [alice, bob])
        info, state, first, second = await two_seated(table, alice, bob)
        before = info.version
        dms = len(fake.dms(second))
        seen = len(fake.channel_messages(ch))
        ia = await table.slash(first, "end")
        reply = ia.messages[0].content
        assert "nothing was changed" not in reply and "try again" not in reply.lower()
        info, state = await table.state()
        assert info.version == before + 1, "played once"
        await wait_until(lambda: len(fake.channel_messages(ch)) > seen)
        new = fake.channel_messages(ch)[seen:]
        # the next turn's table: a plain message (a layout needs its picture attached) with
        # the picture in words, mentioning the next player alone
        assert [m.pinged for m in new] == [[second.id]], [m.content for m in new]
        assert "(Image:" in new[0].content and not new[0].is_layout
        assert all(not m.attachments for m in fake.channel_messages(ch))
        assert any(c.startswith("kh:tb:hand:") for c in new[0].custom_ids()), "its buttons"
        await wait_until(lambda: len(fake.dms(second)) > dms)  # his 'your turn' DM
        notices = [m for m in fake.channel_messages(ch) if "Attach Files" in m.content]
        assert len(notices) == 1, "the missing permission is said once per game"


async def test_a_server_error_on_the_post_is_retried_not_reported_as_nothing_done(
        scene: Scene) -> None:
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with fake.running(scene.bot()) as bot:
        table = Table(fake, bot, ch, [alice, bob])
        info, state, first, second = await two_seated(table, alice, bob)
        seen = len(fake.channel_messages(ch))
        fake.post_failures = [503]
        ia = await table.slash(first, "end")
        assert "nothing was changed" not in ia.messages[0].content
        # the post is retried after its backoff, then the ping follows it, in order
        await wait_until(lambda: any(m.notified_user_ids() == [second.id]
                                     for m in fake.channel_messages(ch)[seen:]))
        new = fake.channel_messages(ch)[seen:]
        assert new[0].attachments and decodes(new[0])
        assert [m for m in new if m.attachments] == [new[0]], "posted once"


async def test_a_move_committed_before_a_crash_is_posted_after_the_restart(
        scene: Scene) -> None:
    """The process dies between the commit and the post: the next start posts the boards
    (marked late) and pings the next player."""
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with fake.running(scene.bot()) as bot:
        table = Table(fake, bot, ch, [alice, bob])
        info, state, first, second = await two_seated(table, alice, bob)
    # the command commits, and the process is killed before anything is sent
    async with SqliteStorage.in_dir(scene.data) as storage:
        await GameService(storage).act(ch.id, first.id, engine.EndTurn())
    seen = len(fake.channel_messages(ch))
    async with SqliteStorage.in_dir(scene.data) as storage:
        later = GameService(storage, clock=lambda: time.time() + 600)  # 10 minutes later
        async with fake.running(scene.bot(service=later)):
            await wait_until(lambda: any(m.pinged == [second.id]
                                         for m in fake.channel_messages(ch)[seen:]))
            new = fake.channel_messages(ch)[seen:]
            # the next turn's table message, saying that it comes late
            assert new[0].attachments and "(Delayed: this happened" in new[0].text()


async def test_sigterm_stops_commands_and_finishes_deliveries(
        scene: Scene) -> None:
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with fake.running(scene.bot()) as bot:
        table = Table(fake, bot, ch, [alice, bob])
        info, state, first, second = await two_seated(table, alice, bob)
        seen = len(fake.channel_messages(ch))
        # committed, not yet delivered, when the signal comes
        await bot.service.act(ch.id, first.id, engine.EndTurn())
        bot.request_stop()
        ia = await fake.slash(second, ch, "end")
        msg = await ia.wait_message(timeout=10)
        assert "restarting" in msg.content and msg.ephemeral
        await wait_until(bot.is_closed)
        new = fake.channel_messages(ch)[seen:]
        assert new and new[0].attachments, "the committed move was posted before closing"
        assert any(m.notified_user_ids() == [second.id] for m in new)
    async with SqliteStorage.in_dir(scene.data) as storage:
        assert (await GameService(storage).info(ch.id)).version == info.version + 1, \
            "the move before the signal stands; the /end after it was not played"


async def test_the_stop_ends_the_deliveries_it_abandoned_before_closing_the_database(
        scene: Scene, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
        ) -> None:
    """A timer's delivery still waiting when the grace ends (here for its game's outbox,
    claimed by another process) is cancelled and has ended when the database closes: left
    running, it went on against closed connections (a row whose image it was reading at
    that moment was taken for an unreadable one, with an error logged). Its rows stay for
    the next start, as they were."""
    monkeypatch.setattr(app, "STOP_GRACE", 0.3)
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with fake.running(scene.bot()) as bot:
        table = Table(fake, bot, ch, [alice, bob])
        info, state, first, second = await two_seated(table, alice, bob)
        await wait_until(lambda: not fake.posts_in_flight)
        async with SqliteStorage.in_dir(scene.data) as other:  # another process
            out = await GameService(other).act(ch.id, first.id, engine.EndTurn())
            now = time.time()
            async with other.write() as tx:
                assert await tx.claim_outbox(info.game_id, "other", now, now + 60)
            await bot.deliver_later(out)  # as the timer task does: it waits for the claim
            (waiting,) = bot._deliveries
            storage = bot._own_storage
            assert storage is not None
            running_at_close: list[bool] = []
            closing = storage.close

            async def close() -> None:
                running_at_close.append(not waiting.done())
                await closing()

            monkeypatch.setattr(storage, "close", close)
            with caplog.at_level(logging.DEBUG):
                await bot.close()
            assert running_at_close == [False], "the delivery ended before the database closed"
            assert waiting.cancelled()
            async with other.read() as q:
                left = await q.unsent(info.game_id)
            assert left and all(r.attempts == 0 for r in left), "left as they were"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_the_closed_dm_notice_is_said_once_even_across_restarts(
        scene: Scene) -> None:
    fake, ch = scene.fake, scene.ch
    alice, carol = fake.add_user("alice"), fake.add_user("carol", dms_open=False)
    for round_ in range(2):
        async with fake.running(scene.bot()) as bot:
            table = Table(fake, bot, ch, [alice, carol])
            if round_ == 0:
                await table.slash(alice, "create", players=2)
                await table.slash(carol, "join")
            for _ in range(2):
                info, state = await table.state()
                user = alice if info.seat_of(alice.id) == state.turn else carol
                await table.slash(user, "end")
    notes = [m for m in fake.channel_messages(ch) if "direct messages are closed" in m.content]
    assert len(notes) == 1


async def test_confirm_then_cancel_says_the_move_was_played(
        scene: Scene) -> None:
    """R24/R25 preview: Confirm plays the previewed move exactly (the button holds a short key,
    not the move); Cancel afterwards says it was played; a second Confirm plays nothing."""
    from engine.builder import position, tile_at

    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with fake.running(scene.bot()) as bot:
        table = Table(fake, bot, ch, [alice, bob])
        await table.slash(alice, "create", players=2)
        await table.slash(bob, "join")
        info, _ = await table.state()
        prepared = position(2, hands={0: "mmmm"}, turn=0)
        await set_position(bot, ch.id, prepared)
        red = table.user_at(info, 0)
        option = next(o for o in engine.construct_options(prepared, 0, Age.MIGHT,
                                                          BuildingType.KEEP))
        ia = await table.slash(red, "build", building="keep", square=option.square, age="might")
        msg = ia.messages[0]
        assert "Preview" in msg.content and decodes(msg)
        ok = next(c for c in msg.custom_ids() if c.startswith("kh:ok:"))
        no = next(c for c in msg.custom_ids() if c.startswith("kh:no:"))
        assert len(ok) <= 100 and len(no) <= 100
        before = (await table.state())[0].version
        click = await fake.click(red, msg, ok)
        await click.wait_message(timeout=10)
        after, state = await table.state()
        assert after.version == before + 1
        tile = tile_at(state, Age.MIGHT, option.square)
        assert tile is not None and tile.type is BuildingType.KEEP
        cancel = await fake.click(red, msg, no)
        await cancel.wait_ack()
        await wait_until(lambda: "played" in fake.get_message(msg.id).content)
        assert "nothing was played" not in fake.get_message(msg.id).content
        with pytest.raises(PermissionDenied, match="already confirmed"):
            await bot.service.confirm_preview(ok.removeprefix("kh:ok:"), red.id)
        assert (await table.state())[0].version == after.version


async def test_no_message_of_the_bot_can_ping_everyone(
        scene: Scene) -> None:
    """A player called @everyone with closed DMs, whose choice (R32/R33/R37) falls back to the
    channel: the message mentions him alone."""
    from engine.builder import position

    fake, ch = scene.fake, scene.ch
    alice, evil = fake.add_user("alice"), fake.add_user("@everyone", dms_open=False)
    async with fake.running(scene.bot()) as bot:
        table = Table(fake, bot, ch, [alice, evil])
        await table.slash(alice, "create", players=2)
        await table.slash(evil, "join")
        info, _ = await table.state()
        prepared = position(2, might="Keep F4 0; Watchtower F6 0; Keep I4 1",
                            faith="Keep I4 1 copy", reason="Keep I4 ruin copy",
                            hands={0: "ccmr"}, turn=0)
        async with bot.service.storage.write() as tx:
            game = await tx.game(info.game_id)
            assert game is not None
            await tx.update_game(game.id, game.version, now=0.0, state=prepared.model_dump_json(),
                                 checkpoint=prepared.model_dump_json())
            seats = await tx.seats(game.id)  # alice at seat 0, the chooser "@everyone" at 1
            order = sorted(seats, key=lambda s: s.user_id != alice.id)
            await tx.replace_seats(game.id, [replace(s, seat=i) for i, s in enumerate(order)])
        info, _ = await table.state()
        await table.play(table.user_at(info, 0), engine.Construct(
            age=Age.MIGHT, building=BuildingType.HAMLET, square="H4"))
        prompt = await fake.wait_for_message(
            ch, lambda m: any(c.startswith("kh:ch:") for c in m.custom_ids()))
        assert prompt.notified_user_ids() == [evil.id]
        sent = bot_messages(fake, ch)
        assert sent and all(m.allowed_mentions is not None for m in sent)
        assert not any(m.notifies_everyone() for m in sent)


async def test_a_player_named_like_a_seat_token_is_shown_as_himself(
        scene: Scene) -> None:
    """Seat 0 is called "{P1}": his /end is posted under his name, not seat 1's."""
    fake, ch = scene.fake, scene.ch
    odd, bob = fake.add_user("{P1}"), fake.add_user("bob")
    async with fake.running(scene.bot()) as bot:
        table = Table(fake, bot, ch, [odd, bob])
        await table.slash(odd, "create", players=2)
        await table.slash(bob, "join")
        info, state = await table.state()
        async with bot.service.storage.write() as tx:  # "{P1}" at seat 0, and to play
            seats = sorted(await tx.seats(info.game_id), key=lambda s: s.user_id != odd.id)
            await tx.replace_seats(info.game_id, [replace(s, seat=i) for i, s in enumerate(seats)])
            game = await tx.game(info.game_id)
            assert game is not None
            first = state.model_copy(update={"turn": 0})
            await tx.update_game(game.id, game.version, now=0.0, state=first.model_dump_json(),
                                 checkpoint=first.model_dump_json())
        await table.slash(odd, "end")
        await wait_until(lambda: "ends" in fake.channel_messages(ch)[-2].text())
        post = fake.channel_messages(ch)[-2]  # his turn's table, then bob's
        line = next(line for line in post.text().split("\n") if line.startswith("- "))
        assert "{P1}" in line and "bob" not in line, line


async def test_a_resend_after_a_crash_between_send_and_mark_lands_once(
        scene: Scene) -> None:
    """The post went out but the process died before marking its row sent: the resend
    carries the same nonce (enforce_nonce), so the channel shows the post once."""
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with fake.running(scene.bot()) as bot:
        table = Table(fake, bot, ch, [alice, bob])
        info, state, first, _ = await two_seated(table, alice, bob)
        out = await bot.service.pause(ch.id, alice.id)  # the creator pauses: a post
        async with bot.service.storage.read() as q:
            row = await q.outbox_row(out.outbox[0])
        assert row is not None and row.kind == "post"
        seen = len(fake.channel_messages(ch))
        await bot.deliverer.transport.send(await bot.deliverer.message(row))  # not marked
        await bot.deliverer.flush(info.game_id)
        posts = [m for m in fake.channel_messages(ch)[seen:] if "pause" in m.content]
        assert len(posts) == 1


async def test_commands_of_a_game_another_process_delivers_each_wait_at_most_the_bound(
        scene: Scene) -> None:
    """Another live process holds the game's delivery claim (it is sending a long backlog).
    Four commands of that game at once: each is answered within the claim wait (5 s) plus
    a margin, not one after another (they used to queue: 5, 10, 15, 20 s); once that process
    is gone, its claim with it, their rows go out."""
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with fake.running(scene.bot()) as bot:
        table = Table(fake, bot, ch, [alice, bob])
        info, *_ = await two_seated(table, alice, bob)
        other = await SqliteStorage.in_dir(scene.data).open()  # the other process
        try:
            async with other.write() as tx:
                now = time.time()
                assert await tx.claim_outbox(info.game_id, "busy", now, now + 600)
            seen = len(fake.channel_messages(ch))
            start = time.monotonic()
            commands = [await fake.slash(user, ch, name, options=options)
                        for user, name, options in (
                            (alice, "away", {"hours": 5}), (bob, "away", {"hours": 5}),
                            (alice, "back", {}), (bob, "back", {}))]
            await asyncio.gather(*(ia.wait_message(timeout=20) for ia in commands))
            took = time.monotonic() - start
            assert all(ia.messages[0].ephemeral for ia in commands)
            assert took < 9.0, f"the last answer came after {took:.1f} s"
            assert len(fake.channel_messages(ch)) == seen, "the holder sends the game's posts"
        finally:
            await other.close()
        await wait_until(lambda: len(fake.channel_messages(ch)) >= seen + 4)
