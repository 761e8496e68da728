"""The fake Discord drives an unmodified discord.py client end to end."""

from __future__ import annotations

import asyncio
import io
from dataclasses import dataclass

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from tests.fakediscord import (
    CommandNotAvailable,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeMessage,
    FakeUser,
    Perm,
)


class Recorder:
    """What the tiny bot's callbacks saw, plus errors raised inside them."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, object]]] = []
        self.errors: list[BaseException] = []
        self.event = asyncio.Event()

    def hit(self, event: str, /, **values: object) -> None:
        self.calls.append((event, values))
        self.event.set()


class PersistentView(discord.ui.View):
    def __init__(self, rec: Recorder) -> None:
        super().__init__(timeout=None)
        self.rec = rec

    @discord.ui.button(label="Join", custom_id="tiny:join", style=discord.ButtonStyle.primary)
    async def join(
        self, interaction: discord.Interaction, button: discord.ui.Button[PersistentView]
    ) -> None:
        self.rec.hit("join", user=interaction.user.id)
        await interaction.response.send_message(f"joined {interaction.user.name}", ephemeral=True)


class TinyBot(commands.Bot):
    """The tiny bot: its persistent view registered at start-up, as a real bot does."""

    def __init__(self, rec: Recorder, intents: discord.Intents) -> None:
        super().__init__(command_prefix="!", intents=intents)
        self.rec = rec

    async def setup_hook(self) -> None:
        self.add_view(PersistentView(self.rec))


class TinyShardedBot(commands.AutoShardedBot):
    """The tiny bot, sharded."""

    def __init__(self, rec: Recorder, intents: discord.Intents) -> None:
        super().__init__(command_prefix="!", intents=intents)
        self.rec = rec

    async def setup_hook(self) -> None:
        self.add_view(PersistentView(self.rec))


def make_bot(
    rec: Recorder,
    *,
    guild_id: int | None = None,
    sharded: bool = False,
    slow_reply: float = 0.0,
    intents: discord.Intents | None = None,
) -> TinyBot | TinyShardedBot:
    intents = discord.Intents.default() if intents is None else intents
    bot = TinyShardedBot(rec, intents) if sharded else TinyBot(rec, intents)
    tree = bot.tree
    add_game_group(tree, rec)
    add_commands(tree, rec, slow_reply)

    if guild_id is not None:

        @tree.command(name="guildonly", description="Guild command", guild=discord.Object(guild_id))
        async def guildonly(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("guild!")

    async def on_error(
        interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        rec.errors.append(error)

    tree.error(on_error)
    return bot


def add_game_group(tree: app_commands.CommandTree, rec: Recorder) -> None:
    """/game start (options with a range, a member, choices) and /game admin reset."""
    game = app_commands.Group(name="game", description="Game commands")
    admin = app_commands.Group(name="admin", description="Admin tools", parent=game)

    @game.command(name="start", description="Start a game")
    @app_commands.describe(players="How many", opponent="Who", variant="Rules variant")
    @app_commands.choices(
        variant=[
            app_commands.Choice(name="Classic", value="classic"),
            app_commands.Choice(name="Blitz", value="blitz"),
        ]
    )
    async def start(
        interaction: discord.Interaction,
        players: app_commands.Range[int, 2, 6],
        opponent: discord.Member,
        variant: str = "classic",
    ) -> None:
        rec.hit(
            "start",
            players=players,
            opponent=opponent.id,
            variant=variant,
            is_member=isinstance(opponent, discord.Member),
        )
        await interaction.response.send_message(
            f"starting {variant} with {players}", view=PersistentView(rec)
        )

    @admin.command(name="reset", description="Reset everything")
    async def reset(interaction: discord.Interaction, confirm: bool) -> None:
        rec.hit("reset", confirm=confirm, admin=interaction.permissions.administrator)
        await interaction.response.send_message("reset done", ephemeral=True)

    tree.add_command(game)


def add_commands(tree: app_commands.CommandTree, rec: Recorder, slow_reply: float) -> None:
    """/board (a file), /secret (ephemeral), /slow, /twice, /dm and /pick (autocomplete)."""

    @tree.command(name="board", description="Render the board")
    async def board(interaction: discord.Interaction) -> None:
        await interaction.response.defer()
        await interaction.followup.send(
            "here is the board",
            file=discord.File(
                io.BytesIO(b"\x89PNG fake"),
                filename="board.png",
                description="The board: red leads",
            ),
        )
        rec.hit("board")

    @tree.command(name="secret", description="Ephemeral reply")
    async def secret(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("only you", ephemeral=True)
        await interaction.followup.send("also only you", ephemeral=True)
        rec.hit("secret")

    @tree.command(name="slow", description="Replies too late")
    async def slow(interaction: discord.Interaction) -> None:
        await asyncio.sleep(slow_reply)
        try:
            await interaction.response.send_message("late")
        except discord.HTTPException as exc:
            rec.errors.append(exc)
        rec.hit("slow")

    @tree.command(name="twice", description="Acknowledges twice")
    async def twice(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("first")
        route = discord.http.Route(
            "POST",
            "/interactions/{iid}/{token}/callback",
            iid=interaction.id,
            token=interaction.token,
        )
        try:
            await interaction.client.http.request(route, json={"type": 4, "data": {"content": "2"}})
        except discord.HTTPException as exc:
            rec.errors.append(exc)
        rec.hit("twice")

    @tree.command(name="dm", description="DM a user")
    async def dm(interaction: discord.Interaction, who: discord.User) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            await who.send("hello from the bot")
        except discord.Forbidden as exc:
            rec.errors.append(exc)
            await interaction.followup.send("their DMs are closed")
        else:
            await interaction.followup.send("sent")
        rec.hit("dm")

    @tree.command(name="pick", description="Autocomplete")
    async def pick(interaction: discord.Interaction, fruit: str) -> None:
        await interaction.response.send_message(f"picked {fruit}")

    @pick.autocomplete("fruit")
    async def pick_auto(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        fruits = ["apple", "apricot", "banana", "cherry"]
        return [
            app_commands.Choice(name=f.title(), value=f) for f in fruits if f.startswith(current)
        ]


@dataclass
class Stage:
    """The fake with one server, its #general channel, and three users."""

    fake: FakeDiscord
    guild: FakeGuild
    channel: FakeChannel
    alice: FakeUser
    bob: FakeUser  # DMs closed
    root: FakeUser  # a server admin


@pytest.fixture
def world(fake_discord: FakeDiscord) -> Stage:
    fake = fake_discord
    guild = fake.add_guild("Khronos Test")
    return Stage(fake, guild, fake.add_channel(guild, "general"), fake.add_user("alice"),
                 fake.add_user("bob", dms_open=False), fake.add_user("root", admin=True))


async def test_login_and_sync_global_and_guild(world: Stage) -> None:
    fake, guild = world.fake, world.guild
    intents = discord.Intents.default()
    intents.members = True
    bot = make_bot(Recorder(), guild_id=guild.id, intents=intents)
    async with fake.running(bot):
        assert bot.user is not None and bot.user.id == fake.bot_user.id
        assert bot.application_id == fake.application_id
        dguild = bot.get_guild(guild.id)
        assert dguild is not None and dguild.get_channel(world.channel.id) is not None
        assert dguild.chunked and dguild.member_count == len(guild.members) == 5
        admin = dguild.get_member(world.root.id)
        assert admin is not None and admin.guild_permissions.administrator
        [session] = fake.sessions.values()
        assert session.compress == "zlib-stream"  # what discord.py 2.7 asks for
        synced = await bot.tree.sync()
        guild_synced = await bot.tree.sync(guild=discord.Object(guild.id))
    assert {c.name for c in synced} == {"game", "board", "secret", "slow", "twice", "dm", "pick"}
    assert all(c.id for c in synced)
    assert fake.command_names() == {c.name for c in synced}
    assert [c.name for c in guild_synced] == ["guildonly"]
    assert fake.command_names(guild) == {"guildonly"}
    game = next(c for c in fake.commands() if c.name == "game")
    assert {o["name"]: o["type"] for o in game.data["options"]} == {"start": 1, "admin": 2}


async def test_slash_subcommand_options_reach_callback(world: Stage) -> None:
    fake, channel, alice, bob, root = (
        world.fake, world.channel, world.alice, world.bob, world.root
    )
    rec = Recorder()
    bot = make_bot(rec)
    async with fake.running(bot):
        await bot.tree.sync()
        ia = await fake.slash(
            alice,
            channel,
            "game",
            subcommand="start",
            options={"players": 4, "opponent": bob, "variant": "blitz"},
        )
        msg = await ia.wait_original()
        assert msg.content == "starting blitz with 4"
        assert not ia.ephemeral
        assert fake.channel_messages(channel) == [msg]
        assert msg.custom_ids() == ["tiny:join"]

        ia2 = await fake.slash(root, channel, "game admin reset", options={"confirm": True})
        reply = await ia2.wait_original()
        assert reply.ephemeral and reply.content == "reset done"

        with pytest.raises(ValueError, match="outside"):
            await fake.slash(alice, channel, "game start", options={"players": 9, "opponent": bob})
        with pytest.raises(CommandNotAvailable):
            await fake.slash(alice, channel, "nope")
    assert rec.calls[0] == (
        "start",
        {"players": 4, "opponent": bob.id, "variant": "blitz", "is_member": True},
    )
    assert rec.calls[1] == ("reset", {"confirm": True, "admin": True})
    assert not rec.errors


async def test_defer_then_followup_with_file_and_alt_text(world: Stage) -> None:
    fake, channel, alice = world.fake, world.channel, world.alice
    bot = make_bot(Recorder())
    async with fake.running(bot):
        await bot.tree.sync()
        ia = await fake.slash(alice, channel, "board")
        ack = await ia.wait_ack()
        assert ack.type == 5
        msg = await ia.wait_message()
    assert msg.content == "here is the board"
    [att] = msg.attachments
    assert att.filename == "board.png"
    assert att.description == "The board: red leads"
    assert att.data == b"\x89PNG fake"
    assert att.content_type == "image/png"
    assert ia.original is not None
    assert not msg.ephemeral and msg.id == ia.original.id  # the followup filled the defer


async def test_ephemeral_replies_are_recorded_as_ephemeral(world: Stage) -> None:
    fake, channel, alice = world.fake, world.channel, world.alice
    bot = make_bot(Recorder())
    async with fake.running(bot):
        await bot.tree.sync()
        ia = await fake.slash(alice, channel, "secret")
        await ia.wait_followup()
    assert ia.ephemeral
    assert [m.content for m in ia.ephemeral_messages] == ["only you", "also only you"]
    assert [m.content for m in ia.ephemeral_followups] == ["also only you"]
    assert fake.channel_messages(channel) == []


async def test_autocomplete_returns_choices(world: Stage) -> None:
    fake, channel, alice = world.fake, world.channel, world.alice
    bot = make_bot(Recorder())
    async with fake.running(bot):
        await bot.tree.sync()
        choices = await fake.autocomplete(
            alice, channel, "pick", focused="fruit", options={"fruit": "ap"}
        )
    assert choices == [{"name": "Apple", "value": "apple"}, {"name": "Apricot", "value": "apricot"}]


async def test_persistent_view_survives_a_bot_restart(world: Stage) -> None:
    fake, channel, alice, bob = world.fake, world.channel, world.alice, world.bob
    rec = Recorder()
    first = make_bot(rec)
    async with fake.running(first):
        await first.tree.sync()
        ia = await fake.slash(alice, channel, "game start", options={"players": 2, "opponent": bob})
        game_msg = await ia.wait_original()
    assert first.is_closed()

    second = make_bot(rec)
    async with fake.running(second):
        click = await fake.click(bob, game_msg, "tiny:join")
        reply = await click.wait_original()
    assert reply.content == "joined bob" and reply.ephemeral
    assert rec.calls[-1] == ("join", {"user": bob.id})


async def test_reply_after_three_seconds_is_refused(world: Stage) -> None:
    fake, channel, alice = world.fake, world.channel, world.alice
    fake.interaction_window = 0.2  # the 3-second clock, shortened for the test
    rec = Recorder()
    bot = make_bot(rec, slow_reply=0.4)
    async with fake.running(bot):
        await bot.tree.sync()
        ia = await fake.slash(alice, channel, "slow")
        refused = await ia.wait_refused()
        await asyncio.wait_for(rec.event.wait(), 3)
    assert refused.code == 10062
    [err] = rec.errors
    assert isinstance(err, discord.NotFound) and err.code == 10062
    assert not ia.acknowledged and fake.channel_messages(channel) == []


async def test_double_acknowledgement_is_refused(world: Stage) -> None:
    fake, channel, alice = world.fake, world.channel, world.alice
    rec = Recorder()
    bot = make_bot(rec)
    async with fake.running(bot):
        await bot.tree.sync()
        ia = await fake.slash(alice, channel, "twice")
        await asyncio.wait_for(rec.event.wait(), 3)
    [err] = rec.errors
    assert isinstance(err, discord.HTTPException) and err.status == 400 and err.code == 40060
    assert [c.accepted for c in ia.callbacks] == [True, False]
    assert [m.content for m in fake.channel_messages(channel)] == ["first"]


async def test_dm_to_user_with_closed_dms_is_forbidden(world: Stage) -> None:
    fake, channel, alice, bob = world.fake, world.channel, world.alice, world.bob
    rec = Recorder()
    bot = make_bot(rec)
    async with fake.running(bot):
        await bot.tree.sync()
        ia = await fake.slash(alice, channel, "dm", options={"who": bob})
        msg = await ia.wait_message()
        assert msg.content == "their DMs are closed" and msg.ephemeral
        ok = await fake.slash(alice, channel, "dm", options={"who": alice})
        await ok.wait_message(lambda m: m.content == "sent")
        dm = await fake.wait_for_dm(alice)
    [err] = rec.errors
    assert isinstance(err, discord.Forbidden) and err.code == 50007
    assert dm.content == "hello from the bot"
    assert fake.dms(bob) == []


async def test_followup_after_token_expiry_is_refused(world: Stage) -> None:
    fake, channel, alice = world.fake, world.channel, world.alice
    bot = make_bot(Recorder())
    async with fake.running(bot):
        await bot.tree.sync()
        ia = await fake.slash(alice, channel, "secret")
        await ia.wait_followup()
        fake.followup_window = 0.0
        webhook = discord.Webhook.partial(fake.application_id, ia.token, client=bot)
        with pytest.raises(discord.HTTPException) as info:
            await webhook.send("way too late")
    assert info.value.code == 50027


async def test_admin_only_command_hidden_from_non_admins(world: Stage) -> None:
    fake, channel, alice, root = world.fake, world.channel, world.alice, world.root
    bot = make_bot(Recorder())

    @bot.tree.command(name="config", description="Admins only")
    @app_commands.default_permissions(administrator=True)
    async def config(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("configured", ephemeral=True)

    async with fake.running(bot):
        await bot.tree.sync()
        with pytest.raises(CommandNotAvailable, match="hidden"):
            await fake.slash(alice, channel, "config")
        ia = await fake.slash(root, channel, "config")
        assert (await ia.wait_original()).content == "configured"
    assert (
        fake.guilds[world.guild.id].base_permissions(world.guild.members[root.id])
        & Perm.ADMINISTRATOR
    )


async def test_auto_sharded_bot_logs_in(world: Stage) -> None:
    fake, channel, alice = world.fake, world.channel, world.alice
    fake.shard_count = 2
    other = fake.add_guild("Second Guild")
    other_channel = fake.add_channel(other, "lobby")
    fake.add_member(other, alice)
    bot = make_bot(Recorder(), sharded=True)
    async with fake.running(bot):
        assert bot.shard_count == 2
        assert {g.id for g in bot.guilds} == {world.guild.id, other.id}
        await bot.tree.sync()
        for where in (channel, other_channel):
            ia = await fake.slash(alice, where, "secret")
            await ia.wait_followup()


async def test_channel_send_with_attachment_and_message_events(world: Stage) -> None:
    fake, channel, alice = world.fake, world.channel, world.alice
    intents = discord.Intents.default()
    intents.message_content = True
    bot = make_bot(Recorder(), intents=intents)
    seen: list[str] = []

    @bot.listen()
    async def on_message(message: discord.Message) -> None:
        seen.append(message.content)
        if message.content == "ping":
            await message.channel.send(
                "pong", file=discord.File(io.BytesIO(b"x"), "a.txt", description="alt")
            )

    async with fake.running(bot):
        dch = bot.get_channel(channel.id)
        assert isinstance(dch, discord.TextChannel)
        sent = await dch.send("hello")
        edited = await sent.edit(content="hello!")
        assert edited.content == "hello!"
        await fake.user_message(alice, channel, "ping")
        pong = await fake.wait_for_message(channel, lambda m: m.content == "pong")
        assert pong.attachments[0].description == "alt"
        fetched = await dch.fetch_message(pong.id)
        assert await fetched.attachments[0].read() == b"x"
        await sent.delete()
    assert [m.content for m in fake.channel_messages(channel)] == ["ping", "pong"]
    assert "ping" in seen
    assert isinstance(pong, FakeMessage)


async def test_an_edit_in_a_held_channel_waits_until_released(world: Stage) -> None:
    fake, channel = world.fake, world.channel
    bot = make_bot(Recorder())
    async with fake.running(bot):
        dch = bot.get_channel(channel.id)
        assert isinstance(dch, discord.TextChannel)
        sent = await dch.send("before")
        fake.held_edits.add(channel.id)
        editing = asyncio.ensure_future(sent.edit(content="after"))
        for _ in range(250):
            if fake.edits_in_flight:
                break
            await asyncio.sleep(0.02)
        assert fake.edits_in_flight == 1 and not editing.done()
        assert fake.get_message(sent.id).content == "before"
        await dch.send("a post is not held")
        fake.held_edits.clear()
        assert (await asyncio.wait_for(editing, 5)).content == "after"
    assert fake.edits_in_flight == 0 and fake.get_message(sent.id).content == "after"


async def test_gateway_reconnect_resumes(world: Stage) -> None:
    fake, channel, alice = world.fake, world.channel, world.alice
    bot = make_bot(Recorder())
    resumed = asyncio.Event()

    @bot.listen()
    async def on_resumed() -> None:
        resumed.set()

    async with fake.running(bot):
        await bot.tree.sync()
        await fake.request_reconnect()
        await asyncio.wait_for(resumed.wait(), 5)
        ia = await fake.slash(alice, channel, "secret")
        await ia.wait_followup()
        await fake.restart_gateway()
        ia = await fake.slash(alice, channel, "secret")
        await ia.wait_followup()


class NameModal(discord.ui.Modal, title="Rename the game"):
    name: discord.ui.TextInput[NameModal] = discord.ui.TextInput(label="Name", custom_id="m:name")

    def __init__(self, rec: Recorder) -> None:
        super().__init__(custom_id="m:rename")
        self.rec = rec

    async def on_submit(self, interaction: discord.Interaction) -> None:
        self.rec.hit("modal", name=self.name.value)
        await interaction.response.edit_message(content=f"game: {self.name.value}")


class Lobby(discord.ui.View):
    def __init__(self, rec: Recorder) -> None:
        super().__init__(timeout=60)
        self.rec = rec

    @discord.ui.select(
        custom_id="lobby:colour",
        options=[discord.SelectOption(label=c, value=c) for c in ("red", "blue", "green")],
    )
    async def colour(
        self, interaction: discord.Interaction, select: discord.ui.Select[Lobby]
    ) -> None:
        self.rec.hit("colour", values=list(select.values))
        await interaction.response.defer()
        await interaction.edit_original_response(content=f"colour {select.values[0]}")

    @discord.ui.button(label="Rename", custom_id="lobby:rename")
    async def rename(
        self, interaction: discord.Interaction, button: discord.ui.Button[Lobby]
    ) -> None:
        await interaction.response.send_modal(NameModal(self.rec))

    @discord.ui.button(label="Close", custom_id="lobby:close")
    async def close(
        self, interaction: discord.Interaction, button: discord.ui.Button[Lobby]
    ) -> None:
        await interaction.response.edit_message(content="closed", view=None)


async def test_selects_modals_and_message_updates(world: Stage) -> None:
    fake, channel, alice = world.fake, world.channel, world.alice
    rec = Recorder()
    bot = make_bot(rec)

    @bot.tree.command(name="lobby", description="Open a lobby")
    async def lobby(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("lobby", view=Lobby(rec))
        msg = await interaction.original_response()
        rec.hit("lobby", message_id=msg.id)

    async with fake.running(bot):
        await bot.tree.sync()
        ia = await fake.slash(alice, channel, "lobby")
        msg = await ia.wait_original()
        assert set(msg.custom_ids()) == {"lobby:colour", "lobby:rename", "lobby:close"}

        with pytest.raises(ValueError, match="not options"):
            await fake.select(alice, msg, "lobby:colour", ["purple"])
        pick = await fake.select(alice, msg, "lobby:colour", ["blue"])
        await fake.wait_for_message(channel, lambda m: m.content == "colour blue")
        assert pick.response_type == 6

        opened = await fake.click(alice, msg, "lobby:rename")
        modal = await opened.wait_modal()
        assert modal["title"] == "Rename the game"
        submitted = await fake.submit_modal(alice, opened, {"m:name": "Epic"})
        await submitted.wait_ack()
        assert msg.content == "game: Epic"

        closing = await fake.click(alice, msg, "lobby:close")
        await closing.wait_ack()
        assert msg.content == "closed" and msg.components == []
        with pytest.raises(CommandNotAvailable):
            await fake.click(alice, msg, "lobby:close")
    assert ("lobby", {"message_id": msg.id}) in rec.calls  # original_response() worked
    assert ("colour", {"values": ["blue"]}) in rec.calls
    assert ("modal", {"name": "Epic"}) in rec.calls
    assert fake.channel_messages(channel) == [msg]


async def test_context_menu_threads_and_fetches(world: Stage) -> None:
    fake, channel, alice, bob = world.fake, world.channel, world.alice, world.bob
    rec = Recorder()
    bot = make_bot(rec)

    @bot.tree.context_menu(name="Challenge")
    async def challenge(interaction: discord.Interaction, member: discord.Member) -> None:
        assert isinstance(interaction.channel, discord.TextChannel)
        assert interaction.guild is not None
        thread = await interaction.channel.create_thread(
            name=f"{interaction.user.name} vs {member.name}", type=discord.ChannelType.public_thread
        )
        await thread.send(f"{interaction.user.mention} vs {member.mention}")
        fetched = await interaction.client.fetch_user(member.id)
        got = await interaction.guild.fetch_member(member.id)
        rec.hit("challenge", thread=thread.id, fetched=fetched.name, member=got.id)
        await interaction.response.send_message(f"thread {thread.mention}", ephemeral=True)

    async with fake.running(bot):
        await bot.tree.sync()
        ia = await fake.user_command(alice, channel, "Challenge", bob)
        await ia.wait_original()
    [(_, seen)] = [c for c in rec.calls if c[0] == "challenge"]
    assert isinstance(seen["thread"], int)
    thread = fake.channels[seen["thread"]]
    assert thread.type == 11 and thread.parent_id == channel.id
    assert [m.content for m in fake.channel_messages(thread)] == [f"<@{alice.id}> vs <@{bob.id}>"]
    assert seen["fetched"] == "bob" and seen["member"] == bob.id
    assert fake.connections == [] and fake.unknown_routes == []


async def test_bot_without_intents_still_gets_interactions(world: Stage) -> None:
    fake, guild, channel, alice = world.fake, world.guild, world.channel, world.alice
    rec = Recorder()
    bot = make_bot(rec, intents=discord.Intents.none())
    async with fake.running(bot):
        dguild = bot.get_guild(guild.id)
        assert dguild is not None and dguild.unavailable  # no GUILD_CREATE without GUILDS
        assert bot.get_channel(channel.id) is None
        fetched = await bot.fetch_channel(channel.id)
        assert fetched.id == channel.id
        await bot.tree.sync()
        ia = await fake.slash(alice, channel, "board")
        msg = await ia.wait_message()
    assert msg.attachments[0].description == "The board: red leads"
