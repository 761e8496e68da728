"""The fake refuses what Discord refuses for a Components V2 message (IS_COMPONENTS_V2, 1 << 15),
records edits and every request, and forgets a nonce after a few minutes."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any, Protocol

import aiohttp
import pytest

from tests.fakediscord import FakeDiscord, Perm
from tests.fakediscord.models import body_of

V2 = 1 << 15


class Send(Protocol):
    """``send(method, path, body, files)`` -> (status, the JSON object answered)."""

    async def __call__(self, method: str, path: str, body: dict[str, Any],
                       files: dict[str, bytes] | None = None) -> tuple[int, dict[str, Any]]: ...


Api = tuple[FakeDiscord, int, Send]


def text(content: str) -> dict[str, Any]:
    return {"type": 10, "content": content}


def gallery(name: str) -> dict[str, Any]:
    return {"type": 12, "items": [{"media": {"url": f"attachment://{name}"},
                                   "description": "the boards"}]}


@pytest.fixture
async def api(fake_discord: FakeDiscord) -> AsyncIterator[Api]:
    """The fake, a channel, and ``send(method, path, body, files)`` -> (status, JSON)."""
    fake = fake_discord
    guild = fake.add_guild()
    channel = fake.add_channel(guild, "khronos")
    async with aiohttp.ClientSession(headers={"Authorization": f"Bot {fake.token}"}) as http:

        async def send(method: str, path: str, body: dict[str, Any],
                       files: dict[str, bytes] | None = None) -> tuple[int, dict[str, Any]]:
            if files:
                form = aiohttp.FormData()
                form.add_field("payload_json", json.dumps(body),
                               content_type="application/json")
                for i, (name, data) in enumerate(files.items()):
                    form.add_field(f"files[{i}]", data, filename=name,
                                   content_type="image/png")
                request = http.request(method, fake.api_base + path, data=form)
            else:
                request = http.request(method, fake.api_base + path, json=body)
            async with request as response:
                answer: dict[str, Any] = await response.json()
                return response.status, answer

        yield fake, channel.id, send


def layout(*inside: dict[str, Any]) -> dict[str, Any]:
    return {"flags": V2, "components": [{"type": 17, "components": list(inside)}]}


async def test_a_v2_message_with_its_file_is_accepted_and_its_edits_recorded(
        api: Api) -> None:
    fake, channel, send = api
    body = layout(text("Round 1"), gallery("table.png"))
    body["attachments"] = [{"id": 0, "filename": "table.png", "description": "the boards"}]
    status, msg = await send("POST", f"/channels/{channel}/messages", body,
                             {"table.png": b"png"})
    assert status == 200 and msg["flags"] & V2
    edit = layout(text("Round 1, after a move"), gallery("table.png"))
    edit["attachments"] = [{"id": 0, "filename": "table.png"}]
    status, _ = await send("PATCH", f"/channels/{channel}/messages/{msg['id']}", edit,
                           {"table.png": b"png2"})
    assert status == 200 and fake.messages_edited == 1
    stored = fake.get_message(int(msg["id"]))
    assert stored.is_layout and stored.text_displays() == ["Round 1, after a move"]
    assert len(stored.history) == 1 and stored.attachments[0].data == b"png2"
    recorded = [r for r in fake.requests if r["method"] in ("POST", "PATCH")]
    assert [r["files"][0][1:3] for r in recorded] == [["table.png", 3], ["table.png", 4]]
    assert body_of(recorded[1])["components"] == edit["components"]


@pytest.mark.parametrize("case", ["content", "components", "text", "attachment"])
async def test_what_discord_refuses_in_a_v2_message(api: Api,
                                                    case: str) -> None:
    fake, channel, send = api
    body = layout(text("Round 1"))
    if case == "content":  # the layout is the message
        body["content"] = "hello"
    elif case == "components":  # 41 in all, the container counted
        body = layout(*[text(f"line {i}") for i in range(40)])
    elif case == "text":  # more than 4,000 characters of text displays together
        body = layout(text("x" * 2500), text("y" * 1501))
    else:  # a gallery item naming no file of the message
        body = layout(text("Round 1"), gallery("table.png"))
    status, answer = await send("POST", f"/channels/{channel}/messages", body)
    assert status == 400 and answer["code"] == 50035
    assert fake.messages_posted == 0


async def test_a_v2_message_stays_one_an_edit_cannot_add_content(
        api: Api) -> None:
    fake, channel, send = api
    status, msg = await send("POST", f"/channels/{channel}/messages", layout(text("Round 1")))
    assert status == 200
    status, answer = await send("PATCH", f"/channels/{channel}/messages/{msg['id']}",
                                {"content": "plain now"})
    assert status == 400 and answer["code"] == 50035
    assert fake.get_message(int(msg["id"])).content == ""


async def test_an_edit_with_a_file_needs_attach_files(api: Api) -> None:
    fake, channel, send = api
    status, msg = await send("POST", f"/channels/{channel}/messages", {"content": "hi"})
    assert status == 200
    fake.set_permissions(fake.channels[channel], fake.bot_user, deny=Perm.ATTACH_FILES)
    status, answer = await send("PATCH", f"/channels/{channel}/messages/{msg['id']}",
                                {"attachments": [{"id": 0, "filename": "a.png"}]},
                                {"a.png": b"png"})
    assert status == 403 and answer["code"] == 50013


async def test_a_nonce_is_remembered_for_minutes_only(api: Api) -> None:
    fake, channel, send = api
    body = {"content": "hi", "nonce": "kh1", "enforce_nonce": True}
    _, first = await send("POST", f"/channels/{channel}/messages", body)
    _, again = await send("POST", f"/channels/{channel}/messages", body)
    assert again["id"] == first["id"] and fake.messages_posted == 1
    fake.nonce_window = 0.0  # minutes later
    _, later = await send("POST", f"/channels/{channel}/messages", body)
    assert later["id"] != first["id"] and fake.messages_posted == 2


async def test_a_new_message_notes_whom_it_pinged_an_edit_pings_nobody(
        api: Api) -> None:
    fake, channel, send = api
    user = fake.add_user("ann")
    body = layout(text(f"<@{user.id}>'s turn"))
    body["allowed_mentions"] = {"users": [str(user.id)], "parse": []}
    _, msg = await send("POST", f"/channels/{channel}/messages", body)
    stored = fake.get_message(int(msg["id"]))
    assert stored.pinged == [user.id] and stored.mentioned_user_ids() == [user.id]
    _, other = await send("POST", f"/channels/{channel}/messages",
                          {"content": f"<@{user.id}>", "allowed_mentions": {"parse": []}})
    assert fake.get_message(int(other["id"])).pinged == []
