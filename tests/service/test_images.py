"""The image helper shared by the adapters: every kind the service asks for renders, in a
thread or in a worker process, to the same picture."""

from __future__ import annotations

import io

from PIL import Image as PILImage

import engine
from bot.images import Renderer, render_image
from bot.service import GameService, Image
from tests.service.conftest import current_user, started_game


async def test_move_summary_and_boards_images_render_alike_in_threads_and_processes(
        service: GameService) -> None:
    await started_game(service, 1, players=2, seed=1)
    user, _ = await current_user(service, 1)
    out = await service.act(1, user, engine.EndTurn())
    move = out.public[0].image
    assert move is not None and move.kind == "move"
    png, name, alt = render_image(move)
    assert name == "move.png" and alt
    assert PILImage.open(io.BytesIO(png)).width == 840
    info, state = await service.snapshot(1)
    boards = Image("boards", state, info.names)
    assert render_image(boards)[1] == "boards.png"
    stored = Image.from_json(move.to_json())  # as the outbox keeps it
    assert render_image(stored)[0] == png
    pool = Renderer(1)
    try:
        assert (await pool.render(move))[0] == png
    finally:
        pool.close()
    assert (await Renderer().render(move))[0] == png
