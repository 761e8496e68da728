"""Computer players and the coach (docs/ai.md): ``choose_action(view, level, budget_s, chooser)``
and ``think``, its asynchronous form that runs off the event loop; ``hints`` (the coach behind
``/hint``) and ``advise``, its asynchronous form; ``say`` words the coach's sentences."""

from .choose import choose_action
from .coach import DEFAULT_LEVEL as COACH_LEVEL
from .coach import CoachRefusal, Hint, hints
from .coach import check as check_hint
from .policy import Level, answer_choice
from .words import say
from .worker import advise, think

__all__ = [
    "COACH_LEVEL",
    "CoachRefusal",
    "Hint",
    "Level",
    "advise",
    "answer_choice",
    "check_hint",
    "choose_action",
    "hints",
    "say",
    "think",
]
