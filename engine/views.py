"""Hidden information goes through a view: the channel and the images see
``public_view``; a player's DMs see ``player_view``. Hands of others and the deck order never
leave the engine."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from .constants import Age, BuildingType, Family
from .rules import adventurer_left, allowance
from .state import Board, Decision, GameState, Options, TurnState


class PublicPlayer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seat: int
    ecus: int
    cubes: int
    adventurers: list[Age]
    used: list[int]
    shared: int = 0  # cards played where both adventurers stood (R14)
    left: list[int] = []  # per adventurer: cards it may still pay alone this turn (R14)
    room: list[int] = []  # per age (Might, Faith, Reason): cards still playable there (R14)
    hand_count: int


class PublicView(BaseModel):
    model_config = ConfigDict(extra="forbid")

    options: Options
    round: int
    first_seat: int
    turn: int
    over: bool
    winners: list[int]
    step: int
    boards: list[Board]
    stock: dict[BuildingType, int]
    players: list[PublicPlayer]
    draw_count: int
    discard_count: int
    reserve: list[Family]
    turn_state: TurnState
    pending: Decision | None


class PlayerView(PublicView):
    seat: int
    hand: list[Family]


def _public_fields(state: GameState) -> dict[str, object]:
    return {
        "options": state.options,
        "round": state.round,
        "first_seat": state.first_seat,
        "turn": state.turn,
        "over": state.over,
        "winners": list(state.winners),
        "step": state.step,
        "boards": [b.model_copy(deep=True) for b in state.boards],
        "stock": dict(state.stock),
        "players": [
            PublicPlayer(
                seat=p.seat,
                ecus=p.ecus,
                cubes=p.cubes,
                adventurers=list(p.adventurers),
                used=list(p.used),
                shared=p.shared,
                left=[adventurer_left(p, i) for i in range(len(p.adventurers))],
                room=[allowance(p, age) for age in Age],
                hand_count=len(p.hand),
            )
            for p in state.players
        ],
        "draw_count": len(state.draw_pile),
        "discard_count": len(state.discard),
        "reserve": list(state.reserve),
        "turn_state": state.turn_state.model_copy(),
        "pending": state.pending.model_copy(deep=True) if state.pending else None,
    }


def public_view(state: GameState) -> PublicView:
    """What everyone may see: no hand contents, no deck order, no RNG state."""
    return PublicView.model_validate(_public_fields(state))


def player_view(state: GameState, seat: int) -> PlayerView:
    """The public view plus ``seat``'s own hand."""
    return PlayerView.model_validate(
        {**_public_fields(state), "seat": seat, "hand": list(state.players[seat].hand)}
    )
