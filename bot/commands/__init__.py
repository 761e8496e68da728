"""The commands both front ends share: the table (``table.py``: every command, its parameters
and its handler; ``spec.py``: what an entry holds), the parsers of parameter values
(``params.py``) and the words they read in three languages (``words.py``), the handlers
(``handlers.py``), the help (``helptext.py``) and typed lines (``lines.py``). Import from
here."""

from __future__ import annotations

from .handlers import Context
from .helptext import buildings_text, command_help, topic_choices
from .lines import (
    MissingArgs,
    Parsed,
    action_line,
    command_of,
    completion_order,
    execute,
    format_line,
    local_name,
    parse_args,
    parse_line,
    read_partial,
    run_line,
    to_action,
)
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
from .preview import PREVIEW_KINDS, PREVIEWED, Preview, preview_of
from .spec import CommandSpec, Group
from .table import (
    ALIASES,
    COMMANDS,
    GROUPS,
    HELP_GROUPS,
    RULES_SUMMARY,
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
    "PREVIEWED",
    "PREVIEW_KINDS",
    "RULES_SUMMARY",
    "CommandSpec",
    "Context",
    "Group",
    "MissingArgs",
    "OutOfRange",
    "Param",
    "ParamKind",
    "Parsed",
    "Preview",
    "UserRef",
    "action_line",
    "buildings_text",
    "command_help",
    "command_label",
    "command_of",
    "completion_order",
    "convert",
    "excerpt",
    "execute",
    "format_line",
    "format_value",
    "help_text",
    "local_name",
    "parse_args",
    "parse_cards",
    "parse_line",
    "preview_of",
    "read_partial",
    "rules_text",
    "run_line",
    "to_action",
    "topic_choices",
]
