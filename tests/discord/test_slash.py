"""The slash commands as Discord receives them, against the one command table; options asked
in the order a player fills them, with suggestions for what is filled so far; the /game group
and where each command may be used."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import engine
from bot.commands import COMMANDS, GROUPS, CommandSpec
from bot.discord.app import KhronosBot, create_bot
from bot.service import GameService
from bot.settings import Settings
from bot.storage.sqlite import SqliteStorage
from engine import Age, BuildingType, Family
from tests.discord.conftest import Scene, SeededBot, set_position
from tests.fakediscord.fake import FakeDiscord
from tests.fakediscord.models import (
    CommandNotAvailable,
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeUser,
    OptionValue,
)

# Discord's option type numbers, written out here rather than taken from bot/discord/slash.py
TYPE_OF_KIND = {"building": 3, "square": 3, "age": 3, "cards": 3, "topic": 3, "int": 4,
                "number": 10, "hours": 10, "flag": 5, "user": 6, "level": 3, "seat": 3,
                "language": 3}


def first_player_has(hand_needs: dict[Family, int]) -> int:
    """A game seed whose first player holds at least these cards (found with the engine)."""
    for seed in range(10_000):
        state = engine.new_game(engine.Options(players=2), seed)
        hand = state.players[state.turn].hand
        if all(hand.count(f) >= n for f, n in hand_needs.items()):
            return seed
    raise AssertionError("no such seed")


async def make_bot(fake: FakeDiscord, data: Path, guild: FakeGuild,
                   seed: int | None = None) -> tuple[KhronosBot, SqliteStorage]:
    """A bot and its opened storage (the caller closes it); the tests here use the
    ``seeded_bot`` fixture, tests/discord/test_locale.py this."""
    storage = await SqliteStorage.in_dir(data).open()
    service = GameService(storage, seeds=None if seed is None else (lambda: seed))
    settings = Settings(DISCORD_TOKEN=fake.token, KHRONOS_DATA_DIR=data,
                        KHRONOS_TEST_GUILD_ID=guild.id)
    return create_bot(settings, service=service), storage


def synced(fake: FakeDiscord, guild: FakeGuild) -> dict[str, dict[str, Any]]:
    return {c.name: c.data for c in fake.commands(guild)}


def declared(fake: FakeDiscord, guild: FakeGuild, spec: CommandSpec) -> dict[str, Any]:
    """The synced payload of one table entry (a subcommand inside its group's payload)."""
    commands = synced(fake, guild)
    if spec.parent is None:
        return commands[spec.name]
    group = commands[spec.parent]
    return next(o for o in group["options"] if o["name"] == spec.name)


async def run(fake: FakeDiscord, user: FakeUser, ch: FakeChannel, name: str,
              **options: OptionValue) -> FakeInteraction:
    ia = await fake.slash(user, ch, name, options=options)
    await ia.wait_ack()
    await ia.wait_message(timeout=10)
    return ia


async def test_the_synced_commands_are_the_command_table(
        scene: Scene, seeded_bot: SeededBot) -> None:
    """Every command of the table, and nothing else, reaches Discord with its options in the
    table's form order, their types, ranges, choices and descriptions; groups hold their
    members; game commands are for servers only, /help and /mygames also in DMs."""
    fake, guild = scene.fake, scene.guild
    async with seeded_bot() as bot, fake.running(bot):
        commands = synced(fake, guild)
        top = {s.name for s in COMMANDS.values() if s.parent is None} | set(GROUPS)
        assert set(commands) == top
        for group in GROUPS:
            members = [o["name"] for o in commands[group]["options"]]
            assert members == [s.name for s in COMMANDS.values() if s.parent == group]
            assert all(o["type"] == 1 for o in commands[group]["options"])
        for spec in COMMANDS.values():
            data = declared(fake, guild, spec)
            assert data["description"] == spec.description
            options = data.get("options") or []
            assert [o["name"] for o in options] == [p.name for p in spec.form_params]
            for opt, p in zip(options, spec.form_params, strict=True):
                assert opt["type"] == TYPE_OF_KIND[p.kind], (spec.name, p.name)
                assert opt["description"] == p.description
                assert bool(opt.get("required")) is p.required
                assert [c["value"] for c in opt.get("choices") or []] == list(p.choices)
                assert bool(opt.get("autocomplete")) is (p.kind in ("square", "cards", "topic"))
                if p.kind in ("int", "number", "hours"):
                    assert (opt.get("min_value"), opt.get("max_value")) == (
                        p.minimum, p.maximum)
            top_data = commands[spec.parent or spec.name]
            guild_only = top_data.get("contexts") == [0] and not top_data["dm_permission"]
            assert guild_only is (spec.guild_only or spec.parent is not None), spec.name
            # creators are rarely server admins: nothing is hidden by default permissions
            assert top_data.get("default_member_permissions") is None


async def test_help_works_in_a_dm_and_game_commands_only_in_a_server(
        scene: Scene, seeded_bot: SeededBot) -> None:
    fake = scene.fake
    alice = fake.add_user("alice")
    async with seeded_bot() as bot, fake.running(bot):
        # guild commands are synced to the test server only; a global sync puts the same
        # payloads in DMs, where Discord honours their contexts
        await bot.tree.sync()
        ia = await fake.slash(alice, None, "help")
        msg = await ia.wait_message(timeout=10)
        assert "Khronos" in msg.content
        for name in ("build", "create", "game pause"):
            with pytest.raises(CommandNotAvailable):
                await fake.slash(alice, None, name)


async def test_the_game_group_serves_a_creator_who_is_no_admin(
        scene: Scene, seeded_bot: SeededBot) -> None:
    """/game pause|resume|settings work for the game's creator, who is no server admin;
    another player is refused privately and nothing changes."""
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with seeded_bot() as bot, fake.running(bot):
        await run(fake, alice, ch, "create", players=2)
        await run(fake, bob, ch, "join")
        before, _ = await bot.service.snapshot(ch.id)
        refused = await run(fake, bob, ch, "game pause")
        assert refused.messages[0].ephemeral
        assert "creator or a server admin" in refused.messages[0].content
        assert (await bot.service.snapshot(ch.id))[0].version == before.version
        await run(fake, alice, ch, "game pause")
        await fake.wait_for_message(ch, lambda m: "pauses the game" in m.content)
        ia = await run(fake, alice, ch, "game settings", reminder=12)
        assert ia.messages[0].ephemeral
        await run(fake, alice, ch, "game resume")
        await fake.wait_for_message(ch, lambda m: "resumes" in m.content)


async def autocomplete(fake: FakeDiscord, user: FakeUser, ch: FakeChannel, command: str,
                       focused: str, filled: Mapping[str, OptionValue]) -> list[dict[str, Any]]:
    return await fake.autocomplete(user, ch, command, focused=focused,
                                   options={**filled, focused: ""})


async def test_build_options_in_discords_order_suggest_what_is_filled_so_far(
        scene: Scene, seeded_bot: SeededBot) -> None:
    """R15: /build asks the age first, then the building, then the square, whose
    suggestions are the legal squares for both; a player who jumps to the square first gets
    the squares of both ages, labelled by age; the suggested square is accepted."""
    fake, guild, ch = scene.fake, scene.guild, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    seed = first_player_has({Family.MILITARY: 2})
    async with seeded_bot(seed) as bot, fake.running(bot):
        await run(fake, alice, ch, "create", players=2)
        await run(fake, bob, ch, "join")
        info, state = await bot.service.snapshot(ch.id)
        player = alice if info.user_of(state.turn) == alice.id else bob
        await run(fake, player, ch, "travel", age="faith", adventurer=2)
        info, state = await bot.service.snapshot(ch.id)
        seat = state.turn
        assert state.players[seat].adventurers.count(Age.FAITH) == 1

        # jumping to the square before anything else: both ages, each labelled
        early = await autocomplete(fake, player, ch, "build", "square", {})
        ages = {c["name"].split(" · ")[1].split(":")[0] for c in early}
        assert ages == {"Might", "Faith"}
        for c in early:
            age = Age.MIGHT if "· Might" in c["name"] else Age.FAITH
            legal = {o.square for b in BuildingType
                     for o in engine.construct_options(state, seat, age, b)}
            assert c["value"] in legal

        # in Discord's declared order
        options = synced(fake, guild)["build"]["options"]
        assert [o["name"] for o in options] == ["age", "building", "square", "pay"]
        # R40: nothing is built on Reason, so it is not offered
        assert [c["value"] for c in options[0]["choices"]] == ["might", "faith"]
        filled: dict[str, str] = {}
        for opt in options:
            if opt["name"] == "age":
                filled["age"] = "might"
            elif opt["name"] == "building":
                filled["building"] = "keep"
            elif opt["name"] == "square":
                got = await autocomplete(fake, player, ch, "build", "square", filled)
                want = [o.square for o in engine.construct_options(
                    state, seat, Age.MIGHT, BuildingType.KEEP)]
                assert want and [c["value"] for c in got] == want[:25]
                assert all("Keep" in c["name"] and "Might" in c["name"] for c in got)
                plain = next(o.square for o in engine.construct_options(
                    state, seat, Age.MIGHT, BuildingType.KEEP) if o.extra == 0)
                filled["square"] = plain
        ia = await fake.slash(player, ch, "build", options=filled)
        await ia.wait_message(timeout=10)
        msg = ia.messages[0]
        confirm = [c for c in msg.custom_ids() if c.startswith("kh:ok:")]
        assert confirm, msg.content  # a Keep on Might ripples: shown first
        click = await fake.click(player, msg, confirm[0])
        await click.wait_message(timeout=10)
        _, after = await bot.service.snapshot(ch.id)
        assert after.step == state.step + 1
        assert any(t.type is BuildingType.KEEP and engine.square_name(t.at) == plain
                   for t in after.board(Age.MIGHT).tiles)


async def test_upgrade_options_in_discords_order(scene: Scene, seeded_bot: SeededBot) -> None:
    """R16: /upgrade asks the age, then the building's square (suggested with
    its possible new types), the new type, and where the new tile goes."""
    fake, guild, ch = scene.fake, scene.guild, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    seed = first_player_has({Family.CIVIL: 2})
    async with seeded_bot(seed) as bot, fake.running(bot):
        await run(fake, alice, ch, "create", players=2)
        await run(fake, bob, ch, "join")
        info, state = await bot.service.snapshot(ch.id)
        player = alice if info.user_of(state.turn) == alice.id else bob
        seat = state.turn
        legal = engine.upgrade_options(state, seat, Age.MIGHT)
        assert legal, "printed hamlets can become Towns with 2 civil cards"

        options = synced(fake, guild)["upgrade"]["options"]
        assert [o["name"] for o in options] == ["age", "square", "to", "at", "pay"]
        filled: dict[str, str] = {"age": "might"}
        got = await autocomplete(fake, player, ch, "upgrade", "square", filled)
        squares = list(dict.fromkeys(sq for sq, _, _ in legal))
        assert list(dict.fromkeys(c["value"] for c in got)) == squares[:25]
        assert all("→" in c["name"] for c in got)
        square, to, place = next((sq, to, o) for sq, to, o in legal if o.extra == 0)
        filled |= {"square": square, "to": to.value}
        got = await autocomplete(fake, player, ch, "upgrade", "at", filled)
        want = [o.square for sq, t, o in legal if sq == square and t is to]
        assert [c["value"] for c in got] == want[:25]
        filled["at"] = place.square
        ia = await fake.slash(player, ch, "upgrade", options=filled)
        await ia.wait_message(timeout=10)
        msg = ia.messages[0]
        confirm = [c for c in msg.custom_ids() if c.startswith("kh:ok:")]
        if confirm:
            click = await fake.click(player, msg, confirm[0])
            await click.wait_message(timeout=10)
        _, after = await bot.service.snapshot(ch.id)
        assert after.step == state.step + 1, msg.content


async def test_a_bad_typed_value_is_refused_privately(scene: Scene, seeded_bot: SeededBot) -> None:
    """A square or cards Discord cannot check are read by the table's converters: a bad one
    gets a private sentence and changes nothing."""
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with seeded_bot() as bot, fake.running(bot):
        await run(fake, alice, ch, "create", players=2)
        await run(fake, bob, ch, "join")
        info, state = await bot.service.snapshot(ch.id)
        player = alice if info.user_of(state.turn) == alice.id else bob
        for options, words in (
            ({"age": "might", "building": "keep", "square": "Z99"}, "not a square"),
            ({"age": "might", "building": "keep", "square": "C4", "pay": "mxq"},
             "list of cards"),
        ):
            ia = await fake.slash(player, ch, "build", options=options)
            msg = await ia.wait_message(timeout=10)
            assert msg.ephemeral and words in msg.content, msg.content
        assert (await bot.service.snapshot(ch.id))[0].version == info.version


async def test_suggestions_are_empty_without_a_started_game(
        scene: Scene, seeded_bot: SeededBot) -> None:
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with seeded_bot() as bot, fake.running(bot):
        assert await autocomplete(fake, alice, ch, "build", "square", {}) == []
        await run(fake, alice, ch, "create")
        assert await autocomplete(fake, alice, ch, "build", "square", {}) == []
        await run(fake, bob, ch, "join")
        await run(fake, alice, ch, "start")
        info, state = await bot.service.snapshot(ch.id)
        waiting = bob if info.user_of(state.turn) == alice.id else alice
        assert await autocomplete(fake, waiting, ch, "build", "square", {}) == []


def letters(cards: tuple[Family, ...]) -> str:
    return "".join({Family.MILITARY: "m", Family.RELIGIOUS: "r", Family.CIVIL: "c"}[f]
                   for f in cards)


async def test_cards_are_suggested_from_the_legal_moves(
        scene: Scene, seeded_bot: SeededBot) -> None:
    """R18: after the square, /build's pay suggests the surcharges the engine accepts there,
    and the first one is accepted; R9: /exchange suggests the cards one may discard."""
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    seed = first_player_has({Family.MILITARY: 2})
    async with seeded_bot(seed) as bot, fake.running(bot):
        await run(fake, alice, ch, "create", players=2)
        await run(fake, bob, ch, "join")
        info, state = await bot.service.snapshot(ch.id)
        player = alice if info.user_of(state.turn) == alice.id else bob
        seat = state.turn
        legal = engine.legal_actions(state, seat)

        exchange = await autocomplete(fake, player, ch, "exchange", "cards", {})
        want = list(dict.fromkeys(letters(a.discard) for a in legal
                                  if isinstance(a, engine.Exchange)))
        assert [c["value"] for c in exchange] == want[:25] and want

        costly = next(o for o in engine.construct_options(
            state, seat, Age.MIGHT, BuildingType.KEEP) if o.extra > 0)
        filled = {"age": "might", "building": "keep", "square": costly.square}
        got = await autocomplete(fake, player, ch, "build", "pay", filled)
        want = list(dict.fromkeys(
            letters(a.surcharge) for a in legal
            if isinstance(a, engine.Construct) and a.age is Age.MIGHT
            and a.building is BuildingType.KEEP and a.square == costly.square
            and a.surcharge))
        assert want and [c["value"] for c in got] == want
        assert all(len(c["value"]) == costly.extra for c in got)
        ia = await fake.slash(player, ch, "build", options={**filled, "pay": want[0]})
        await ia.wait_message(timeout=10)
        msg = ia.messages[0]
        confirm = [c for c in msg.custom_ids() if c.startswith("kh:ok:")]
        if confirm:
            click = await fake.click(player, msg, confirm[0])
            await click.wait_message(timeout=10)
        _, after = await bot.service.snapshot(ch.id)
        assert after.step == state.step + 1, msg.content


async def test_demolish_asks_the_age_then_suggests_the_tiles_to_remove(
        scene: Scene, seeded_bot: SeededBot) -> None:
    """R22: /demolish asks the age first; its squares are the size-1 tiles the
    engine lets the player remove, of both ages while the age is empty."""
    fake, guild, ch = scene.fake, scene.guild, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with seeded_bot(first_player_has({Family.CIVIL: 2})) as bot, fake.running(bot):
        await run(fake, alice, ch, "create", players=2)
        await run(fake, bob, ch, "join")
        info, state = await bot.service.snapshot(ch.id)
        player = alice if info.user_of(state.turn) == alice.id else bob
        seat = state.turn
        hamlet = next(o.square for o in engine.construct_options(
            state, seat, Age.MIGHT, BuildingType.HAMLET) if o.extra == 0)
        await run(fake, player, ch, "build", age="might", building="hamlet", square=hamlet)
        _, state = await bot.service.snapshot(ch.id)

        options = synced(fake, guild)["demolish"]["options"]
        assert [o["name"] for o in options] == ["age", "square"]
        early = await autocomplete(fake, player, ch, "demolish", "square", {})
        assert any(c["value"] == hamlet and "Might" in c["name"] for c in early)
        got = await autocomplete(fake, player, ch, "demolish", "square", {"age": "might"})
        want = [a.square for a in engine.legal_actions(state, seat)
                if isinstance(a, engine.Demolish) and a.age is Age.MIGHT]
        assert [c["value"] for c in got] == list(dict.fromkeys(want))[:25]
        assert hamlet in want
        await run(fake, player, ch, "demolish", age="might", square=hamlet)
        _, after = await bot.service.snapshot(ch.id)
        assert after.step == state.step + 1
        assert not any(engine.square_name(t.at) == hamlet
                       for t in after.board(Age.MIGHT).tiles)


async def test_r15_refusals_count_the_missing_cards_and_r42_renovates_as_suggested(
        scene: Scene) -> None:
    """R15: holding 1 military card, a Keep (2) lacks 1 and a Castle (3) lacks 2,
    said privately, nothing changed. R42: with 1 military card for a Castle ruin that owes 2,
    /renovate suggests the ruin and, its cards left empty as autocomplete fills it, pays the
    one card he can and marks the ruin."""
    from engine.builder import position, tile_at

    fake = scene.fake
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with fake.running(scene.bot()) as bot:
        await scene.two_player_game(alice, bob)
        info = await bot.service.info(scene.ch.id)
        a = info.seat_of(alice.id)
        assert a is not None
        await set_position(bot, scene.ch.id, position(
            2, reason="Castle C4 ruin", hands={a: "mccr"},
            adventurers={a: (Age.MIGHT, Age.REASON)}, turn=a))
        before, state = await bot.service.snapshot(scene.ch.id)
        for building, square, short in (("keep", "F1", 1), ("castle", "F3", 2)):
            ia = await scene.slash(alice, "build", age="might", building=building,
                                   square=square)
            msg = ia.messages[0]
            assert msg.ephemeral and f"your hand lacks {short} military." in msg.content, (
                msg.content)
        assert (await bot.service.snapshot(scene.ch.id))[0].version == before.version

        got = await autocomplete(fake, alice, scene.ch, "renovate", "square", {})
        assert [c["value"] for c in got] == ["C4"]
        ia = await scene.slash(alice, "renovate", square=got[0]["value"])
        assert ia.messages[0].ephemeral
        _, after = await bot.service.snapshot(scene.ch.id)
        assert after.step == state.step + 1, ia.messages[0].content
        ruin = tile_at(after, Age.REASON, "C4")
        assert ruin is not None and ruin.ruin and ruin.marker == a
        assert after.players[a].hand.count(Family.MILITARY) == 0
        await fake.wait_for_message(scene.ch, lambda m: "pays the first card to renovate the "
                                    "Castle ruin at C4" in m.text())


async def test_the_game_group_gathers_the_keepers_commands_for_servers_only(
        scene: Scene) -> None:
    """Pause, resume, settings, abandon and rebuild are subcommands of /game, not
    commands of their own, and Discord is told /game is for servers only (contexts: guild,
    no DM permission)."""
    async with scene.fake.running(scene.bot()):
        commands = synced(scene.fake, scene.guild)
    game = commands["game"]
    members = {o["name"] for o in game["options"]}
    assert {"pause", "resume", "settings", "abandon", "rebuild"} <= members
    assert not members & set(commands), "none of them is also a top-level command"
    assert game.get("contexts") == [0] and game["dm_permission"] is False
    assert commands["help"].get("dm_permission") is not False, "/help still works in a DM"
