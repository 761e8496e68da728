"""In-memory state of the fake Discord: users, guilds, channels, messages, interactions.

Everything here is plain data plus the JSON payload builders that turn it into the
shapes Discord's API v10 uses.  Ids are snowflakes (ints here, strings in JSON).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
import mimetypes
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Required, TypeAlias, TypedDict, TypeVar

DISCORD_EPOCH_MS = 1420070400000

_counter = itertools.count(1)
T = TypeVar("T")


def snowflake(at: float | None = None) -> int:
    """A fresh, strictly increasing snowflake whose timestamp is ``at`` (default: now)."""
    ms = int((time.time() if at is None else at) * 1000)
    return ((ms - DISCORD_EPOCH_MS) << 22) | (1 << 17) | (next(_counter) & 0x1FFFF)


def iso(when: dt.datetime | None = None) -> str:
    return (when or dt.datetime.now(dt.UTC)).isoformat()


def snowflake_time(sf: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(((sf >> 22) + DISCORD_EPOCH_MS) / 1000, dt.UTC)


class Perm:
    """Permission bits (https://discord.com/developers/docs/topics/permissions)."""

    CREATE_INSTANT_INVITE = 1 << 0
    KICK_MEMBERS = 1 << 1
    BAN_MEMBERS = 1 << 2
    ADMINISTRATOR = 1 << 3
    MANAGE_CHANNELS = 1 << 4
    MANAGE_GUILD = 1 << 5
    ADD_REACTIONS = 1 << 6
    VIEW_CHANNEL = 1 << 10
    SEND_MESSAGES = 1 << 11
    MANAGE_MESSAGES = 1 << 13
    EMBED_LINKS = 1 << 14
    ATTACH_FILES = 1 << 15
    READ_MESSAGE_HISTORY = 1 << 16
    MENTION_EVERYONE = 1 << 17
    USE_EXTERNAL_EMOJIS = 1 << 18
    CHANGE_NICKNAME = 1 << 26
    MANAGE_ROLES = 1 << 28
    USE_APPLICATION_COMMANDS = 1 << 31
    MANAGE_THREADS = 1 << 34
    CREATE_PUBLIC_THREADS = 1 << 35
    CREATE_PRIVATE_THREADS = 1 << 36
    SEND_MESSAGES_IN_THREADS = 1 << 38
    ALL = (1 << 53) - 1

    EVERYONE_DEFAULT = (
        CREATE_INSTANT_INVITE
        | ADD_REACTIONS
        | VIEW_CHANNEL
        | SEND_MESSAGES
        | EMBED_LINKS
        | ATTACH_FILES
        | READ_MESSAGE_HISTORY
        | MENTION_EVERYONE
        | USE_EXTERNAL_EMOJIS
        | CHANGE_NICKNAME
        | USE_APPLICATION_COMMANDS
        | CREATE_PUBLIC_THREADS
        | CREATE_PRIVATE_THREADS
        | SEND_MESSAGES_IN_THREADS
    )
    BOT_DEFAULT = EVERYONE_DEFAULT | MANAGE_MESSAGES | MANAGE_THREADS


class Intent:
    GUILDS = 1 << 0
    GUILD_MEMBERS = 1 << 1
    GUILD_PRESENCES = 1 << 8
    GUILD_MESSAGES = 1 << 9
    DIRECT_MESSAGES = 1 << 12
    MESSAGE_CONTENT = 1 << 15
    PRIVILEGED = GUILD_MEMBERS | GUILD_PRESENCES | MESSAGE_CONTENT


class DiscordAPIError(Exception):
    """Raised inside the fake's handlers; becomes a Discord-style JSON error response."""

    def __init__(
        self, status: int, code: int, message: str, errors: dict[str, Any] | None = None
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def payload(self) -> dict[str, Any]:
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors
        return body


def invalid_form(path: str, code: str, message: str) -> DiscordAPIError:
    """Discord's 50035 Invalid Form Body with a nested ``errors`` object."""
    errors: dict[str, Any] = {"_errors": [{"code": code, "message": message}]}
    for part in reversed(path.split(".")):
        errors = {part: errors}
    return DiscordAPIError(400, 50035, "Invalid Form Body", errors)


class CommandNotAvailable(Exception):
    """The user could not invoke this command in Discord's UI (not synced, hidden, wrong place)."""


class RequestRecord(TypedDict, total=False):
    """One request the bot made, as discord-spec's checker reads them (``fake.requests``)."""

    method: Required[str]
    path: Required[str]  # after /api/v10
    query: Required[dict[str, str]]
    # the JSON body (a multipart request's payload_json): an object, a list (a bulk overwrite
    # of commands), or None without one
    json: Required[dict[str, Any] | list[Any] | None]
    files: Required[list[list[str | int | None]]]  # [field, file name, size, content type]
    text: str  # a body that is no JSON, as it came
    status: int  # the status answered (absent while the request is being handled)


def body_of(record: RequestRecord) -> dict[str, Any]:
    """The JSON object a request sent ({} without one, or for a list)."""
    body = record["json"]
    return body if isinstance(body, dict) else {}


# ---------------------------------------------------------------------------
# Users, roles, members, guilds, channels


@dataclass(eq=False)
class FakeUser:
    id: int
    name: str
    global_name: str | None = None
    bot: bool = False
    dms_open: bool = True
    avatar: str | None = None
    locale: str = "en-US"

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name,
            "discriminator": "0",
            "global_name": self.global_name,
            "avatar": self.avatar,
            "bot": self.bot,
            "system": False,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
        }


@dataclass(eq=False)
class FakeRole:
    id: int
    name: str
    permissions: int
    position: int = 0
    managed: bool = False

    @property
    def mention(self) -> str:
        return f"<@&{self.id}>"

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "managed": self.managed,
            "mentionable": False,
            "icon": None,
            "unicode_emoji": None,
            "flags": 0,
        }


@dataclass(eq=False)
class FakeMember:
    user: FakeUser
    guild: FakeGuild
    role_ids: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=iso)

    @property
    def id(self) -> int:
        return self.user.id

    def payload(
        self, *, with_user: bool = True, channel: FakeChannel | None = None
    ) -> dict[str, Any]:
        data: dict[str, Any] = {
            "roles": [str(r) for r in self.role_ids],
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user.payload()
        if channel is not None:
            data["permissions"] = str(self.guild.permissions_for(self, channel))
        return data


@dataclass(eq=False)
class Overwrite:
    id: int
    type: int  # 0 role, 1 member
    allow: int = 0
    deny: int = 0

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "type": self.type,
            "allow": str(self.allow),
            "deny": str(self.deny),
        }


@dataclass(eq=False)
class FakeChannel:
    """A guild text channel (type 0), public thread (11), private thread (12) or DM (1)."""

    id: int
    name: str
    type: int = 0
    guild: FakeGuild | None = None
    parent_id: int | None = None
    owner_id: int | None = None
    topic: str | None = None
    position: int = 0
    overwrites: list[Overwrite] = field(default_factory=list)
    recipient: FakeUser | None = None  # DMs only
    archived: bool = False
    locked: bool = False
    last_message_id: int | None = None

    @property
    def is_thread(self) -> bool:
        return self.type in (10, 11, 12)

    @property
    def is_dm(self) -> bool:
        return self.type == 1

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def payload(self, *, for_member: FakeMember | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "last_message_id": str(self.last_message_id) if self.last_message_id else None,
            "flags": 0,
        }
        if self.is_dm:
            assert self.recipient is not None
            data["recipients"] = [self.recipient.payload()]
            return data
        assert self.guild is not None
        data.update(
            guild_id=str(self.guild.id),
            name=self.name,
            position=self.position,
            nsfw=False,
            rate_limit_per_user=0,
            parent_id=str(self.parent_id) if self.parent_id else None,
        )
        if self.is_thread:
            data.update(
                owner_id=str(self.owner_id or 0),
                message_count=0,
                member_count=1,
                total_message_sent=0,
                thread_metadata={
                    "archived": self.archived,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": iso(),
                    "locked": self.locked,
                    "create_timestamp": iso(snowflake_time(self.id)),
                },
            )
        else:
            data.update(
                topic=self.topic,
                permission_overwrites=[o.payload() for o in self.overwrites],
                default_auto_archive_duration=1440,
            )
        if for_member is not None:
            data["permissions"] = str(self.guild.permissions_for(for_member, self))
        return data


@dataclass(eq=False)
class FakeGuild:
    id: int
    name: str
    owner_id: int
    bot_member: FakeMember | None = None
    roles: dict[int, FakeRole] = field(default_factory=dict)
    members: dict[int, FakeMember] = field(default_factory=dict)
    channels: dict[int, FakeChannel] = field(default_factory=dict)
    locale: str = "en-US"
    joined_at: str = field(default_factory=iso)

    @property
    def everyone(self) -> FakeRole:
        return self.roles[self.id]

    @property
    def admin_role(self) -> FakeRole:
        for role in self.roles.values():
            if role.name == "Admin":
                return role
        raise LookupError("guild has no Admin role")

    def member(self, user: FakeUser | int) -> FakeMember | None:
        uid = user if isinstance(user, int) else user.id
        return self.members.get(uid)

    def base_permissions(self, member: FakeMember) -> int:
        if member.id == self.owner_id:
            return Perm.ALL
        perms = self.everyone.permissions
        for rid in member.role_ids:
            role = self.roles.get(rid)
            if role is not None:
                perms |= role.permissions
        if perms & Perm.ADMINISTRATOR:
            return Perm.ALL
        return perms

    def permissions_for(self, member: FakeMember, channel: FakeChannel | None) -> int:
        """Discord's permission algorithm: base permissions, then channel overwrites."""
        perms = self.base_permissions(member)
        if perms == Perm.ALL or channel is None:
            return perms
        source = channel
        if channel.is_thread and channel.parent_id in self.channels:
            source = self.channels[channel.parent_id]
        by_id = {o.id: o for o in source.overwrites}
        everyone = by_id.get(self.id)
        if everyone is not None:
            perms = (perms & ~everyone.deny) | everyone.allow
        allow = deny = 0
        for rid in member.role_ids:
            ow = by_id.get(rid)
            if ow is not None and ow.type == 0:
                allow |= ow.allow
                deny |= ow.deny
        perms = (perms & ~deny) | allow
        own = by_id.get(member.id)
        if own is not None and own.type == 1:
            perms = (perms & ~own.deny) | own.allow
        if not perms & Perm.VIEW_CHANNEL:
            return 0
        return perms

    def payload(self, *, include_members: bool = True) -> dict[str, Any]:
        members = list(self.members.values())
        sent = members if include_members else [m for m in members if m.user.bot]
        channels = [c for c in self.channels.values() if not c.is_thread]
        threads = [c for c in self.channels.values() if c.is_thread and not c.archived]
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": self.locale,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "features": [],
            "roles": [r.payload() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "joined_at": self.joined_at,
            "large": False,
            "unavailable": False,
            "member_count": len(members),
            "members": [m.payload() for m in sent],
            "channels": [c.payload() for c in channels],
            "threads": [c.payload() for c in threads],
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "premium_progress_bar_enabled": False,
        }


# ---------------------------------------------------------------------------
# Messages


@dataclass(eq=False)
class FakeAttachment:
    id: int
    filename: str
    data: bytes
    description: str | None = None
    url: str = ""
    ephemeral: bool = False

    @property
    def size(self) -> int:
        return len(self.data)

    @property
    def content_type(self) -> str:
        return mimetypes.guess_type(self.filename)[0] or "application/octet-stream"

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": self.size,
            "url": self.url,
            "proxy_url": self.url,
            "content_type": self.content_type,
            "ephemeral": self.ephemeral,
        }
        if self.description is not None:
            data["description"] = self.description
        return data


# A command option's value as a test gives it (``fake.slash(..., options=...)``): a string,
# number or boolean; a user, member, channel or role; an attachment, or (file name, bytes[,
# description]) for a new one.
OptionValue: TypeAlias = (str | int | float | bool | FakeUser | FakeMember | FakeChannel
                          | FakeRole | FakeAttachment | tuple[str, bytes] | tuple[str, bytes, str])


@dataclass(eq=False)
class FakeMessage:
    id: int
    channel_id: int
    author: FakeUser
    content: str = ""
    guild_id: int | None = None
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[FakeAttachment] = field(default_factory=list)
    flags: int = 0
    tts: bool = False
    edited_at: str | None = None
    reference: dict[str, Any] | None = None
    interaction_id: int | None = None  # set for interaction responses / followups
    interaction_user: FakeUser | None = None
    interaction_name: str | None = None
    webhook_id: int | None = None
    application_id: int | None = None
    deleted: bool = False
    loading: bool = False  # a deferred "Bot is thinking..." message
    member: FakeMember | None = None
    history: list[dict[str, Any]] = field(default_factory=list)  # previous versions
    allowed_mentions: dict[str, Any] | None = None  # as sent; None: Discord's default (all)
    nonce: str | None = None  # as sent (with enforce_nonce, a resend returns this message)
    # the users Discord notified when the message was created (an edit notifies nobody)
    pinged: list[int] = field(default_factory=list)

    EPHEMERAL = 64
    LOADING = 128

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & self.EPHEMERAL)

    @property
    def created_at(self) -> dt.datetime:
        return snowflake_time(self.id)

    COMPONENTS_V2 = 1 << 15

    @property
    def is_layout(self) -> bool:
        """A Components V2 message: its components are the message (no content)."""
        return bool(self.flags & self.COMPONENTS_V2)

    def text_displays(self) -> list[str]:
        """The contents of the message's text displays (Components V2), in order."""
        return [c.get("content", "") for c in iter_components(self.components)
                if c.get("type") == 10]

    def text(self) -> str:
        """What the message says: its content and its text displays."""
        return "\n".join([self.content, *self.text_displays()]).strip("\n")

    def gallery(self) -> list[dict[str, Any]]:
        """The items of the message's media galleries (Components V2)."""
        return [item for c in iter_components(self.components) if c.get("type") == 12
                for item in c.get("items") or []]

    def mentioned_user_ids(self) -> list[int]:
        """Users written as ``<@id>`` in the content or a text display."""
        return [int(m) for m in re.findall(r"<@!?(\d+)>", self.text())]

    def notified_user_ids(self) -> list[int]:
        """Users Discord would ping: the mentions that ``allowed_mentions`` lets through."""
        mentioned = self.mentioned_user_ids()
        am = self.allowed_mentions
        if am is None:
            return mentioned
        allowed = {int(u) for u in am.get("users") or []}
        if "users" in (am.get("parse") or []):
            return mentioned
        return [u for u in mentioned if u in allowed]

    def notifies_everyone(self) -> bool:
        """Whether Discord would ping @everyone/@here for this message: the text has one and
        ``allowed_mentions`` does not leave it out (None: Discord's default, everything)."""
        if "@everyone" not in self.text() and "@here" not in self.text():
            return False
        am = self.allowed_mentions
        return am is None or "everyone" in (am.get("parse") or [])

    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in iter_components(self.components) if "custom_id" in c]

    def find_component(self, custom_id: str) -> dict[str, Any] | None:
        for comp in iter_components(self.components):
            if comp.get("custom_id") == custom_id:
                return comp
        return None

    def payload(self) -> dict[str, Any]:
        flags = self.flags | (self.LOADING if self.loading else 0)
        data: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "author": self.author.payload(),
            "content": self.content,
            "timestamp": iso(self.created_at),
            "edited_timestamp": self.edited_at,
            "tts": self.tts,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [a.payload() for a in self.attachments],
            "embeds": self.embeds,
            "components": self.components,
            "pinned": False,
            "type": 20 if self.interaction_id and self.interaction_name else 0,
            "flags": flags,
        }
        if self.guild_id is not None:
            data["guild_id"] = str(self.guild_id)
        if self.member is not None:
            data["member"] = self.member.payload(with_user=False)
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
        if self.application_id is not None:
            data["application_id"] = str(self.application_id)
        if self.reference is not None:
            data["message_reference"] = self.reference
            data["type"] = 19
        if self.interaction_id is not None and self.interaction_user is not None:
            data["interaction_metadata"] = {
                "id": str(self.interaction_id),
                "type": 2 if self.interaction_name else 3,
                "user": self.interaction_user.payload(),
                "authorizing_integration_owners": {},
            }
            if self.interaction_name:
                data["interaction_metadata"]["name"] = self.interaction_name
        return data


def iter_components(components: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Walk a component tree (action rows, containers, sections, labels)."""
    for comp in components:
        yield comp
        yield from iter_components(comp.get("components", []))
        if isinstance(comp.get("accessory"), dict):
            yield comp["accessory"]
        if isinstance(comp.get("component"), dict):
            yield from iter_components([comp["component"]])


# ---------------------------------------------------------------------------
# Application commands


@dataclass(eq=False)
class FakeCommand:
    id: int
    application_id: int
    data: dict[str, Any]
    guild_id: int | None = None
    version: int = field(default_factory=snowflake)

    @property
    def name(self) -> str:
        return str(self.data["name"])

    @property
    def type(self) -> int:
        return int(self.data.get("type", 1))

    def payload(self) -> dict[str, Any]:
        data = {
            "type": 1,
            "description": "",
            "options": [],
            "default_member_permissions": None,
            "nsfw": False,
            **self.data,
        }
        data.update(
            id=str(self.id),
            application_id=str(self.application_id),
            version=str(self.version),
        )
        if self.guild_id is not None:
            data["guild_id"] = str(self.guild_id)
        else:
            data.setdefault("dm_permission", True)
        return data


# ---------------------------------------------------------------------------
# Interactions


@dataclass(eq=False)
class CallbackRecord:
    """One ``POST /interactions/{id}/{token}/callback`` the bot made (accepted or refused)."""

    type: int
    data: dict[str, Any]
    at: float
    accepted: bool
    error: DiscordAPIError | None = None

    @property
    def ephemeral(self) -> bool:
        return bool(int(self.data.get("flags", 0) or 0) & FakeMessage.EPHEMERAL)


@dataclass(eq=False)
class FakeInteraction:
    """What the test sees of one interaction it sent to the bot."""

    id: int
    token: str
    type: int
    user: FakeUser
    channel: FakeChannel
    guild: FakeGuild | None
    payload: dict[str, Any]
    created: float  # loop.time() at dispatch
    message: FakeMessage | None = None  # the message a component lives on
    callbacks: list[CallbackRecord] = field(default_factory=list)
    original: FakeMessage | None = None
    followups: list[FakeMessage] = field(default_factory=list)
    refused: list[DiscordAPIError] = field(default_factory=list)
    choices: list[dict[str, Any]] | None = None
    modal: dict[str, Any] | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    # -- state ------------------------------------------------------------
    @property
    def acknowledged(self) -> bool:
        return any(c.accepted for c in self.callbacks)

    @property
    def response(self) -> CallbackRecord | None:
        """The accepted callback, if any."""
        return next((c for c in self.callbacks if c.accepted), None)

    @property
    def response_type(self) -> int | None:
        resp = self.response
        return resp.type if resp else None

    @property
    def ephemeral(self) -> bool:
        """Whether the original response is ephemeral (only the invoking user sees it)."""
        if self.original is not None and self.original is not self.message:
            return self.original.ephemeral
        resp = self.response
        return bool(resp and resp.ephemeral)

    @property
    def messages(self) -> list[FakeMessage]:
        """Original response (unless still 'thinking') then followups, oldest first."""
        out = []
        if self.original is not None and not self.original.loading and not self.original.deleted:
            out.append(self.original)
        out.extend(m for m in self.followups if not m.deleted)
        return out

    @property
    def ephemeral_followups(self) -> list[FakeMessage]:
        return [m for m in self.followups if m.ephemeral and not m.deleted]

    @property
    def ephemeral_messages(self) -> list[FakeMessage]:
        return [m for m in self.messages if m.ephemeral]

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def _wait(self, check: Callable[[], T | None], timeout: float, what: str) -> T:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = check()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(
                    f"interaction {self.id}: no {what} within {timeout}s "
                    f"(callbacks={[(c.type, c.accepted) for c in self.callbacks]}, "
                    f"refused={[e.code for e in self.refused]})"
                )
            try:
                await asyncio.wait_for(self._changed.wait(), remaining)
            except TimeoutError:
                continue

    # -- waiting -----------------------------------------------------------
    async def wait_ack(self, timeout: float = 3.0) -> CallbackRecord:
        """Wait for the bot's accepted interaction callback."""
        return await self._wait(lambda: self.response, timeout, "acknowledgement")

    async def wait_original(
        self, predicate: Callable[[FakeMessage], bool] | None = None, timeout: float = 3.0
    ) -> FakeMessage:
        """Wait until the original response exists, is not 'thinking', and matches."""

        def check() -> FakeMessage | None:
            msg = self.original
            if msg is None or msg.loading or msg.deleted:
                return None
            if predicate is not None and not predicate(msg):
                return None
            return msg

        return await self._wait(check, timeout, "original response")

    async def wait_followup(
        self, predicate: Callable[[FakeMessage], bool] | None = None, timeout: float = 3.0
    ) -> FakeMessage:
        def check() -> FakeMessage | None:
            return next(
                (
                    m
                    for m in self.followups
                    if not m.deleted and (predicate is None or predicate(m))
                ),
                None,
            )

        return await self._wait(check, timeout, "followup")

    async def wait_message(
        self, predicate: Callable[[FakeMessage], bool] | None = None, timeout: float = 3.0
    ) -> FakeMessage:
        """Any visible message of this interaction (original or followup) that matches."""

        def check() -> FakeMessage | None:
            return next(
                (m for m in self.messages if predicate is None or predicate(m)),
                None,
            )

        return await self._wait(check, timeout, "message")

    async def wait_refused(self, timeout: float = 3.0) -> DiscordAPIError:
        return await self._wait(
            lambda: self.refused[0] if self.refused else None, timeout, "refused request"
        )

    async def wait_modal(self, timeout: float = 3.0) -> dict[str, Any]:
        return await self._wait(lambda: self.modal, timeout, "modal")
