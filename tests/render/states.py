"""Fixed states for the render tests, built with the engine's compact position notation."""

from __future__ import annotations

from engine import (
    Age,
    BuildingType,
    Construct,
    Event,
    GameState,
    PlayerView,
    PublicView,
    apply,
    player_view,
    public_view,
)
from engine.builder import position

NAMES_2 = ["Ann", "Ben"]
NAMES_4 = ["Alice", "Bartholomew the Magnificent", "Chen", "Dée"]
NAMES_5 = ["Alice", "Ben", "Chen", "Dée", "Eve"]


def empty() -> PublicView:
    """A new two-player game: no tiles, both players' adventurers on Might."""
    return public_view(position(2))


def empty_hand() -> PlayerView:
    """Ben's view of a two-player game (no Hold'em) in which his hand is empty."""
    return player_view(position(2, hands={1: ""}), 1)


def _mid_game_position() -> GameState:
    return position(
        4,
        might="Castle M8 2; Monastery P12 3; Town R15; Watchtower B2 1; Chapel E9 3; Hamlet A5;"
        " Keep I1 1",
        faith="Chapel G5 1; Castle M8 2 copy; Monastery P12 3 copy; Town R15 copy; Abbey B11 0;"
        " Keep I1 1 copy; City I13",
        reason="Town G5 cubes=1,2; Castle M8 ruin marker=3 copy; Monastery P12 copy;"
        " Town R15 cubes=0,3 copy; Abbey B11 ruin copy; Keep I1 ruin copy;"
        " City I13 cubes=0,0,1,2 copy",
        hamlet_cubes={"Q14": 2, "D9": 0},
        hands={0: "mmmm", 1: "mrcc", 2: "rrc", 3: "ccmr"},
        adventurers={
            0: [Age.MIGHT, Age.MIGHT],
            1: [Age.FAITH, Age.REASON],
            2: [Age.REASON, Age.REASON],
            3: [Age.MIGHT, Age.FAITH],
        },
        ecus={0: 9, 1: 12, 2: 7, 3: 15},
        round=5,
        turn=0,
        holdem=True,
    )


def mid_game_before() -> PublicView:
    """``mid_game`` before Alice's Keep."""
    return public_view(_mid_game_position())


def mid_game() -> tuple[PublicView, list[Event], PlayerView]:
    """Round 5 of a four-player Hold'em game, just after Alice built a Keep on Might at F4.

    The Keep ripples to Faith (erasing Ben's Chapel at G5 by paradox) and to Reason as a ruin
    (erasing a populated Town at G5, whose cubes go home). Reason also shows ruins, a renovated
    Monastery, a ruin with a renovation marker, population cubes and cubes on printed hamlets.
    """
    state = _mid_game_position()
    state, events = apply(state, 0, Construct(age=Age.MIGHT, building=BuildingType.KEEP,
                                              square="F4"))
    return public_view(state), events, player_view(state, 0)


def end_game() -> PublicView:
    """The end of a five-player game: round 7 over, a shared victory."""
    state = position(
        5,
        might="Castle C2 0; Keep F2 1; Town H4; Monastery C5 2; Chapel F6 3; Watchtower E8 4;"
        " City M7; Abbey P1 3; Keep Q9 4; Hamlet S14; Chapel A16 2",
        faith="Castle C2 0 copy; Keep F2 1 copy; Town H4 copy; Monastery C5 2 copy; City M7 copy;"
        " Abbey P1 3 copy; Keep Q9 4 copy; Town D14",
        reason="Castle C2 copy; Keep F2 ruin copy; Town H4 cubes=0,1,1 copy; Monastery C5 copy;"
        " City M7 cubes=2,3,3,4,0 copy; Abbey P1 ruin marker=2 copy; Keep Q9 copy;"
        " Town D14 cubes=4 copy",
        hamlet_cubes={"N5": 1, "R8": 4, "E13": 3},
        ecus={0: 31, 1: 24, 2: 31, 3: 19, 4: 27},
        adventurers={
            0: [Age.MIGHT, Age.REASON],
            1: [Age.FAITH, Age.FAITH],
            2: [Age.REASON, Age.REASON],
            3: [Age.MIGHT, Age.FAITH],
            4: [Age.FAITH, Age.REASON],
        },
        round=7,
        turn=4,
    )
    state.over = True
    state.winners = [0, 2]
    return public_view(state)


def choice_which() -> tuple[PublicView, list[Event]]:
    """Cy's Hamlet at H5 joins Ann's Keep F4 and Bob's Keep I4 with equal military power
    (R32): Cy, who owns neither, chooses which is downsized (R33, R37)."""
    state = position(3, might="Keep F4 0; Chapel G6 2; Keep I4 1; Chapel I6 1",
                     hands={2: "ccmr"}, turn=2)
    state, events = apply(state, 2, Construct(age=Age.MIGHT, building=BuildingType.HAMLET,
                                              square="H5"))
    assert state.pending is not None and state.pending.kind == "downsize_which"
    return public_view(state), events


def choice_place() -> tuple[PublicView, list[Event]]:
    """Cy's Hamlet at L14 joins Ann's Castle I13 and Bob's weaker Castle M13 (R32): Bob
    chooses where the Keep replacing his Castle sits inside its footprint (R33)."""
    state = position(3, might="Castle I13 0; Watchtower I16 0; Castle M13 1",
                     hands={2: "ccmr"}, turn=2)
    state, events = apply(state, 2, Construct(age=Age.MIGHT, building=BuildingType.HAMLET,
                                              square="L14"))
    assert state.pending is not None and state.pending.kind == "place_downsized"
    return public_view(state), events
