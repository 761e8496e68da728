"""R13 Travel (and R14, which adventurer): its check, its effect and its generator."""

from __future__ import annotations

from ..actions import Travel
from ..constants import ADVENTURERS, TRAVEL_COST, Age
from ..errors import IllegalAction
from ..events import Event, event
from ..rules import adventurer_left, age_code, who
from ..state import GameState
from .common import Plan, Spec


def check_travel(state: GameState, seat: int, action: Travel) -> Plan:
    player = state.players[seat]
    if player.ecus < TRAVEL_COST:
        raise IllegalAction.say("refusal.travel_ecus", "R13")
    if action.adventurer is None:
        movable = [i for i in range(ADVENTURERS) if player.adventurers[i] is not action.to]
        if not movable:
            raise IllegalAction.say("refusal.travel_both_there", "R13", age=age_code(action.to))
        # unsaid: the adventurer with the most cards left to play (R14)
        adv = max(movable, key=lambda i: (adventurer_left(player, i), -i))
    else:
        adv = action.adventurer
        if player.adventurers[adv] is action.to:
            raise IllegalAction.say("refusal.travel_there", "R13", age=age_code(action.to))
    return Plan(action, seat, adventurer=adv)


def apply_travel(state: GameState, plan: Plan, events: list[Event]) -> None:
    action = plan.action
    assert isinstance(action, Travel) and plan.adventurer is not None
    player = state.players[plan.seat]
    frm = player.adventurers[plan.adventurer]
    player.adventurers[plan.adventurer] = action.to
    player.ecus -= TRAVEL_COST
    state.turn_state.acted = True
    events.append(
        event(
            "travel",
            "event.travel",
            {
                "who": who(plan.seat),
                "from": age_code(frm),
                "to": age_code(action.to),
                "adventurer": plan.adventurer + 1,
            },
            seat=plan.seat,
            age=action.to,
            adventurer=plan.adventurer,
        )
    )


def legal_travels(state: GameState, seat: int) -> list[Spec]:
    """R13: each adventurer to each other age, while the player has the Ecu."""
    player = state.players[seat]
    if player.ecus < TRAVEL_COST:
        return []
    return [
        (Travel, {"to": dest, "adventurer": i})
        for i in range(ADVENTURERS)
        for dest in _AGES
        if dest is not player.adventurers[i]
    ]


_AGES = tuple(Age)
