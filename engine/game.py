"""The engine's questions for every state (style 3): who acts, what is legal, apply, is it over,
who won. ``apply`` checks, then applies to a copy: a refused action changes nothing."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from . import rng
from .actions import (
    Action,
    Choose,
    Construct,
    Demolish,
    EndTurn,
    Exchange,
    HoldemSwap,
    Populate,
    Renovate,
    Travel,
    Upgrade,
)
from .board import FOOTPRINTS, outer_positions, parse_square, square_name
from .constants import (
    ADVENTURERS,
    BONUS,
    BUILDINGS,
    DECK,
    DEMOLISH_ECUS,
    EXCHANGE_COST,
    HAND_SIZE,
    INCOME_ROUNDS,
    ROUNDS,
    START_CUBES,
    START_ECUS,
    TRAVEL_COST,
    Age,
    BuildingType,
    Family,
    capacity,
)
from .domains import BoardIndex, Building
from .errors import EngineError, GameOver, IllegalAction, MalformedAction, NotYourTurn
from .events import Event
from .resolve import (
    after_build,
    after_removal,
    cells_of,
    new_tile_id,
    remove_tile,
    run_agenda,
    tile_name,
    touched_domains,
)
from .rules import (
    FAMILY_ORDER,
    Ctx,
    Placement,
    adventurer_left,
    allowance,
    article,
    cards_text,
    construct_placement,
    construct_problem,
    default_surcharge,
    has_cards,
    legal_construct_squares,
    legal_upgrade_placements,
    payment_problem,
    surcharge_options,
    upgrade_placement,
    upgrade_problem,
    upgrade_targets,
    who,
)
from .state import Board, GameState, Options, Player, Tile, TurnState

# --- setup -----------------------------------------------------------------------------------


def new_game(options: Options, seed: int) -> GameState:
    """A game ready for its first turn (R6-R8, R10). Same options and seed, same game."""
    state_rng = rng.seed_state(seed)
    deck = [f for f in FAMILY_ORDER for _ in range(DECK[f])]
    state_rng = rng.shuffle(state_rng, deck)
    reserve: list[Family] = []
    if options.holdem:
        # R10: draw until one card of each family shows; the rest go back and are reshuffled.
        aside: list[Family] = []
        while len(reserve) < 3:
            card = deck.pop()
            (aside if card in reserve else reserve).append(card)
        deck += aside
        state_rng = rng.shuffle(state_rng, deck)
        reserve.sort(key=FAMILY_ORDER.index)
    players = []
    for seat in range(options.players):
        hand = [deck.pop() for _ in range(HAND_SIZE)]
        players.append(
            Player(
                seat=seat,
                ecus=START_ECUS,
                cubes=START_CUBES,
                adventurers=[Age.MIGHT] * ADVENTURERS,
                used=[0] * ADVENTURERS,
                hand=_sorted(hand),
            )
        )
    state_rng, first = rng.below(state_rng, options.players)
    return GameState(
        options=options,
        seed=seed,
        rng=state_rng,
        round=1,
        first_seat=first,
        turn=first,
        boards=[Board(age=a) for a in Age],
        stock={t: spec.stock for t, spec in BUILDINGS.items()},
        players=players,
        draw_pile=deck,
        reserve=reserve,
    )


def _sorted(cards: Sequence[Family]) -> list[Family]:
    return sorted(cards, key=FAMILY_ORDER.index)


# --- the questions ---------------------------------------------------------------------------


def current_seat(state: GameState) -> int | None:
    """The seat that must act now: the chooser of a pending decision, else the turn's player."""
    if state.over:
        return None
    if state.pending is not None:
        return state.pending.seat
    return state.turn


def is_terminal(state: GameState) -> bool:
    return state.over


def scores(state: GameState) -> dict[int, int]:
    return {p.seat: p.ecus for p in state.players}


def _require_turn(state: GameState, seat: int, action: Action) -> None:
    if not 0 <= seat < len(state.players):
        raise NotYourTurn("You are not seated in this game.")
    if state.over:
        raise GameOver("The game is over: no more moves can be played (R50).")
    if state.pending is not None:
        if seat != state.pending.seat:
            raise NotYourTurn(
                f"The game is waiting for {who(state.pending.seat)} to make a choice "
                f"(R37): {state.pending.prompt}"
            )
        if not isinstance(action, Choose):
            raise IllegalAction(
                f"R37 Choice first: {state.pending.prompt} Answer it before anything else.",
                "R37",
            )
        return
    if isinstance(action, Choose):
        raise IllegalAction("R37 There is no choice to make right now.", "R37")
    if seat != state.turn:
        raise NotYourTurn(f"It is not your turn: it is {who(state.turn)}'s turn (R8).")


def _square(text: str) -> int:
    try:
        return parse_square(text)
    except ValueError as exc:
        raise MalformedAction(str(exc)) from exc


@dataclass
class _Plan:
    """What a validated action will do; built by ``_validate`` and carried out by ``_execute``."""

    action: Action
    seat: int
    cards: tuple[Family, ...] = ()
    age: Age | None = None
    building: Building | None = None
    placement: Placement | None = None
    adventurer: int | None = None
    count: int = 0


def check(state: GameState, seat: int, action: Action) -> None:
    """Raise an ``EngineError`` if ``seat`` may not play ``action`` now; return None if legal."""
    _validate(state, seat, action)


def apply(state: GameState, seat: int, action: Action) -> tuple[GameState, list[Event]]:
    """Check, then apply to a copy. Returns the new state and what happened."""
    plan = _validate(state, seat, action)
    new = state.clone()
    events: list[Event] = []
    _execute(new, plan, events)
    new.step += 1
    return new, events


def preview(state: GameState, seat: int, action: Action) -> tuple[GameState, list[Event]]:
    """What ``action`` would do, without committing anything (the input state is untouched)."""
    return apply(state, seat, action)


def default_choice(state: GameState) -> int:
    """R37: the option taken when the chooser lets the decision time out."""
    if state.pending is None:
        raise IllegalAction("R37 There is no choice to make right now.", "R37")
    return state.pending.default


# --- validation (every raise happens here, before anything changes) -------------------------


def _validate(state: GameState, seat: int, action: Action) -> _Plan:
    _require_turn(state, seat, action)
    player = state.players[seat]
    ts = state.turn_state
    match action:
        case Choose():
            assert state.pending is not None
            n = len(state.pending.options)
            if action.option >= n:
                raise MalformedAction(f"R37 Choice: pick one of the {n} options.", "R37")
            return _Plan(action, seat)
        case Exchange():
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
                    f"R9 Exchange: your hand does not hold {cards_text(action.discard)}.", "R9"
                )
            if player.ecus < EXCHANGE_COST:
                raise IllegalAction(
                    f"R9 Exchange: it costs {EXCHANGE_COST} Ecus and you have {player.ecus}.",
                    "R9",
                )
            return _Plan(action, seat, cards=action.discard)
        case HoldemSwap():
            if not state.options.holdem:
                raise IllegalAction("R10 Hold'em is not played in this game.", "R10")
            if ts.acted:
                raise IllegalAction(
                    "R10 Hold'em: the swap comes at the start of the turn, before any action.",
                    "R10",
                )
            if ts.holdem_used:
                raise IllegalAction("R10 Hold'em: you may swap only once per turn.", "R10")
            if not action.take or len(action.take) != len(action.give):
                raise MalformedAction(
                    "R10 Hold'em: take at least one face-up card and give back as many.", "R10"
                )
            if len(set(action.take)) != 1:
                raise IllegalAction(
                    "R10 Hold'em: the cards you take must all be of one family.", "R10"
                )
            if not has_cards(state.reserve, action.take):
                raise IllegalAction(
                    f"R10 Hold'em: the face-up cards do not include {cards_text(action.take)}.",
                    "R10",
                )
            if not has_cards(player.hand, action.give):
                raise IllegalAction(
                    f"R10 Hold'em: your hand does not hold {cards_text(action.give)}.", "R10"
                )
            return _Plan(action, seat)
        case Travel():
            if player.ecus < TRAVEL_COST:
                raise IllegalAction(
                    "R13 Travel costs 1 Ecu and you have none; nobody spends Ecus he lacks.",
                    "R13",
                )
            if action.adventurer is None:
                movable = [i for i in range(ADVENTURERS) if player.adventurers[i] is not action.to]
                if not movable:
                    raise IllegalAction(
                        f"R13 Travel: both your adventurers are already in the age of "
                        f"{action.to.label}.",
                        "R13",
                    )
                adv = max(movable, key=lambda i: (adventurer_left(player, i), -i))
            else:
                adv = action.adventurer
                if player.adventurers[adv] is action.to:
                    raise IllegalAction(
                        f"R13 Travel: that adventurer is already in the age of {action.to.label}.",
                        "R13",
                    )
            return _Plan(action, seat, adventurer=adv)
        case Construct():
            at = _square(action.square)
            ctx = Ctx(state)
            problem = construct_problem(ctx, action.age, action.building, at)
            if problem is not None:
                raise problem
            spec = BUILDINGS[action.building]
            if spec.family is not Family.CIVIL and player.cubes <= 0:
                raise IllegalAction(
                    "R15 Cubes: you have no control cube left to mark a new building.", "R15"
                )
            place = construct_placement(ctx, action.age, action.building, at)
            cards = _payment(state, seat, action.age, place, action.surcharge)
            what = f"{article(action.building)} {action.building.label}"
            problem = payment_problem(state, seat, action.age, cards, what)
            if problem is not None:
                raise problem
            return _Plan(action, seat, cards=cards, age=action.age, placement=place)
        case Upgrade():
            ctx = Ctx(state)
            if action.age is Age.REASON:
                raise IllegalAction("R40 Reason: nothing is upgraded in the age of Reason.", "R40")
            building = _building_at(ctx, action.age, action.square)
            at = _upgrade_at(ctx, seat, action, building)
            problem = upgrade_problem(ctx, seat, action.age, building, action.to, at)
            if problem is not None:
                raise problem
            place = upgrade_placement(ctx, building, action.to, at)
            cards = _payment(state, seat, action.age, place, action.surcharge)
            problem = payment_problem(
                state, seat, action.age, cards, f"this upgrade to a {action.to.label}"
            )
            if problem is not None:
                raise problem
            return _Plan(
                action, seat, cards=cards, age=action.age, building=building, placement=place
            )
        case Demolish():
            ctx = Ctx(state)
            if action.age is Age.REASON:
                raise IllegalAction(
                    "R22 Demolish: nothing is demolished in the age of Reason.", "R22"
                )
            building = _building_at(ctx, action.age, action.square)
            if building.printed:
                raise IllegalAction("R22 Demolish: a printed Hamlet cannot be demolished.", "R22")
            if BUILDINGS[building.type].size != 1:
                raise IllegalAction(
                    f"R22 Demolish: only size-1 buildings can be demolished, not a "
                    f"{building.type.label}.",
                    "R22",
                )
            if player.ecus < DEMOLISH_ECUS:
                raise IllegalAction(
                    "R22 Demolish: it costs 1 Ecu and a card; you have no Ecu.", "R22"
                )
            cards = (building.family,)
            problem = payment_problem(state, seat, action.age, cards, "demolishing it")
            if problem is not None:
                raise problem
            return _Plan(action, seat, cards=cards, age=action.age, building=building)
        case Populate():
            ctx = Ctx(state)
            building = _building_at(ctx, Age.REASON, action.square)
            if building.family is not Family.CIVIL:
                raise IllegalAction(
                    f"R41 Populate: cubes go on civil buildings only; {tile_name(building)} is "
                    f"{building.family.value}.",
                    "R41",
                )
            if building.printed:
                room = 0 if building.at in state.boards[Age.REASON].hamlet_cubes else 1
            else:
                assert building.tile is not None
                room = capacity(building.type) - len(building.tile.cubes)
            if action.count > room:
                raise IllegalAction(
                    f"R41 Populate: {tile_name(building)} has room for {room} more "
                    f"cube{'s' if room != 1 else ''} (Hamlet 1, Town 3, City 5).",
                    "R41",
                )
            if player.cubes < action.count:
                raise IllegalAction(
                    f"R41 Populate: you have {player.cubes} cubes left in your supply.", "R41"
                )
            cards = (Family.CIVIL,) * action.count
            problem = payment_problem(state, seat, Age.REASON, cards, "populating")
            if problem is not None:
                raise problem
            return _Plan(
                action, seat, cards=cards, age=Age.REASON, building=building, count=action.count
            )
        case Renovate():
            ctx = Ctx(state)
            building = _building_at(ctx, Age.REASON, action.square)
            if not building.ruin:
                raise IllegalAction(f"R42 Renovate: {tile_name(building)} is not a ruin.", "R42")
            assert building.tile is not None
            owed = BUILDINGS[building.type].ruin_value - (
                1 if building.tile.marker is not None else 0
            )
            count = action.cards if action.cards is not None else owed
            if action.cards is None:
                # R42: unsaid, pay what can be paid now (the rest may follow on a later turn).
                can = min(owed, player.hand.count(building.family), allowance(player, Age.REASON))
                if 0 < can < owed and player.cubes > 0:
                    count = can
            if count > owed:
                raise IllegalAction(
                    f"R42 Renovate: {tile_name(building)} needs only {owed} more card"
                    f"{'s' if owed != 1 else ''}.",
                    "R42",
                )
            if count < owed and player.cubes <= 0:
                raise IllegalAction(
                    "R42 Renovate: paying part of a renovation is marked with one of your cubes, "
                    "and you have none left.",
                    "R42",
                )
            cards = (building.family,) * count
            problem = payment_problem(state, seat, Age.REASON, cards, "this renovation")
            if problem is not None:
                raise problem
            return _Plan(action, seat, cards=cards, age=Age.REASON, building=building, count=count)
        case EndTurn():
            if not has_cards(player.hand, action.discard):
                raise IllegalAction(
                    f"R12 End of turn: your hand does not hold {cards_text(action.discard)}.", "R12"
                )
            return _Plan(action, seat, cards=action.discard)
    raise MalformedAction(f"Unknown action {action!r}.")


def _building_at(ctx: Ctx, age: Age, text: str) -> Building:
    sq = _square(text)
    building = ctx.index(age).at(sq)
    if building is None:
        raise IllegalAction(
            f"There is no building on {square_name(sq)} in the age of {age.label}.", "R1"
        )
    return building


def _upgrade_at(ctx: Ctx, seat: int, action: Upgrade, building: Building) -> int:
    if action.at is not None:
        return _square(action.at)
    if action.to not in upgrade_targets(building.type):
        return building.at  # upgrade_problem explains the family/size mistake
    legal = legal_upgrade_placements(ctx, seat, action.age, building, action.to)
    if len(legal) == 1:
        return legal[0].at
    if not legal:
        positions = outer_positions(
            building.at, BUILDINGS[building.type].size, BUILDINGS[action.to].size
        )
        return positions[0] if positions else building.at
    squares = ", ".join(square_name(p.at) for p in legal)
    raise MalformedAction(
        f"R16 Upgrade: say where the {action.to.label}'s top-left square goes: {squares}.", "R16"
    )


def _payment(
    state: GameState, seat: int, age: Age, place: Placement, chosen: Sequence[Family] | None
) -> tuple[Family, ...]:
    base = (place.family,) * place.base
    if chosen is None:
        extra = default_surcharge(state.players[seat].hand, base, place.extra)
        if len(extra) < place.extra:
            extra = extra + (place.family,) * (place.extra - len(extra))  # payment_problem says why
    else:
        if len(chosen) != place.extra:
            raise MalformedAction(
                f"R18 Terrain: this footprint costs {place.extra} extra card"
                f"{'s' if place.extra != 1 else ''} of any family; you named {len(chosen)}.",
                "R18",
            )
        extra = tuple(chosen)
    return base + extra


# --- execution ------------------------------------------------------------------------------


def _pay(state: GameState, seat: int, age: Age, cards: Sequence[Family]) -> None:
    """Cards leave the hand for the discard pile and count against the adventurers on ``age``
    (R14): tied to the one adventurer there, or shared when both stand there (``allowance``)."""
    player = state.players[seat]
    for card in cards:
        player.hand.remove(card)
    state.discard.extend(cards)
    here = [i for i in range(ADVENTURERS) if player.adventurers[i] is age]
    assert here and len(cards) <= allowance(player, age)
    if len(here) == ADVENTURERS:
        player.shared += len(cards)
    else:
        player.used[here[0]] += len(cards)


def _draw(state: GameState, n: int) -> list[Family]:
    """R7: draw ``n`` cards, reshuffling the discard pile when the draw pile runs out."""
    out: list[Family] = []
    for _ in range(n):
        if not state.draw_pile:
            if not state.discard:
                break
            state.draw_pile = state.discard
            state.discard = []
            state.rng = rng.shuffle(state.rng, state.draw_pile)
        out.append(state.draw_pile.pop())
    return out


def _refill(state: GameState, seat: int) -> int:
    player = state.players[seat]
    drawn = _draw(state, max(0, HAND_SIZE - len(player.hand)))
    player.hand = _sorted(player.hand + drawn)
    return len(drawn)


def _execute(state: GameState, plan: _Plan, events: list[Event]) -> None:
    seat = plan.seat
    player = state.players[seat]
    action = plan.action
    p = who(seat)
    match action:
        case Choose():
            assert state.pending is not None
            label = state.pending.options[action.option].label
            events.append(Event(kind="chosen", text=f"{p} chooses {label}.", seat=seat))
            state.pending = None
            run_agenda(state, events, action.option)
        case Exchange():
            for card in action.discard:
                player.hand.remove(card)
            state.discard.extend(action.discard)
            player.ecus -= EXCHANGE_COST
            n = _refill(state, seat)
            state.turn_state.exchanged = True
            events.append(
                Event(
                    kind="exchange",
                    text=f"{p} pays 2 Ecus, discards {len(action.discard)} "
                    f"card{'s' if len(action.discard) != 1 else ''} and draws {n}.",
                    seat=seat,
                )
            )
        case HoldemSwap():
            for card in action.take:
                state.reserve.remove(card)
            for card in action.give:
                player.hand.remove(card)
            state.reserve = _sorted(state.reserve + list(action.give))
            player.hand = _sorted(player.hand + list(action.take))
            state.turn_state.holdem_used = True
            events.append(
                Event(
                    kind="holdem",
                    text=f"{p} takes {cards_text(action.take)} from the face-up "
                    f"cards and puts back {cards_text(action.give)} (Hold'em).",
                    seat=seat,
                )
            )
        case Travel():
            assert plan.adventurer is not None
            frm = player.adventurers[plan.adventurer]
            player.adventurers[plan.adventurer] = action.to
            player.ecus -= TRAVEL_COST
            state.turn_state.acted = True
            events.append(
                Event(
                    kind="travel",
                    text=f"{p} travels from {frm.label} to {action.to.label} with adventurer "
                    f"{plan.adventurer + 1} (1 Ecu).",
                    seat=seat,
                    age=action.to,
                    adventurer=plan.adventurer,
                )
            )
        case Construct():
            assert plan.placement is not None
            age = action.age
            state.turn_state.acted = True
            _pay(state, seat, age, plan.cards)
            btype = action.building
            spec = BUILDINGS[btype]
            idx = BoardIndex(state.boards[age])
            fp = FOOTPRINTS[spec.size][plan.placement.at]
            assert fp is not None
            originals = touched_domains(idx, fp.cells, fp.border)
            owner = seat if spec.family is not Family.CIVIL else None
            tile = Tile(id=new_tile_id(state), type=btype, at=plan.placement.at, owner=owner)
            state.boards[age].tiles.append(tile)
            state.stock[btype] -= 1
            if owner is not None:
                player.cubes -= 1
            bonus = BONUS[age] if spec.size >= 2 else 0
            player.ecus += bonus
            events.append(
                Event(
                    kind="built",
                    text=f"{p} builds {article(btype)} {btype.label} at {square_name(tile.at)} on "
                    f"{age.label} for {cards_text(plan.cards)}"
                    + (f" and collects a {bonus} Ecu bonus (R17)." if bonus else "."),
                    seat=seat,
                    age=age,
                    squares=list(fp.cells),
                    amount=bonus or None,
                )
            )
            after_build(state, seat, age, tile, originals, events)
        case Upgrade():
            assert plan.placement is not None and plan.building is not None
            age = action.age
            state.turn_state.acted = True
            _pay(state, seat, age, plan.cards)
            b = plan.building
            to = action.to
            idx = BoardIndex(state.boards[age])
            fp = FOOTPRINTS[BUILDINGS[to].size][plan.placement.at]
            assert fp is not None
            originals = touched_domains(idx, fp.cells, fp.border)
            old_cells = list(b.cells)
            if b.tile is None:  # R16: a printed hamlet stays underneath the new tile
                tile = Tile(id=new_tile_id(state), type=to, at=plan.placement.at)
                state.boards[age].tiles.append(tile)
                old = "printed Hamlet"
            else:
                tile = state.boards[age].tile(b.key)  # type: ignore[assignment]
                assert tile is not None
                state.stock[tile.type] += 1
                old = tile.type.label
                tile.type = to
                tile.at = plan.placement.at
            state.stock[to] -= 1
            bonus = BONUS[age]
            player.ecus += bonus
            events.append(
                Event(
                    kind="upgraded",
                    text=f"{p} upgrades the {old} at {square_name(old_cells[0])} on {age.label} "
                    f"to {article(to)} {to.label} at {square_name(tile.at)} for "
                    f"{cards_text(plan.cards)} and collects a {bonus} Ecu bonus (R17).",
                    seat=seat,
                    age=age,
                    squares=list(fp.cells),
                    amount=bonus,
                )
            )
            after_build(state, seat, age, tile, originals, events)
        case Demolish():
            assert plan.building is not None and plan.age is not None
            state.turn_state.acted = True
            _pay(state, seat, plan.age, plan.cards)
            player.ecus -= DEMOLISH_ECUS
            tile = state.boards[plan.age].tile(plan.building.key)  # type: ignore[assignment]
            assert tile is not None
            remove_tile(
                state,
                plan.age,
                tile,
                events,
                f"is demolished by {p} (1 Ecu + 1 card, R22)",
                cascade=False,
            )
            after_removal(state, seat, plan.age, events)
        case Populate():
            assert plan.building is not None
            state.turn_state.acted = True
            _pay(state, seat, Age.REASON, plan.cards)
            player.cubes -= plan.count
            board = state.boards[Age.REASON]
            b = plan.building
            if b.tile is None:
                board.hamlet_cubes[b.at] = seat
            else:
                tile = board.tile(b.key)  # type: ignore[assignment]
                assert tile is not None
                tile.cubes.extend([seat] * plan.count)
            events.append(
                Event(
                    kind="populated",
                    text=f"{p} places {plan.count} cube{'s' if plan.count != 1 else ''} on "
                    f"{tile_name(b)} in the age of Reason (R41).",
                    seat=seat,
                    age=Age.REASON,
                    squares=list(b.cells),
                )
            )
        case Renovate():
            assert plan.building is not None
            state.turn_state.acted = True
            _pay(state, seat, Age.REASON, plan.cards)
            tile = state.boards[Age.REASON].tile(plan.building.key)  # type: ignore[assignment]
            assert tile is not None
            owed = BUILDINGS[tile.type].ruin_value - (1 if tile.marker is not None else 0)
            if plan.count < owed:
                tile.marker = seat
                player.cubes -= 1
                text = (
                    f"{p} pays the first card to renovate the {tile.type.label} ruin at "
                    f"{square_name(tile.at)} and marks it with a cube (R42)."
                )
            else:
                if tile.marker is not None:
                    state.players[tile.marker].cubes += 1
                    tile.marker = None
                tile.ruin = False
                text = (
                    f"{p} renovates the {tile.type.label} at {square_name(tile.at)} in the "
                    f"age of Reason (R42)."
                )
            events.append(
                Event(
                    kind="renovated",
                    text=text,
                    seat=seat,
                    age=Age.REASON,
                    squares=list(cells_of(tile)),
                )
            )
        case EndTurn():
            _end_turn(state, seat, action, events)


def _end_turn(state: GameState, seat: int, action: EndTurn, events: list[Event]) -> None:
    player = state.players[seat]
    p = who(seat)
    for card in action.discard:
        player.hand.remove(card)
    state.discard.extend(action.discard)
    drawn = _refill(state, seat)
    text = f"{p} ends the turn"
    if action.discard:
        text += f", discards {len(action.discard)}"
    events.append(Event(kind="end_turn", text=f"{text} and draws {drawn}.", seat=seat))
    if state.round in INCOME_ROUNDS:
        total, lines = income(state, seat)
        player.ecus += total
        events.append(
            Event(
                kind="income",
                text=f"{p} collects {total} Ecu{'s' if total != 1 else ''} of income "
                f"(round {state.round}, R46).",
                seat=seat,
                amount=total,
                breakdown=lines,
            )
        )
    n = len(state.players)
    nxt = (seat + 1) % n
    if nxt == state.first_seat:
        if state.round == ROUNDS:
            _finish(state, events)
            return
        state.round += 1
    state.turn = nxt
    state.turn_state = TurnState()
    nplayer = state.players[nxt]
    nplayer.used = [0] * ADVENTURERS
    nplayer.shared = 0


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


# --- income (R46-R49) ----------------------------------------------------------------------


def income(state: GameState, seat: int) -> tuple[int, list[str]]:
    """What ``seat`` collects now, with one line per paying domain."""
    total = 0
    lines: list[str] = []
    player = state.players[seat]
    for age in sorted(set(player.adventurers)):
        idx = BoardIndex(state.boards[age])
        reason_cubes = state.boards[Age.REASON].hamlet_cubes
        for dom in idx.domains:
            members = [idx.buildings[k] for k in dom.members]
            if age is Age.REASON:
                counts: Counter[int] = Counter()
                for b in members:
                    if b.family is not Family.CIVIL:
                        continue
                    if b.tile is None:
                        if b.at in reason_cubes:
                            counts[reason_cubes[b.at]] += 1
                    else:
                        counts.update(b.tile.cubes)
                if counts[seat] == 0 or counts[seat] < max(counts.values()):
                    continue
                amount = sum(b.income_value for b in members if b.family is not Family.CIVIL)
                why = f"most cubes ({counts[seat]})"
            else:
                fam = Family.MILITARY if age is Age.MIGHT else Family.RELIGIOUS
                tops = idx.top_buildings(dom.members, fam)
                if len(tops) != 1 or tops[0].owner != seat:
                    continue
                amount = sum(b.value for b in members if b.family is Family.CIVIL)
                why = f"{tops[0].type.label} at {square_name(tops[0].at)}"
            if amount:
                first = min(members, key=lambda b: b.at)
                total += amount
                lines.append(
                    f"{age.label}: {amount} from the domain at {square_name(first.at)} ({why})"
                )
    return total, lines


# --- legal actions ----------------------------------------------------------------------------


def legal_actions(state: GameState, seat: int) -> list[Action]:
    """Every legal action of ``seat`` now (all boards, squares, types and payments)."""
    return list(iter_legal_actions(state, seat))


def _submultisets(cards: Sequence[Family], min_size: int = 0) -> list[tuple[Family, ...]]:
    c = Counter(cards)
    fams = [f for f in FAMILY_ORDER if c[f]]
    out: list[tuple[Family, ...]] = [()]
    for f in fams:
        out = [prev + (f,) * k for prev in out for k in range(c[f] + 1)]
    return [o for o in out if len(o) >= min_size]


def iter_legal_specs(state: GameState, seat: int) -> Iterator[tuple[type[Action], dict[str, Any]]]:
    """Every legal action as (class, fields): cheap to count, built only when needed."""
    if state.over:
        return
    if state.pending is not None:
        if seat == state.pending.seat:
            yield from ((Choose, {"option": i}) for i in range(len(state.pending.options)))
        return
    if seat != state.turn:
        return
    player = state.players[seat]
    ts = state.turn_state
    hand = player.hand
    if not ts.acted:
        if not ts.exchanged and player.ecus >= EXCHANGE_COST:
            yield from ((Exchange, {"discard": d}) for d in _submultisets(hand, 1))
        if state.options.holdem and not ts.holdem_used:
            for fam in sorted(set(state.reserve), key=FAMILY_ORDER.index):
                for k in range(1, state.reserve.count(fam) + 1):
                    for give in _submultisets(hand, k):
                        if len(give) == k:
                            yield HoldemSwap, {"take": (fam,) * k, "give": give}
    if player.ecus >= TRAVEL_COST:
        for i in range(ADVENTURERS):
            for dest in Age:
                if dest is not player.adventurers[i]:
                    yield Travel, {"to": dest, "adventurer": i}
    ctx = Ctx(state)
    for age in (Age.MIGHT, Age.FAITH):
        room = allowance(player, age)
        if room == 0:
            continue
        for btype in BuildingType:
            fam = BUILDINGS[btype].family
            if fam is not Family.CIVIL and player.cubes <= 0:
                continue
            if hand.count(fam) < BUILDINGS[btype].value:
                continue
            for place in legal_construct_squares(ctx, age, btype):
                for extra in _payments(hand, place, room):
                    yield (
                        Construct,
                        {
                            "age": age,
                            "building": btype,
                            "square": square_name(place.at),
                            "surcharge": extra,
                        },
                    )
        idx = ctx.index(age)
        for b in sorted(idx.buildings.values(), key=lambda b: b.at):
            if b.family is not Family.CIVIL and b.owner != seat:
                continue
            for to in upgrade_targets(b.type):
                for place in legal_upgrade_placements(ctx, seat, age, b, to):
                    for extra in _payments(hand, place, room):
                        yield (
                            Upgrade,
                            {
                                "age": age,
                                "square": square_name(b.at),
                                "to": to,
                                "at": square_name(place.at),
                                "surcharge": extra,
                            },
                        )
        if player.ecus >= DEMOLISH_ECUS:
            for b in sorted(idx.buildings.values(), key=lambda b: b.at):
                if not b.printed and BUILDINGS[b.type].size == 1 and b.family in hand:
                    yield Demolish, {"age": age, "square": square_name(b.at)}
    room = allowance(player, Age.REASON)
    if room:
        idx = ctx.index(Age.REASON)
        for b in sorted(idx.buildings.values(), key=lambda b: b.at):
            if b.family is Family.CIVIL:
                if b.tile is None:
                    space = 0 if b.at in state.boards[Age.REASON].hamlet_cubes else 1
                else:
                    space = capacity(b.type) - len(b.tile.cubes)
                top = min(space, hand.count(Family.CIVIL), room, player.cubes)
                for k in range(1, top + 1):
                    yield Populate, {"square": square_name(b.at), "count": k}
            elif b.ruin:
                assert b.tile is not None
                owed = BUILDINGS[b.type].ruin_value - (1 if b.tile.marker is not None else 0)
                for k in range(1, owed + 1):
                    if k < owed and player.cubes <= 0:
                        continue
                    if hand.count(b.family) >= k and room >= k:
                        yield Renovate, {"square": square_name(b.at), "cards": k}
    yield from ((EndTurn, {"discard": d}) for d in _submultisets(hand))


def iter_legal_actions(state: GameState, seat: int) -> Iterator[Action]:
    for cls, fields in iter_legal_specs(state, seat):
        yield cls.model_construct(**fields)


def _payments(hand: Sequence[Family], place: Placement, room: int) -> list[tuple[Family, ...]]:
    """The distinct ways ``hand`` pays ``place`` within the adventurers' ``room`` (R14, R18)."""
    if place.total > room:
        return []
    have = hand.count(place.family)
    if have < place.base:
        return []
    left = (
        hand.count(Family.MILITARY),
        hand.count(Family.RELIGIOUS),
        hand.count(Family.CIVIL),
    )
    i = FAMILY_ORDER.index(place.family)
    after = tuple(n - place.base if j == i else n for j, n in enumerate(left))
    return _surcharges(after, place.extra)


@functools.lru_cache(maxsize=256)
def _surcharges(left: tuple[int, int, int], n: int) -> list[tuple[Family, ...]]:
    hand = [f for f, k in zip(FAMILY_ORDER, left, strict=True) for _ in range(k)]
    return surcharge_options(hand, (), n)


@dataclass(frozen=True)
class Option:
    """One answer of the autocomplete queries: a square and what playing there costs."""

    square: str
    cards: int
    extra: int
    label: str


def construct_options(state: GameState, seat: int, age: Age, btype: BuildingType) -> list[Option]:
    """Cheap autocomplete query: squares where ``seat`` can construct ``btype`` on ``age`` now,
    with the card cost (only the ones his hand and adventurers can pay)."""
    if state.over or state.pending is not None or seat != state.turn:
        return []
    player = state.players[seat]
    room = allowance(player, age)
    if room == 0 or age is Age.REASON:
        return []
    spec = BUILDINGS[btype]
    if spec.family is not Family.CIVIL and player.cubes <= 0:
        return []
    out = []
    for place in legal_construct_squares(Ctx(state), age, btype):
        if _payments(player.hand, place, room):
            name = square_name(place.at)
            extra = f" + {place.extra} any" if place.extra else ""
            out.append(
                Option(
                    name,
                    place.total,
                    place.extra,
                    f"{name}: {place.base} {spec.family.value}{extra}",
                )
            )
    return out


def upgrade_options(
    state: GameState, seat: int, age: Age
) -> list[tuple[str, BuildingType, Option]]:
    """Cheap autocomplete query: (building square, new type, placement) triples ``seat`` can pay."""
    if state.over or state.pending is not None or seat != state.turn or age is Age.REASON:
        return []
    player = state.players[seat]
    room = allowance(player, age)
    if room == 0:
        return []
    ctx = Ctx(state)
    out = []
    for b in sorted(ctx.index(age).buildings.values(), key=lambda b: b.at):
        if b.family is not Family.CIVIL and b.owner != seat:
            continue
        for to in upgrade_targets(b.type):
            for place in legal_upgrade_placements(ctx, seat, age, b, to):
                if _payments(player.hand, place, room):
                    name = square_name(place.at)
                    extra = f" + {place.extra} any" if place.extra else ""
                    out.append(
                        (
                            square_name(b.at),
                            to,
                            Option(
                                name,
                                place.total,
                                place.extra,
                                f"{b.type.label} {square_name(b.at)} -> {to.label} at {name}: "
                                f"{place.base} {b.family.value}{extra}",
                            ),
                        )
                    )
    return out


def raise_if_illegal(state: GameState, seat: int, action: Action) -> EngineError | None:
    """``check`` as a value: the error, or None."""
    try:
        check(state, seat, action)
    except EngineError as exc:
        return exc
    return None
