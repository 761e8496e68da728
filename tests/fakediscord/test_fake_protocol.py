"""The fake's wire protocol, spoken by hand (no discord.py client)."""

from __future__ import annotations

import json
from typing import Any

import aiohttp

from tests.fakediscord import FakeDiscord


async def _recv(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    msg = await ws.receive(timeout=2)
    assert msg.type == aiohttp.WSMsgType.TEXT, msg
    payload: dict[str, Any] = json.loads(msg.data)
    return payload


async def test_raw_gateway_and_rest(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    guild = fake.add_guild()
    channel = fake.add_channel(guild, "general")
    alice = fake.add_user("alice")
    headers = {"Authorization": f"Bot {fake.token}"}
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{fake.api_base}/users/@me") as resp:
            assert resp.status == 401
        async with http.get(f"{fake.api_base}/gateway/bot", headers=headers) as resp:
            assert resp.headers["Content-Type"] == "application/json"
            body = await resp.json()
            assert body["url"] == fake.gateway_url and body["shards"] == 1
        async with http.get(f"{fake.api_base}/nope/123", headers=headers) as resp:
            assert resp.status == 404 and (await resp.json())["code"] == 0
        assert fake.unknown_routes == [("GET", "/nope/123")]

        async with http.ws_connect(fake.gateway_url + "?v=10&encoding=json") as ws:
            hello = await _recv(ws)
            assert hello["op"] == 10 and hello["d"]["heartbeat_interval"] > 0
            await ws.send_json({"op": 1, "d": None})
            assert (await _recv(ws))["op"] == 11
            await ws.send_json(
                {"op": 2, "d": {"token": fake.token, "intents": 513, "properties": {}}}
            )
            ready = await _recv(ws)
            assert ready["t"] == "READY" and ready["s"] == 1
            assert ready["d"]["guilds"] == [{"id": str(guild.id), "unavailable": True}]
            assert ready["d"]["application"]["id"] == str(fake.application_id)
            created = await _recv(ws)
            assert created["t"] == "GUILD_CREATE"
            # no GUILD_MEMBERS intent: only the bot's own member, but the true count
            assert created["d"]["member_count"] == 3 and len(created["d"]["members"]) == 1
            session_id = ready["d"]["session_id"]

            commands_url = f"{fake.api_base}/applications/{fake.application_id}/commands"
            cmd = {"name": "ping", "description": "Ping", "type": 1}
            async with http.put(commands_url, json=[cmd], headers=headers) as resp:
                [stored] = await resp.json()
                assert stored["id"] and stored["application_id"] == str(fake.application_id)
            async with http.put(commands_url, json=[cmd | {"name": "Bad"}], headers=headers) as r:
                assert r.status == 400 and (await r.json())["code"] == 50035

            ia = await fake.slash(alice, channel, "ping")
            event = await _recv(ws)
            assert event["t"] == "INTERACTION_CREATE" and event["s"] == 3
            data = event["d"]
            assert data["member"]["user"]["id"] == str(alice.id)
            assert data["data"] == {"id": stored["id"], "name": "ping", "type": 1, "options": []}
            for key in ("app_permissions", "entitlements", "authorizing_integration_owners"):
                assert key in data
            url = f"{fake.api_base}/interactions/{data['id']}/{data['token']}/callback"
            reply = {"type": 4, "data": {"content": "pong"}}
            async with http.post(url, json=reply) as resp:
                assert resp.status == 204
            async with http.post(url + "?with_response=true", json=reply) as resp:
                assert resp.status == 400 and (await resp.json())["code"] == 40060
            assert ia.original is not None and ia.original.content == "pong"
            created_msg = await _recv(ws)
            assert created_msg["t"] == "MESSAGE_CREATE" and created_msg["s"] == 4
        # resume the (now disconnected) session
        async with http.ws_connect(fake.gateway_url) as ws:
            await _recv(ws)
            await ws.send_json(
                {"op": 6, "d": {"token": fake.token, "session_id": session_id, "seq": 3}}
            )
            replayed = await _recv(ws)  # missed dispatches are replayed first
            assert replayed["t"] == "MESSAGE_CREATE" and replayed["s"] == 4
            resumed = await _recv(ws)
            assert resumed["t"] == "RESUMED" and resumed["s"] == 5
        async with http.ws_connect(fake.gateway_url) as ws:
            await _recv(ws)
            await ws.send_json({"op": 6, "d": {"token": fake.token, "session_id": "x", "seq": 1}})
            assert (await _recv(ws)) == {"op": 9, "d": False, "s": None, "t": None}
        async with http.ws_connect(fake.gateway_url) as ws:
            await _recv(ws)
            await ws.send_json({"op": 2, "d": {"token": "wrong", "intents": 1}})
            closing = await ws.receive(timeout=2)
            assert closing.type == aiohttp.WSMsgType.CLOSE and closing.data == 4004
