"""The moves on cards: R9 Exchange, R10 Hold'em swap, R12 End of turn (with R46 income and the
R50 end): their checks, effects and generators."""

from __future__ import annotations

from ..actions import EndTurn, Exchange, HoldemSwap
from ..constants import ADVENTURERS, EXCHANGE_COST, INCOME_ROUNDS, ROUNDS
from ..errors import IllegalAction, MalformedAction
from ..events import Event, event
from ..income import income
from ..rules import FAMILY_ORDER, codes, has_cards, who
from ..state import GameState, TurnState
from ..words import phrase
from .common import Plan, Spec, refill, sorted_cards, submultisets

# --- R9 Exchange -----------------------------------------------------------------------------


def check_exchange(state: GameState, seat: int, action: Exchange) -> Plan:
    player, ts = state.players[seat], state.turn_state
    if ts.acted:
        raise IllegalAction.say("refusal.exchange_first", "R9")
    if ts.exchanged:
        raise IllegalAction.say("refusal.exchange_once", "R9")
    if not action.discard:
        raise MalformedAction.say("refusal.exchange_none", "R9")
    if not has_cards(player.hand, action.discard):
        raise IllegalAction.say("refusal.exchange_hand", "R9", cards=codes(action.discard))
    if player.ecus < EXCHANGE_COST:
        raise IllegalAction.say(
            "refusal.exchange_ecus", "R9", cost=EXCHANGE_COST, ecus=player.ecus
        )
    return Plan(action, seat, cards=action.discard)


def apply_exchange(state: GameState, plan: Plan, events: list[Event]) -> None:
    player = state.players[plan.seat]
    for card in plan.cards:
        player.hand.remove(card)
    state.discard.extend(plan.cards)
    player.ecus -= EXCHANGE_COST
    n = refill(state, plan.seat)
    state.turn_state.exchanged = True
    events.append(
        event(
            "exchange",
            "event.exchange",
            {"who": who(plan.seat), "discarded": len(plan.cards), "drawn": n},
            seat=plan.seat,
        )
    )


# --- R10 Hold'em -------------------------------------------------------------------------------


def check_holdem(state: GameState, seat: int, action: HoldemSwap) -> Plan:
    player, ts = state.players[seat], state.turn_state
    if not state.options.holdem:
        raise IllegalAction.say("refusal.holdem_off", "R10")
    if ts.acted:
        raise IllegalAction.say("refusal.holdem_first", "R10")
    if ts.holdem_used:
        raise IllegalAction.say("refusal.holdem_once", "R10")
    if not action.take or len(action.take) != len(action.give):
        raise MalformedAction.say("refusal.holdem_shape", "R10")
    if len(set(action.take)) != 1:
        raise IllegalAction.say("refusal.holdem_family", "R10")
    if not has_cards(state.reserve, action.take):
        raise IllegalAction.say("refusal.holdem_reserve", "R10", cards=codes(action.take))
    if not has_cards(player.hand, action.give):
        raise IllegalAction.say("refusal.holdem_hand", "R10", cards=codes(action.give))
    return Plan(action, seat)


def apply_holdem(state: GameState, plan: Plan, events: list[Event]) -> None:
    action = plan.action
    assert isinstance(action, HoldemSwap)
    player = state.players[plan.seat]
    for card in action.take:
        state.reserve.remove(card)
    for card in action.give:
        player.hand.remove(card)
    state.reserve = sorted_cards(state.reserve + list(action.give))
    player.hand = sorted_cards(player.hand + list(action.take))
    state.turn_state.holdem_used = True
    events.append(
        event(
            "holdem",
            "event.holdem",
            {"who": who(plan.seat), "take": codes(action.take), "give": codes(action.give)},
            seat=plan.seat,
        )
    )


def legal_exchanges(state: GameState, seat: int) -> list[Spec]:
    """R9, while no other action was taken this turn: every discard of one card or more."""
    player, ts = state.players[seat], state.turn_state
    if ts.acted or ts.exchanged or player.ecus < EXCHANGE_COST:
        return []
    return [(Exchange, {"discard": d}) for d in submultisets(player.hand, 1)]


def legal_holdem_swaps(state: GameState, seat: int) -> list[Spec]:
    """R10, while no other action was taken this turn."""
    ts = state.turn_state
    if ts.acted or not state.options.holdem or ts.holdem_used:
        return []
    hand = state.players[seat].hand
    out: list[Spec] = []
    for fam in sorted(set(state.reserve), key=FAMILY_ORDER.index):
        for k in range(1, state.reserve.count(fam) + 1):
            for give in submultisets(hand, k):
                if len(give) == k:
                    out.append((HoldemSwap, {"take": (fam,) * k, "give": give}))
    return out


# --- R12 End of turn, R46 income, R50 end of the game ------------------------------------------


def check_end_turn(state: GameState, seat: int, action: EndTurn) -> Plan:
    if not has_cards(state.players[seat].hand, action.discard):
        raise IllegalAction.say("refusal.end_turn_hand", "R12", cards=codes(action.discard))
    return Plan(action, seat, cards=action.discard)


def apply_end_turn(state: GameState, plan: Plan, events: list[Event]) -> None:
    seat = plan.seat
    player = state.players[seat]
    p = who(seat)
    for card in plan.cards:
        player.hand.remove(card)
    state.discard.extend(plan.cards)
    drawn = refill(state, seat)
    if plan.cards:
        params = {"who": p, "discarded": len(plan.cards), "drawn": drawn}
        events.append(event("end_turn", "event.end_turn_discard", params, seat=seat))
    else:
        events.append(event("end_turn", "event.end_turn", {"who": p, "drawn": drawn}, seat=seat))
    if state.round in INCOME_ROUNDS:
        total, lines = income(state, seat)
        player.ecus += total
        events.append(
            event(
                "income",
                "event.income",
                {"who": p, "ecus": total, "round": state.round},
                seat=seat,
                amount=total,
                lines=lines,
            )
        )
    nxt = (seat + 1) % len(state.players)
    if nxt == state.first_seat:
        if state.round == ROUNDS:
            _finish(state, events)
            return
        state.round += 1
    state.turn = nxt
    state.turn_state = TurnState()
    state.players[nxt].used = [0] * ADVENTURERS
    state.players[nxt].shared = 0


def _finish(state: GameState, events: list[Event]) -> None:
    """R50: the richest player wins; equal fortunes share the victory."""
    state.over = True
    best = max(p.ecus for p in state.players)
    state.winners = [p.seat for p in state.players if p.ecus == best]
    names = [who(s) for s in state.winners]
    events.append(
        event(
            "game_over",
            "event.game_over_one" if len(names) == 1 else "event.game_over_shared",
            {"names": names, "ecus": best},
            lines=[
                phrase("line.final_score", who=who(p.seat), ecus=p.ecus)
                for p in sorted(state.players, key=lambda p: -p.ecus)
            ],
        )
    )


def legal_end_turns(state: GameState, seat: int) -> list[Spec]:
    """R12: ending the turn, discarding any sub-multiset of the hand first."""
    return [(EndTurn, {"discard": d}) for d in submultisets(state.players[seat].hand)]

