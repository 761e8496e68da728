"""The fake's world: its state (``FakeState``: users, guilds, channels, messages, commands,
interactions, and what the REST and gateway halves keep), and the test-side API that builds and
inspects it (``World``)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable
from typing import Any

from .models import (
    DiscordAPIError,
    FakeAttachment,
    FakeChannel,
    FakeCommand,
    FakeGuild,
    FakeInteraction,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    Intent,
    Overwrite,
    Perm,
    RequestRecord,
    snowflake,
)
from .sessions import GatewayConnection, GatewaySession

ALLOWED_MESSAGE_FLAGS = 4 | 64 | 4096 | 32768
NONCE_WINDOW = 300.0  # seconds: enforce_nonce finds a message with the same nonce this recent


class FakeState:
    """What the fake knows; the classes above it (``World``, the gateway, REST, the users'
    driver) are what it does."""

    def __init__(
        self,
        *,
        token: str = "fake-bot-token",
        bot_name: str = "TestBot",
        shard_count: int = 1,
        interaction_window: float = 3.0,
        followup_window: float = 15 * 60.0,
        heartbeat_interval: float = 41.25,
        allowed_privileged_intents: int = Intent.PRIVILEGED,
    ) -> None:
        self.token = token
        self.shard_count = shard_count
        self.interaction_window = interaction_window  # seconds to the first callback
        # HTTP statuses to answer the next channel/DM message posts with (fault injection:
        # 503 is a DiscordServerError for discord.py, which does not retry it by itself)
        self.post_failures: list[int] = []
        # seconds each channel/DM message post takes (a slow Discord: deliveries in flight),
        # and how many posts are being handled now
        self.post_delay = 0.0
        self.posts_in_flight = 0
        # channels (or DM channels) whose message posts wait while they are in this set
        self.held_channels: set[int] = set()
        # channels (or DM channels) whose message edits wait while they are in this set, and
        # how many edits are waiting now
        self.held_edits: set[int] = set()
        self.edits_in_flight = 0
        self.messages_posted = 0  # message posts accepted (a nonce replay is not counted)
        self.messages_edited = 0  # channel and DM message edits accepted
        self.followup_window = followup_window  # seconds the interaction token stays valid
        self.heartbeat_interval = heartbeat_interval
        self.allowed_privileged_intents = allowed_privileged_intents
        self.application_id = snowflake()
        self.bot_user = FakeUser(id=self.application_id, name=bot_name, bot=True, dms_open=False)
        self.app_owner = FakeUser(id=snowflake(), name="app-owner")
        self.users: dict[int, FakeUser] = {u.id: u for u in (self.bot_user, self.app_owner)}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.dm_channels: dict[int, FakeChannel] = {}  # user id -> DM channel
        self.messages: dict[int, FakeMessage] = {}
        self.uploads: dict[int, FakeAttachment] = {}  # attachment options sent by users
        self.global_commands: dict[int, FakeCommand] = {}
        self.guild_commands: dict[int, dict[int, FakeCommand]] = {}
        self.sync_count = 0
        self.interactions: dict[int, FakeInteraction] = {}
        self.interactions_by_token: dict[str, FakeInteraction] = {}
        self._msg_changed = asyncio.Event()
        self.port = 0
        # REST: every request answered, the unknown routes, the refusals
        self.request_log: list[tuple[str, str, int]] = []
        self.unknown_routes: list[tuple[str, str]] = []
        self.error_log: list[tuple[str, str, DiscordAPIError]] = []
        self.typing: list[int] = []  # channel ids the bot triggered typing in
        # every request, as discord-spec's checker reads them: method, path (after /api/v10),
        # query, JSON body (a multipart request's payload_json), files [field, name, size,
        # type], and the status answered
        self.requests: list[RequestRecord] = []
        # the message flags Discord accepts (a test may take IS_COMPONENTS_V2 away: refused)
        self.allowed_message_flags = ALLOWED_MESSAGE_FLAGS
        self.nonce_window: float = NONCE_WINDOW
        # gateway
        self.sessions: dict[str, GatewaySession] = {}
        self.active_sessions: dict[int, GatewaySession] = {}  # shard id -> session
        self.connections: list[GatewayConnection] = []
        self.gateway_log: list[dict[str, Any]] = []  # every op received (minus tokens)
        self._session_changed = asyncio.Event()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    @property
    def cdn_base(self) -> str:
        return f"{self.base_url}/cdn"

    @property
    def application_flags(self) -> int:
        flags = 0
        allowed = self.allowed_privileged_intents
        if allowed & Intent.GUILD_PRESENCES:
            flags |= 1 << 13
        if allowed & Intent.GUILD_MEMBERS:
            flags |= 1 << 15
        if allowed & Intent.MESSAGE_CONTENT:
            flags |= 1 << 19
        return flags

    @staticmethod
    def loop_time() -> float:
        return asyncio.get_running_loop().time()

    def application_payload(self) -> dict[str, Any]:
        return {
            "id": str(self.application_id),
            "name": self.bot_user.name,
            "icon": None,
            "description": "",
            "summary": "",
            "type": None,
            "bot": self.bot_user.payload(),
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": self.app_owner.payload(),
            "team": None,
            "verify_key": "0" * 64,
            "flags": self.application_flags,
            "redirect_uris": [],
            "interactions_endpoint_url": None,
            "approximate_guild_count": len(self.guilds),
            "tags": [],
        }


class World(FakeState):
    """The test-side API that builds the world and inspects it."""

    # ------------------------------------------------------------------ world building
    def add_guild(
        self,
        name: str = "Test Guild",
        *,
        owner: FakeUser | None = None,
        everyone_permissions: int = Perm.EVERYONE_DEFAULT,
        bot_permissions: int = Perm.BOT_DEFAULT,
        locale: str = "en-US",
    ) -> FakeGuild:
        """A guild with @everyone, an "Admin" role (ADMINISTRATOR), the bot as member, an owner."""
        gid = snowflake()
        owner = owner or self.add_user(f"{name.lower().replace(' ', '-')}-owner", guilds=())
        guild = FakeGuild(id=gid, name=name, owner_id=owner.id, locale=locale)
        guild.roles[gid] = FakeRole(id=gid, name="@everyone", permissions=everyone_permissions)
        admin = FakeRole(id=snowflake(), name="Admin", permissions=Perm.ADMINISTRATOR, position=2)
        bot_role = FakeRole(
            id=snowflake(),
            name=self.bot_user.name,
            permissions=bot_permissions,
            position=1,
            managed=True,
        )
        guild.roles[admin.id] = admin
        guild.roles[bot_role.id] = bot_role
        self.guilds[gid] = guild
        guild.bot_member = self.add_member(guild, self.bot_user, roles=[bot_role])
        self.add_member(guild, owner)
        return guild

    def add_user(
        self,
        name: str,
        *,
        dms_open: bool = True,
        admin: bool = False,
        guilds: Iterable[FakeGuild] | None = None,
        global_name: str | None = None,
        locale: str = "en-US",
        bot: bool = False,
    ) -> FakeUser:
        """A user; by default a member of every guild added so far (``guilds=()`` for none).

        ``admin=True`` gives them the guilds' Admin role (ADMINISTRATOR permission)."""
        user = FakeUser(
            id=snowflake(),
            name=name,
            global_name=global_name,
            dms_open=dms_open,
            locale=locale,
            bot=bot,
        )
        self.users[user.id] = user
        for guild in self.guilds.values() if guilds is None else guilds:
            self.add_member(guild, user, admin=admin)
        return user

    def add_member(
        self,
        guild: FakeGuild,
        user: FakeUser,
        *,
        admin: bool = False,
        roles: Iterable[FakeRole] = (),
        nick: str | None = None,
    ) -> FakeMember:
        role_ids = [r.id for r in roles]
        if admin:
            role_ids.append(guild.admin_role.id)
        member = FakeMember(user=user, guild=guild, role_ids=role_ids, nick=nick)
        guild.members[user.id] = member
        return member

    def add_role(self, guild: FakeGuild, name: str, permissions: int = 0) -> FakeRole:
        role = FakeRole(
            id=snowflake(), name=name, permissions=permissions, position=len(guild.roles)
        )
        guild.roles[role.id] = role
        return role

    def grant_role(self, guild: FakeGuild, user: FakeUser, role: FakeRole) -> None:
        member = guild.members[user.id]
        if role.id not in member.role_ids:
            member.role_ids.append(role.id)

    def add_channel(
        self, guild: FakeGuild, name: str, *, topic: str | None = None, position: int | None = None
    ) -> FakeChannel:
        channel = FakeChannel(
            id=snowflake(),
            name=name,
            type=0,
            guild=guild,
            topic=topic,
            position=len(guild.channels) if position is None else position,
        )
        guild.channels[channel.id] = channel
        self.channels[channel.id] = channel
        return channel

    def add_thread(
        self,
        parent: FakeChannel,
        name: str,
        *,
        owner: FakeUser | None = None,
        private: bool = False,
        thread_id: int | None = None,
    ) -> FakeChannel:
        assert parent.guild is not None and not parent.is_thread
        thread = FakeChannel(
            id=thread_id or snowflake(),
            name=name,
            type=12 if private else 11,
            guild=parent.guild,
            parent_id=parent.id,
            owner_id=(owner or self.bot_user).id,
        )
        parent.guild.channels[thread.id] = thread
        self.channels[thread.id] = thread
        return thread

    def set_permissions(
        self,
        channel: FakeChannel,
        target: FakeRole | FakeUser | FakeGuild,
        *,
        allow: int = 0,
        deny: int = 0,
    ) -> None:
        """Channel permission overwrite for a role, a member, or the guild (= @everyone)."""
        kind = 1 if isinstance(target, FakeUser) else 0
        channel.overwrites = [o for o in channel.overwrites if o.id != target.id]
        channel.overwrites.append(Overwrite(id=target.id, type=kind, allow=allow, deny=deny))

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The DM channel between the bot and ``user`` (created on first use)."""
        channel = self.dm_channels.get(user.id)
        if channel is None:
            channel = FakeChannel(id=snowflake(), name="", type=1, recipient=user)
            self.dm_channels[user.id] = channel
            self.channels[channel.id] = channel
        return channel

    # ------------------------------------------------------------------ inspection
    def channel_messages(self, channel: FakeChannel | int) -> list[FakeMessage]:
        """Visible (non-ephemeral, not deleted) messages of a channel, oldest first."""
        cid = channel if isinstance(channel, int) else channel.id
        return sorted(
            (
                m
                for m in self.messages.values()
                if m.channel_id == cid and not m.deleted and not m.ephemeral
            ),
            key=lambda m: m.id,
        )

    def dms(self, user: FakeUser) -> list[FakeMessage]:
        """Messages in the DM channel between the bot and ``user``."""
        channel = self.dm_channels.get(user.id)
        return [] if channel is None else self.channel_messages(channel)

    def get_message(self, message_id: int) -> FakeMessage:
        return self.messages[message_id]

    def commands(self, guild: FakeGuild | None = None) -> list[FakeCommand]:
        """The synced commands (global, or of ``guild``)."""
        store = self.global_commands if guild is None else self.guild_commands.get(guild.id, {})
        return list(store.values())

    def command_names(self, guild: FakeGuild | None = None) -> set[str]:
        return {c.name for c in self.commands(guild)}

    @property
    def last_interaction(self) -> FakeInteraction | None:
        return next(reversed(self.interactions.values()), None)

    def _notify_messages(self) -> None:
        self._msg_changed.set()
        self._msg_changed = asyncio.Event()

    async def wait_for_message(
        self,
        channel: FakeChannel | int,
        predicate: Callable[[FakeMessage], bool] | None = None,
        timeout: float = 3.0,
        *,
        after: int | FakeMessage | None = None,
    ) -> FakeMessage:
        """First visible message in ``channel`` (newer than ``after``) that matches."""
        after_id = after.id if isinstance(after, FakeMessage) else (after or 0)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            for msg in self.channel_messages(channel):
                if msg.id > after_id and (predicate is None or predicate(msg)):
                    return msg
            remaining = deadline - loop.time()
            if remaining <= 0:
                cid = channel if isinstance(channel, int) else channel.id
                seen = [m.content[:60] for m in self.channel_messages(channel)]
                raise TimeoutError(
                    f"no matching message in channel {cid} within {timeout}s; saw {seen}"
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._msg_changed.wait(), remaining)

    async def wait_for_dm(
        self,
        user: FakeUser,
        predicate: Callable[[FakeMessage], bool] | None = None,
        timeout: float = 3.0,
    ) -> FakeMessage:
        return await self.wait_for_message(self.dm_channel(user), predicate, timeout)
