"""R22 Demolish (and R36 division after it): its check, its effect, its generator and its
autocomplete query."""

from __future__ import annotations

from ..actions import Demolish
from ..board import square_name
from ..constants import BUILDINGS, DEMOLISH_ECUS, Age
from ..domains import Building
from ..errors import IllegalAction, refuse
from ..events import Event
from ..resolve import after_removal, remove_tile
from ..rules import Ctx, allowance, payment_problem, who
from ..state import GameState
from ..words import phrase
from .common import Plan, Spec, building_at, pay


def _demolishable(b: Building) -> bool:
    """R22: a size-1 tile; never a printed Hamlet."""
    return not b.printed and BUILDINGS[b.type].size == 1


def check_demolish(state: GameState, seat: int, action: Demolish) -> Plan:
    if action.age is Age.REASON:
        raise IllegalAction.say("refusal.demolish_reason", "R22")
    building = building_at(Ctx(state), action.age, action.square)
    if building.printed:
        raise IllegalAction.say("refusal.demolish_printed", "R22")
    if not _demolishable(building):
        raise IllegalAction.say("refusal.demolish_size", "R22", type=str(building.type))
    if state.players[seat].ecus < DEMOLISH_ECUS:
        raise IllegalAction.say("refusal.demolish_ecus", "R22")
    cards = (building.family,)
    what = phrase("phrase.demolishing_it")
    refuse(payment_problem(state, seat, action.age, cards, what, rule="R22"))
    return Plan(action, seat, cards=cards, age=action.age, building=building)


def apply_demolish(state: GameState, plan: Plan, events: list[Event]) -> None:
    assert plan.building is not None and plan.age is not None
    seat = plan.seat
    state.turn_state.acted = True
    pay(state, seat, plan.age, plan.cards)
    state.players[seat].ecus -= DEMOLISH_ECUS
    tile = state.boards[plan.age].tile(plan.building.key)
    assert tile is not None
    why = phrase("phrase.why_demolished", who=who(seat))
    remove_tile(state, plan.age, tile, events, why, cascade=False)
    after_removal(state, seat, plan.age, events)


def legal_demolitions(state: GameState, seat: int, ctx: Ctx, age: Age) -> list[Spec]:
    """R22: every size-1 tile of ``age`` the player can pay a card of its family for."""
    player = state.players[seat]
    if player.ecus < DEMOLISH_ECUS or age is Age.REASON or allowance(player, age) == 0:
        return []
    hand = player.hand
    return [
        (Demolish, {"age": age, "square": square_name(b.at)})
        for b in ctx.index(age).in_reading_order
        if _demolishable(b) and b.family in hand
    ]


def demolish_options(state: GameState, seat: int, age: Age) -> list[str]:
    """Autocomplete: the squares where ``seat`` can demolish on ``age`` now."""
    if state.over or state.pending is not None or seat != state.turn:
        return []
    return [fields["square"] for _, fields in legal_demolitions(state, seat, Ctx(state), age)]
