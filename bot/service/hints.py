"""/hint (docs/ai.md, "The coach"): the computer's best plans for the rest of the asker's turn,
privately, from what his seat may see (``engine.player_view``).

The search runs in the service's worker pool (``ai.advise`` in ``ai_executor``, as a
computer's ``think``), never on the event loop and outside any transaction; its seed derives
from the game, its step and the seat, so asking twice gives the same answer. A game's keepers
turn hints on or off (``GameSettings.hints``; by default on exactly when a computer is
seated); each answer is counted on the asker's seat row (``SeatRow.hints``), shown in the end
post and summed into his statistics when the game is rated (``fairplay.py``). A stop of the
bot while the plans are computed (its worker pool closed) is a refusal that counts nothing: the
player is told to ask again in a minute.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import engine
from ai import COACH_LEVEL, CoachRefusal, Hint, advise, check_hint
from ai import say as coach_say
from ai.work import Stopping

from .. import i18n
from ..limits import MESSAGE_LIMIT, fit
from .errors import ServiceError
from .model import GameStatus
from .reading import ReadingMixin
from .results import Outcome, Reply
from .texts import cards_text, count_text, format_names, say, tell


class HintRefused(ServiceError):
    """No hint now: hints are off in this game, or the seat has no turn to plan."""


def hint_seed(game_seed: int, step: int, seat: int) -> int:
    """The seed of a hint: the same game, step and seat give the same plans."""
    return (game_seed * 1_000_003 + step * 7919 + (seat + 1) * 104_729) & ((1 << 63) - 1)


class HintsMixin(ReadingMixin):
    """/hint."""

    async def hint(self, channel_id: int, user_id: int, *, plain: bool = False) -> Outcome:
        """The coach's plans (up to three) for the asker's turn, for him only; ``plain``: a
        front end without Discord's markup (names as they are, no bold). Refused, changing
        nothing, when hints are off, the game is not under way or paused, or it is not his
        turn (or a choice waits for him). Counts the answer on his seat."""
        lang = i18n.language(i18n.reader())
        async with self.storage.read() as q:
            game, info, seat = await self._seated(q, channel_id, user_id)
        state = self._state(game, info)
        if game.status != GameStatus.ACTIVE and not state.over:
            raise HintRefused(tell("hint.not_under_way"))
        self._check_running(game, state)
        if not state.over and not info.settings.hints_on:
            raise HintRefused(tell("hint.off"))
        view = engine.player_view(state, seat)  # his hand and the public boards, nothing else
        try:
            check_hint(view, COACH_LEVEL)
            found = await advise(view, COACH_LEVEL, self.computer_budget,
                                 hint_seed(game.seed, state.step, seat), self.ai_executor)
        except CoachRefusal as exc:
            raise HintRefused(coach_say(exc.sentence, lang)) from None
        except Stopping:  # the bot stops: the plans were dropped before they came
            raise HintRefused(tell("hint.restarting")) from None
        async with self.storage.write() as tx:
            row = next((s for s in await tx.seats(game.id) if s.seat == seat), None)
            if row is not None and row.user_id == user_id:
                await tx.update_seat(game.id, seat, hints=row.hints + 1)
        names = info.plain_names if plain else info.names
        text = hints_text(found, state.players[seat].ecus, names, lang, plain)
        return Outcome(game=info, reply=Reply(text, None, True))


def hints_text(found: Sequence[Hint], ecus: int, names: dict[int, str], lang: str,
               plain: bool = False) -> str:
    """The answer to /hint: a heading, then each plan (its steps, what it costs, the Ecus
    after it and at the next income, the reason) in ``lang``, names from ``names``. Within
    one message by construction: each plan is fitted into its share of the room."""
    if not found:
        return say("hint.none", lang)
    head = say("hint.header", lang)
    room = (MESSAGE_LIMIT - len(head)) // len(found) - 2  # a blank line before each plan
    parts = [head]
    for number, plan in enumerate(found, 1):
        parts.append(fit(plan_text(number, plan, ecus, names, lang, plain), room))
    return "\n\n".join(parts)


def plan_text(number: int, plan: Hint, ecus: int, names: dict[int, str], lang: str,
              plain: bool = False) -> str:
    """One plan, worded: "1. build …, then end the turn", its costs and Ecus, its reason."""
    def words(phrase: dict[str, Any]) -> str:
        return format_names(coach_say(phrase, lang), names, lang)

    steps = say("hint.then", lang).join(words(s) for s in plan.steps)
    label = f"{number}." if plain else f"**{number}.**"
    after = ecus - plan.ecus_paid + plan.ecus_now
    lines = [f"{label} {steps}",
             say("hint.costs", lang, cards=cards_text(plan.cards, lang),
                 paid=count_text("ecus", plan.ecus_paid, lang),
                 now=count_text("ecus", ecus, lang), after=count_text("ecus", after, lang))]
    if plan.income_round is None:
        lines.append(say("hint.no_income", lang))
    else:
        lines.append(say("hint.income", lang, round=plan.income_round,
                         income=count_text("ecus", plan.income_next, lang)))
    if plan.waits_for is not None:
        lines.append(say("hint.waits", lang, name=names.get(plan.waits_for, "?")))
    lines.append(words(plan.reason))
    return "\n".join(lines)


__all__ = ["HintRefused", "HintsMixin", "hint_seed", "hints_text"]
