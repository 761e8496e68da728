"""The fake gateway: one websocket endpoint speaking Discord's gateway protocol (v10, JSON).

Supported: HELLO / IDENTIFY / READY + GUILD_CREATE, HEARTBEAT -> HEARTBEAT_ACK, RESUME (replays
missed dispatches then RESUMED; unknown sessions get INVALID_SESSION so the client
re-identifies), REQUEST_GUILD_MEMBERS -> GUILD_MEMBERS_CHUNK, PRESENCE_UPDATE (recorded),
``compress=zlib-stream`` transport compression, sharding (``shard`` in IDENTIFY).
"""


from __future__ import annotations

import asyncio
import json
import secrets
from typing import Any

from aiohttp import WSMsgType, web

from .models import (
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    Intent,
    snowflake,
)
from .sessions import (
    OP_HEARTBEAT,
    OP_HEARTBEAT_ACK,
    OP_HELLO,
    OP_IDENTIFY,
    OP_INVALID_SESSION,
    OP_PRESENCE,
    OP_RECONNECT,
    OP_REQUEST_MEMBERS,
    OP_RESUME,
    OP_VOICE_STATE,
    GatewayConnection,
    GatewaySession,
)
from .world import World


class GatewayMixin(World):
    """Gateway half of :class:`FakeDiscord`."""

    def _session_for(self, guild_id: int | None) -> GatewaySession | None:
        """The active session that receives events for ``guild_id`` (DMs: shard 0)."""
        for session in self.active_sessions.values():
            if guild_id is None:
                if session.shard_id == 0:
                    return session
            elif (guild_id >> 22) % session.shard_count == session.shard_id:
                return session
        return None

    def _notify_sessions(self) -> None:
        self._session_changed.set()
        self._session_changed = asyncio.Event()

    async def _gateway_handler(self, request: web.Request) -> web.StreamResponse:
        compress = request.query.get("compress")
        encoding = request.query.get("encoding", "json")
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        conn = GatewayConnection(ws, compress)
        self.connections.append(conn)
        try:
            if encoding != "json":
                await ws.close(code=4002, message=b"Decode error")
                return ws
            await conn.send(
                {
                    "op": OP_HELLO,
                    "d": {"heartbeat_interval": int(self.heartbeat_interval * 1000)},
                    "s": None,
                    "t": None,
                }
            )
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    raw = msg.data
                elif msg.type == WSMsgType.BINARY:
                    raw = msg.data.decode()
                else:
                    break
                try:
                    payload = json.loads(raw)
                except ValueError:
                    await ws.close(code=4002, message=b"Decode error")
                    break
                await self._gateway_op(conn, payload)
        finally:
            if conn in self.connections:
                self.connections.remove(conn)
            if conn.session is not None and conn.session.connection is conn:
                conn.session.connection = None
            self._notify_sessions()
        return ws

    async def _gateway_op(
        self, conn: GatewayConnection, payload: dict[str, Any]
    ) -> None:
        op = payload.get("op")
        data = payload.get("d")
        logged = dict(payload)
        if isinstance(data, dict) and "token" in data:
            logged["d"] = {**data, "token": "<redacted>"}
        self.gateway_log.append(logged)

        if op == OP_HEARTBEAT:
            await conn.send({"op": OP_HEARTBEAT_ACK, "d": None, "s": None, "t": None})
        elif op == OP_IDENTIFY:
            await self._identify(conn, data or {})
        elif op == OP_RESUME:
            await self._resume(conn, data or {})
        elif conn.session is None:
            await conn.ws.close(code=4003, message=b"Not authenticated.")
        elif op == OP_PRESENCE:
            conn.session.presence = data
        elif op == OP_REQUEST_MEMBERS:
            await self._request_members(conn.session, data or {})
        elif op == OP_VOICE_STATE:
            pass
        else:
            await conn.ws.close(code=4001, message=b"Unknown opcode.")

    async def _identify(self, conn: GatewayConnection, data: dict[str, Any]) -> None:
        if conn.session is not None:
            await conn.ws.close(code=4005, message=b"Already authenticated.")
            return
        if data.get("token") != self.token:
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            return
        intents = int(data.get("intents", 0))
        if intents & Intent.PRIVILEGED & ~self.allowed_privileged_intents:
            await conn.ws.close(code=4014, message=b"Disallowed intent(s).")
            return
        shard_id, shard_count = data.get("shard") or [0, 1]
        if not 0 <= shard_id < shard_count:
            await conn.ws.close(code=4010, message=b"Invalid shard.")
            return
        session = GatewaySession(
            id=secrets.token_hex(16),
            intents=intents,
            shard_id=shard_id,
            shard_count=shard_count,
            identify={k: v for k, v in data.items() if k != "token"},
            connection=conn,
            compress=conn.compress,
        )
        conn.session = session
        self.sessions[session.id] = session
        self.active_sessions[shard_id] = session
        guilds = [g for g in self.guilds.values() if (g.id >> 22) % shard_count == shard_id]
        ready: dict[str, Any] = {
            "v": 10,
            "user": self.bot_user.payload() | {"verified": True, "mfa_enabled": False},
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.application_id), "flags": self.application_flags},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "user_settings": {},
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": ["fake"],
            "_trace": ["fakediscord"],
        }
        if "shard" in data:
            ready["shard"] = [shard_id, shard_count]
        await session.dispatch("READY", ready)
        if session.has(Intent.GUILDS):  # without it guilds stay unavailable (as on Discord)
            for guild in guilds:
                await session.dispatch("GUILD_CREATE", self._guild_create_payload(guild, session))
        session.ready.set()
        self._notify_sessions()

    def _guild_create_payload(
        self, guild: FakeGuild, session: GatewaySession
    ) -> dict[str, Any]:
        return guild.payload(include_members=session.has(Intent.GUILD_MEMBERS))

    async def _resume(self, conn: GatewayConnection, data: dict[str, Any]) -> None:
        session = self.sessions.get(str(data.get("session_id")))
        if data.get("token") != self.token:
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            return
        if session is None or session.live:
            await conn.send({"op": OP_INVALID_SESSION, "d": False, "s": None, "t": None})
            return
        seq = int(data.get("seq") or 0)
        session.connection = conn
        conn.session = session
        self.active_sessions[session.shard_id] = session
        for payload in list(session.buffer):
            if payload["s"] > seq:
                await conn.send(payload)
        await session.dispatch("RESUMED", {"_trace": ["fakediscord"]})
        self._notify_sessions()

    async def _request_members(
        self, session: GatewaySession, data: dict[str, Any]
    ) -> None:
        guild = self.guilds.get(int(data.get("guild_id", 0)))
        if guild is None:
            return
        members = list(guild.members.values())
        user_ids = data.get("user_ids")
        not_found: list[str] = []
        if user_ids:
            if not isinstance(user_ids, list):
                user_ids = [user_ids]
            wanted = {int(u) for u in user_ids}
            not_found = [str(u) for u in wanted if u not in guild.members]
            members = [m for m in members if m.id in wanted]
        query = data.get("query")
        if query:
            members = [m for m in members if m.user.name.lower().startswith(query.lower())]
        limit = int(data.get("limit") or 0)
        if limit:
            members = members[:limit]
        chunk: dict[str, Any] = {
            "guild_id": str(guild.id),
            "members": [m.payload() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": not_found,
        }
        if data.get("nonce") is not None:
            chunk["nonce"] = data["nonce"]
        await session.dispatch("GUILD_MEMBERS_CHUNK", chunk)

    # -- test-side control -------------------------------------------------------
    async def dispatch_event(
        self,
        event: str,
        data: dict[str, Any],
        *,
        guild_id: int | None = None,
        intent: int | None = None,
    ) -> None:
        """Send a dispatch to the active session of the shard owning ``guild_id``."""
        session = self._session_for(guild_id)
        if session is None or (intent is not None and not session.has(intent)):
            return
        await session.dispatch(event, data)

    async def wait_for_session(
        self, guild_id: int | None = None, *, timeout: float = 5.0
    ) -> GatewaySession:
        """Wait until a client has identified and received its GUILD_CREATEs on the shard
        that owns ``guild_id`` (None: shard 0, where DMs go)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            session = self._session_for(guild_id)
            if session is not None and session.live and session.ready.is_set():
                return session
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"no client connected to the fake gateway (guild {guild_id})")
            try:
                await asyncio.wait_for(self._session_changed.wait(), remaining)
            except TimeoutError:
                continue

    async def request_reconnect(self) -> None:
        """Send op 7 RECONNECT to every live session; discord.py then RESUMEs."""
        for session in list(self.active_sessions.values()):
            if session.connection is not None:
                await session.connection.send({"op": OP_RECONNECT, "d": None, "s": None, "t": None})

    async def invalidate_sessions(self) -> None:
        """Send op 9 INVALID_SESSION (not resumable): the client re-identifies."""
        for session in list(self.active_sessions.values()):
            conn = session.connection
            self.sessions.pop(session.id, None)
            if conn is not None:
                await conn.send({"op": OP_INVALID_SESSION, "d": False, "s": None, "t": None})

    async def drop_connections(self, code: int = 4000) -> None:
        """Close every gateway websocket (4000 = unknown error: discord.py resumes)."""
        for conn in list(self.connections):
            await conn.ws.close(code=code, message=b"fakediscord dropped the connection")

    async def restart_gateway(self) -> None:
        """Drop all sessions as a gateway restart would; clients reconnect and re-identify."""
        self.sessions.clear()
        await self.drop_connections(code=4000)


class MessageEvents(GatewayMixin):
    """The messages of the fake, stored, and the gateway events that tell the bot of them."""

    def _new_message(
        self, channel: FakeChannel, author: FakeUser, *, interaction: FakeInteraction | None = None
    ) -> FakeMessage:
        guild = channel.guild
        msg = FakeMessage(
            id=snowflake(),
            channel_id=channel.id,
            author=author,
            guild_id=guild.id if guild else None,
            member=guild.member(author) if guild else None,
        )
        if interaction is not None:
            msg.interaction_id = interaction.id
            msg.interaction_user = interaction.user
            msg.webhook_id = self.application_id
            msg.application_id = self.application_id
            if interaction.type == 2:
                msg.interaction_name = str(interaction.payload["data"].get("name"))
        return msg

    def _message_intent(self, msg: FakeMessage) -> int:
        return Intent.GUILD_MESSAGES if msg.guild_id else Intent.DIRECT_MESSAGES

    async def _store_message(self, msg: FakeMessage) -> None:
        self.messages[msg.id] = msg
        if msg.ephemeral:
            self._notify_messages()
            return
        channel = self.channels.get(msg.channel_id)
        if channel is not None:
            channel.last_message_id = msg.id
        self._notify_messages()
        if not msg.loading:
            await self.dispatch_event(
                "MESSAGE_CREATE",
                self._gateway_message(msg),
                guild_id=msg.guild_id,
                intent=self._message_intent(msg),
            )

    def _gateway_message(self, msg: FakeMessage) -> dict[str, Any]:
        data = msg.payload()
        session = self._session_for(msg.guild_id)
        bot_mentioned = f"<@{self.bot_user.id}>" in msg.content
        if (
            session is not None
            and not session.has(Intent.MESSAGE_CONTENT)
            and msg.guild_id is not None
            and msg.author.id != self.bot_user.id
            and not bot_mentioned
        ):
            data.update(content="", embeds=[], attachments=[], components=[])
        return data

    async def _message_updated(self, msg: FakeMessage) -> None:
        self._notify_messages()
        if not msg.ephemeral:
            await self.dispatch_event(
                "MESSAGE_UPDATE",
                self._gateway_message(msg),
                guild_id=msg.guild_id,
                intent=self._message_intent(msg),
            )

    async def _delete(self, msg: FakeMessage) -> None:
        msg.deleted = True
        self._notify_messages()
        if not msg.ephemeral:
            data = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
            if msg.guild_id:
                data["guild_id"] = str(msg.guild_id)
            await self.dispatch_event(
                "MESSAGE_DELETE", data, guild_id=msg.guild_id, intent=self._message_intent(msg)
            )
