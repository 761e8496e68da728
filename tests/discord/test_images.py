"""The pictures players see in Discord: after a move, the turn's table message shows
``table.png`` with the moved age large (the region around what changed) and the two others
small; ``/board`` with every age large, or one age.

Through the fake Discord these tests check what was attached (file name, size, and that the
bytes are the renderer's for the moved age); what the pixels show (the owner's band, captions
wrapped rather than cut, readability at preview size) is checked in ``tests/render``."""

from __future__ import annotations

import io

from PIL import Image as PILImage

import engine
import render
from bot.images import names_list
from engine import Age, BuildingType
from engine.builder import position
from tests.discord.conftest import Scene, set_position, wait_until
from tests.fakediscord.models import FakeMessage


def size(msg: FakeMessage) -> tuple[int, int]:
    img = PILImage.open(io.BytesIO(msg.attachments[0].data))
    img.load()
    return img.size


async def test_a_move_post_shows_the_moved_age_large_and_board_every_age(scene: Scene) -> None:
    """alice builds a Chapel on Faith (R15). Her turn's table message shows ``table.png``,
    landscape, drawn with Faith large: the renderer's table image for that move with Faith in
    focus, not with Might, its alt text as the gallery item's description. /board still gives
    the three ages large (``boards.png``), and /board age:faith that one (``faith.png``)."""
    fake = scene.fake
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with fake.running(scene.bot()) as bot:
        await scene.two_player_game(alice, bob)
        info = await bot.service.info(scene.ch.id)
        a = info.seat_of(alice.id)
        assert a is not None
        prepared = position(2, hands={a: "rrcc"}, adventurers={a: (Age.MIGHT, Age.FAITH)},
                            turn=a)
        square = next(o.square for o in engine.construct_options(
            prepared, a, Age.FAITH, BuildingType.CHAPEL) if o.extra == 0)
        action = engine.Construct(age=Age.FAITH, building=BuildingType.CHAPEL, square=square)
        after, events = engine.apply(prepared, a, action)
        await set_position(bot, scene.ch.id, prepared)
        await scene.slash(alice, "build", age="faith", building="chapel", square=square)
        names = names_list(info.names)
        view = engine.public_view(after)
        faith = render.table_png(view, names, events, focus=Age.FAITH)
        assert faith != render.table_png(view, names, events, focus=Age.MIGHT)
        await wait_until(lambda: any(m.attachments and m.attachments[0].data == faith
                                     for m in fake.channel_messages(scene.ch)))
        post = next(m for m in fake.channel_messages(scene.ch)
                    if m.attachments and m.attachments[0].data == faith)
        # the turn's table message shows the renderer's table picture, Faith large
        assert post.is_layout and post.attachments[0].filename == "table.png"
        width, height = size(post)
        assert width > height, "landscape, for the chat preview"
        item = post.gallery()[0]
        assert item["media"]["url"] == "attachment://table.png"
        assert item["description"] == render.table_alt_text(view, names, events)
        assert post.attachments[0].description == item["description"], "with its alt text"

        ia = await scene.slash(bob, "board")
        msg = ia.messages[0]
        assert msg.ephemeral and msg.attachments[0].filename == "boards.png"
        width, height = size(msg)
        assert width == 840 and height > 2.5 * width, "every age large, stacked"
        ia = await scene.slash(bob, "board", age="faith")
        msg = ia.messages[0]
        assert msg.attachments[0].filename == "faith.png"
        width, height = size(msg)
        assert width > 1000 and height < 1.2 * width, "one age, larger still"
