"""One module per action: in each, the action's check, its effect, its generator of
legal actions and its autocomplete query sit side by side and share their helpers.

``check`` picks the action's check, which returns a ``Plan`` or raises; ``execute`` carries the
plan out on a copy of the state; ``legal_specs`` chains the generators."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..actions import (
    Action,
    Choose,
    Construct,
    Demolish,
    EndTurn,
    Exchange,
    HoldemSwap,
    Populate,
    Renovate,
    Travel,
    Upgrade,
)
from ..constants import Age
from ..errors import MalformedAction
from ..events import Event
from ..rules import Ctx
from ..state import GameState
from .cards import (
    apply_end_turn,
    apply_exchange,
    apply_holdem,
    check_end_turn,
    check_exchange,
    check_holdem,
    legal_end_turns,
    legal_exchanges,
    legal_holdem_swaps,
)
from .choose import apply_choose, check_choose, legal_choices
from .common import Block, Option, Plan, Specs
from .construct import apply_construct, check_construct, construct_blocks, construct_options
from .demolish import apply_demolish, check_demolish, demolish_options, legal_demolitions
from .reason import (
    apply_populate,
    apply_renovate,
    check_populate,
    check_renovate,
    legal_reason_actions,
    reason_options,
)
from .travel import apply_travel, check_travel, legal_travels
from .upgrade import apply_upgrade, check_upgrade, legal_upgrades, upgrade_options

Check = Callable[[GameState, int, Any], Plan]
Effect = Callable[[GameState, Plan, list[Event]], None]

MOVES: dict[type[Action], tuple[Check, Effect]] = {
    Choose: (check_choose, apply_choose),
    Exchange: (check_exchange, apply_exchange),
    HoldemSwap: (check_holdem, apply_holdem),
    Travel: (check_travel, apply_travel),
    Construct: (check_construct, apply_construct),
    Upgrade: (check_upgrade, apply_upgrade),
    Demolish: (check_demolish, apply_demolish),
    Populate: (check_populate, apply_populate),
    Renovate: (check_renovate, apply_renovate),
    EndTurn: (check_end_turn, apply_end_turn),
}



def check(state: GameState, seat: int, action: Action) -> Plan:
    """The plan of a legal action (the turn and pending decision already checked)."""
    move = MOVES.get(type(action))
    if move is None:
        raise MalformedAction.say("refusal.unknown_action", action=repr(action))
    return move[0](state, seat, action)


def execute(state: GameState, plan: Plan, events: list[Event]) -> None:
    MOVES[type(plan.action)][1](state, plan, events)


def legal_blocks(state: GameState, seat: int) -> list[Block]:
    """Every legal action of ``seat``, as blocks of one kind (none empty), in this order: the
    R37 choices of a pending decision; else exchanges, Hold'em swaps, travels, then on Might
    and on Faith the constructions (a block per building type), upgrades and demolitions,
    then the populations and renovations of Reason and the ends of turn."""
    if state.over:
        return []
    if state.pending is not None:
        return [b for b in [Block.listed("choose", legal_choices(state, seat))] if b.count]
    if seat != state.turn:
        return []
    ctx = Ctx(state)
    blocks = [
        Block.listed("exchange", legal_exchanges(state, seat)),
        Block.listed("holdem", legal_holdem_swaps(state, seat)),
        Block.listed("travel", legal_travels(state, seat)),
    ]
    for age in (Age.MIGHT, Age.FAITH):  # the card actions of each board, in this order
        blocks += construct_blocks(state, seat, ctx, age)
        blocks.append(Block.listed("upgrade", legal_upgrades(state, seat, ctx, age)))
        blocks.append(Block.listed("demolish", legal_demolitions(state, seat, ctx, age)))
    blocks.append(Block.listed(None, legal_reason_actions(state, seat, ctx)))
    blocks.append(Block.listed("end_turn", legal_end_turns(state, seat)))
    return [b for b in blocks if b.count]


def legal_specs(state: GameState, seat: int) -> Specs:
    """Every legal action of ``seat`` as (class, fields), in the order of ``legal_blocks``."""
    for block in legal_blocks(state, seat):
        yield from block.specs()


__all__ = [
    "Block",
    "Option",
    "Plan",
    "check",
    "construct_options",
    "demolish_options",
    "execute",
    "legal_blocks",
    "legal_specs",
    "reason_options",
    "upgrade_options",
]
