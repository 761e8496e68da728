"""R13 Travel (and R14, which adventurer): its check, its effect and its generator."""

from __future__ import annotations

from ..actions import Travel
from ..constants import ADVENTURERS, TRAVEL_COST, Age
from ..errors import IllegalAction
from ..events import Event
from ..rules import Ctx, adventurer_left, who
from ..state import GameState
from .common import Plan, Specs


def check_travel(state: GameState, seat: int, action: Travel) -> Plan:
    player = state.players[seat]
    if player.ecus < TRAVEL_COST:
        raise IllegalAction(
            "R13 Travel costs 1 Ecu and you have none; nobody spends Ecus he lacks.", "R13"
        )
    if action.adventurer is None:
        movable = [i for i in range(ADVENTURERS) if player.adventurers[i] is not action.to]
        if not movable:
            raise IllegalAction(
                f"R13 Travel: both your adventurers are already in the age of "
                f"{action.to.label}.",
                "R13",
            )
        # unsaid: the adventurer with the most cards left to play (R14)
        adv = max(movable, key=lambda i: (adventurer_left(player, i), -i))
    else:
        adv = action.adventurer
        if player.adventurers[adv] is action.to:
            raise IllegalAction(
                f"R13 Travel: that adventurer is already in the age of {action.to.label}.",
                "R13",
            )
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
        Event(
            kind="travel",
            text=f"{who(plan.seat)} travels from {frm.label} to {action.to.label} with "
            f"adventurer {plan.adventurer + 1} (1 Ecu).",
            seat=plan.seat,
            age=action.to,
            adventurer=plan.adventurer,
        )
    )


def legal_travels(state: GameState, seat: int, ctx: Ctx) -> Specs:
    player = state.players[seat]
    if player.ecus < TRAVEL_COST:
        return
    for i in range(ADVENTURERS):
        for dest in Age:
            if dest is not player.adventurers[i]:
                yield Travel, {"to": dest, "adventurer": i}
