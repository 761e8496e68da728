"""The coach behind ``/hint`` (ai/coach.py): from what the player may see only, three legal plans
for the rest of the turn whose stated cards and Ecus are what applying them gives, the same for
the same seed, and a reason that names the rule at work, in three languages."""

from __future__ import annotations

import random
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import pytest

from ai import advise, policy
from ai.coach import CoachRefusal, Hint, describe, hints, paying
from ai.determinize import sample_state
from ai.words import say
from engine import (
    Action,
    Age,
    Choose,
    Construct,
    EndTurn,
    GameState,
    Travel,
    apply,
    check,
    current_seat,
    income,
    player_view,
)
from engine.builder import position

from .positions import midgame, reshuffle_hidden, turn_starts

LANGS = ("en", "fr", "de")
BUDGET_S = 0.05  # small and fast; hard's budget is counted in work, not time


def _hints(state: GameState, level: str = "hard", seed: int = 7) -> list[Hint]:
    seat = current_seat(state)
    assert seat is not None
    return hints(player_view(state, seat), level, BUDGET_S, seed)


def _check_hint(state: GameState, hint: Hint) -> None:
    """Apply the hint's actions to the real game: each is legal, and the cards, Ecus and next
    income it states are what happens."""
    seat = state.turn
    real = state
    played: Counter[str] = Counter()
    for action in hint.actions:
        check(real, seat, action)
        after, _ = apply(real, seat, action)
        if not isinstance(action, EndTurn):
            played += Counter(map(str, real.players[seat].hand)) - Counter(
                map(str, after.players[seat].hand)
            )
        real = after
    assert played == Counter(map(str, hint.cards))
    assert real.players[seat].ecus == state.players[seat].ecus - hint.ecus_paid + hint.ecus_now
    if hint.income_round is not None:
        assert income(real, seat)[0] == hint.income_next
    else:
        assert hint.income_next == 0
    if hint.waits_for is None:
        assert isinstance(hint.actions[-1], EndTurn)  # a plan for the whole rest of the turn
    else:
        assert real.pending is not None and real.pending.seat == hint.waits_for
    assert len(hint.steps) == len(hint.actions)


@pytest.mark.parametrize(("players", "seed", "level"), [
    (2, 31, "hard"), (3, 32, "normal"), (4, 33, "hard"), (5, 34, "easy"),
])
def test_r46_hints_are_legal_and_state_what_applying_them_gives(
    players: int, seed: int, level: str
) -> None:
    """R12-R49: over the turns of a game, every hinted plan is legal, ends the turn, and its
    cards, Ecus paid and brought (R13, R17, R22, the income of rounds 4 and 7) and next income
    are those of the real game once applied: hidden cards change none of them."""
    checked = 0
    for state in turn_starts(players, seed, 40)[1::3]:
        found = _hints(state, level, seed)
        assert 1 <= len(found) <= 3
        assert len({h.actions for h in found}) == len(found)
        for hint in found:
            _check_hint(state, hint)
            checked += 1
    assert checked >= 12


@pytest.mark.parametrize("level", ["hard", "normal", "easy"])
@pytest.mark.parametrize(("players", "seed", "moves"), [(2, 41, 9), (4, 42, 30)])
def test_hints_never_depend_on_cards_the_player_cannot_see(
    level: str, players: int, seed: int, moves: int
) -> None:
    """Two games that differ only in the other hands, the draw and discard piles and the future
    shuffles give the same hints for the same seed: the coach sees what the player sees."""
    state = midgame(players, seed, moves)
    while state.pending is not None or current_seat(state) != state.turn:
        seat = current_seat(state)
        assert seat is not None
        state, _ = apply(state, seat, Choose(option=0))
    seat = state.turn
    twin = reshuffle_hidden(state, seat, seed + 1)
    assert [p.hand for p in twin.players] != [p.hand for p in state.players]
    budget = 0.0 if level == "normal" else BUDGET_S  # normal's budget is time: 0 fixes it
    found = []
    for game in (state, twin):
        policy.forget_plans()
        found.append(hints(player_view(game, seat), level, budget, seed=5))
    assert found[0] == found[1]


def test_hints_are_the_same_for_the_same_seed_whatever_ran_before() -> None:
    """Deterministic per seed: the caches warmed by other searches change nothing."""
    states = turn_starts(3, 51, 9)
    first = _hints(states[6], seed=3)
    for other in states[1:5]:
        _hints(other, seed=11)
    assert _hints(states[6], seed=3) == first


def test_r37_refusals_say_why_and_change_nothing() -> None:
    """No turn to plan: another seat's turn, a choice pending (R37), a finished game, or a level
    the coach does not play."""
    state = turn_starts(2, 52, 3)[-1]
    other = 1 - state.turn
    with pytest.raises(CoachRefusal) as refused:
        hints(player_view(state, other))
    assert refused.value.sentence["key"] == "coach.refusal.not_your_turn"
    with pytest.raises(CoachRefusal) as refused:
        hints(player_view(state, state.turn), "random")
    assert refused.value.sentence["key"] == "coach.refusal.level"
    assert "random" in str(refused.value)
    over = state.model_copy(update={"over": True})
    with pytest.raises(CoachRefusal) as refused:
        hints(player_view(over, state.turn))
    assert refused.value.sentence["key"] == "coach.refusal.over"
    choosing = _choice_position()
    chooser = choosing.pending
    assert chooser is not None
    with pytest.raises(CoachRefusal) as refused:
        hints(player_view(choosing, chooser.seat))
    assert refused.value.sentence["key"] == "coach.refusal.choice"
    for lang in LANGS:
        assert say(refused.value.sentence, lang)


def _choice_position() -> GameState:
    """R32: seat 2's Hamlet joins seat 0's and seat 1's domains, whose Keeps tie at power 2;
    seat 2 owns neither, so seat 2 chooses which is downsized."""
    s = position(
        3,
        might="Keep F4 0; Chapel G6 2; Keep I4 1; Chapel I6 1",
        hands={2: "ccmr"},
        turn=2,
    )
    return apply(s, 2, Construct(age=Age.MIGHT, building="hamlet", square="H5"))[0]


def _reason(state: GameState, actions: list[Action]) -> dict[str, object]:
    seat = state.turn
    hint = describe(sample_state(player_view(state, seat), random.Random(1)), seat,
                    list(actions))
    _check_hint(state, hint)
    return hint.reason


def test_r47_the_reason_names_the_top_building_and_the_domain_it_wins() -> None:
    """R47: a Keep built beside a Town and a printed Hamlet (civil power 3 + 1) is the highest
    military building of that domain: +4 at the next income."""
    state = position(2, might="Town G3", hands={0: "mm"}, round=2)
    reason = _reason(state, [Construct(age=Age.MIGHT, building="keep", square="I3"), EndTurn()])
    assert reason["key"] == "coach.reason.top"
    params = reason["params"]
    assert isinstance(params, dict)
    assert (params["type"], params["at"], params["power"], params["round"], params["rule"]) == (
        "keep", "I3", 4, 4, "R47")
    assert say(reason) == (
        "Your Keep at I3 becomes the highest military building of a domain of civil power 4 "
        "on Might: +4 at round 4 (R47).")


def test_r29_the_reason_names_the_rival_building_a_ripple_erases() -> None:
    """R24/R29: a Town built on Might ripples to Faith and erases the rival's Chapel there."""
    state = position(2, faith="Chapel F6 1", hands={0: "ccc"})
    reason = _reason(state, [Construct(age=Age.MIGHT, building="town", square="F6"), EndTurn()])
    assert reason["key"] == "coach.reason.paradox"
    assert say(reason) == "This Town ripples to Faith and erases {P1}'s Chapel at F6 (R29)."
    assert say(reason, "fr") == (
        "Le Bourg se propage à la Foi et efface la Chapelle de {P1} en F6 (R29).")


def test_r32_a_choice_of_the_player_is_answered_in_the_plan_and_named() -> None:
    """R32/R37: the plan answers the choice its own move asks of the player (the default), stops
    where the downsized building's owner must place it (R33), and the reason names the rival
    building downsized."""
    s = position(3, might="Keep F4 0; Chapel G6 2; Keep I4 1; Chapel I6 1", hands={2: "ccmr"},
                 turn=2)
    hint = describe(sample_state(player_view(s, 2), random.Random(1)), 2,
                    [Construct(age=Age.MIGHT, building="hamlet", square="H5"), EndTurn()])
    assert isinstance(hint.actions[1], Choose)
    assert hint.waits_for == 0
    _check_hint(s, hint)
    assert hint.reason["key"] == "coach.reason.downsize"
    assert hint.reason["params"]["rule"] == "R32"


def test_r46_travel_to_where_the_domains_pay_and_income_collected_now() -> None:
    """R46: travelling back to the board where the player's domain pays is named; in round 4,
    ending the turn collects the income at once and the plan says how much."""
    away = position(2, might="Keep I3 0; Town G3", adventurers={0: [Age.FAITH, Age.FAITH]},
                    ecus={0: 4}, round=2)
    reason = _reason(away, [Travel(to=Age.MIGHT), EndTurn()])
    assert reason["key"] == "coach.reason.position"
    assert reason["params"] == {"ecus": 4, "round": 4}
    now = position(2, might="Keep I3 0; Town G3", round=4)
    hint = describe(sample_state(player_view(now, 0), random.Random(1)), 0, [EndTurn()])
    _check_hint(now, hint)
    assert (hint.ecus_now, hint.income_round, hint.income_next) == (4, 7, 4)
    assert hint.reason["key"] == "coach.reason.income_now"


def test_r12_ending_the_turn_with_nothing_worth_playing() -> None:
    state = position(2, hands={0: "r"}, round=2)
    assert _reason(state, [EndTurn()])["key"] == "coach.reason.wait"


@pytest.mark.parametrize(("players", "seed"), [(2, 61), (4, 62)])
def test_r49_paying_domains_are_the_engines_income(players: int, seed: int) -> None:
    """R47-R49: the domains the coach counts for a seat, on the boards where its adventurers
    stand, add up to the engine's income."""
    for state in turn_starts(players, seed, 30)[::4]:
        for seat in range(players):
            where = set(state.players[seat].adventurers)
            total = sum(amount for key, (amount, _) in paying(state, seat).items()
                        if key[0] in where)
            assert total == income(state, seat)[0]


def test_every_hint_words_in_three_languages_within_discord_limits() -> None:
    """Every step and reason of the hints of a game words in English, French and German with
    no placeholder left, short enough for a message (a hint shows three plans)."""
    for state in turn_starts(3, 71, 30)[1::4]:
        for hint in _hints(state, "normal"):
            for sentence in (*hint.steps, hint.reason):
                for lang in LANGS:
                    text = say(sentence, lang)
                    assert "{" not in text.replace("{P", ""), text
                    assert len(text) <= 300


async def test_advise_in_a_worker_process_gives_the_hints_and_the_refusals() -> None:
    """``advise`` runs the coach off the event loop, in a process as ``think`` does: the hints
    come back whole, and a refusal comes back as a ``CoachRefusal`` with its sentence."""
    state = turn_starts(2, 91, 5)[-1]
    view = player_view(state, state.turn)
    with ProcessPoolExecutor(max_workers=1) as pool:
        found = await advise(view, "hard", BUDGET_S, 3, executor=pool)
        assert found == hints(view, "hard", BUDGET_S, 3)
        with pytest.raises(CoachRefusal) as refused:
            await advise(player_view(state, 1 - state.turn), "hard", BUDGET_S, 3, executor=pool)
    assert refused.value.sentence["key"] == "coach.refusal.not_your_turn"
