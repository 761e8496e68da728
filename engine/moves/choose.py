"""R37 Choose: answering the pending decision of a cascade (its check, effect, generator)."""

from __future__ import annotations

from ..actions import Choose
from ..errors import MalformedAction
from ..events import Event, event
from ..resolve import run_agenda
from ..rules import choice_words, who
from ..state import GameState
from .common import Plan, Spec


def check_choose(state: GameState, seat: int, action: Choose) -> Plan:
    assert state.pending is not None
    n = len(state.pending.options)
    if action.option >= n:
        raise MalformedAction.say("refusal.choice_range", "R37", n=n)
    return Plan(action, seat)


def apply_choose(state: GameState, plan: Plan, events: list[Event]) -> None:
    action = plan.action
    assert isinstance(action, Choose) and state.pending is not None
    label = choice_words(state.pending.options[action.option])
    params = {"who": who(plan.seat), "label": label}
    events.append(event("chosen", "event.chosen", params, seat=plan.seat))
    state.pending = None
    run_agenda(state, events, action.option)


def legal_choices(state: GameState, seat: int) -> list[Spec]:
    """R37: each option of the pending decision, for its chooser."""
    if state.pending is None or seat != state.pending.seat:
        return []
    return [(Choose, {"option": i}) for i in range(len(state.pending.options))]
