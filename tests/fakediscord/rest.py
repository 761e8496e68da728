"""REST half of the fake: a small router over ``/api/v{n}/...`` and the handlers.

Handlers raise :class:`DiscordAPIError` for Discord-style refusals; the router turns those into
``{"code": ..., "message": ...}`` JSON with the right HTTP status.  Unknown routes answer
404 ``{"code": 0, "message": "404: Not Found"}`` and are recorded in ``fake.unknown_routes``.
"""

from __future__ import annotations

import asyncio
import enum
import functools
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any, Final, Literal, TypeAlias, TypeVar

import discord.utils
from aiohttp import BodyPartReader, web

from .gateway import MessageEvents
from .models import (
    CallbackRecord,
    DiscordAPIError,
    FakeAttachment,
    FakeChannel,
    FakeCommand,
    FakeGuild,
    FakeInteraction,
    FakeMessage,
    Intent,
    Perm,
    RequestRecord,
    invalid_form,
    iso,
    snowflake,
)

log = logging.getLogger("fakediscord.rest")

MAX_FILE_SIZE = 10 * 1024 * 1024
COMPONENTS_V2 = 32768
V2_COMPONENT_LIMIT = 40  # components of a Components V2 message, nested ones included
V2_TEXT_LIMIT = 4000  # characters of all its text displays together
RECORD = web.RequestKey[RequestRecord]("fakediscord.record")
NAME_RE = re.compile(r"^[-_'\w]{1,32}$")


class Empty(enum.Enum):
    """A handler's answer without a body: 204."""

    NO_CONTENT = "no content"


NO_CONTENT: Final = Empty.NO_CONTENT
NoContent: TypeAlias = Literal[Empty.NO_CONTENT]
# What a route handler answers: JSON (an object or a list of them), a response of its own, or
# nothing. A handler takes the request and the route's placeholders as keywords.
Answer: TypeAlias = dict[str, Any] | list[dict[str, Any]] | web.StreamResponse | NoContent
Handler: TypeAlias = Callable[..., Awaitable[Answer]]
H = TypeVar("H", bound=Handler)
# each route handler's method and path: (method, path's regex, path as written)
ROUTES: dict[Callable[..., object], list[tuple[str, re.Pattern[str], str]]] = {}


def json_response(data: object, status: int = 200) -> web.Response:
    # discord.py only parses JSON when Content-Type is exactly "application/json".
    return web.Response(
        body=json.dumps(data).encode(),
        status=status,
        headers={"Content-Type": "application/json"},
    )


def _route(method: str, pattern: str) -> Callable[[H], H]:
    regex = re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", pattern) + "$")

    def deco(fn: H) -> H:
        ROUTES.setdefault(fn, []).append((method, regex, pattern))
        return fn

    return deco


def validate_components(components: list[dict[str, Any]], *, v2: bool) -> None:
    if not v2 and len(components) > 5:
        raise invalid_form(
            "components", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length."
        )
    seen: set[str] = set()

    def walk(items: list[dict[str, Any]], path: str) -> None:
        for i, comp in enumerate(items):
            here = f"{path}.{i}"
            ctype = comp.get("type")
            if not v2 and path == "components" and ctype != 1:
                raise invalid_form(
                    here + ".type",
                    "UNION_TYPE_CHOICES",
                    'Value of field "type" must be one of (1,).',
                )
            if ctype == 1 and len(comp.get("components") or []) > 5:
                raise invalid_form(
                    here + ".components",
                    "BASE_TYPE_MAX_LENGTH",
                    "Must be 5 or fewer in length.",
                )
            if ctype == 1 and not comp.get("components"):
                raise invalid_form(
                    here + ".components", "BASE_TYPE_MIN_LENGTH", "Must be 1 or more in length."
                )
            cid = comp.get("custom_id")
            if cid is not None:
                if not 1 <= len(cid) <= 100:
                    raise invalid_form(
                        here + ".custom_id",
                        "BASE_TYPE_BAD_LENGTH",
                        "Must be between 1 and 100 in length.",
                    )
                if cid in seen:
                    raise invalid_form(
                        here + ".custom_id",
                        "COMPONENT_CUSTOM_ID_DUPLICATED",
                        "Component custom id cannot be duplicated",
                    )
                seen.add(cid)
            if ctype == 2:
                if comp.get("style") == 5:
                    if not comp.get("url"):
                        raise invalid_form(
                            here + ".url", "BASE_TYPE_REQUIRED", "This field is required"
                        )
                elif comp.get("style") != 6 and cid is None:
                    raise invalid_form(
                        here + ".custom_id", "BASE_TYPE_REQUIRED", "This field is required"
                    )
                if len(comp.get("label") or "") > 80:
                    raise invalid_form(
                        here + ".label",
                        "BASE_TYPE_MAX_LENGTH",
                        "Must be 80 or fewer in length.",
                    )
            if ctype == 3:
                options = comp.get("options") or []
                if not 1 <= len(options) <= 25:
                    raise invalid_form(
                        here + ".options",
                        "BASE_TYPE_BAD_LENGTH",
                        "Must be between 1 and 25 in length.",
                    )
            walk(comp.get("components") or [], here + ".components")
            if isinstance(comp.get("accessory"), dict):
                walk([comp["accessory"]], here + ".accessory")
            if isinstance(comp.get("component"), dict):
                walk([comp["component"]], here + ".component")

    walk(components, "components")



def validate_layout(
    components: list[dict[str, Any]],
    content: str,
    embeds: list[dict[str, Any]],
    attachments: list[FakeAttachment],
) -> None:
    """Discord's rules for a Components V2 message as it will be: no content or embeds,
    at most 40 components (nested ones and accessories counted), at most 4,000
    characters of text displays, and every ``attachment://`` media one of its files."""
    if content or embeds:
        raise invalid_form(
            "content",
            "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
            "The 'content' and 'embeds' fields cannot be used when using "
            "MessageFlags.IS_COMPONENTS_V2",
        )
    names = {a.filename for a in attachments}
    count = 0
    text = 0
    stack = list(components)
    while stack:
        comp = stack.pop()
        count += 1
        if comp.get("type") == 10:
            length = len(comp.get("content") or "")
            if not 1 <= length <= V2_TEXT_LIMIT:
                raise invalid_form("components", "BASE_TYPE_BAD_LENGTH",
                                   f"Must be between 1 and {V2_TEXT_LIMIT} in length.")
            text += length
        media = [comp.get("media")] if comp.get("type") in (11, 13) else [
            item.get("media") for item in comp.get("items") or []]
        if comp.get("type") == 12 and not 1 <= len(media) <= 10:
            raise invalid_form("components", "BASE_TYPE_BAD_LENGTH",
                               "Must be between 1 and 10 in length.")
        for item in media:
            url = str((item or {}).get("url") or "")
            if url.startswith("attachment://") and url[13:] not in names:
                raise invalid_form("components", "UNFURLED_MEDIA_ATTACHMENT_NOT_FOUND",
                                   f"Attachment {url[13:]!r} was not found")
        stack += comp.get("components") or []
        stack += [comp[k] for k in ("accessory", "component") if isinstance(comp.get(k), dict)]
    if count > V2_COMPONENT_LIMIT:
        raise invalid_form("components", "BASE_TYPE_MAX_LENGTH",
                           f"Must be {V2_COMPONENT_LIMIT} or fewer in length.")
    if text > V2_TEXT_LIMIT:
        raise invalid_form("components", "MAX_TEXT_DISPLAY_LENGTH_EXCEEDED",
                           f"Text displays must be {V2_TEXT_LIMIT} or fewer in length.")


class RestCore(MessageEvents):
    """The REST half's plumbing: routing, bodies, what a message body may hold."""

    @functools.cached_property
    def _route_table(self) -> list[tuple[str, re.Pattern[str], str, Handler]]:
        routes: list[tuple[str, re.Pattern[str], str, Handler]] = []
        for name in dir(type(self)):
            fn = getattr(type(self), name, None)
            if callable(fn):
                for method, regex, pattern in ROUTES.get(fn, []):
                    routes.append((method, regex, pattern, getattr(self, name)))
        # literal segments ("@me", "permissions") win over placeholders
        routes.sort(key=lambda r: r[2].count("{"))
        return routes

    # ------------------------------------------------------------------ plumbing
    async def _api_handler(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        method = request.method
        status = 500
        record: RequestRecord = {"method": method, "path": path, "query": dict(request.query),
                                 "json": None, "files": []}
        request[RECORD] = record
        self.requests.append(record)
        try:
            for r_method, regex, pattern, handler in self._route_table:
                m = regex.match(path)
                if m is None or r_method != method:
                    continue
                if not pattern.startswith(("/webhooks/", "/interactions/")):
                    self._check_auth(request)
                result = await handler(request, **m.groupdict())
                if result is NO_CONTENT:
                    status = 204
                    return web.Response(status=204)
                if isinstance(result, web.StreamResponse):
                    status = result.status
                    return result
                status = 200
                return json_response(result)
            self.unknown_routes.append((method, path))
            log.warning("fakediscord: unknown route %s %s", method, path)
            status = 404
            return json_response({"message": "404: Not Found", "code": 0}, status=404)
        except DiscordAPIError as exc:
            status = exc.status
            self.error_log.append((method, path, exc))
            return json_response(exc.payload(), status=exc.status)
        finally:
            self.request_log.append((method, path, status))
            record["status"] = status

    def _guild(self, guild_id: str) -> FakeGuild:
        guild = self.guilds.get(int(guild_id)) if guild_id.isdigit() else None
        if guild is None:
            raise DiscordAPIError(404, 10004, "Unknown Guild")
        return guild

    def _check_auth(self, request: web.Request) -> None:
        if request.headers.get("Authorization") != f"Bot {self.token}":
            raise DiscordAPIError(401, 0, "401: Unauthorized")

    async def _read_body(
        self, request: web.Request
    ) -> tuple[dict[str, Any], dict[int, tuple[str, bytes]]]:
        """JSON body, or multipart ``payload_json`` + ``files[n]`` parts."""
        files: dict[int, tuple[str, bytes]] = {}
        record = request[RECORD]
        if request.content_type.startswith("multipart/"):
            body: dict[str, Any] = {}
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                assert isinstance(part, BodyPartReader), "a multipart inside the multipart"
                name = part.name or ""
                raw = await part.read(decode=False)
                if name == "payload_json":
                    body = json.loads(raw or b"{}")
                else:
                    m = re.fullmatch(r"files\[(\d+)\]|file(\d*)", name)
                    if m is None:
                        continue
                    index = int(m.group(1) or m.group(2) or 0)
                    files[index] = (part.filename or f"file{index}", bytes(raw))
                    record["files"].append(
                        [name, files[index][0], len(raw), part.headers.get("Content-Type")])
            record["json"] = body
            return body, files
        if not request.can_read_body:
            return {}, files
        text = await request.text()
        if not text:
            return {}, files
        try:
            data = json.loads(text)
        except ValueError as exc:
            record["text"] = text
            raise DiscordAPIError(400, 50109, "The request body contains invalid JSON.") from exc
        record["json"] = data
        return data if isinstance(data, dict) else {"__list__": data}, files

    # ------------------------------------------------------------------ validation
    def _validate_message_body(self, body: dict[str, Any]) -> None:
        content = body.get("content")
        if content is not None and len(str(content)) > 2000:
            raise invalid_form(
                "content", "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length."
            )
        flags = int(body.get("flags") or 0)
        if flags & ~self.allowed_message_flags:
            raise invalid_form("flags", "MESSAGE_FLAGS_INVALID", "Invalid message flags.")
        embeds = body.get("embeds") or []
        if len(embeds) > 10:
            raise invalid_form("embeds", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")
        total = 0
        limits = {"title": 256, "description": 4096}
        for i, embed in enumerate(embeds):
            for key, limit in limits.items():
                value = embed.get(key) or ""
                total += len(value)
                if len(value) > limit:
                    raise invalid_form(
                        f"embeds.{i}.{key}",
                        "BASE_TYPE_MAX_LENGTH",
                        f"Must be {limit} or fewer in length.",
                    )
            fields = embed.get("fields") or []
            if len(fields) > 25:
                raise invalid_form(
                    f"embeds.{i}.fields", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."
                )
            for j, fld in enumerate(fields):
                if not fld.get("name") or len(fld["name"]) > 256:
                    raise invalid_form(
                        f"embeds.{i}.fields.{j}.name",
                        "BASE_TYPE_BAD_LENGTH",
                        "Must be between 1 and 256 in length.",
                    )
                if not fld.get("value") or len(fld["value"]) > 1024:
                    raise invalid_form(
                        f"embeds.{i}.fields.{j}.value",
                        "BASE_TYPE_BAD_LENGTH",
                        "Must be between 1 and 1024 in length.",
                    )
                total += len(fld["name"]) + len(fld["value"])
            total += len((embed.get("footer") or {}).get("text") or "")
            total += len((embed.get("author") or {}).get("name") or "")
        if total > 6000:
            raise invalid_form(
                "embeds", "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000"
            )
        components = body.get("components")
        if components:
            validate_components(components, v2=bool(flags & COMPONENTS_V2))


    def _apply_attachments(
        self,
        body: dict[str, Any],
        files: dict[int, tuple[str, bytes]],
        channel_id: int,
        existing: list[FakeAttachment],
        *,
        ephemeral: bool = False,
    ) -> list[FakeAttachment] | None:
        """New attachment list for a create/edit, or None when the body leaves them alone."""
        for _, (_, data) in files.items():
            if len(data) > MAX_FILE_SIZE:
                raise DiscordAPIError(413, 40005, "Request entity too large")
        if "attachments" not in body and not files:
            return None
        specs = body.get("attachments")
        if specs is None:
            specs = [{"id": i, "filename": name} for i, (name, _) in sorted(files.items())]
        by_id = {a.id: a for a in existing}
        out: list[FakeAttachment] = []
        for i, spec in enumerate(specs):
            sid = int(spec["id"])
            if sid in by_id:
                out.append(by_id[sid])
                continue
            if sid not in files:
                raise invalid_form(f"attachments.{i}", "ATTACHMENT_NOT_FOUND", "Unknown attachment")
            upload_name, data = files[sid]
            att_id = snowflake()
            filename = spec.get("filename") or upload_name
            out.append(
                FakeAttachment(
                    id=att_id,
                    filename=filename,
                    data=data,
                    description=spec.get("description"),
                    url=f"{self.base_url}/attachments/{channel_id}/{att_id}/{filename}",
                    ephemeral=ephemeral,
                )
            )
        return out

    def _fill_message(
        self,
        msg: FakeMessage,
        body: dict[str, Any],
        files: dict[int, tuple[str, bytes]],
        *,
        edit: bool,
    ) -> None:
        self._validate_message_body(body)
        attachments = self._apply_attachments(
            body, files, msg.channel_id, msg.attachments, ephemeral=msg.ephemeral
        )
        # once set, IS_COMPONENTS_V2 stays: an edit is judged against the whole result
        if (msg.is_layout and edit) or int(body.get("flags") or 0) & COMPONENTS_V2:
            validate_layout(
                list(body.get("components") or []) if "components" in body or not edit
                else msg.components,
                str(body.get("content") or "") if "content" in body or not edit
                else msg.content,
                list(body.get("embeds") or []) if "embeds" in body or not edit else msg.embeds,
                attachments if attachments is not None else msg.attachments,
            )
        if edit:
            msg.history.append(msg.payload())
            msg.edited_at = iso()
        if "content" in body or not edit:
            msg.content = body.get("content") or ""
        if "embeds" in body or not edit:
            msg.embeds = list(body.get("embeds") or [])
        if "embed" in body and body["embed"] is not None:
            msg.embeds = [body["embed"]]
        if "components" in body or not edit:
            msg.components = list(body.get("components") or [])
        if "allowed_mentions" in body:
            msg.allowed_mentions = body["allowed_mentions"]
        if attachments is not None:
            msg.attachments = attachments
        if "flags" in body and body["flags"] is not None:
            keep = msg.flags & (FakeMessage.EPHEMERAL | COMPONENTS_V2)
            msg.flags = (int(body["flags"]) & ~FakeMessage.EPHEMERAL) | keep
        if not edit:
            msg.tts = bool(body.get("tts"))
            ref = body.get("message_reference")
            if ref:
                ref_id = int(ref["message_id"])
                if ref_id not in self.messages and ref.get("fail_if_not_exists", True):
                    raise invalid_form(
                        "message_reference", "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", "Unknown message"
                    )
                msg.reference = {
                    "type": ref.get("type", 0),
                    "message_id": str(ref_id),
                    "channel_id": str(ref.get("channel_id") or msg.channel_id),
                }
        if not (msg.content or msg.embeds or msg.attachments or msg.components) and not msg.loading:
            raise DiscordAPIError(400, 50006, "Cannot send an empty message")



class ChannelRoutes(RestCore):
    """Users, the application, the gateway's address, guilds, channels, messages, threads."""

    # ------------------------------------------------------------------ users / app / gateway
    @_route("GET", "/users/@me")
    async def _get_me(self, request: web.Request) -> dict[str, Any]:
        return self.bot_user.payload() | {"verified": True, "mfa_enabled": False, "locale": "en-US"}

    @_route("GET", "/users/{user_id}")
    async def _get_user(self, request: web.Request, user_id: str) -> dict[str, Any]:
        user = self.users.get(int(user_id)) if user_id.isdigit() else None
        if user is None:
            raise DiscordAPIError(404, 10013, "Unknown User")
        return user.payload()

    @_route("POST", "/users/@me/channels")
    async def _open_dm(self, request: web.Request) -> dict[str, Any]:
        body, _ = await self._read_body(request)
        user = self.users.get(int(body.get("recipient_id", 0)))
        if user is None:
            raise invalid_form("recipient_id", "USER_NOT_FOUND", "Unknown User")
        if user.bot:
            raise DiscordAPIError(403, 50007, "Cannot send messages to this user")
        return self.dm_channel(user).payload()

    @_route("GET", "/oauth2/applications/@me")
    @_route("GET", "/applications/@me")
    async def _get_app(self, request: web.Request) -> dict[str, Any]:
        return self.application_payload()

    @_route("GET", "/gateway")
    async def _get_gateway(self, request: web.Request) -> dict[str, Any]:
        return {"url": self.gateway_url}

    @_route("GET", "/gateway/bot")
    async def _get_gateway_bot(self, request: web.Request) -> dict[str, Any]:
        return {
            "url": self.gateway_url,
            "shards": self.shard_count,
            "session_start_limit": {
                "total": 1000,
                "remaining": 999,
                "reset_after": 14400000,
                "max_concurrency": 1,
            },
        }

    # ------------------------------------------------------------------ guilds
    @_route("GET", "/guilds/{guild_id}")
    async def _get_guild(self, request: web.Request, guild_id: str) -> dict[str, Any]:
        data = self._guild(guild_id).payload()
        for key in ("members", "channels", "threads", "presences", "voice_states", "joined_at"):
            data.pop(key, None)
        return data

    @_route("GET", "/guilds/{guild_id}/channels")
    async def _get_guild_channels(
        self, request: web.Request, guild_id: str
    ) -> list[dict[str, Any]]:
        guild = self._guild(guild_id)
        return [c.payload() for c in guild.channels.values() if not c.is_thread]

    @_route("GET", "/guilds/{guild_id}/roles")
    async def _get_guild_roles(self, request: web.Request, guild_id: str) -> list[dict[str, Any]]:
        return [r.payload() for r in self._guild(guild_id).roles.values()]

    @_route("GET", "/guilds/{guild_id}/members/{user_id}")
    async def _get_member(
        self, request: web.Request, guild_id: str, user_id: str
    ) -> dict[str, Any]:
        guild = self._guild(guild_id)
        member = guild.members.get(int(user_id)) if user_id.isdigit() else None
        if member is None:
            raise DiscordAPIError(404, 10007, "Unknown Member")
        return member.payload()

    @_route("GET", "/guilds/{guild_id}/members")
    async def _list_members(self, request: web.Request, guild_id: str) -> list[dict[str, Any]]:
        guild = self._guild(guild_id)
        limit = int(request.query.get("limit", 1))
        after = int(request.query.get("after", 0))
        members = sorted((m for m in guild.members.values() if m.id > after), key=lambda m: m.id)
        return [m.payload() for m in members[:limit]]

    # ------------------------------------------------------------------ channels & messages
    def _channel(self, channel_id: str) -> FakeChannel:
        channel = self.channels.get(int(channel_id)) if channel_id.isdigit() else None
        if channel is None:
            raise DiscordAPIError(404, 10003, "Unknown Channel")
        return channel

    def _message(self, channel: FakeChannel, message_id: str) -> FakeMessage:
        msg = self.messages.get(int(message_id)) if message_id.isdigit() else None
        if msg is None or msg.deleted or msg.channel_id != channel.id or msg.ephemeral:
            raise DiscordAPIError(404, 10008, "Unknown Message")
        return msg

    def _require(self, channel: FakeChannel, perms: int) -> None:
        if channel.guild is None:
            return
        bot_member = channel.guild.bot_member
        assert bot_member is not None
        have = channel.guild.permissions_for(bot_member, channel)
        if have & perms != perms:
            raise DiscordAPIError(403, 50013, "Missing Permissions")

    @_route("GET", "/channels/{channel_id}")
    async def _get_channel(self, request: web.Request, channel_id: str) -> dict[str, Any]:
        channel = self._channel(channel_id)
        self._require(channel, Perm.VIEW_CHANNEL)
        return channel.payload()

    @_route("POST", "/channels/{channel_id}/typing")
    async def _typing(self, request: web.Request, channel_id: str) -> NoContent:
        channel = self._channel(channel_id)
        self.typing.append(channel.id)
        return NO_CONTENT

    @_route("POST", "/channels/{channel_id}/messages")
    async def _post_message(self, request: web.Request, channel_id: str) -> dict[str, Any]:
        channel = self._channel(channel_id)
        body, files = await self._read_body(request)
        if self.post_delay or channel.id in self.held_channels:
            self.posts_in_flight += 1
            try:
                await asyncio.sleep(self.post_delay)
                while channel.id in self.held_channels:
                    await asyncio.sleep(0.02)
            finally:
                self.posts_in_flight -= 1
        if self.post_failures:
            status = self.post_failures.pop(0)
            raise DiscordAPIError(status, 0, "Injected failure")
        nonce = body.get("nonce")
        if nonce is not None and body.get("enforce_nonce"):
            # Discord: a second message with the same nonce (within minutes) is not created;
            # the first one is returned
            recent = discord.utils.utcnow().timestamp() - self.nonce_window
            for old in self.channel_messages(channel):
                if (old.nonce == str(nonce) and old.author.id == self.bot_user.id
                        and old.created_at.timestamp() >= recent):
                    return old.payload()
        if channel.is_dm:
            assert channel.recipient is not None
            if not channel.recipient.dms_open:
                raise DiscordAPIError(403, 50007, "Cannot send messages to this user")
        else:
            needed = Perm.VIEW_CHANNEL | (
                Perm.SEND_MESSAGES_IN_THREADS if channel.is_thread else Perm.SEND_MESSAGES
            )
            if files:
                needed |= Perm.ATTACH_FILES
            if body.get("embeds"):
                needed |= Perm.EMBED_LINKS
            self._require(channel, needed)
            if channel.is_thread and (channel.archived or channel.locked):
                raise DiscordAPIError(400, 50083, "Thread is archived")
        msg = self._new_message(channel, self.bot_user)
        self._fill_message(msg, body, files, edit=False)
        msg.nonce = str(nonce) if nonce is not None else None
        msg.pinged = msg.notified_user_ids()
        self.messages_posted += 1
        await self._store_message(msg)
        return msg.payload()

    @_route("GET", "/channels/{channel_id}/messages")
    async def _history(self, request: web.Request, channel_id: str) -> list[dict[str, Any]]:
        channel = self._channel(channel_id)
        self._require(channel, Perm.VIEW_CHANNEL | Perm.READ_MESSAGE_HISTORY)
        msgs = self.channel_messages(channel)
        limit = int(request.query.get("limit", 50))
        if "before" in request.query:
            before = int(request.query["before"])
            msgs = [m for m in msgs if m.id < before]
        if "after" in request.query:
            after = int(request.query["after"])
            msgs = [m for m in msgs if m.id > after][:limit]
        msgs = sorted(msgs, key=lambda m: m.id, reverse=True)[:limit]
        return [m.payload() for m in msgs]

    @_route("GET", "/channels/{channel_id}/messages/{message_id}")
    async def _get_message(
        self, request: web.Request, channel_id: str, message_id: str
    ) -> dict[str, Any]:
        channel = self._channel(channel_id)
        self._require(channel, Perm.VIEW_CHANNEL | Perm.READ_MESSAGE_HISTORY)
        return self._message(channel, message_id).payload()

    @_route("PATCH", "/channels/{channel_id}/messages/{message_id}")
    async def _edit_message(
        self, request: web.Request, channel_id: str, message_id: str
    ) -> dict[str, Any]:
        channel = self._channel(channel_id)
        msg = self._message(channel, message_id)
        if msg.author.id != self.bot_user.id:
            raise DiscordAPIError(403, 50005, "Cannot edit a message authored by another user")
        body, files = await self._read_body(request)
        if channel.id in self.held_edits:
            self.edits_in_flight += 1
            try:
                while channel.id in self.held_edits:
                    await asyncio.sleep(0.02)
            finally:
                self.edits_in_flight -= 1
            msg = self._message(channel, message_id)  # deleted meanwhile: 404
        if channel.is_dm:
            assert channel.recipient is not None
            if not channel.recipient.dms_open:
                raise DiscordAPIError(403, 50007, "Cannot send messages to this user")
        else:  # what a post needs to see the channel and upload, an edit needs too
            self._require(channel, Perm.VIEW_CHANNEL | (Perm.ATTACH_FILES if files else 0))
        self._fill_message(msg, body, files, edit=True)
        self.messages_edited += 1
        await self._message_updated(msg)
        return msg.payload()

    @_route("DELETE", "/channels/{channel_id}/messages/{message_id}")
    async def _delete_message(
        self, request: web.Request, channel_id: str, message_id: str
    ) -> NoContent:
        channel = self._channel(channel_id)
        msg = self._message(channel, message_id)
        if msg.author.id != self.bot_user.id:
            if channel.is_dm:
                raise DiscordAPIError(403, 50003, "Cannot execute action on a DM channel")
            self._require(channel, Perm.MANAGE_MESSAGES)
        await self._delete(msg)
        return NO_CONTENT

    @_route("POST", "/channels/{channel_id}/threads")
    async def _create_thread(self, request: web.Request, channel_id: str) -> dict[str, Any]:
        parent = self._channel(channel_id)
        body, _ = await self._read_body(request)
        private = int(body.get("type", 12)) == 12
        if parent.is_dm or parent.is_thread:
            raise DiscordAPIError(400, 50024, "Cannot execute action on this channel type")
        self._require(
            parent, Perm.CREATE_PRIVATE_THREADS if private else Perm.CREATE_PUBLIC_THREADS
        )
        thread = self.add_thread(
            parent, str(body.get("name", "thread")), owner=self.bot_user, private=private
        )
        await self._announce_thread(thread)
        return thread.payload()

    @_route("POST", "/channels/{channel_id}/messages/{message_id}/threads")
    async def _thread_from_message(
        self, request: web.Request, channel_id: str, message_id: str
    ) -> dict[str, Any]:
        parent = self._channel(channel_id)
        msg = self._message(parent, message_id)
        body, _ = await self._read_body(request)
        self._require(parent, Perm.CREATE_PUBLIC_THREADS)
        if msg.id in self.channels:
            raise DiscordAPIError(400, 160004, "A thread has already been created for this message")
        thread = self.add_thread(
            parent, str(body.get("name", "thread")), owner=self.bot_user, thread_id=msg.id
        )
        await self._announce_thread(thread)
        return thread.payload()

    async def _announce_thread(self, thread: FakeChannel) -> None:
        assert thread.guild is not None
        await self.dispatch_event(
            "THREAD_CREATE",
            thread.payload() | {"newly_created": True},
            guild_id=thread.guild.id,
            intent=Intent.GUILDS,
        )



class CommandRoutes(RestCore):
    """Application commands: the bulk overwrite, one command, their permissions."""

    # ------------------------------------------------------------------ application commands
    def _check_app(self, app_id: str) -> None:
        if app_id != str(self.application_id):
            raise DiscordAPIError(403, 50001, "Missing Access")

    def _command_store(self, guild_id: str | None) -> dict[int, FakeCommand]:
        if guild_id is None:
            return self.global_commands
        guild = self._guild(guild_id)
        return self.guild_commands.setdefault(guild.id, {})

    def _validate_command(self, data: dict[str, Any], path: str) -> None:
        ctype = int(data.get("type", 1))
        name = data.get("name")
        if ctype == 1:
            valid = isinstance(name, str) and bool(NAME_RE.match(name)) and name == name.lower()
        else:  # context-menu names may hold spaces and capitals
            valid = isinstance(name, str) and 1 <= len(name) <= 32
        if not valid:
            raise invalid_form(
                f"{path}.name", "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid"
            )
        desc = data.get("description") or ""
        if ctype == 1 and not 1 <= len(desc) <= 100:
            raise invalid_form(
                f"{path}.description",
                "BASE_TYPE_BAD_LENGTH",
                "Must be between 1 and 100 in length.",
            )
        if ctype != 1 and desc:
            raise invalid_form(
                f"{path}.description",
                "APPLICATION_COMMAND_DESCRIPTION_INVALID",
                "Context menu commands cannot have description",
            )
        self._validate_options(data.get("options") or [], f"{path}.options", depth=0)

    def _validate_options(
        self, options: list[dict[str, Any]], path: str, depth: int
    ) -> None:
        if len(options) > 25:
            raise invalid_form(path, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        names: set[str] = set()
        seen_optional = False
        for i, opt in enumerate(options):
            here = f"{path}.{i}"
            name = opt.get("name", "")
            if not NAME_RE.match(name) or name != name.lower():
                raise invalid_form(
                    f"{here}.name", "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid"
                )
            if name in names:
                raise invalid_form(
                    f"{here}.name",
                    "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS",
                    "Option names must be unique",
                )
            names.add(name)
            if not 1 <= len(opt.get("description") or "") <= 100:
                raise invalid_form(
                    f"{here}.description",
                    "BASE_TYPE_BAD_LENGTH",
                    "Must be between 1 and 100 in length.",
                )
            otype = int(opt.get("type", 3))
            if otype in (1, 2):
                if (otype == 2 and depth > 0) or depth > 1:
                    raise invalid_form(
                        f"{here}.type",
                        "APPLICATION_COMMAND_SUBCOMMAND_NESTING_INVALID",
                        "Sub-command groups cannot be nested",
                    )
                self._validate_options(opt.get("options") or [], f"{here}.options", depth + 1)
                continue
            if opt.get("required"):
                if seen_optional:
                    raise invalid_form(
                        here,
                        "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                        "Required options must be placed before non-required options",
                    )
            else:
                seen_optional = True
            choices = opt.get("choices") or []
            if len(choices) > 25:
                raise invalid_form(
                    f"{here}.choices", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."
                )
            if choices and opt.get("autocomplete"):
                raise invalid_form(
                    f"{here}.autocomplete",
                    "APPLICATION_COMMAND_AUTOCOMPLETE_INVALID",
                    "Autocomplete cannot be used with choices",
                )

    def _upsert_command(
        self, store: dict[int, FakeCommand], data: dict[str, Any], guild_id: int | None
    ) -> FakeCommand:
        ctype = int(data.get("type", 1))
        for cmd in store.values():
            if cmd.name == data["name"] and cmd.type == ctype:
                cmd.data = dict(data)
                cmd.version = snowflake()
                return cmd
        cmd = FakeCommand(
            id=snowflake(), application_id=self.application_id, data=dict(data), guild_id=guild_id
        )
        store[cmd.id] = cmd
        return cmd

    @_route("GET", "/applications/{app_id}/commands")
    @_route("GET", "/applications/{app_id}/guilds/{guild_id}/commands")
    async def _get_commands(
        self, request: web.Request, app_id: str, guild_id: str | None = None
    ) -> list[dict[str, Any]]:
        self._check_app(app_id)
        return [c.payload() for c in self._command_store(guild_id).values()]

    @_route("PUT", "/applications/{app_id}/commands")
    @_route("PUT", "/applications/{app_id}/guilds/{guild_id}/commands")
    async def _bulk_commands(
        self, request: web.Request, app_id: str, guild_id: str | None = None
    ) -> list[dict[str, Any]]:
        self._check_app(app_id)
        store = self._command_store(guild_id)
        body, _ = await self._read_body(request)
        items = body.get("__list__")
        if not isinstance(items, list):
            raise invalid_form("_", "BASE_TYPE_ARRAY", "Must be an array")
        if sum(1 for c in items if int(c.get("type", 1)) == 1) > 100:
            raise DiscordAPIError(
                400, 30032, "Maximum number of application commands reached (100)"
            )
        keys: set[tuple[str, int]] = set()
        for i, data in enumerate(items):
            self._validate_command(data, str(i))
            key = (data["name"], int(data.get("type", 1)))
            if key in keys:
                raise invalid_form(
                    f"{i}.name",
                    "APPLICATION_COMMANDS_DUPLICATE_NAME",
                    f"Application command names must be unique ({data['name']})",
                )
            keys.add(key)
        gid = int(guild_id) if guild_id else None
        kept = [self._upsert_command(store, data, gid) for data in items]
        for cid in [cid for cid, c in store.items() if c not in kept]:
            del store[cid]
        self.sync_count += 1
        return [c.payload() for c in kept]

    @_route("POST", "/applications/{app_id}/commands")
    @_route("POST", "/applications/{app_id}/guilds/{guild_id}/commands")
    async def _create_command(
        self, request: web.Request, app_id: str, guild_id: str | None = None
    ) -> dict[str, Any]:
        self._check_app(app_id)
        body, _ = await self._read_body(request)
        self._validate_command(body, "")
        return self._upsert_command(
            self._command_store(guild_id), body, int(guild_id) if guild_id else None
        ).payload()

    def _find_command(
        self, app_id: str, guild_id: str | None, command_id: str
    ) -> FakeCommand:
        self._check_app(app_id)
        cmd = self._command_store(guild_id).get(int(command_id)) if command_id.isdigit() else None
        if cmd is None:
            raise DiscordAPIError(404, 10063, "Unknown application command")
        return cmd

    @_route("GET", "/applications/{app_id}/commands/{command_id}")
    @_route("GET", "/applications/{app_id}/guilds/{guild_id}/commands/{command_id}")
    async def _get_command(
        self,
        request: web.Request,
        app_id: str,
        command_id: str,
        guild_id: str | None = None,
    ) -> dict[str, Any]:
        return self._find_command(app_id, guild_id, command_id).payload()

    @_route("PATCH", "/applications/{app_id}/commands/{command_id}")
    @_route("PATCH", "/applications/{app_id}/guilds/{guild_id}/commands/{command_id}")
    async def _edit_command(
        self,
        request: web.Request,
        app_id: str,
        command_id: str,
        guild_id: str | None = None,
    ) -> dict[str, Any]:
        cmd = self._find_command(app_id, guild_id, command_id)
        body, _ = await self._read_body(request)
        data = cmd.data | body
        self._validate_command(data, "")
        cmd.data = data
        cmd.version = snowflake()
        return cmd.payload()

    @_route("DELETE", "/applications/{app_id}/commands/{command_id}")
    @_route("DELETE", "/applications/{app_id}/guilds/{guild_id}/commands/{command_id}")
    async def _delete_command(
        self,
        request: web.Request,
        app_id: str,
        command_id: str,
        guild_id: str | None = None,
    ) -> NoContent:
        cmd = self._find_command(app_id, guild_id, command_id)
        del self._command_store(guild_id)[cmd.id]
        return NO_CONTENT

    @_route("GET", "/applications/{app_id}/guilds/{guild_id}/commands/permissions")
    async def _command_permissions(
        self, request: web.Request, app_id: str, guild_id: str
    ) -> list[dict[str, Any]]:
        self._check_app(app_id)
        return []



class InteractionRoutes(RestCore):
    """Interaction callbacks, the interaction's webhook (followups, its messages), the CDN."""

    # ------------------------------------------------------------------ interactions
    _VALID_CALLBACKS = {
        2: {4, 5, 9},  # application command
        3: {4, 5, 6, 7, 9},  # message component
        4: {8},  # autocomplete
        5: {4, 5, 6, 7},  # modal submit (6/7 only when the modal came from a component)
    }

    def _refuse(self, ia: FakeInteraction, exc: DiscordAPIError) -> DiscordAPIError:
        ia.refused.append(exc)
        ia._notify()
        return exc

    @_route("POST", "/interactions/{interaction_id}/{token}/callback")
    async def _callback(
        self, request: web.Request, interaction_id: str, token: str
    ) -> dict[str, Any] | NoContent:
        ia = self.interactions.get(int(interaction_id)) if interaction_id.isdigit() else None
        if ia is None or ia.token != token:
            raise DiscordAPIError(404, 10062, "Unknown interaction")
        body, files = await self._read_body(request)
        rtype = int(body.get("type", 0))
        data = body.get("data") or {}
        now = self.loop_time()
        record = CallbackRecord(type=rtype, data=data, at=now - ia.created, accepted=False)
        ia.callbacks.append(record)
        try:
            if now - ia.created > self.interaction_window:
                raise DiscordAPIError(404, 10062, "Unknown interaction")
            if any(c.accepted for c in ia.callbacks):
                raise DiscordAPIError(400, 40060, "Interaction has already been acknowledged.")
            valid = set(self._VALID_CALLBACKS.get(ia.type, set()))
            if ia.message is None:
                valid -= {6, 7}
            if rtype not in valid:
                raise invalid_form(
                    "type",
                    "INTERACTION_RESPONSE_TYPE_INVALID",
                    "Interaction response type is invalid for this interaction",
                )
            resource_message = await self._apply_callback(ia, rtype, data, files)
        except DiscordAPIError as exc:
            record.error = exc
            raise self._refuse(ia, exc) from None
        record.accepted = True
        ia._notify()
        self._notify_messages()
        if request.query.get("with_response", "").lower() not in ("1", "true"):
            return NO_CONTENT
        info: dict[str, Any] = {"id": str(ia.id), "type": ia.type}
        resource: dict[str, Any] = {"type": rtype}
        if ia.original is not None and rtype in (4, 5, 6, 7):
            info["response_message_id"] = str(ia.original.id)
            info["response_message_loading"] = ia.original.loading
            info["response_message_ephemeral"] = ia.original.ephemeral
        if resource_message is not None:
            resource["message"] = resource_message.payload()
        return {"interaction": info, "resource": resource}

    async def _apply_callback(
        self,
        ia: FakeInteraction,
        rtype: int,
        data: dict[str, Any],
        files: dict[int, tuple[str, bytes]],
    ) -> FakeMessage | None:
        if rtype in (4, 5):
            flags = int(data.get("flags") or 0)
            msg = self._new_message(ia.channel, self.bot_user, interaction=ia)
            msg.flags = flags & FakeMessage.EPHEMERAL
            if rtype == 5:
                msg.loading = True
                self._validate_message_body({"flags": flags})
            else:
                self._fill_message(msg, data, files, edit=False)
            ia.original = msg
            await self._store_message(msg)
            return msg if rtype == 4 else None
        if rtype in (6, 7):
            assert ia.message is not None
            ia.original = ia.message
            if rtype == 7:
                self._fill_message(ia.message, data, files, edit=True)
                await self._message_updated(ia.message)
                return ia.message
            return None
        if rtype == 8:
            choices = data.get("choices")
            if not isinstance(choices, list) or len(choices) > 25:
                raise invalid_form(
                    "data.choices", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."
                )
            for i, choice in enumerate(choices):
                if not 1 <= len(str(choice.get("name", ""))) <= 100:
                    raise invalid_form(
                        f"data.choices.{i}.name",
                        "BASE_TYPE_BAD_LENGTH",
                        "Must be between 1 and 100 in length.",
                    )
            ia.choices = choices
            return None
        if rtype == 9:
            for key in ("custom_id", "title", "components"):
                if not data.get(key):
                    raise invalid_form(
                        f"data.{key}", "BASE_TYPE_REQUIRED", "This field is required"
                    )
            if len(data["title"]) > 45:
                raise invalid_form(
                    "data.title", "BASE_TYPE_MAX_LENGTH", "Must be 45 or fewer in length."
                )
            ia.modal = data
            return None
        raise invalid_form(
            "type", "INTERACTION_RESPONSE_TYPE_INVALID", "Interaction response type is invalid"
        )

    def _webhook_interaction(self, app_id: str, token: str) -> FakeInteraction:
        if app_id != str(self.application_id):
            raise DiscordAPIError(404, 10015, "Unknown Webhook")
        ia = self.interactions_by_token.get(token)
        if ia is None:
            raise DiscordAPIError(401, 50027, "Invalid Webhook Token")
        if self.loop_time() - ia.created > self.followup_window:
            raise self._refuse(ia, DiscordAPIError(401, 50027, "Invalid Webhook Token"))
        return ia

    def _interaction_message(
        self, ia: FakeInteraction, message_id: str
    ) -> FakeMessage:
        if message_id == "@original":
            if ia.original is None or ia.original.deleted:
                raise self._refuse(ia, DiscordAPIError(404, 10008, "Unknown Message"))
            return ia.original
        for msg in [ia.original, *ia.followups]:
            if msg is not None and str(msg.id) == message_id and not msg.deleted:
                return msg
        raise self._refuse(ia, DiscordAPIError(404, 10008, "Unknown Message"))

    @_route("POST", "/webhooks/{app_id}/{token}")
    async def _followup(
        self, request: web.Request, app_id: str, token: str
    ) -> dict[str, Any] | NoContent:
        ia = self._webhook_interaction(app_id, token)
        body, files = await self._read_body(request)
        if not ia.acknowledged:
            raise self._refuse(ia, DiscordAPIError(404, 10015, "Unknown Webhook"))
        try:
            if ia.original is not None and ia.original.loading and ia.original is not ia.message:
                # The first followup after a "thinking" defer replaces the loading message;
                # it keeps the defer's ephemerality whatever the followup's flags say.
                msg = ia.original
                msg.loading = False
                self._fill_message(msg, body, files, edit=False)
                await self._message_updated(msg)
            else:
                msg = self._new_message(ia.channel, self.bot_user, interaction=ia)
                msg.flags = int(body.get("flags") or 0) & FakeMessage.EPHEMERAL
                self._fill_message(msg, body, files, edit=False)
                ia.followups.append(msg)
                await self._store_message(msg)
        except DiscordAPIError as exc:
            raise self._refuse(ia, exc) from None
        ia._notify()
        self._notify_messages()
        if request.query.get("wait", "").lower() in ("1", "true"):
            return msg.payload()
        return NO_CONTENT

    @_route("GET", "/webhooks/{app_id}/{token}/messages/{message_id}")
    async def _get_webhook_message(
        self, request: web.Request, app_id: str, token: str, message_id: str
    ) -> dict[str, Any]:
        ia = self._webhook_interaction(app_id, token)
        return self._interaction_message(ia, message_id).payload()

    @_route("PATCH", "/webhooks/{app_id}/{token}/messages/{message_id}")
    async def _edit_webhook_message(
        self, request: web.Request, app_id: str, token: str, message_id: str
    ) -> dict[str, Any]:
        ia = self._webhook_interaction(app_id, token)
        msg = self._interaction_message(ia, message_id)
        body, files = await self._read_body(request)
        try:
            was_loading = msg.loading
            msg.loading = False
            try:
                self._fill_message(msg, body, files, edit=not was_loading)
            except DiscordAPIError:
                msg.loading = was_loading
                raise
        except DiscordAPIError as exc:
            raise self._refuse(ia, exc) from None
        await self._message_updated(msg)
        ia._notify()
        self._notify_messages()
        return msg.payload()

    @_route("DELETE", "/webhooks/{app_id}/{token}/messages/{message_id}")
    async def _delete_webhook_message(
        self, request: web.Request, app_id: str, token: str, message_id: str
    ) -> NoContent:
        ia = self._webhook_interaction(app_id, token)
        msg = self._interaction_message(ia, message_id)
        await self._delete(msg)
        ia._notify()
        return NO_CONTENT

    # ------------------------------------------------------------------ CDN-ish
    async def _attachment_handler(self, request: web.Request) -> web.StreamResponse:
        att_id = int(request.match_info["attachment_id"])
        upload = self.uploads.get(att_id)
        if upload is not None:
            return web.Response(body=upload.data, headers={"Content-Type": upload.content_type})
        for msg in self.messages.values():
            for att in msg.attachments:
                if att.id == att_id:
                    return web.Response(body=att.data, headers={"Content-Type": att.content_type})
        return web.Response(status=404, text="Not Found")

    async def _cdn_handler(self, request: web.Request) -> web.StreamResponse:
        return web.Response(body=TINY_PNG, headers={"Content-Type": "image/png"})


class RestMixin(InteractionRoutes, CommandRoutes, ChannelRoutes):
    """REST half of :class:`FakeDiscord`."""



TINY_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cfc0f01f0005000201a5f6"
    "1b1e0000000049454e44ae426082"
)
