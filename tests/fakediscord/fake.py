"""FakeDiscord: the server plus the test-side driver API (the "users" of the fake).

Typical use::

    fake = FakeDiscord()
    await fake.start()
    guild = fake.add_guild("Test Guild")
    channel = fake.add_channel(guild, "general")
    alice = fake.add_user("alice")
    with fake.configure_discord_py():
        async with fake.running(bot):
            ia = await fake.slash(alice, channel, "game start", options={"players": 3})
            msg = await ia.wait_message()
    await fake.stop()
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import socket
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, TypeVar

import discord
import yarl
from aiohttp import web
from discord.state import AutoShardedConnectionState
from discord.ui.view import BaseView

from .gateway import MessageEvents
from .models import (
    CommandNotAvailable,
    FakeAttachment,
    FakeChannel,
    FakeCommand,
    FakeGuild,
    FakeInteraction,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    OptionValue,
    Perm,
    snowflake,
)
from .rest import RestMixin

ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024
ClientT = TypeVar("ClientT", bound=discord.Client)
_DEFAULT_IDENTIFY_HOOK = discord.Client.before_identify_hook


class DiscordPyPatch:
    """Points discord.py's globals at the fake; ``restore()`` or leaving ``with`` undoes it."""

    def __init__(self, fake: FakeDiscord) -> None:
        import discord.asset
        import discord.gateway
        import discord.http

        self._route = discord.http.Route
        self._ws = discord.gateway.DiscordWebSocket
        self._asset = discord.asset.Asset
        self._saved = (self._route.BASE, self._ws.DEFAULT_GATEWAY, self._asset.BASE)
        self._route.BASE = fake.api_base
        self._ws.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)
        self._asset.BASE = fake.cdn_base
        self.active = True

    def restore(self) -> None:
        if self.active:
            self._route.BASE, self._ws.DEFAULT_GATEWAY, self._asset.BASE = self._saved
            self.active = False

    def __enter__(self) -> DiscordPyPatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.restore()


class CommandOptions(MessageEvents):
    """The driver's reading of a command as the Discord client would send it: the command
    looked up where the user is, whether he may use it, its options resolved and checked."""

    def _lookup_command(self, name: str, guild: FakeGuild | None, ctype: int) -> FakeCommand:
        stores = []
        if guild is not None:
            stores.append(self.guild_commands.get(guild.id, {}))
        stores.append(self.global_commands)
        for store in stores:
            for cmd in store.values():
                if cmd.name == name and cmd.type == ctype:
                    return cmd
        where = f"guild {guild.name!r}" if guild else "DMs"
        raise CommandNotAvailable(
            f"command {name!r} (type {ctype}) is not synced for {where}; "
            f"global={sorted(self.command_names())}, "
            f"guild={sorted(self.command_names(guild)) if guild else []}"
        )

    def _check_can_use(self, cmd: FakeCommand, user: FakeUser, channel: FakeChannel) -> None:
        data = cmd.payload()
        contexts = data.get("contexts")
        guild = channel.guild
        if guild is None:
            if contexts is not None and 1 not in contexts:
                raise CommandNotAvailable(
                    f"/{cmd.name} is not available in DMs (contexts={contexts})"
                )
            if contexts is None and data.get("dm_permission") is False:
                raise CommandNotAvailable(f"/{cmd.name} is not available in DMs")
            return
        if contexts is not None and 0 not in contexts:
            raise CommandNotAvailable(
                f"/{cmd.name} is not available in guilds (contexts={contexts})"
            )
        member = guild.member(user)
        if member is None:
            raise CommandNotAvailable(f"{user.name} is not a member of {guild.name}")
        perms = guild.permissions_for(member, channel)
        if not perms & Perm.USE_APPLICATION_COMMANDS:
            raise CommandNotAvailable(
                f"{user.name} cannot use application commands in #{channel.name}"
            )
        required = data.get("default_member_permissions")
        if required is not None:
            needed = int(required)
            if perms != Perm.ALL and (needed == 0 or perms & needed != needed):
                raise CommandNotAvailable(
                    f"/{cmd.name} is hidden from {user.name} "
                    f"(default_member_permissions={required})"
                )

    def _resolve_user(
        self,
        value: OptionValue,
        guild: FakeGuild | None,
        channel: FakeChannel,
        resolved: dict[str, Any],
    ) -> str:
        user = value.user if isinstance(value, FakeMember) else value
        if isinstance(user, int):
            user = self.users[user]
        if not isinstance(user, FakeUser):
            raise TypeError(f"expected a FakeUser/FakeMember, got {value!r}")
        resolved.setdefault("users", {})[str(user.id)] = user.payload()
        member = guild.member(user) if guild else None
        if member is not None:
            resolved.setdefault("members", {})[str(user.id)] = member.payload(
                with_user=False, channel=channel
            )
        return str(user.id)

    def _resolve_value(
        self,
        spec: dict[str, Any],
        value: OptionValue,
        user: FakeUser,
        channel: FakeChannel,
        resolved: dict[str, Any],
    ) -> str | int | float | bool:
        otype = int(spec["type"])
        guild = channel.guild
        member = guild.member(user) if guild else None
        if otype == 6 or (otype == 9 and isinstance(value, FakeUser | FakeMember)):
            return self._resolve_user(value, guild, channel, resolved)
        if otype in (8, 9):
            if not isinstance(value, FakeRole):
                raise TypeError(f"option {spec['name']!r} expects a FakeRole, got {value!r}")
            resolved.setdefault("roles", {})[str(value.id)] = value.payload()
            return str(value.id)
        if otype == 7:
            if not isinstance(value, FakeChannel):
                raise TypeError(f"option {spec['name']!r} expects a FakeChannel, got {value!r}")
            allowed = spec.get("channel_types")
            if allowed and value.type not in allowed:
                raise ValueError(
                    f"option {spec['name']!r} accepts channel types {allowed}, not {value.type}"
                )
            payload = value.payload(for_member=member) if member else value.payload()
            payload.setdefault("permissions", str(Perm.EVERYONE_DEFAULT))
            resolved.setdefault("channels", {})[str(value.id)] = payload
            return str(value.id)
        if otype == 11:
            if isinstance(value, FakeAttachment):
                att = value
            elif isinstance(value, tuple):
                filename, data, *rest = value
                att = FakeAttachment(
                    id=snowflake(),
                    filename=filename,
                    data=data,
                    description=rest[0] if rest else None,
                )
            else:
                raise TypeError(f"option {spec['name']!r} expects a FakeAttachment or "
                                f"(file name, bytes[, description]), got {value!r}")
            att.url = f"{self.base_url}/attachments/{channel.id}/{att.id}/{att.filename}"
            self.uploads[att.id] = att
            resolved.setdefault("attachments", {})[str(att.id)] = att.payload()
            return str(att.id)
        if otype == 3:
            return str(value)
        if otype == 4:
            if not isinstance(value, int | float) or isinstance(value, bool) or (
                    int(value) != value):
                raise TypeError(f"option {spec['name']!r} expects an integer, got {value!r}")
            return int(value)
        if otype == 10:
            if not isinstance(value, str | int | float):
                raise TypeError(f"option {spec['name']!r} expects a number, got {value!r}")
            return float(value)
        if otype == 5:
            return bool(value)
        raise ValueError(f"unsupported option type {otype}")

    def _check_limits(self, spec: dict[str, Any], value: str | int | float | bool) -> None:
        name = spec["name"]
        choices = spec.get("choices")
        if choices and value not in [c["value"] for c in choices]:
            raise ValueError(f"option {name!r}: {value!r} is not one of the choices {choices}")
        otype = int(spec["type"])
        if otype in (4, 10):
            lo, hi = spec.get("min_value"), spec.get("max_value")
            if (lo is not None and value < lo) or (hi is not None and value > hi):
                raise ValueError(f"option {name!r}: {value!r} outside [{lo}, {hi}]")
        if otype == 3:
            assert isinstance(value, str)  # _resolve_value made it one
            lo, hi = spec.get("min_length", 0), spec.get("max_length", 6000)
            if not lo <= len(value) <= hi:
                raise ValueError(f"option {name!r}: length {len(value)} outside [{lo}, {hi}]")

    def _command_options(
        self,
        cmd: FakeCommand,
        path: list[str],
        options: Mapping[str, OptionValue],
        user: FakeUser,
        channel: FakeChannel,
        focused: str | None,
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        schema: list[dict[str, Any]] = cmd.data.get("options") or []
        containers: list[dict[str, Any]] = []
        for name in path:
            found = next((o for o in schema if o["name"] == name and o.get("type") in (1, 2)), None)
            if found is None:
                raise CommandNotAvailable(f"/{cmd.name} has no subcommand {name!r} at {path}")
            containers.append(found)
            schema = found.get("options") or []
        if any(o.get("type") in (1, 2) for o in schema):
            subs = [o["name"] for o in schema]
            raise CommandNotAvailable(f"/{' '.join([cmd.name, *path])} needs a subcommand: {subs}")
        resolved: dict[str, Any] = {}
        leaf: list[dict[str, Any]] = []
        for name, value in options.items():
            spec = next((o for o in schema if o["name"] == name), None)
            if spec is None:
                raise ValueError(
                    f"/{' '.join([cmd.name, *path])} has no option {name!r}; "
                    f"options are {[o['name'] for o in schema]}"
                )
            entry: dict[str, Any] = {"name": name, "type": int(spec["type"])}
            if name == focused:
                if not spec.get("autocomplete"):
                    raise ValueError(f"option {name!r} has no autocomplete")
                entry["value"] = value if isinstance(value, str | int | float) else str(value)
                entry["focused"] = True
            else:
                entry["value"] = self._resolve_value(spec, value, user, channel, resolved)
                if int(spec["type"]) in (3, 4, 10):
                    self._check_limits(spec, entry["value"])
            leaf.append(entry)
        if focused is None:
            missing = [o["name"] for o in schema if o.get("required") and o["name"] not in options]
            if missing:
                raise ValueError(f"missing required options {missing}")
        elif focused not in options:
            raise ValueError(
                f"focused option {focused!r} must be given a (partial) value in options"
            )
        built = leaf
        for container in reversed(containers):
            built = [{"name": container["name"], "type": int(container["type"]), "options": built}]
        return built, resolved

    async def _send_interaction(
        self,
        itype: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        *,
        message: FakeMessage | None = None,
        locale: str | None = None,
        session_timeout: float = 5.0,
    ) -> FakeInteraction:
        guild = channel.guild
        session = await self.wait_for_session(guild.id if guild else None, timeout=session_timeout)
        iid = snowflake()
        token = "aW50ZXJhY3Rpb246" + secrets.token_urlsafe(48)
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(self.application_id),
            "type": itype,
            "data": data,
            "token": token,
            "version": 1,
            "locale": locale or user.locale,
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
        }
        if guild is not None:
            member = guild.member(user)
            if member is None:
                raise CommandNotAvailable(f"{user.name} is not a member of {guild.name}")
            assert guild.bot_member is not None
            payload.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": guild.locale, "features": []},
                guild_locale=guild.locale,
                channel=channel.payload(for_member=member),
                channel_id=str(channel.id),
                member=member.payload(channel=channel),
                app_permissions=str(guild.permissions_for(guild.bot_member, channel)),
                authorizing_integration_owners={"0": str(guild.id)},
                context=0,
            )
        else:
            payload.update(
                channel=channel.payload(),
                channel_id=str(channel.id),
                user=user.payload(),
                app_permissions=str(Perm.EVERYONE_DEFAULT & ~Perm.MENTION_EVERYONE),
                authorizing_integration_owners={"0": "0"},
                context=1,
            )
        if message is not None:
            payload["message"] = message.payload()
        ia = FakeInteraction(
            id=iid,
            token=token,
            type=itype,
            user=user,
            channel=channel,
            guild=guild,
            payload=payload,
            created=self.loop_time(),
            message=message,
        )
        self.interactions[iid] = ia
        self.interactions_by_token[token] = ia
        await session.dispatch("INTERACTION_CREATE", payload)
        return ia



class Users(CommandOptions):
    """The driver: users typing, running commands, clicking, picking, filling in modals."""

    # ------------------------------------------------------------------ users acting
    async def user_message(
        self, user: FakeUser, channel: FakeChannel | None, content: str
    ) -> FakeMessage:
        """``user`` types ``content`` into ``channel`` (None: their DM with the bot)."""
        channel = channel or self.dm_channel(user)
        if channel.guild is not None:
            member = channel.guild.member(user)
            if member is None:
                raise CommandNotAvailable(f"{user.name} is not a member of {channel.guild.name}")
            needed = Perm.SEND_MESSAGES_IN_THREADS if channel.is_thread else Perm.SEND_MESSAGES
            if not channel.guild.permissions_for(member, channel) & needed:
                raise CommandNotAvailable(f"{user.name} cannot send messages in #{channel.name}")
        msg = self._new_message(channel, user)
        msg.content = content
        await self._store_message(msg)
        return msg

    def _where(self, user: FakeUser, channel: FakeChannel | None) -> FakeChannel:
        return channel if channel is not None else self.dm_channel(user)

    async def slash(
        self,
        user: FakeUser,
        channel: FakeChannel | None,
        command: str,
        *,
        subcommand: str | None = None,
        options: Mapping[str, OptionValue] | None = None,
        locale: str | None = None,
    ) -> FakeInteraction:
        """``user`` runs a chat-input command in ``channel`` (None: in their DM with the bot).

        ``command`` may hold the full path ("game move"); ``subcommand`` is appended
        ("group sub" for groups). Option values: str/int/float/bool, FakeUser/FakeMember,
        FakeChannel, FakeRole, or (filename, bytes[, description]) for attachments.
        Raises CommandNotAvailable when the Discord client would not offer the command."""
        where = self._where(user, channel)
        names = command.split() + (subcommand.split() if subcommand else [])
        cmd = self._lookup_command(names[0], where.guild, 1)
        self._check_can_use(cmd, user, where)
        opts, resolved = self._command_options(cmd, names[1:], options or {}, user, where, None)
        data: dict[str, Any] = {"id": str(cmd.id), "name": cmd.name, "type": 1, "options": opts}
        if resolved:
            data["resolved"] = resolved
        if cmd.guild_id is not None:
            data["guild_id"] = str(cmd.guild_id)
        return await self._send_interaction(2, user, where, data, locale=locale)

    async def autocomplete(
        self,
        user: FakeUser,
        channel: FakeChannel | None,
        command: str,
        *,
        focused: str,
        subcommand: str | None = None,
        options: Mapping[str, OptionValue] | None = None,
        timeout: float = 3.0,
    ) -> list[dict[str, Any]]:
        """``user`` is typing into option ``focused`` (its partial text in ``options``).

        Returns the choices the bot offered ([{"name", "value"}, ...])."""
        ia = await self.autocomplete_interaction(
            user, channel, command, focused=focused, subcommand=subcommand, options=options
        )
        await ia.wait_ack(timeout)
        return list(ia.choices or [])

    async def autocomplete_interaction(
        self,
        user: FakeUser,
        channel: FakeChannel | None,
        command: str,
        *,
        focused: str,
        subcommand: str | None = None,
        options: Mapping[str, OptionValue] | None = None,
    ) -> FakeInteraction:
        where = self._where(user, channel)
        names = command.split() + (subcommand.split() if subcommand else [])
        cmd = self._lookup_command(names[0], where.guild, 1)
        self._check_can_use(cmd, user, where)
        opts, resolved = self._command_options(cmd, names[1:], options or {}, user, where, focused)
        data: dict[str, Any] = {"id": str(cmd.id), "name": cmd.name, "type": 1, "options": opts}
        if resolved:
            data["resolved"] = resolved
        if cmd.guild_id is not None:
            data["guild_id"] = str(cmd.guild_id)
        return await self._send_interaction(4, user, where, data)

    async def user_command(
        self, user: FakeUser, channel: FakeChannel, name: str, target: FakeUser
    ) -> FakeInteraction:
        """Right-click ``target`` -> Apps -> ``name`` (a USER context-menu command)."""
        cmd = self._lookup_command(name, channel.guild, 2)
        self._check_can_use(cmd, user, channel)
        resolved: dict[str, Any] = {}
        tid = self._resolve_user(target, channel.guild, channel, resolved)
        data = {
            "id": str(cmd.id),
            "name": cmd.name,
            "type": 2,
            "target_id": tid,
            "resolved": resolved,
        }
        if cmd.guild_id is not None:
            data["guild_id"] = str(cmd.guild_id)
        return await self._send_interaction(2, user, channel, data)

    async def message_command(
        self, user: FakeUser, name: str, target: FakeMessage
    ) -> FakeInteraction:
        """Right-click message ``target`` -> Apps -> ``name`` (a MESSAGE context-menu command)."""
        channel = self.channels[target.channel_id]
        cmd = self._lookup_command(name, channel.guild, 3)
        self._check_can_use(cmd, user, channel)
        data = {
            "id": str(cmd.id),
            "name": cmd.name,
            "type": 3,
            "target_id": str(target.id),
            "resolved": {"messages": {str(target.id): target.payload()}},
        }
        if cmd.guild_id is not None:
            data["guild_id"] = str(cmd.guild_id)
        return await self._send_interaction(2, user, channel, data)

    def _component(
        self, user: FakeUser, message: FakeMessage | int, custom_id: str
    ) -> tuple[FakeMessage, dict[str, Any]]:
        msg = message if isinstance(message, FakeMessage) else self.messages[message]
        msg = self.messages.get(msg.id, msg)
        if msg.deleted:
            raise CommandNotAvailable(f"message {msg.id} was deleted")
        if (
            msg.ephemeral
            and msg.interaction_user is not None
            and msg.interaction_user.id != user.id
        ):
            raise CommandNotAvailable(
                "only the invoking user can see (and click) an ephemeral message"
            )
        comp = msg.find_component(custom_id)
        if comp is None:
            raise CommandNotAvailable(
                f"message {msg.id} has no component {custom_id!r}; it has {msg.custom_ids()}"
            )
        if comp.get("disabled"):
            raise CommandNotAvailable(f"component {custom_id!r} is disabled")
        return msg, comp

    async def click(
        self, user: FakeUser, message: FakeMessage | int, custom_id: str
    ) -> FakeInteraction:
        """``user`` clicks the button ``custom_id`` on ``message``."""
        msg, comp = self._component(user, message, custom_id)
        if comp.get("type") != 2:
            raise CommandNotAvailable(f"{custom_id!r} is not a button (type {comp.get('type')})")
        data = {"custom_id": custom_id, "component_type": 2}
        return await self._send_interaction(
            3, user, self.channels[msg.channel_id], data, message=msg
        )

    async def select(
        self,
        user: FakeUser,
        message: FakeMessage | int,
        custom_id: str,
        values: Sequence[OptionValue],
    ) -> FakeInteraction:
        """``user`` picks ``values`` in the select menu ``custom_id``.

        String selects take option values; user/role/mentionable/channel selects take objects."""
        msg, comp = self._component(user, message, custom_id)
        ctype = int(comp.get("type", 0))
        if ctype not in (3, 5, 6, 7, 8):
            raise CommandNotAvailable(f"{custom_id!r} is not a select menu (type {ctype})")
        lo, hi = comp.get("min_values", 1), comp.get("max_values", 1)
        if not lo <= len(values) <= hi:
            raise ValueError(f"select {custom_id!r} takes {lo}..{hi} values, got {len(values)}")
        channel = self.channels[msg.channel_id]
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": ctype}
        if ctype == 3:
            allowed = [o["value"] for o in comp.get("options", [])]
            bad = [v for v in values if v not in allowed]
            if bad:
                raise ValueError(f"{bad} are not options of {custom_id!r} ({allowed})")
            data["values"] = list(values)
        else:
            resolved: dict[str, Any] = {}
            kinds = {5: 6, 6: 8, 7: 7, 8: 9}
            data["values"] = [
                self._resolve_value(
                    {"type": kinds[ctype], "name": custom_id}, v, user, channel, resolved
                )
                for v in values
            ]
            data["resolved"] = resolved
        return await self._send_interaction(3, user, channel, data, message=msg)

    async def submit_modal(
        self,
        user: FakeUser,
        interaction: FakeInteraction,
        values: dict[str, str | list[str]],
    ) -> FakeInteraction:
        """Fill in and submit the modal the bot opened in response to ``interaction``."""
        modal = interaction.modal
        if modal is None:
            raise CommandNotAvailable(f"interaction {interaction.id} did not open a modal")
        unknown = set(values)

        def answer(comp: dict[str, Any]) -> dict[str, Any] | None:
            cid = comp.get("custom_id")
            if cid is None:
                return None
            unknown.discard(cid)
            ctype = int(comp["type"])
            if ctype == 4:
                value = values.get(cid, comp.get("value") or "")
                if not isinstance(value, str):
                    raise TypeError(f"text input {cid!r} takes a string")
                if comp.get("required", True) and not value:
                    raise ValueError(f"text input {cid!r} is required")
                lo, hi = comp.get("min_length", 0), comp.get("max_length", 4000)
                if value and not lo <= len(value) <= hi:
                    raise ValueError(
                        f"text input {cid!r}: length {len(value)} outside [{lo}, {hi}]"
                    )
                return {"type": 4, "custom_id": cid, "value": value}
            chosen = values.get(cid, [])
            return {"type": ctype, "custom_id": cid, "values": list(chosen)}

        components: list[dict[str, Any]] = []
        for top in modal.get("components", []):
            if top.get("type") == 1:
                inner = [a for a in (answer(c) for c in top.get("components", [])) if a]
                components.append({"type": 1, "components": inner})
            elif top.get("type") == 18 and isinstance(top.get("component"), dict):
                inner_answer = answer(top["component"])
                if inner_answer is not None:
                    components.append({"type": 18, "component": inner_answer})
        if unknown:
            raise ValueError(f"modal {modal.get('custom_id')!r} has no inputs {sorted(unknown)}")
        data = {"custom_id": modal["custom_id"], "components": components}
        return await self._send_interaction(
            5, user, interaction.channel, data, message=interaction.message
        )



class FakeDiscord(Users, RestMixin):
    """The fake Discord: the world, its gateway and REST API on one local port, driven by
    the test's users."""

    _runner: web.AppRunner | None = None
    _patch: DiscordPyPatch | None = None

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> FakeDiscord:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway_handler)
        app.router.add_get("/gateway/", self._gateway_handler)
        app.router.add_route("*", r"/api/v{version:\d+}/{tail:.*}", self._api_handler)
        app.router.add_get(
            "/attachments/{channel_id}/{attachment_id}/{filename}", self._attachment_handler
        )
        app.router.add_get("/cdn/{tail:.*}", self._cdn_handler)
        self._runner = web.AppRunner(
            app, handle_signals=False, access_log=None, shutdown_timeout=0.5
        )
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()
        return self

    async def stop(self) -> None:
        if self._patch is not None:
            self._patch.restore()
        for conn in list(self.connections):
            await conn.ws.close(code=1001, message=b"fakediscord stopping")
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def configure_discord_py(self) -> DiscordPyPatch:
        """Set discord.py's Route.BASE / DEFAULT_GATEWAY / Asset.BASE to this fake.

        Takes effect immediately; the returned object restores the old values on
        ``restore()`` or when used as a context manager. ``stop()`` also restores."""
        if not self.port:
            raise RuntimeError("start() the fake before configuring discord.py")
        if self._patch is not None:
            self._patch.restore()
        self._patch = DiscordPyPatch(self)
        return self._patch

    @contextlib.asynccontextmanager
    async def running(
        self,
        client: ClientT,
        *,
        token: str | None = None,
        timeout: float = 10.0,
        guild_ready_timeout: float | None = 0.2,
        fast_identify: bool = True,
    ) -> AsyncIterator[ClientT]:
        """Start ``client`` against the fake, wait for on_ready, close it cleanly afterwards.

        Two speed-ups for tests, both on this client instance only:
        ``guild_ready_timeout`` overrides discord.py's 2 s wait after the last GUILD_CREATE
        (None keeps the client's setting); ``fast_identify`` replaces the default
        ``before_identify_hook``, which sleeps 5 s before every non-initial IDENTIFY
        (further shards, re-identify after a dropped session)."""
        if guild_ready_timeout is not None:
            client._connection.guild_ready_timeout = guild_ready_timeout
        if fast_identify and type(client).before_identify_hook is _DEFAULT_IDENTIFY_HOOK:

            async def no_wait(shard_id: int | None, *, initial: bool = False) -> None:
                return None

            client.before_identify_hook = no_wait  # type: ignore[method-assign]
        task = asyncio.create_task(client.start(token or self.token), name="fakediscord-client")
        try:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + timeout
            while not client.is_ready():
                if task.done():
                    task.result()  # re-raise the login/connect error
                    raise RuntimeError("client stopped before becoming ready")
                if loop.time() > deadline:
                    raise TimeoutError("client did not become ready against the fake")
                await asyncio.sleep(0.01)
            yield client
        finally:
            await client.close()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(task, 5.0)
            await _drain_client_tasks(client)


async def _drain_client_tasks(client: discord.Client, timeout: float = 2.0) -> None:
    """After close(): let discord.py's fire-and-forget tasks (command/view dispatch, the
    on_ready delay) finish, cancelling stragglers, so no task outlives the test's loop."""
    current = asyncio.current_task()
    prefixes = ("CommandTree-invoker", "discord-ui-", "discord.py:")
    state = client._connection
    own: list[asyncio.Task[object]] = []
    if state._ready_task is not None:
        own.append(state._ready_task)
    if isinstance(state, AutoShardedConnectionState):
        own.extend(state._ready_tasks.values())

    def pending() -> list[asyncio.Task[object]]:
        named = [t for t in asyncio.all_tasks() if t.get_name().startswith(prefixes)]
        return [t for t in {*own, *named} if t is not current and not t.done()]

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while (left := pending()) and loop.time() < deadline:
        await asyncio.wait(left, timeout=deadline - loop.time())
    # Views with a timeout keep an (unnamed) timer task alive after close(): stop them.
    store = state._view_store
    views: dict[int, BaseView] = {id(v): v for v in store._synced_message_views.values()}
    for items in store._views.values():
        for item in items.values():
            if item.view is not None:
                views[id(item.view)] = item.view
    views.update({id(m): m for m in store._modals.values()})
    for view in views.values():
        with contextlib.suppress(Exception):
            view.stop()
    await asyncio.sleep(0)
    while (left := pending()) and loop.time() < deadline:
        await asyncio.wait(left, timeout=deadline - loop.time())
    left = pending()
    for task in left:
        task.cancel()
    if left:
        await asyncio.wait(left, timeout=1.0)
