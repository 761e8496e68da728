"""End to end: the real bot (unmodified discord.py) against our fake Discord.

A complete 2-player game through slash commands and buttons to the final scores, with a bot
restart in the middle; plus refusals, autocomplete, previews and closed DMs."""

from __future__ import annotations

import io
import random
from functools import partial
from pathlib import Path

import pytest
from PIL import Image as PILImage

import engine
from bot.discord.app import KhronosBot, create_bot
from bot.service import GameInfo, hand_text
from bot.settings import Settings
from engine import Age, Family
from tests.discord.conftest import wait_until
from tests.discord.discord_spec import findings
from tests.fakediscord.fake import FakeDiscord
from tests.fakediscord.models import (
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    OptionValue,
)

LETTER = {Family.MILITARY: "m", Family.RELIGIOUS: "r", Family.CIVIL: "c"}


def letters(cards: tuple[Family, ...] | None) -> str | None:
    return "".join(LETTER[c] for c in cards) if cards else None


def make_bot(fake: FakeDiscord, data: Path, guild_id: int) -> KhronosBot:
    settings = Settings(
        DISCORD_TOKEN=fake.token, KHRONOS_DATA_DIR=data, KHRONOS_TEST_GUILD_ID=guild_id
    )
    return create_bot(settings)


def decodes(msg: FakeMessage) -> bool:
    assert msg.attachments, msg.content
    att = msg.attachments[0]
    img = PILImage.open(io.BytesIO(att.data))
    img.load()
    assert att.description, "every image carries alt text"
    return img.width > 200 and img.height > 200


class Table:
    """Drives one game: who is who, and the commands a player would type."""

    def __init__(self, fake: FakeDiscord, bot: KhronosBot, ch: FakeChannel,
                 users: list[FakeUser]) -> None:
        self.fake, self.bot, self.ch = fake, bot, ch
        self.users = {u.id: u for u in users}

    async def state(self) -> tuple[GameInfo, engine.GameState]:
        return await self.bot.service.snapshot(self.ch.id)

    def user_at(self, info: GameInfo, seat: int) -> FakeUser:
        """The user at ``seat`` (one of this table's)."""
        user_id = info.user_of(seat)
        assert user_id is not None, f"nobody at seat {seat}"
        return self.users[user_id]

    async def slash(self, user: FakeUser, name: str,
                    **options: OptionValue | None) -> FakeInteraction:
        opts = {k: v for k, v in options.items() if v is not None}
        ia = await self.fake.slash(user, self.ch, name, options=opts)
        await ia.wait_ack()
        await ia.wait_message(timeout=10)
        return ia

    async def answer_choice(self, user: FakeUser) -> None:
        """Click the first option of the choice buttons DMed to ``user``."""
        dm = await self.fake.wait_for_dm(user, lambda m: any(
            c.startswith("kh:ch:") for c in m.custom_ids()))
        choice = next(c for c in dm.custom_ids() if c.startswith("kh:ch:"))
        click = await self.fake.click(user, dm, choice)
        await click.wait_ack()
        await click.wait_message(timeout=10)

    async def play(self, user: FakeUser, action: engine.Action) -> FakeInteraction:
        """Type the slash command for ``action``; confirm a preview if one is shown."""
        match action:
            case engine.Construct():
                ia = await self.slash(user, "build", building=action.building.value,
                                      square=action.square, age=action.age.label.lower(),
                                      pay=letters(action.surcharge))
            case engine.Upgrade():
                ia = await self.slash(user, "upgrade", square=action.square, to=action.to.value,
                                      age=action.age.label.lower(), at=action.at,
                                      pay=letters(action.surcharge))
            case engine.Travel():
                ia = await self.slash(user, "travel", age=action.to.label.lower(),
                                      adventurer=None if action.adventurer is None
                                      else action.adventurer + 1)
            case engine.Populate():
                ia = await self.slash(user, "populate", square=action.square, count=action.count)
            case engine.Renovate():
                ia = await self.slash(user, "renovate", square=action.square, cards=action.cards)
            case engine.EndTurn():
                ia = await self.slash(user, "end", discard=letters(action.discard))
            case _:
                raise AssertionError(action)
        msg = ia.messages[0]
        assert msg.ephemeral, "answers to the acting player are private"
        confirm = [c for c in msg.custom_ids() if c.startswith("kh:ok:")]
        if confirm:
            assert "Preview" in msg.content
            click = await self.fake.click(user, msg, confirm[0])
            await click.wait_ack()
            await click.wait_message(timeout=10)
        return ia


def hands_current(fake: FakeDiscord, info: GameInfo, state: engine.GameState,
                  users: list[FakeUser]) -> bool:
    """Whether each player's latest hand DM (his turn's, edited in place, or the one sent
    after it) is his own current hand, with its image."""
    for u in users:
        seat = info.seat_of(u.id)
        assert seat is not None
        hands = [m for m in fake.dms(u) if m.content.removeprefix("It is your turn. ")
                 .startswith("Your hand")]
        # the cards held are current; what the adventurers have left (R14) is as of the DM
        held = hand_text(state, seat).split(" This turn (R14)")[0]
        if not hands or not hands[-1].content.removeprefix("It is your turn. ").startswith(held):
            return False
        assert decodes(hands[-1])
    return True


async def check_hands(fake: FakeDiscord, info: GameInfo, state: engine.GameState,
                      users: list[FakeUser]) -> None:
    """Each player's hand DM shows his current hand (an edit may wait a second: several
    edits of one message within a second are one)."""
    await wait_until(lambda: hands_current(fake, info, state, users))


def tables(fake: FakeDiscord, ch: FakeChannel) -> list[FakeMessage]:
    """The channel's table messages (Components V2, one per turn), oldest first."""
    return [m for m in fake.channel_messages(ch) if m.is_layout]


def shown(fake: FakeDiscord, ch: FakeChannel, edits_before: dict[int, int],
          seen: int) -> list[FakeMessage]:
    """The table messages a command changed: posted after ``seen`` or edited since
    ``edits_before`` (message id -> number of earlier versions)."""
    return [m for m in tables(fake, ch) if m.id not in edits_before
            or len(m.history) > edits_before[m.id]
            or m in fake.channel_messages(ch)[seen:]]


def pick(state: engine.GameState, seat: int, rng: random.Random, plays: int) -> engine.Action:
    """A varied but short game: up to three card actions a turn, then end it."""
    actions = engine.legal_actions(state, seat)
    cards = [a for a in actions if a.kind in ("construct", "upgrade", "populate", "renovate")]
    travel = [a for a in actions if a.kind == "travel"]
    if cards and plays < 3 and rng.random() < 0.8:
        return rng.choice(cards)
    if travel and plays < 3 and rng.random() < 0.2:
        return rng.choice(travel)
    return engine.EndTurn()


async def open_the_game(table: Table, guild: FakeGuild, alice: FakeUser,
                        bob: FakeUser) -> tuple[GameInfo, engine.GameState]:
    """alice creates a 2-player game and bob joins: the first player alone is pinged, each hand
    goes by DM to its owner only, a refusal is private and changes nothing, autocomplete offers
    exactly the legal squares."""
    fake, ch = table.fake, table.ch
    assert {"create", "join", "build", "upgrade", "end", "choose", "hand"} <= set(
        fake.command_names(guild))
    await table.slash(alice, "create", players=2)
    await table.slash(bob, "join")  # full: the game starts
    info, state = await table.state()
    first = table.user_at(info, state.turn)
    ping = await fake.wait_for_message(ch, lambda m: m.mentioned_user_ids() == [first.id])
    assert ping.notified_user_ids() == [first.id]
    for u in (alice, bob):  # each hand by DM, to its owner only
        seat = info.seat_of(u.id)
        dm = await fake.wait_for_dm(u, lambda m: bool(m.attachments))
        assert decodes(dm)
        for seated in info.seats:
            if seated.user_id != u.id:
                assert all(f"{seated.name}: your hand" not in m.content for m in fake.dms(u))
        assert seat is not None

    # a refusal is private and changes nothing
    other = bob if first is alice else alice
    before = info.version
    ia = await table.slash(other, "end")
    assert ia.messages[0].ephemeral and "not your turn" in ia.messages[0].content
    assert (await table.state())[0].version == before

    # autocomplete offers exactly the legal squares
    info, state = await table.state()
    seat = state.turn
    expect = [o.square for o in engine.construct_options(state, seat, Age.MIGHT,
                                                         engine.BuildingType.WATCHTOWER)]
    choices = await fake.autocomplete(first, ch, "build", focused="square", options={
        "building": "watchtower", "age": "might", "square": ""})
    assert [c["value"] for c in choices] == expect[:25]
    assert all("military" in c["name"] for c in choices)
    return info, state


async def play_to_a_preview(table: Table, info: GameInfo, state: engine.GameState,
                            rng: random.Random) -> tuple[FakeUser, FakeMessage, str] | None:
    """Play on until a rippling build is previewed (from round 2) and leave it unconfirmed:
    its player, the preview and its Confirm button (None: the game ended first). Every move
    shows on the table, a new turn pings its player alone, the hands by DM stay current."""
    fake, ch = table.fake, table.ch
    plays = 0
    while not state.over:
        seat = engine.current_seat(state)
        assert seat is not None
        user = table.user_at(info, seat)
        seen = len(fake.channel_messages(ch))
        edits = {m.id: len(m.history) for m in tables(fake, ch)}
        if state.pending is not None:
            await table.answer_choice(user)
        else:
            action = pick(state, seat, rng, plays)
            rippling = [a for a in engine.legal_actions(state, seat)
                        if isinstance(a, engine.Construct) and a.age is Age.MIGHT
                        and engine.BUILDINGS[a.building].size >= 2]
            if state.round >= 2 and rippling:
                action = rippling[0]
                # leave a preview unconfirmed across a restart
                ia = await table.slash(user, "build", building=action.building.value,
                                       square=action.square, age=action.age.label.lower(),
                                       pay=letters(action.surcharge))
                msg = ia.messages[0]
                ok = [c for c in msg.custom_ids() if c.startswith("kh:ok:")]
                if ok:
                    return user, msg, ok[0]
            await table.play(user, action)
            plays = 0 if action.kind == "end_turn" else plays + 1
        await wait_until(partial(shown, fake, ch, edits, seen))
        changed = shown(fake, ch, edits, seen)
        assert changed, ("every move shows on the table", state.pending)
        for m in changed:
            assert decodes(m), "the table's picture, with its alt text"
            if m in fake.channel_messages(ch)[seen:]:  # a new turn: he alone is pinged
                info, state = await table.state()
                assert m.pinged == [info.user_of(state.turn)]
        new = fake.channel_messages(ch)[seen:]
        assert all(m.is_layout or "waits for your choice" in m.content for m in new), \
            "a new message is a new turn's table, or a choice for another player (R37)"
        info, state = await table.state()
        await check_hands(fake, info, state, list(table.users.values()))
    return None


def new_tables(fake: FakeDiscord, ch: FakeChannel, seen: int) -> list[FakeMessage]:
    """The table messages among those after the channel's first ``seen``."""
    return [m for m in fake.channel_messages(ch)[seen:] if m.is_layout]


async def confirm_and_finish(table: Table, preview: tuple[FakeUser, FakeMessage, str],
                             alice: FakeUser, rng: random.Random) -> None:
    """After the restart: the preview's old Confirm button still works, the game is played to
    its end (each new turn's table pings its player alone), the end-of-game picture, one table
    message per turn, and a move's before and after on request, privately."""
    fake, ch = table.fake, table.ch
    user, msg, custom_id = preview
    before, _ = await table.state()
    click = await fake.click(user, msg, custom_id)
    await click.wait_ack()
    await click.wait_message(timeout=10)
    info, state = await table.state()
    assert info.version == before.version + 1, "the old Confirm button still works"
    plays = 1
    while not state.over:
        seat = engine.current_seat(state)
        assert seat is not None
        user = table.user_at(info, seat)
        if state.pending is not None:
            await table.answer_choice(user)
        else:
            action = pick(state, seat, rng, plays)
            seen = len(fake.channel_messages(ch))
            await table.play(user, action)
            plays = 0 if action.kind == "end_turn" else plays + 1
            if action.kind == "end_turn" and not (await table.state())[1].over:
                info2, st2 = await table.state()
                next_seat = engine.current_seat(st2)
                assert next_seat is not None
                nxt = info2.user_of(next_seat)
                await wait_until(partial(new_tables, fake, ch, seen))
                pings = [m for m in fake.channel_messages(ch)[seen:] if m.pinged]
                assert [m.pinged for m in pings] == [[nxt]], "the new turn's table alone"
        info, state = await table.state()
    await wait_until(lambda: "game is over" in tables(fake, ch)[-1].text().lower())
    final = fake.channel_messages(ch)[-4:]
    # the end-of-game picture, with its alt text, after the last turn's table
    summary = [m for m in final if m.attachments
               and m.attachments[0].filename == "summary.png"]
    assert summary and decodes(summary[0])
    assert all(m.attachments[0].filename in ("table.png", "summary.png")
               for m in fake.channel_messages(ch) if m.attachments)
    # one table message per turn: 7 rounds of 2 players
    assert len(tables(fake, ch)) == 14
    assert state.winners
    # a move's before and after, on request, privately
    entries = await table.bot.service.history_entries(ch.id)
    ia = await table.slash(alice, "board", move=entries[3].seq)
    msg = ia.messages[0]
    assert msg.ephemeral and f"Move {entries[3].seq}" in msg.content and decodes(msg)


async def test_a_whole_game_through_discord_with_a_restart(fake_discord: FakeDiscord,
                                                           tmp_path: Path) -> None:
    fake = fake_discord
    guild = fake.add_guild()
    ch = fake.add_channel(guild, "khronos")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    rng = random.Random(4)

    async with fake.running(make_bot(fake, tmp_path, guild.id)) as bot:
        table = Table(fake, bot, ch, [alice, bob])
        info, state = await open_the_game(table, guild, alice, bob)
        pending_confirm = await play_to_a_preview(table, info, state, rng)

    # --- restart: a new process of the bot against the same database and Discord --------
    assert pending_confirm is not None, "a rippling build was previewed before the restart"
    async with fake.running(make_bot(fake, tmp_path, guild.id)) as bot:
        await confirm_and_finish(Table(fake, bot, ch, [alice, bob]), pending_confirm, alice,
                                 rng)
    # everything the bot sent in the whole game is what Discord accepts (its OpenAPI
    # description and the documented limits: Components V2, alt texts, mentions …)
    sent = [r for r in fake.requests if r["method"] in ("POST", "PATCH", "PUT")]
    assert any(r["method"] == "PATCH" and "/messages/" in r["path"] for r in sent)
    assert findings(fake.requests) == []


async def test_closed_dms_are_told_once_and_the_hand_stays_private(fake_discord: FakeDiscord,
                                                                   tmp_path: Path) -> None:
    fake = fake_discord
    guild = fake.add_guild()
    ch = fake.add_channel(guild, "khronos")
    alice, carol = fake.add_user("alice"), fake.add_user("carol", dms_open=False)
    async with fake.running(make_bot(fake, tmp_path, guild.id)) as bot:
        table = Table(fake, bot, ch, [alice, carol])
        await table.slash(alice, "create", players=2)
        await table.slash(carol, "join")
        note = await fake.wait_for_message(ch, lambda m: "direct messages are closed" in m.content)
        assert "carol" in note.content and not note.attachments  # the hand is not shown
        ia = await table.slash(carol, "hand")
        msg = ia.messages[0]
        assert msg.ephemeral and msg.attachments and decodes(msg)
        info, state = await table.state()
        seat = info.seat_of(carol.id)
        # a second failing DM does not repeat the notice
        for _ in range(3):
            info, state = await table.state()
            user = alice if info.seat_of(alice.id) == state.turn else carol
            await table.slash(user, "end")
        notes = [m for m in fake.channel_messages(ch) if "direct messages are closed" in m.content]
        assert len(notes) == 1
        assert seat is not None


def test_missing_token_is_one_sentence(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.__main__ import main

    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main([]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "DISCORD_TOKEN" in err


async def test_wrong_token_is_one_sentence(fake_discord: FakeDiscord, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    import asyncio
    import logging

    from bot.discord.start import run_discord

    settings = Settings(DISCORD_TOKEN="not-the-token", KHRONOS_DATA_DIR=tmp_path)
    handlers, level = logging.root.handlers[:], logging.root.level
    try:
        code = await asyncio.wait_for(asyncio.to_thread(run_discord, settings), 30)
    finally:
        logging.root.handlers[:], logging.root.level = handlers, level
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("Discord refused the token")


async def test_a_choice_dmed_before_a_restart_is_answered_after_it(fake_discord: FakeDiscord,
                                                                  tmp_path: Path) -> None:
    """R32/R33/R37: the owner of the losing Keep places its Watchtower with a DM button."""
    from engine.builder import position, tile_at

    fake = fake_discord
    guild = fake.add_guild()
    ch = fake.add_channel(guild, "khronos")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with fake.running(make_bot(fake, tmp_path, guild.id)) as bot:
        table = Table(fake, bot, ch, [alice, bob])
        await table.slash(alice, "create", players=2)
        await table.slash(bob, "join")
        info, _ = await table.state()
        # The rulebook's junction: seat 0 (Keep + Watchtower, power 3) against seat 1's Keep.
        prepared = position(2, might="Keep F4 0; Watchtower F6 0; Keep I4 1",
                            faith="Keep I4 1 copy", reason="Keep I4 ruin copy",
                            hands={0: "ccmr"}, turn=0)
        async with bot.service.storage.write() as tx:
            game = await tx.game(info.game_id)
            assert game is not None
            await tx.update_game(game.id, game.version, now=0.0, state=prepared.model_dump_json(),
                                 checkpoint=prepared.model_dump_json())
        red, white = table.user_at(info, 0), table.user_at(info, 1)
        await table.play(red, engine.Construct(age=Age.MIGHT, building=engine.BuildingType.HAMLET,
                                               square="H4"))
        dm = await fake.wait_for_dm(white, lambda m: any(c.startswith("kh:ch:")
                                                           for c in m.custom_ids()))
        assert "downsized" in dm.content or "Watchtower" in dm.content
        options = [c for c in dm.custom_ids() if c.startswith("kh:ch:")]
        assert len(options) == 4
        # only the chooser may answer
        wrong = await fake.click(red, dm, options[0])
        await wrong.wait_message(timeout=10)
        assert wrong.messages[0].ephemeral and "waiting for" in wrong.messages[0].content

    async with fake.running(make_bot(fake, tmp_path, guild.id)) as bot:
        table = Table(fake, bot, ch, [alice, bob])
        seen = len(fake.channel_messages(ch))
        red_table = tables(fake, ch)[-1]
        versions = len(red_table.history)
        red_dms = len(fake.dms(red))
        click = await fake.click(white, dm, options[1])  # J4
        await click.wait_ack()
        await click.wait_message(timeout=10)
        info, state = await table.state()
        assert state.pending is None
        j4 = tile_at(state, Age.MIGHT, "J4")
        assert j4 is not None and j4.type is engine.BuildingType.WATCHTOWER
        assert tile_at(state, Age.FAITH, "I4") is None and tile_at(state, Age.REASON, "I4") is None
        # the choice is shown by red's turn's table message, edited; nobody else is pinged
        await wait_until(lambda: len(fake.get_message(red_table.id).history) > versions)
        assert "Watchtower" in fake.get_message(red_table.id).text()
        assert all(m.pinged in ([], [red.id]) for m in fake.channel_messages(ch)[seen:])
        # the turn is red's again: a new "your turn" DM tells him (no second public ping)
        await wait_until(lambda: any(m.content.startswith("It is your turn.")
                                     for m in fake.dms(red)[red_dms:]))


def test_long_texts_are_split_at_line_ends_within_discords_limit() -> None:
    from bot.commands import help_text
    from bot.discord.messages import chunks

    text = help_text()
    parts = chunks(text)
    assert len(text) > 2000 and len(parts) >= 2
    assert all(0 < len(p) <= 2000 for p in parts)
    assert "\n".join(parts) == text
    assert chunks("x" * 4500) == ["x" * 2000, "x" * 2000, "x" * 500]
    assert chunks("") == ["\u200b"]


async def test_help_in_discord_is_complete_and_private(fake_discord: FakeDiscord,
                                                       tmp_path: Path) -> None:
    from bot.commands import help_text, rules_text

    fake = fake_discord
    guild = fake.add_guild()
    ch = fake.add_channel(guild, "khronos")
    alice = fake.add_user("alice")
    async with fake.running(make_bot(fake, tmp_path, guild.id)):
        ia = await fake.slash(alice, ch, "help")
        await ia.wait_ack()
        parts = [await ia.wait_message(lambda m: "Squares: A-T" in m.content, timeout=10)]
        assert all(m.ephemeral for m in ia.messages)
        assert "\n".join(m.content for m in ia.messages) == help_text()
        ia = await fake.slash(alice, ch, "help", options={"topic": "rules"})
        msg = await ia.wait_message(timeout=10)
        assert msg.content == rules_text() and "R21" in msg.content and msg.ephemeral
        assert parts


async def test_help_on_the_buildings_and_on_a_command_in_discord(fake_discord: FakeDiscord,
                                                                 tmp_path: Path) -> None:
    """/help buildings and /help build, as the terminal has them; the topic is offered by
    autocomplete in the player's language (every command is a topic: more than 25 choices)."""
    from bot.commands import COMMANDS, buildings_text, command_help

    fake = fake_discord
    guild = fake.add_guild()
    ch = fake.add_channel(guild, "khronos")
    alice = fake.add_user("alice")
    zoe = fake.add_user("zoe", locale="fr")
    async with fake.running(make_bot(fake, tmp_path, guild.id)):
        ia = await fake.slash(alice, ch, "help", options={"topic": "buildings"})
        msg = await ia.wait_message(timeout=10)
        assert msg.content == buildings_text() and "Keep        2\u00d72" in msg.content
        ia = await fake.slash(alice, ch, "help", options={"topic": "build"})
        msg = await ia.wait_message(timeout=10)
        assert msg.content == command_help(COMMANDS["build"]) and msg.ephemeral
        ia = await fake.slash(alice, ch, "help", options={"topic": "fly"})
        msg = await ia.wait_message(timeout=10)
        assert "'fly' is not a help topic" in msg.content
        offered = await fake.autocomplete(zoe, ch, "help", focused="topic",
                                          options={"topic": "b\u00e2"})
        assert {"name": "b\u00e2timents", "value": "buildings"} in offered
        offered = await fake.autocomplete(zoe, ch, "help", focused="topic",
                                          options={"topic": "constr"})
        assert offered[0] == {"name": "construire", "value": "build"}
