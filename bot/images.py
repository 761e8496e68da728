"""The one image helper of both adapters (Discord and the terminal): an ``Image`` the service
asked for → PNG bytes, a file name and its alt text. ``render_image`` is pure and synchronous;
``Renderer`` runs it off the event loop, in worker threads or (``processes``) in worker
processes, which do not share the interpreter lock with the event loop."""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import engine
import render
from ai.pool import watch_parent

from . import i18n
from .limits import ALT_TEXT_LIMIT, fit
from .service import Image


def names_list(names: dict[int, str], lang: str | None = None) -> list[str]:
    """Seat names as the renderer wants them: a list indexed by seat."""
    return [names.get(i, i18n.text("image.player", lang, n=i + 1))
            for i in range(max(names, default=-1) + 1)]


def render_image(image: Image) -> tuple[bytes, str, str]:
    """PNG bytes, file name and alt text of ``image`` (at most Discord's 1,024 characters:
    the renderer's alt texts keep whole sentences, most important first, within the bound;
    the service's shorter ones are fitted after a whole word):

    - ``table``: the picture of a turn's table message (``table.png``), for the chat preview;
    - ``move``: the move's age large, the other two small (``move.png``), after every move;
    - ``boards``: every age large (``boards.png``) or, with ``age``, that one (``might.png`` …);
    - ``hand``: a player's hand (``hand.png``); ``compare``: before and after a move;
    - ``summary``: the end-of-game picture, replayed from the seed and the move log."""
    lang = image.lang
    names = names_list(image.names, lang)
    if image.kind == "hand":
        assert isinstance(image.view, engine.PlayerView)
        alt = fit(image.alt or i18n.text("image.hand", lang), ALT_TEXT_LIMIT)
        return render.hand_png(image.view, names, lang=lang), "hand.png", alt
    if image.kind == "summary":
        assert image.state is not None and image.seed is not None
        moves = [(seat, engine.parse_action(action)) for seat, action in image.moves]
        summary = render.summary_from_moves(image.state.options, image.seed, moves)
        return (render.summary_png(summary, names, lang=lang), "summary.png",
                render.summary_alt_text(summary, names, lang=lang))
    view = image.view
    assert isinstance(view, engine.PublicView)
    events = list(image.events)
    highlights = render.highlights_from_events(events)
    if image.kind == "compare":
        png = render.before_after_png(image.before_view, view, names, highlights, image.alt,
                                     lang=lang)
        return png, "before-after.png", fit(i18n.text("image.compare_alt", lang,
                                                    alt=image.alt), ALT_TEXT_LIMIT)
    if image.kind == "table":  # made for the chat preview; its alt text fits by design
        # the whole turn's changes outlined (a row written before it kept the last move's)
        marks = render.turn_highlights(image.turn, view) if image.turn else None
        return (render.table_png(view, names, events, marks, lang=lang), "table.png",
                render.table_alt_text(view, names, events, marks, lang=lang))
    alt = render.alt_text(view, names, events, lang=lang)
    if image.age is not None:
        return (render.age_png(view, image.age, names, highlights, lang=lang),
                f"{image.age.label.lower()}.png", alt)
    if image.kind == "move":
        return render.move_png(view, names, events, lang=lang), "move.png", alt
    return render.boards_png(view, names, highlights, lang=lang), "boards.png", alt


class Renderer:
    """Renders images off the event loop: in a worker thread (``processes=0``, the default,
    nothing to start or stop), or in a pool of ``processes`` worker processes (started on
    first use with ``forkserver``, never ``fork`` from a process with threads; ``close()``
    stops them)."""

    def __init__(self, processes: int = 0) -> None:
        self.processes = processes
        self._pool: ProcessPoolExecutor | None = None

    async def render(self, image: Image) -> tuple[bytes, str, str]:
        if self.processes <= 0:
            return await asyncio.to_thread(render_image, image)
        if self._pool is None:
            self._pool = ProcessPoolExecutor(  # its workers exit if the bot is killed
                self.processes, mp_context=multiprocessing.get_context("forkserver"),
                initializer=watch_parent)
        return await asyncio.get_running_loop().run_in_executor(self._pool, render_image, image)

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


__all__ = ["Renderer", "names_list", "render_image"]
