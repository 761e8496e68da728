"""The moves on cards: R9 Exchange, R10 Hold'em swap, R12 End of turn (with R46 income and the
R50 end): their checks, effects and generators."""

from __future__ import annotations

from ..actions import EndTurn, Exchange, HoldemSwap
from ..constants import ADVENTURERS, EXCHANGE_COST, INCOME_ROUNDS, ROUNDS
from ..errors import IllegalAction, MalformedAction
from ..events import Event
from ..income import income
from ..rules import FAMILY_ORDER, Ctx, describe_cards, has_cards, who
from ..state import GameState, TurnState
from .common import Plan, Specs, plural, refill, sorted_cards, submultisets

# --- R9 Exchange -----------------------------------------------------------------------------


def check_exchange(state: GameState, seat: int, action: Exchange) -> Plan:
    player, ts = state.players[seat], state.turn_state
    if ts.acted:
        raise IllegalAction(
            "R9 Exchange: the exchange comes before any other action of the turn.", "R9"
        )
    if ts.exchanged:
        raise IllegalAction("R9 Exchange: you may exchange only once per turn.", "R9")
    if not action.discard:
        raise MalformedAction("R9 Exchange: name at least one card to discard.", "R9")
    if not has_cards(player.hand, action.discard):
        raise IllegalAction(
            f"R9 Exchange: your hand does not hold {describe_cards(action.discard)}.", "R9"
        )
    if player.ecus < EXCHANGE_COST:
        raise IllegalAction(
            f"R9 Exchange: it costs {EXCHANGE_COST} Ecus and you have {player.ecus}.", "R9"
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
        Event(
            kind="exchange",
            text=f"{who(plan.seat)} pays 2 Ecus, discards {plural(len(plan.cards), 'card')} "
            f"and draws {n}.",
            seat=plan.seat,
        )
    )


# --- R10 Hold'em -------------------------------------------------------------------------------


def check_holdem(state: GameState, seat: int, action: HoldemSwap) -> Plan:
    player, ts = state.players[seat], state.turn_state
    if not state.options.holdem:
        raise IllegalAction("R10 Hold'em is not played in this game.", "R10")
    if ts.acted:
        raise IllegalAction(
            "R10 Hold'em: the swap comes at the start of the turn, before any action.", "R10"
        )
    if ts.holdem_used:
        raise IllegalAction("R10 Hold'em: you may swap only once per turn.", "R10")
    if not action.take or len(action.take) != len(action.give):
        raise MalformedAction(
            "R10 Hold'em: take at least one face-up card and give back as many.", "R10"
        )
    if len(set(action.take)) != 1:
        raise IllegalAction("R10 Hold'em: the cards you take must all be of one family.", "R10")
    if not has_cards(state.reserve, action.take):
        raise IllegalAction(
            f"R10 Hold'em: the face-up cards do not include {describe_cards(action.take)}.",
            "R10",
        )
    if not has_cards(player.hand, action.give):
        raise IllegalAction(
            f"R10 Hold'em: your hand does not hold {describe_cards(action.give)}.", "R10"
        )
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
        Event(
            kind="holdem",
            text=f"{who(plan.seat)} takes {describe_cards(action.take)} from the face-up "
            f"cards and puts back {describe_cards(action.give)} (Hold'em).",
            seat=plan.seat,
        )
    )


def legal_card_swaps(state: GameState, seat: int, ctx: Ctx) -> Specs:
    """R9 and R10, while no other action was taken this turn."""
    player, ts = state.players[seat], state.turn_state
    if ts.acted:
        return
    hand = player.hand
    if not ts.exchanged and player.ecus >= EXCHANGE_COST:
        yield from ((Exchange, {"discard": d}) for d in submultisets(hand, 1))
    if state.options.holdem and not ts.holdem_used:
        for fam in sorted(set(state.reserve), key=FAMILY_ORDER.index):
            for k in range(1, state.reserve.count(fam) + 1):
                for give in submultisets(hand, k):
                    if len(give) == k:
                        yield HoldemSwap, {"take": (fam,) * k, "give": give}


# --- R12 End of turn, R46 income, R50 end of the game ------------------------------------------


def check_end_turn(state: GameState, seat: int, action: EndTurn) -> Plan:
    if not has_cards(state.players[seat].hand, action.discard):
        raise IllegalAction(
            f"R12 End of turn: your hand does not hold {describe_cards(action.discard)}.", "R12"
        )
    return Plan(action, seat, cards=action.discard)


def apply_end_turn(state: GameState, plan: Plan, events: list[Event]) -> None:
    seat = plan.seat
    player = state.players[seat]
    p = who(seat)
    for card in plan.cards:
        player.hand.remove(card)
    state.discard.extend(plan.cards)
    drawn = refill(state, seat)
    text = f"{p} ends the turn"
    if plan.cards:
        text += f", discards {len(plan.cards)}"
    events.append(Event(kind="end_turn", text=f"{text} and draws {drawn}.", seat=seat))
    if state.round in INCOME_ROUNDS:
        total, lines = income(state, seat)
        player.ecus += total
        events.append(
            Event(
                kind="income",
                text=f"{p} collects {plural(total, 'Ecu')} of income (round {state.round}, R46).",
                seat=seat,
                amount=total,
                breakdown=lines,
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
    names = " and ".join(who(s) for s in state.winners)
    events.append(
        Event(
            kind="game_over",
            text=f"The game is over. {names} win{'s' if len(state.winners) == 1 else ''} with "
            f"{best} Ecus (R50).",
            breakdown=[
                f"{who(p.seat)}: {p.ecus} Ecus"
                for p in sorted(state.players, key=lambda p: -p.ecus)
            ],
        )
    )


def legal_end_turns(state: GameState, seat: int, ctx: Ctx) -> Specs:
    yield from ((EndTurn, {"discard": d}) for d in submultisets(state.players[seat].hand))

