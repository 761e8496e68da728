"""The picture of a turn's table message outlines every change of a board the turn made and
still holds (not only its last move's), in the open turn's message, read back from its outbox
row, and in the turn's record once it is over; an undone change is not outlined."""

from __future__ import annotations

import engine
import render
from bot.images import render_image
from bot.service import GameService, Image, Outcome
from bot.service.outbox import Deliverer, Delivery
from bot.storage.api import OutboxRow
from engine import Age, BuildingType, Construct, parse_square
from engine.builder import position
from tests.storage.postgres.backend import AnyStorage

from .conftest import Clock, prepared_game

F1, G2 = parse_square("F1"), parse_square("G2")
WATCHTOWER = Construct(age=Age.MIGHT, building=BuildingType.WATCHTOWER, square="F1")
CHAPEL = Construct(age=Age.FAITH, building=BuildingType.CHAPEL, square="G2")


async def _two_boards(service: GameService, channel: int) -> tuple[int, Outcome]:
    """Seat 0 builds a Watchtower at F1 on Might, then a Chapel at G2 on Faith."""
    user = await prepared_game(service, channel, position(
        3, hands={0: "mrc"}, adventurers={0: [Age.MIGHT, Age.FAITH]}))
    await service.act(channel, user, WATCHTOWER)
    return user, await service.act(channel, user, CHAPEL)


def _outlined(image: Image | None) -> dict[Age, set[int]]:
    assert image is not None and image.kind == "table"
    view = image.view
    assert isinstance(view, engine.PublicView)
    return render.turn_highlights(image.turn, view)


class Unsent:
    async def send(self, item: Delivery) -> str:
        raise AssertionError("only read here")


async def _table_row(storage: AnyStorage, out: Outcome) -> OutboxRow:
    async with storage.read() as q:
        rows = [await q.outbox_row(r) for r in out.outbox]
    return next(r for r in rows if r is not None and r.kind == "table")


async def test_r15_the_turns_picture_outlines_both_changes_on_two_boards(
        service: GameService, storage: AnyStorage, clock: Clock) -> None:
    _, out = await _two_boards(service, 60)
    image = out.tables[-1].image
    assert _outlined(image) == {Age.MIGHT: {F1}, Age.FAITH: {G2}} and image is not None
    # the last move's events stay the image's own: its age is the one shown large
    assert [(e.kind, e.age) for e in image.events] == [("built", Age.FAITH)]
    # the outbox row names the turn's changes too: what is sent outlines both
    message = await Deliverer(storage, Unsent(), clock=clock).message(
        await _table_row(storage, out))
    assert _outlined(message.image) == {Age.MIGHT: {F1}, Age.FAITH: {G2}}
    assert message.image is not None
    _, _, alt = render_image(message.image)
    assert "Faith is shown large" in alt
    assert "The turn's earlier changes are outlined too, on Might." in alt


async def test_r15_an_undone_change_is_not_outlined(service: GameService) -> None:
    user, _ = await _two_boards(service, 61)
    out = await service.undo(61, user)
    image = out.tables[-1].image
    assert _outlined(image) == {Age.MIGHT: {F1}} and image is not None
    assert [(e.kind, e.age) for e in image.events] == [("built", Age.MIGHT)]
    again = await service.act(61, user, CHAPEL)  # played again: outlined again
    assert _outlined(again.tables[-1].image) == {Age.MIGHT: {F1}, Age.FAITH: {G2}}


async def test_r15_the_turns_record_keeps_every_outline(service: GameService) -> None:
    user, _ = await _two_boards(service, 62)
    await service.act(62, user, engine.Travel(to=Age.REASON, adventurer=1))
    ended = await service.act(62, user, engine.EndTurn())
    record = ended.tables[0]
    assert record.closed
    assert _outlined(record.image) == {Age.MIGHT: {F1}, Age.FAITH: {G2}}
    opened = ended.tables[-1]  # the next turn's message starts with nothing outlined
    assert not opened.closed and _outlined(opened.image) == {}
