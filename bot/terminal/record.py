"""``python -m bot --verify FILE`` and ``python -m bot --replay FILE``: a game's record (the
JSON file of ``/game export``) checked, or played back in the terminal image by image
(docs/community.md). Neither needs Discord, a token or the bot's database."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from .. import i18n
from ..images import render_image
from ..service import Image, events_text, verdict_text
from ..service.record import Record, RecordError, load_record, replay_steps, start_state, verify
from ..service.texts import plain_name


def _load(path: Path, out: TextIO) -> Record | None:
    try:
        return load_record(path.read_text(encoding="utf-8"))
    except OSError as exc:
        out.write(f"Cannot read {path}: {exc.strerror or exc}\n")
    except RecordError as exc:
        out.write(i18n.text(exc.key, None, **exc.params) + "\n")
    return None


def verify_file(path: Path, out: TextIO) -> int:
    """Check the record in ``path``; 0 when the deck was fair, 1 when a check failed, 2 when
    the file is not a complete record."""
    record = _load(path, out)
    if record is None:
        return 2
    if record.seed is None:
        out.write(i18n.text("verify.refused", None, why=i18n.text("verify.no_seed", None)) + "\n")
        return 2
    verdict = verify(record)
    out.write(verdict_text(verdict, record, None) + "\n")
    return 0 if verdict.ok else 1


def replay_file(path: Path, folder: Path, out: TextIO, *,
                wait: Callable[[], bool] | None = None,
                render: Callable[[Image], bytes] | None = None) -> int:
    """Play the record in ``path`` back: each move's words, and its image written as
    ``folder/move-<n>.png``. ``wait`` is asked after each image (False: stop there)."""
    record = _load(path, out)
    if record is None:
        return 2
    if record.seed is None:
        out.write(i18n.text("record.no_seed", None) + "\n")
        return 2
    draw = render or (lambda image: render_image(image)[0])
    names = {seat: plain_name(name) for seat, name in record.names.items()}
    folder.mkdir(parents=True, exist_ok=True)
    state = start_state(record)
    first = folder / "move-000.png"
    first.write_bytes(draw(Image("move", state, names)))
    out.write(f"Start: {', '.join(names[s] for s in sorted(names))}. {first}\n")
    try:
        for number, step in enumerate(replay_steps(record), 1):
            image = folder / f"move-{number:03d}.png"
            image.write_bytes(draw(Image("move", step.after, names, step.events)))
            words = events_text(step.events, names, "en").replace("\n", " ")
            out.write(f"#{step.move.seq} {words} {image}\n")
            state = step.after
            if wait is not None and not wait():
                return 0
    except RecordError as exc:
        out.write(i18n.text(exc.key, None, **exc.params) + "\n")
        return 1
    scores = ", ".join(f"{names[p.seat]} {p.ecus}" for p in state.players)
    out.write(f"Final Ecus: {scores}.\n")
    return 0
