"""The community through the fake Discord (docs/community.md): the commitment in the start
post, the seed in no message before the end and revealed after it, /game export's JSON file
attached to its reply, /game verify, and /stats or /leaderboard private unless asked public."""

from __future__ import annotations

import json
import random

import engine
from bot.service.record import commitment
from engine.random_player import random_action
from tests.discord.conftest import Scene, SeededBot, all_sent
from tests.fakediscord.models import FakeMessage

SEED = 8_271_828_182_845_904


def shown(messages: list[FakeMessage]) -> str:
    """What the messages show: their texts (the table's text displays too), every earlier
    version of an edited one, their attachments' descriptions and any text file."""
    parts = []
    for m in messages:
        parts.append(m.text())
        parts += [json.dumps(old) for old in m.history]
        for a in m.attachments:
            parts.append(a.description or "")
            if a.filename.endswith(".json"):
                parts.append(a.data.decode())
    return "\n".join(parts)


async def test_a_sealed_game_exported_and_verified_through_discord(
        scene: Scene, seeded_bot: SeededBot) -> None:
    fake = scene.fake
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with seeded_bot(SEED) as bot, fake.running(bot):
        await scene.two_player_game(alice, bob)
        info = await bot.service.info(scene.ch.id)
        async with bot.service.storage.read() as q:
            seal = await q.seal(info.game_id)
        assert seal is not None and seal.commitment == commitment(SEED, seal.salt)
        start = await fake.wait_for_message(scene.ch, lambda m: seal.commitment in m.content)
        assert str(SEED) not in start.content
        # the creator's record of a game in play: a file without the seed
        ia = await scene.slash(alice, "game export")
        partial = ia.messages[0]
        assert partial.ephemeral and partial.attachments[0].filename.endswith(".json")
        assert json.loads(partial.attachments[0].data)["seed"] is None
        ia = await scene.slash(bob, "game export")
        assert "creator" in ia.messages[0].content and not ia.messages[0].attachments
        ia = await scene.slash(bob, "game verify")
        assert "revealed when the game ends" in ia.messages[0].content
        chooser = random.Random(7)
        while True:  # played through the service, each move's messages delivered
            info, state = await bot.service.snapshot(scene.ch.id)
            seat, action = random_action(state, chooser)
            user = info.user_of(seat)
            assert user is not None
            if _ends(state, seat, action):
                break
            await bot.deliver(await bot.service.act(scene.ch.id, user, action))
        await all_sent(bot)  # edits of one table message a second apart: coalesced
        before = [*fake.channel_messages(scene.ch), *fake.dms(alice), *fake.dms(bob),
                  partial]
        assert len(before) > 20  # one table message per turn, the posts, the hands
        assert str(SEED) not in shown(before) and seal.salt not in shown(before)
        await bot.deliver(await bot.service.act(scene.ch.id, user, action))
        reveal = await fake.wait_for_message(scene.ch, lambda m: str(SEED) in m.content)
        assert seal.salt in reveal.content and "Ratings on this server" in reveal.content
        ia = await scene.slash(bob, "game export")  # anyone, once it is over
        record = json.loads(ia.messages[0].attachments[0].data)
        assert record["seed"] == SEED and record["salt"] == seal.salt
        ia = await scene.slash(bob, "game verify")
        assert ia.messages[0].content.startswith("✅ The deck was fair.")
        ia = await scene.slash(alice, "stats")
        assert ia.messages[0].ephemeral and "Games 1" in ia.messages[0].content
        ia = await scene.slash(alice, "stats", player=bob, public=True)
        assert not ia.messages[0].ephemeral and "Hints" not in ia.messages[0].content
        ia = await scene.slash(alice, "leaderboard")
        assert ia.messages[0].ephemeral


def _ends(state: engine.GameState, seat: int, action: engine.Action) -> bool:
    """Whether ``action`` is the game's last move."""
    return engine.apply(state, seat, action)[0].over
