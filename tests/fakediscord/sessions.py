"""The gateway's sessions: one websocket connection (``GatewayConnection``) and the session
it carries (``GatewaySession``), which may span several connections after RESUMEs."""

from __future__ import annotations

import asyncio
import json
import logging
import zlib
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

log = logging.getLogger("fakediscord.gateway")

OP_DISPATCH = 0
OP_HEARTBEAT = 1
OP_IDENTIFY = 2
OP_PRESENCE = 3
OP_VOICE_STATE = 4
OP_RESUME = 6
OP_RECONNECT = 7
OP_REQUEST_MEMBERS = 8
OP_INVALID_SESSION = 9
OP_HELLO = 10
OP_HEARTBEAT_ACK = 11


class GatewayConnection:
    """One websocket connection (a session may span several after RESUMEs)."""

    def __init__(self, ws: web.WebSocketResponse, compress: str | None) -> None:
        self.ws = ws
        self.compress = compress
        self._zlib = zlib.compressobj() if compress == "zlib-stream" else None
        self._lock = asyncio.Lock()
        self.session: GatewaySession | None = None

    @property
    def open(self) -> bool:
        return not self.ws.closed

    async def send(self, payload: dict[str, Any]) -> None:
        text = json.dumps(payload, separators=(",", ":"))
        async with self._lock:
            if self.ws.closed:
                return
            try:
                if self._zlib is not None:
                    data = self._zlib.compress(text.encode()) + self._zlib.flush(zlib.Z_SYNC_FLUSH)
                    await self.ws.send_bytes(data)
                else:
                    await self.ws.send_str(text)
            except (ConnectionError, RuntimeError) as exc:  # peer went away mid-send
                log.debug("gateway send failed: %s", exc)


@dataclass(eq=False)
class GatewaySession:
    id: str
    intents: int
    shard_id: int
    shard_count: int
    identify: dict[str, Any]
    seq: int = 0
    connection: GatewayConnection | None = None
    buffer: list[dict[str, Any]] = field(default_factory=list)
    presence: dict[str, Any] | None = None
    compress: str | None = None  # transport compression asked for in the URL
    ready: asyncio.Event = field(default_factory=asyncio.Event)  # READY + GUILD_CREATEs sent

    @property
    def live(self) -> bool:
        return self.connection is not None and self.connection.open

    def has(self, intent: int) -> bool:
        return bool(self.intents & intent)

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        self.seq += 1
        payload = {"op": OP_DISPATCH, "t": event, "s": self.seq, "d": data}
        self.buffer.append(payload)
        del self.buffer[:-500]
        if self.connection is not None:
            await self.connection.send(payload)
