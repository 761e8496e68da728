"""A command of the table (``CommandSpec``): its name, description, parameters in order, the
Discord group it belongs to, and its handler. The table itself is ``table.COMMANDS``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .handlers import ActionOf, Handler, play
from .params import Param

Group = Literal["lobby", "turn", "info", "self", "admin"]


@dataclass(frozen=True)
class CommandSpec:
    name: str
    description: str
    group: Group
    params: tuple[Param, ...] = ()
    usage: str = ""
    keywords: tuple[str, ...] = field(default=())  # params usually given by name ("at B3")
    form: tuple[str, ...] = ()  # Discord's order of the options, when not the typed order
    parent: str | None = None  # the Discord group ("game": /game pause)
    guild_only: bool = True  # False: also in a direct message with the bot
    run: Handler | None = None  # what the command does (a turn command: ``action``, played)
    action: ActionOf | None = None  # a turn command: the engine action it stands for

    @property
    def handler(self) -> Handler:
        if self.run is not None:
            return self.run
        assert self.action is not None, f"/{self.name} has neither a handler nor an action"
        return play(self.action)

    @property
    def form_params(self) -> tuple[Param, ...]:
        """The parameters in the order Discord asks them (required ones first, as Discord
        demands)."""
        if not self.form:
            return self.params
        by_name = {p.name: p for p in self.params}
        return tuple(by_name[n] for n in self.form)

    @property
    def path(self) -> str:
        """How Discord spells it: ``pause`` or, in a group, ``game pause``."""
        return f"{self.parent} {self.name}" if self.parent else self.name
