"""The engine's questions for every state: who acts, what is legal, apply, is it over,
who won. ``apply`` checks, then applies to a copy: a refused action changes nothing."""

from __future__ import annotations

from typing import TypeVar

from . import moves, rng
from .actions import (
    Action,
    Choose,
    Construct,
    Demolish,
    Populate,
    Renovate,
    Upgrade,
    listed_action,
)
from .board import parse_square, square_name
from .constants import (
    ADVENTURERS,
    BUILDINGS,
    DECK,
    HAND_SIZE,
    START_CUBES,
    START_ECUS,
    Age,
    Family,
)
from .domains import board_index
from .errors import GameOver, IllegalAction, NotYourTurn
from .events import WORDED, Event
from .moves.common import Specs, sorted_cards
from .moves.listing import LegalActions
from .rules import FAMILY_ORDER, prompt_words, who
from .state import Board, GameState, Options, Player, SharingTiles

SquaredAction = TypeVar("SquaredAction", Construct, Upgrade)

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
                hand=sorted_cards(hand),
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
        raise NotYourTurn.say("refusal.not_seated")
    if state.over:
        raise GameOver.say("refusal.game_over")
    if state.pending is not None:
        if seat != state.pending.seat:
            raise NotYourTurn.say(
                "refusal.waiting_other",
                who=who(state.pending.seat),
                prompt=prompt_words(state.pending),
            )
        if not isinstance(action, Choose):
            prompt = prompt_words(state.pending)
            raise IllegalAction.say("refusal.choice_first", "R37", prompt=prompt)
        return
    if isinstance(action, Choose):
        raise IllegalAction.say("refusal.no_choice", "R37")
    if seat != state.turn:
        raise NotYourTurn.say("refusal.not_your_turn", who=who(state.turn))


def check(state: GameState, seat: int, action: Action) -> None:
    """Raise an ``EngineError`` if ``seat`` may not play ``action`` now; return None if legal."""
    _require_turn(state, seat, action)
    moves.check(state, seat, action)


def apply(
    state: GameState, seat: int, action: Action, *, worded: bool = True
) -> tuple[GameState, list[Event]]:
    """Check, then apply to a copy. Returns the new state and what happened.

    ``worded=False`` (for a search that never reads the events) leaves the events' English
    ``text`` empty and their ``breakdown`` out; ``key``/``params`` still word them
    (``describe``). The new state is the same either way."""
    _require_turn(state, seat, action)
    plan = moves.check(state, seat, action)
    new = state.clone_sharing_tiles()
    events: list[Event] = []
    token = None if worded else WORDED.set(False)
    try:
        with SharingTiles(new, state):  # a tile is copied before it changes (writable_tile)
            moves.execute(new, plan, events)
    finally:
        if token is not None:
            WORDED.reset(token)
    new.step += 1
    return new, events


def canonical_action(state: GameState, action: Action) -> Action:
    """``action`` under the one name ``legal_actions`` gives it (R1): a building named by any
    of its squares is named by its top-left square, and every square is spelt as ``C7``.
    ``check`` and ``apply`` take either name and do the same; the move log stores this one,
    so the log, replays and autocomplete show one name per building. An action naming no
    building, or a square that is not one, comes back as it is (``check`` refuses it)."""
    if isinstance(action, Construct):
        return _respelt(action, "square")
    if isinstance(action, Upgrade):
        action = _respelt(action, "at")
    if not isinstance(action, Upgrade | Demolish | Populate | Renovate):
        return action
    age = Age.REASON if isinstance(action, Populate | Renovate) else action.age
    try:
        square = parse_square(action.square)
    except ValueError:
        return action
    found = board_index(state.boards[age]).at(square)
    name = square_name(square if found is None else found.at)
    return action if name == action.square else action.model_copy(update={"square": name})


def _respelt(action: SquaredAction, field: str) -> SquaredAction:
    """``action`` with its square ``field`` spelt as ``C7`` (left alone if not a square)."""
    text = getattr(action, field)
    if text is None:
        return action
    try:
        name = square_name(parse_square(text))
    except ValueError:
        return action
    return action if name == text else action.model_copy(update={field: name})


def preview(state: GameState, seat: int, action: Action) -> tuple[GameState, list[Event]]:
    """What ``action`` would do, without committing anything (the input state is untouched)."""
    return apply(state, seat, action)


def default_choice(state: GameState) -> int:
    """R37: the option taken when the chooser lets the decision time out."""
    if state.pending is None:
        raise IllegalAction.say("refusal.no_choice", "R37")
    return state.pending.default


# --- legal actions ----------------------------------------------------------------------------


def legal_actions(state: GameState, seat: int) -> list[Action]:
    """Every legal action of ``seat`` now (all boards, squares, types and payments)."""
    return [listed_action(cls, fields) for cls, fields in moves.legal_specs(state, seat)]


def iter_legal_specs(state: GameState, seat: int) -> Specs:
    """Every legal action as (class, fields): cheap to count, built only when needed."""
    return moves.legal_specs(state, seat)


def legal_action_list(state: GameState, seat: int) -> LegalActions:
    """The legal actions of ``seat`` as a sequence that counts them at once and builds only
    those asked for (``LegalActions``): for picking one of many, as a random playout does."""
    return LegalActions(state, seat)
