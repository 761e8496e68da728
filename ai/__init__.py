"""Computer players (docs/ai.md): ``choose_action(view, level, budget_s, chooser)``, and
``think``, its asynchronous form that runs off the event loop."""

from .policy import Level, answer_choice, choose_action
from .worker import think

__all__ = ["Level", "answer_choice", "choose_action", "think"]
