"""A whole game state rebuilt from what one seat may see, with the hidden cards sampled.

A computer player receives ``player_view(seat)``: the boards, everyone's Ecus, cubes and
adventurers, the face-up reserve, its own hand, and only the *number* of cards in the other
hands, the draw pile and the discard pile. To look ahead it needs a full ``GameState``; this
module deals the cards it cannot see (the 55-card deck less its hand and the reserve, R7) at
random into those places, in the sizes the view shows. Two games that differ only in hidden
cards give the same view, hence the same samples for the same random generator.
"""

from __future__ import annotations

import random

from engine import SCHEMA_VERSION, Family, GameState, PlayerView
from engine.state import Player

DECK = {Family.MILITARY: 18, Family.RELIGIOUS: 18, Family.CIVIL: 19}  # R7
FAMILY_ORDER = (Family.MILITARY, Family.RELIGIOUS, Family.CIVIL)


def unseen_cards(view: PlayerView) -> list[Family]:
    """The cards the seat cannot see, as a sorted list (their families only are known)."""
    left = dict(DECK)
    for card in [*view.hand, *view.reserve]:
        left[card] -= 1
    return [f for f in FAMILY_ORDER for _ in range(left[f])]


def sample_state(view: PlayerView, chooser: random.Random) -> GameState:
    """One game consistent with ``view``: the unseen cards dealt at random (a determinization).

    The sampled state has an empty agenda: a view with a pending decision is answered without
    sampling (``policy.answer_choice``)."""
    pool = unseen_cards(view)
    chooser.shuffle(pool)
    players = []
    for p in view.players:
        if p.seat == view.seat:
            hand = list(view.hand)
        else:
            hand = sorted(pool[: p.hand_count], key=FAMILY_ORDER.index)
            del pool[: p.hand_count]
        players.append(
            Player.model_construct(
                seat=p.seat,
                ecus=p.ecus,
                cubes=p.cubes,
                adventurers=list(p.adventurers),
                used=list(p.used),
                shared=p.shared,  # R14: cards played where both adventurers stood
                hand=hand,
            )
        )
    draw = pool[: view.draw_count]
    discard = pool[view.draw_count :]
    assert len(discard) == view.discard_count, "the view's card counts do not add up to 55"
    boards = [b.model_copy(deep=True) for b in view.boards]
    # fresh tile ids must not collide with a tile or with the origin a copy still points to
    next_id = 1 + max(
        (max(t.id, t.origin or 0) for b in boards for t in b.tiles), default=0
    )
    return GameState.model_construct(
        schema_version=SCHEMA_VERSION,
        options=view.options,
        seed=0,
        rng=chooser.getrandbits(64),
        round=view.round,
        first_seat=view.first_seat,
        turn=view.turn,
        over=view.over,
        winners=list(view.winners),
        step=view.step,
        boards=boards,
        stock=dict(view.stock),
        players=players,
        draw_pile=draw,
        discard=discard,
        reserve=list(view.reserve),
        turn_state=view.turn_state.model_copy(),
        next_tile_id=next_id,
        agenda=[],
        pending=None,
        provoker=None,
    )
