"""The coach behind ``/hint``: the best plans for the rest of a player's turn (docs/ai.md).

``hints(view, level, budget_s, seed)`` is a pure function of what the player may see
(``player_view``): the search of a computer level ranks whole-turn plans, and each of the three
best is replayed on a state sampled from the view to tell what it does. Every figure it states
(cards, Ecus paid and brought now, the next income) depends only on the seat's own hand and the
public boards, so it is what applying the plan to the real game gives; the hidden cards of the
sample never show (the cards drawn at the end of the turn are not stated).

Sentences are phrases (``ai.words``): the bot words them in each player's language.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from engine import (
    BUILDINGS,
    Action,
    Age,
    BuildingType,
    Choose,
    Construct,
    Demolish,
    EndTurn,
    Event,
    Family,
    GameState,
    PlayerView,
    Populate,
    Renovate,
    Travel,
    Upgrade,
    apply,
    dump_action,
    income,
    parse_action,
    square_name,
)

from .determinize import sample_state
from .evaluate import INCOME_ROUNDS, domain_groups, evaluate
from .policy import Level, finish_turn, steps, weigh_plans
from .words import Phrase, phrase, say

HINTS = 3  # plans a hint gives
DEFAULT_LEVEL = Level.HARD


class CoachRefusal(ValueError):
    """No hint for this view: the game is over, it is not the seat's turn, or a choice waits.
    ``sentence`` words the refusal (``ai.words.say``); the message is its English."""

    def __init__(self, sentence: Phrase) -> None:
        super().__init__(say(sentence))
        self.sentence = sentence

    def __reduce__(self) -> tuple[type[CoachRefusal], tuple[Phrase]]:
        return (CoachRefusal, (self.sentence,))  # back from a worker process whole


@dataclass(frozen=True)
class Hint:
    """One plan for the rest of the turn and what it brings.

    ``actions`` are engine actions, legal in turn from the position hinted (an R37 choice of the
    player's own is answered in it; it stops at a choice another player must make, whose seat
    is ``waits_for``). ``steps`` words each action; ``cards`` are the cards it plays and
    ``ecus_paid`` the Ecus it spends (travel, demolition); ``ecus_now`` the Ecus it brings during
    the turn (R17 bonuses, and the income of rounds 4 and 7 when it ends the turn); so the
    player's Ecus after it are his Ecus now ``- ecus_paid + ecus_now``. ``income_next`` is what
    the next income (``income_round``: 4 or 7; None when none is left) pays with the boards and
    adventurers as the plan leaves them. ``reason`` names the rules that make it worth playing.
    """

    actions: tuple[Action, ...]
    steps: tuple[Phrase, ...]
    cards: tuple[Family, ...]
    ecus_paid: int
    ecus_now: int
    income_next: int
    income_round: int | None
    reason: Phrase
    waits_for: int | None = None


def hint_data(hint: Hint) -> dict[str, Any]:
    """``hint`` as plain JSON-safe data (to come back from a worker process)."""
    return {
        "actions": [dump_action(a) for a in hint.actions],
        "steps": list(hint.steps),
        "cards": [str(c) for c in hint.cards],
        "ecus_paid": hint.ecus_paid,
        "ecus_now": hint.ecus_now,
        "income_next": hint.income_next,
        "income_round": hint.income_round,
        "reason": hint.reason,
        "waits_for": hint.waits_for,
    }


def parse_hint(data: dict[str, Any]) -> Hint:
    """The ``Hint`` that ``hint_data`` gave (raises on malformed data)."""
    return Hint(
        actions=tuple(parse_action(a) for a in data["actions"]),
        steps=tuple(data["steps"]),
        cards=tuple(Family(c) for c in data["cards"]),
        ecus_paid=int(data["ecus_paid"]),
        ecus_now=int(data["ecus_now"]),
        income_next=int(data["income_next"]),
        income_round=data["income_round"],
        reason=data["reason"],
        waits_for=data["waits_for"],
    )


def hints(
    view: PlayerView,
    level: Level | str = DEFAULT_LEVEL,
    budget_s: float = 0.8,
    seed: int = 0,
) -> list[Hint]:
    """The best plans (up to ``HINTS``) for the rest of the turn of ``view``'s seat, best first,
    as the search of ``level`` (easy, normal or hard) ranks them within ``budget_s``. Same view,
    level, budget and seed: same hints (``hard`` and a ``budget_s`` of 0 do not depend on the
    machine's speed). Raises ``CoachRefusal`` when the seat has no turn to plan."""
    level = _check(view, level)
    chooser = random.Random(seed)
    ranked = _ranked(view, level, budget_s, chooser)
    sample = sample_state(view, chooser)
    chosen = _pick(ranked, sample, view.seat)
    return [describe(sample, view.seat, actions) for actions in chosen]


def check(view: PlayerView, level: Level | str = DEFAULT_LEVEL) -> Level:
    """The level ``hints`` would plan at for ``view``; raises the ``CoachRefusal`` it would
    raise, at once (a front end refuses before it waits for the search)."""
    return _check(view, level)


def _check(view: PlayerView, level: Level | str) -> Level:
    if view.over:
        raise CoachRefusal(phrase("coach.refusal.over"))
    if view.pending is not None:
        if view.pending.seat == view.seat:
            raise CoachRefusal(phrase("coach.refusal.choice"))
        raise CoachRefusal(phrase("coach.refusal.not_your_turn"))
    if view.turn != view.seat:
        raise CoachRefusal(phrase("coach.refusal.not_your_turn"))
    try:
        parsed = Level(level)
    except ValueError:
        parsed = None
    if parsed is None or parsed is Level.RANDOM:
        raise CoachRefusal(phrase("coach.refusal.level", level=str(level)))
    return parsed


def _ranked(
    view: PlayerView, level: Level, budget_s: float, chooser: random.Random
) -> list[list[Action]]:
    """Whole-turn plans as the level's search ranks them, best first."""
    if level is Level.HARD:
        from .hard import search

        return [list(plan.actions) for plan, _ in search(view, chooser, budget_s)]
    if level is Level.NORMAL:
        return [list(plan.actions) for plan in weigh_plans(view, chooser, budget_s)]
    return []


def _alternatives(state: GameState, seat: int, wanted: int) -> list[list[Action]]:
    """Turns that begin with each of the best first steps (by the evaluation), completed as
    ``easy`` would: the greedy turn first."""
    ranked = sorted(steps(state, seat), key=lambda s: -s.score)
    _, greedy = finish_turn(state, seat)
    out = [greedy]
    for step in ranked:
        if len(out) >= wanted:
            break
        if any(p[: len(step.actions)] == step.actions for p in out):
            continue
        rest: list[Action] = []
        if not step.state.over and step.state.turn == seat:
            _, rest = finish_turn(step.state, seat)
        out.append([*step.actions, *rest])
    return out


def _shape(plan: list[Action]) -> str:
    """What a plan does first, its square left out: two plans that build the same Hamlet in
    two places are one idea."""
    action = next((a for a in plan if not isinstance(a, Travel)), plan[0])
    fields = action.model_dump(exclude={"square", "at", "surcharge", "adventurer"})
    return repr(sorted(fields.items()))


def _pick(ranked: list[list[Action]], sample: GameState, seat: int) -> list[list[Action]]:
    """The ``HINTS`` best distinct plans, preferring plans that do different things first,
    then different first actions (what is decided now); the search's plans first, then turns
    beginning with other steps."""
    plans: list[list[Action]] = []
    for p in ranked:
        if p not in plans:
            plans.append(p)
    if len({_shape(p) for p in plans}) < HINTS:
        plans += [p for p in _alternatives(sample, seat, HINTS + 2) if p not in plans]
    chosen: list[list[Action]] = []
    for distinct in (_shape, lambda p: repr(p[0]), repr):
        for p in plans:  # in rank order
            if len(chosen) < HINTS and all(distinct(p) != distinct(c) for c in chosen):
                chosen.append(p)
    return sorted(chosen, key=plans.index)


# --- what a plan does --------------------------------------------------------------------------


@dataclass
class _Replay:
    """A plan played on a sample, with what it did."""

    state: GameState
    actions: list[Action]
    steps: list[Phrase]
    events: list[Event]
    cards: Counter[Family]
    paid: int = 0
    brought: int = 0
    waits_for: int | None = None


def _play_one(replay: _Replay, seat: int, action: Action) -> None:
    before = replay.state
    ecus = before.players[seat].ecus
    after, events = apply(before, seat, action, worded=False)
    spent: Counter[Family] = Counter()
    if not isinstance(action, EndTurn):  # the cards drawn at its end are not stated
        spent = Counter(before.players[seat].hand) - Counter(after.players[seat].hand)
    replay.cards += spent
    delta = after.players[seat].ecus - ecus
    replay.paid += max(0, -delta)
    replay.brought += max(0, delta)
    replay.actions.append(action)
    replay.steps.append(_step_words(before, action, events, spent))
    replay.events += events
    replay.state = after


def replay(sample: GameState, seat: int, actions: list[Action]) -> _Replay:
    """``actions`` applied one by one as the seat would play them: an R37 choice of its own is
    answered with the default (as the search assumed), a choice of another seat stops it; a
    plan the search cut short (its clock) ends the turn where it stands."""
    out = _Replay(sample, [], [], [], Counter())
    if not isinstance(actions[-1], EndTurn):
        actions = [*actions, EndTurn()]
    for action in actions:
        if out.state.over or out.state.turn != seat or out.waits_for is not None:
            break
        _play_one(out, seat, action)
        while out.state.pending is not None:
            if out.state.pending.seat != seat:
                out.waits_for = out.state.pending.seat
                break
            _play_one(out, seat, Choose(option=out.state.pending.default))
    return out


def next_income_round(state: GameState, seat: int) -> int | None:
    """The round of the next income ``seat`` collects (R46), counting its turn of this round if
    not yet ended; None when no income is left."""
    if state.over:
        return None
    n = len(state.players)
    done = (seat - state.first_seat) % n < (state.turn - state.first_seat) % n
    for r in INCOME_ROUNDS:
        if r > state.round or (r == state.round and not done):
            return r
    return None


def describe(sample: GameState, seat: int, actions: list[Action]) -> Hint:
    """The hint for playing ``actions`` from ``sample`` (a state sampled from the view)."""
    played = replay(sample, seat, actions)
    after = played.state
    round_ = next_income_round(after, seat)
    return Hint(
        actions=tuple(played.actions),
        steps=tuple(played.steps),
        cards=tuple(sorted(played.cards.elements(), key=list(Family).index)),
        ecus_paid=played.paid,
        ecus_now=played.brought,
        income_next=income(after, seat)[0] if round_ is not None else 0,
        income_round=round_,
        reason=_reason(sample, played, seat, round_),
        waits_for=played.waits_for,
    )


# --- words -------------------------------------------------------------------------------------


def _codes(cards: Counter[Family]) -> list[str]:
    return [str(f) for f in Family for _ in range(cards[f])]


def _first(events: list[Event], *keys: str) -> dict[str, Any]:
    return next(e.params for e in events if e.key in keys)


def _step_words(
    state: GameState, action: Action, events: list[Event], spent: Counter[Family]
) -> Phrase:
    """One action as the coach words it, from what the engine reports it did."""
    cards = _codes(spent)
    match action:
        case Travel():
            return phrase("coach.do.travel", to=_first(events, "event.travel")["to"])
        case Construct():
            p = _first(events, "event.built", "event.built_bonus")
            return phrase("coach.do.construct", type=p["type"], at=p["at"], age=p["age"],
                          cards=cards)
        case Upgrade():
            p = _first(events, "event.upgraded")
            return phrase("coach.do.upgrade", old=p["old"], **{"from": p["from"]}, age=p["age"],
                          to=p["to"], at=p["at"], cards=cards)
        case Demolish():
            p = _first(events, "event.removed")
            return phrase("coach.do.demolish", tile=p["tile"], age=p["age"], cards=cards)
        case Populate():
            p = _first(events, "event.populated")
            return phrase("coach.do.populate", n=p["n"], tile=p["tile"], cards=cards)
        case Renovate():
            p = _first(events, "event.renovated", "event.renovate_first")
            tile = phrase("phrase.tile_ruin", type=p["type"], at=p["at"])
            return phrase("coach.do.renovate", tile=tile, cards=cards)
        case Choose():
            assert state.pending is not None
            choice = state.pending.options[action.option]
            label = choice.words if choice.words is not None else choice.label
            return phrase("coach.do.choose", label=label)
        case _:
            return phrase("coach.do.end_turn")


# --- the reason --------------------------------------------------------------------------------


def paying(state: GameState, seat: int) -> dict[tuple[object, ...], tuple[int, dict[str, Any]]]:
    """The domains that would pay ``seat`` at an income (R47-R49), whatever its adventurers:
    key -> (amount, what names the domain: its top building on Might and Faith)."""
    out: dict[tuple[object, ...], tuple[int, dict[str, Any]]] = {}
    for age in Age:
        board = state.boards[age]
        for group in domain_groups(board):
            if age is Age.REASON:
                counts: Counter[int] = Counter()
                worth = 0
                for item in group:
                    if isinstance(item, int):
                        if item in board.hamlet_cubes:
                            counts[board.hamlet_cubes[item]] += 1
                    elif BUILDINGS[item.type].family is Family.CIVIL:
                        counts.update(item.cubes)
                    else:
                        spec = BUILDINGS[item.type]
                        worth += spec.ruin_value if item.ruin else spec.value
                if worth and counts[seat] and counts[seat] == max(counts.values()):
                    first = min(i if isinstance(i, int) else i.at for i in group)
                    out[(age, first)] = (worth, {})
                continue
            fam = Family.MILITARY if age is Age.MIGHT else Family.RELIGIOUS
            tiles = [i for i in group if not isinstance(i, int)]
            ranked = [t for t in tiles if BUILDINGS[t.type].family is fam]
            if not ranked:
                continue
            high = max(BUILDINGS[t.type].value for t in ranked)
            tops = [t for t in ranked if BUILDINGS[t.type].value == high]
            civil = sum(1 for i in group if isinstance(i, int)) + sum(
                BUILDINGS[t.type].value for t in tiles if BUILDINGS[t.type].family is Family.CIVIL
            )
            if len(tops) == 1 and tops[0].owner == seat and civil:
                top = tops[0]
                out[(age, top.at, top.type)] = (civil, {"type": str(top.type),
                                                        "at": square_name(top.at)})
    return out


def _control_reasons(
    before: GameState, after: GameState, seat: int, round_: int | None
) -> list[tuple[float, Phrase]]:
    """Domains the plan makes pay the seat, or pay more (R47-R49)."""
    out: list[tuple[float, Phrase]] = []
    old = paying(before, seat)
    for key, (amount, top) in paying(after, seat).items():
        gain = amount - old.get(key, (0, {}))[0]
        if gain <= 0:
            continue
        age = key[0]
        assert isinstance(age, Age)
        if age is Age.REASON:
            which = "coach.reason.majority_grows" if key in old else "coach.reason.majority"
            out.append((gain, phrase(which, worth=amount, round=round_)))
            continue
        rule = "R47" if age is Age.MIGHT else "R48"
        family = "military" if age is Age.MIGHT else "religious"
        which = "coach.reason.top_grows" if key in old else "coach.reason.top"
        out.append((gain, phrase(which, **top, family=family, power=amount,
                                 age=age.name.lower(), round=round_, rule=rule)))
    return out


def _key(words: object) -> str:
    """The catalogue key of a phrase ('' for a plain label such as a square)."""
    return str(words.get("key", "")) if isinstance(words, dict) else ""


def _own(token: str, seat: int) -> bool:
    return token == f"{{P{seat}}}"


def _event_reasons(events: list[Event], seat: int, baseline: int) -> list[tuple[float, Phrase]]:
    """Income collected now (R46; worth what it adds to ``baseline``, the income of ending the
    turn at once), bonuses (R17), rivals' buildings erased (R29) or downsized (R32, R36), from
    what the engine reports."""
    out: list[tuple[float, Phrase]] = []
    junction = False
    for e in events:
        p = e.params
        if e.key == "event.income" and _own(p["who"], seat) and p["ecus"]:
            weight = p["ecus"] - baseline - 0.1  # a domain gained says more, when there is one
            out.append((weight, phrase("coach.reason.income_now", ecus=p["ecus"])))
        elif e.key in ("event.built_bonus", "event.upgraded") and p["bonus"]:
            btype = p["type"] if e.key == "event.built_bonus" else p["to"]
            out.append((p["bonus"], phrase("coach.reason.bonus", type=btype, age=p["age"],
                                           bonus=p["bonus"])))
        elif e.key == "event.removed" and p["why"]["key"] == "phrase.why_paradox":
            tile = p["tile"]
            if _own(tile["params"].get("who", ""), seat):
                continue
            value = BUILDINGS[BuildingType(tile["params"].get("type", "hamlet"))].value
            out.append((value + 0.5, phrase("coach.reason.paradox", type=p["why"]["params"]["type"],
                                            to=p["age"], tile=tile)))
        elif e.key == "event.junction_power":
            junction = True
        elif e.key == "event.decision":
            junction = junction or "junction_tie" in repr(p["prompt"])
        elif e.key == "event.chosen" and _key(p["label"]) == "phrase.tile_owned":
            # the building the player picks for downsizing (R32, R36): its owner still has to
            # place the smaller tile, so the plan may stop here
            tile = p["label"]
            if _own(tile["params"]["who"], seat):
                continue
            value = BUILDINGS[BuildingType(tile["params"]["type"])].value
            out.append((value + 0.5, phrase("coach.reason.downsize", tile=tile,
                                            rule="R32" if junction else "R36")))
        elif e.key == "event.downsized" and not _own(p["who"], seat):
            tile = phrase("phrase.tile_owned", who=p["who"], type=p["old"], at=p["from"])
            value = BUILDINGS[BuildingType(p["old"])].value
            out.append((value + 0.5, phrase("coach.reason.downsize", tile=tile,
                                            rule="R32" if junction else "R36")))
    return out


def _reason(sample: GameState, played: _Replay, seat: int, round_: int | None) -> Phrase:
    """The one sentence that says why: the rule at work worth the most Ecus."""
    after = played.state
    collected = [e.params["round"] for e in played.events
                 if e.key == "event.income" and _own(e.params["who"], seat)]
    found = _event_reasons(played.events, seat, income(sample, seat)[0])
    if collected or round_ is not None:  # a domain gained pays at this turn's income if any
        found += _control_reasons(sample, after, seat, collected[0] if collected else round_)
    if round_ is not None:
        now, later = income(sample, seat)[0], income(after, seat)[0]
        if later > now and any(isinstance(a, Travel) for a in played.actions):
            found.append(((later - now) / 2, phrase("coach.reason.position", ecus=later,
                                                    round=round_)))
    if found:
        return max(found, key=lambda f: f[0])[1]
    if all(isinstance(a, EndTurn) for a in played.actions):
        return phrase("coach.reason.wait")
    ended, _ = apply(sample, seat, EndTurn(), worded=False)
    gain = round(evaluate(after, seat) - evaluate(ended, seat))
    if gain >= 1:
        return phrase("coach.reason.gain", gain=gain)
    return phrase("coach.reason.plain")
