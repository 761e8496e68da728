"""What the terminal shows: the service's texts without Discord's markup (timestamps as local
times, no bold), in the terminal's language, and the images written as PNG files."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import TextIO

from .. import i18n
from ..images import render_image
from ..limits import chunks
from ..service import Attachment, Image

_STAMP = re.compile(r"<t:(\d+)(?::[tTdDfFR])?>")


def local_times(text: str) -> str:
    """Discord timestamps (``<t:1700000000:R>``) as this machine's local time. The terminal
    adapter ignores timers otherwise: nobody is reminded in a terminal."""
    return _STAMP.sub(
        lambda m: datetime.fromtimestamp(int(m.group(1))).strftime("%Y-%m-%d %H:%M"), text)


def plain(text: str) -> str:
    """A text as a terminal shows it: local times, and no Discord bold (``**Preview**``)."""
    return local_times(text).replace("**", "")


def write(out: TextIO, text: str) -> None:
    """Print ``text`` in pieces of at most 2,000 characters, as Discord would show it (an
    empty text is an empty line)."""
    for part in chunks(text) if text.strip() else [text]:
        out.write(part + "\n")


class Screen:
    """The terminal's output, in a language that follows the game's (``lang``)."""

    def __init__(self, out: TextIO, lang: str = "en") -> None:
        self.out = out
        self.lang = lang

    def say(self, text: str) -> None:
        write(self.out, plain(text))

    def text(self, key: str, **params: object) -> str:
        """The terminal's sentence ``key`` (``terminal.<key>``) in its language."""
        return i18n.text(f"terminal.{key}", self.lang, **params)

    def put(self, key: str, **params: object) -> None:
        """Print the terminal's sentence ``key``."""
        self.say(self.text(key, **params))


def image_png(image: Image) -> bytes:
    """The PNG of an image the service asked for (the helper shared with Discord)."""
    return render_image(image)[0]


class ImageWriter:
    """Writes images as PNG files into ``root/game-<id>/``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder = root

    def use_game(self, game_id: int) -> None:
        self.folder = self.root / f"game-{game_id}"

    def write(self, image: Image, name: str, *, latest: bool = False) -> Path:
        """Write ``image`` as ``name``; ``latest``: also as ``latest.png`` (moves only, so that
        a /status or /board never hides the last move's image)."""
        data = image_png(image)
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / name
        path.write_bytes(data)
        if latest:
            (self.folder / "latest.png").write_bytes(data)
        return path


    def write_text(self, file: Attachment) -> Path:
        """Write a reply's file (a game's record) into the game's folder."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / file.name
        path.write_text(file.text, encoding="utf-8")
        return path


def reply_image_name(image: Image) -> str:
    """File name of an image answering a command: ``status.png``, ``board-faith.png``,
    ``compare.png`` (never a move's name, never ``latest.png``)."""
    if image.kind == "compare":
        return "compare.png"
    if image.age is not None:
        return f"board-{image.age.label.lower()}.png"
    return "status.png"
