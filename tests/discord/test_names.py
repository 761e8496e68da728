"""A display name is shown as text: a nickname that looks like another member's mention, bold
or a right-to-left override formats and mentions nothing in what the bot posts, pings or
sends, and the pictures draw it as it is."""

from __future__ import annotations

import re

from bot.service.texts import plain_name, shown_name
from tests.discord.conftest import Scene, SeededBot


def test_a_name_is_escaped_for_text_and_kept_plain_for_pictures() -> None:
    assert shown_name("<@1234>") == r"\<\@1234\>"
    assert shown_name("**boss** @everyone") == r"\*\*boss\*\* \@everyone"
    assert shown_name("[click](https://x.y)") == r"\[click\](https\://x.y)"
    assert shown_name("# Big") == r"\# Big" and shown_name("1. Ann") == r"1\. Ann"
    assert shown_name("john_doe") == r"john\_doe" and shown_name("Jean-Luc") == "Jean-Luc"
    assert shown_name("a\u202eb\u200bc\u2066d\nx") == "abcd x"  # direction, zero-width
    assert plain_name("\u3164\u200b") == "?"  # nothing visible left
    assert plain_name("👨\u200d👩") == "👨\u200d👩"  # an emoji sequence keeps its joiner
    assert plain_name("<@1234> **boss**") == "<@1234> **boss**"


async def test_a_nickname_posing_as_a_mention_mentions_nobody(
        scene: Scene, seeded_bot: SeededBot) -> None:
    fake, ch, guild = scene.fake, scene.ch, scene.guild
    carol = fake.add_user("carol")  # the member whose mention the nickname copies
    mallory = fake.add_user("mallory", guilds=())
    nick = f"<@{carol.id}> **boss** @everyone \u202eliar"
    fake.add_member(guild, mallory, nick=nick)
    bob = fake.add_user("bob")
    async with seeded_bot(7) as bot, fake.running(bot):
        await scene.slash(mallory, "create", players=2)
        await scene.slash(bob, "join")
        for _ in range(3):
            info, state = await bot.service.snapshot(ch.id)
            user = next(u for u in (mallory, bob) if u.id == info.user_of(state.turn))
            await scene.slash(user, "end")
        await scene.slash(bob, "status")
        await scene.slash(bob, "history")
        await scene.slash(mallory, "game pause")
        await fake.wait_for_message(ch, lambda m: "pauses" in m.content, timeout=10)
        info = await bot.service.info(ch.id)
    messages = fake.channel_messages(ch) + fake.dms(bob) + fake.dms(mallory)
    texts = [m.text() for m in messages]  # content, and the table's text displays
    # the name is in posts, tables and DMs (a turn ping names its player by the mention alone)
    assert sum(1 for t in texts if r"\<\@" in t) >= 4
    for message in messages:
        assert carol.id not in message.mentioned_user_ids(), message.text()
        assert not re.search(r"(?<!\\)\*\*boss", message.text()), message.text()
        assert not re.search(r"(?<!\\)@everyone", message.text()), message.text()
        assert "\u202e" not in message.text()
    seat = next(s.seat for s in info.seats if s.user_id == mallory.id)
    assert info.plain_names[seat] == f"<@{carol.id}> **boss** @everyone liar"
    described = [a.description or "" for m in messages for a in m.attachments]
    assert any(info.plain_names[seat] in d for d in described)  # drawn and read as it is
