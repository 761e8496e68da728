"""The commands both front ends share: the table (``table.py``: every command, its parameters
and its handler), the parsers of parameter values (``params.py``), the handlers
(``handlers.py``) and typed lines (``lines.py``). Import from here."""

from __future__ import annotations

from .handlers import Context
from .lines import Parsed, execute, format_line, parse_args, parse_line, run_line, to_action
from .params import (
    EXCERPT,
    HELP_TOPICS,
    MAX_SNOWFLAKE,
    OutOfRange,
    Param,
    ParamKind,
    UserRef,
    convert,
    excerpt,
    format_value,
    parse_cards,
)
from .table import (
    ALIASES,
    COMMANDS,
    GROUPS,
    HELP_GROUPS,
    RULES_SUMMARY,
    CommandSpec,
    Group,
    command_label,
    help_text,
    rules_text,
)

__all__ = [
    "ALIASES",
    "COMMANDS",
    "EXCERPT",
    "GROUPS",
    "HELP_GROUPS",
    "HELP_TOPICS",
    "MAX_SNOWFLAKE",
    "RULES_SUMMARY",
    "CommandSpec",
    "Context",
    "Group",
    "OutOfRange",
    "Param",
    "ParamKind",
    "Parsed",
    "UserRef",
    "command_label",
    "convert",
    "excerpt",
    "execute",
    "format_line",
    "format_value",
    "help_text",
    "parse_args",
    "parse_cards",
    "parse_line",
    "rules_text",
    "run_line",
    "to_action",
]
