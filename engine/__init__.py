"""Khronos rules engine: pure, synchronous, no I/O.

The questions every caller asks: ``new_game``, ``current_seat``, ``legal_actions``, ``check``,
``apply``, ``preview``, ``is_terminal``, ``scores``; ``legal_action_list`` (``LegalActions``),
the legal actions counted at once and built one by one, for searches and random playouts;
``canonical_action``, the one name of an action (a building by its top-left square) for the
move log; the autocomplete queries built from the same generators (``construct_options``,
``upgrade_options``, ``demolish_options``, ``reason_options``); views for what players may see;
``describe`` and ``explain`` word events and refusals in English, French or German
(engine/words.py, docs/i18n.md).
"""

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
    dump_action,
    parse_action,
)
from .board import PRINTED_HAMLETS, TERRAIN, parse_square, square_name
from .constants import BUILDINGS, Age, BuildingType, Family, Terrain
from .describe import describe, describe_choice, describe_lines, describe_prompt, explain
from .errors import (
    CorruptState,
    EngineError,
    GameOver,
    IllegalAction,
    MalformedAction,
    NotYourTurn,
    StaleState,
)
from .events import Event, format_text
from .game import (
    apply,
    canonical_action,
    check,
    current_seat,
    default_choice,
    is_terminal,
    legal_action_list,
    legal_actions,
    new_game,
    preview,
    scores,
)
from .income import income
from .invariants import invariant_problems
from .moves import (
    Option,
    construct_options,
    demolish_options,
    reason_options,
    upgrade_options,
)
from .moves.listing import LegalActions
from .rules import adventurer_left, allowance
from .state import SCHEMA_VERSION, GameState, Options
from .views import PlayerView, PublicView, player_view, public_view

__all__ = [
    "BUILDINGS",
    "PRINTED_HAMLETS",
    "SCHEMA_VERSION",
    "TERRAIN",
    "Action",
    "Age",
    "BuildingType",
    "Choose",
    "Construct",
    "CorruptState",
    "Demolish",
    "EndTurn",
    "EngineError",
    "Event",
    "Exchange",
    "Family",
    "GameOver",
    "GameState",
    "HoldemSwap",
    "IllegalAction",
    "LegalActions",
    "MalformedAction",
    "NotYourTurn",
    "Option",
    "Options",
    "PlayerView",
    "Populate",
    "PublicView",
    "Renovate",
    "StaleState",
    "Terrain",
    "Travel",
    "Upgrade",
    "adventurer_left",
    "allowance",
    "apply",
    "canonical_action",
    "check",
    "construct_options",
    "current_seat",
    "default_choice",
    "demolish_options",
    "describe",
    "describe_choice",
    "describe_lines",
    "describe_prompt",
    "dump_action",
    "explain",
    "format_text",
    "income",
    "invariant_problems",
    "is_terminal",
    "legal_action_list",
    "legal_actions",
    "new_game",
    "parse_action",
    "parse_square",
    "player_view",
    "preview",
    "public_view",
    "reason_options",
    "scores",
    "square_name",
    "upgrade_options",
]
