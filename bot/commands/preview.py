"""The preview of a move whose effects reach beyond its own squares (R23-R37: ripples,
paradoxes, junctions, downsizings, choices): both front ends show it before playing the move,
with Confirm and Cancel in Discord, with y/n in the terminal. Nothing is stored here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine import Action

from .. import i18n, surcharge
from ..service import GameInfo, GameService, Image, events_text
from .handlers import Context
from .lines import to_action

# the commands that may need a preview, and the events that make one worth showing
PREVIEWED = ("build", "upgrade")
PREVIEW_KINDS = frozenset({"rippled", "not_rippled", "removed", "junction", "junction_power",
                           "downsized", "decision", "hamlet_cube", "copy_kept"})


@dataclass(frozen=True)
class Preview:
    """What the move would do: its ``action``, its events in words (``text``, the reader's
    language) and the boards after it (``image``), for the game ``info`` as it stands."""

    info: GameInfo
    action: Action
    text: str
    image: Image


async def preview_of(service: GameService, ctx: Context, name: str,
                     args: dict[str, Any]) -> Preview | None:
    """The preview of command ``name`` with ``args`` for ``ctx``'s user, or None when it needs
    none (not a construct or upgrade, or no consequence beyond its own squares). Raises the
    refusals the move itself would."""
    if name not in PREVIEWED:
        return None
    action = to_action(name, args)
    with i18n.reading(ctx.locale):
        info, view, names, events = await service.preview(ctx.channel_id, ctx.user_id, action)
    if not any(e.kind in PREVIEW_KINDS for e in events):
        return None
    text = events_text(events, names, ctx.locale)
    _, state, seat = await service.seat_state(ctx.channel_id, ctx.user_id)
    paid = surcharge.paid(state, seat, action, events) if seat is not None else None
    if paid is not None:  # what the terrain costs, and how to pay it otherwise (R18)
        note = surcharge.default_note(paid, ctx.locale, previewed=True)
        text += "\n" + (note or surcharge.paid_sentence(paid, ctx.locale))
    # a private answer: the picture too in the reader's language
    image = Image(kind="move", view=view, names=info.plain_names, events=tuple(events),
                  lang=i18n.language(ctx.locale))
    return Preview(info, action, text, image)
