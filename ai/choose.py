"""One computer decision at any level: ``choose_action`` picks the module of the level
(``policy`` for random, easy and normal; ``hard`` builds on ``policy``)."""

from __future__ import annotations

import random

from engine import Action, PlayerView

from .hard import choose_hard
from .policy import Level, choose_easy, choose_normal, choose_random


def choose_action(
    view: PlayerView, level: Level | str, budget_s: float, chooser: random.Random
) -> Action:
    """The computer's action for the seat of ``view`` (which must be the seat to act).

    Raises ValueError for an unknown level or a seat that is not to act.
    ``level``: ``random``, ``easy`` or ``normal``; ``budget_s``: the thinking time ``normal``
    aims at (it always completes one sample of each searched step); ``chooser``: the random
    generator for sampling hidden cards (same view, level and seed: same action)."""
    level = Level(level)
    to_act = view.pending.seat if view.pending is not None else view.turn
    if view.over or to_act != view.seat:
        raise ValueError(f"seat {view.seat} is not to act in this view")
    if level is Level.RANDOM:
        return choose_random(view, chooser)
    if level is Level.EASY:
        return choose_easy(view, chooser)
    if level is Level.HARD:
        return choose_hard(view, chooser, budget_s)
    return choose_normal(view, chooser, budget_s)

