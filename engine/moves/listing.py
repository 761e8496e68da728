"""``LegalActions``: every legal action of a seat, counted at once and listed per kind only
when asked, for the searches and random players that pick one action of many."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterator, Sequence
from typing import overload

from ..actions import Action, listed_action
from ..state import GameState
from . import legal_blocks
from .common import Spec


class LegalActions(Sequence[Action]):
    """The legal actions of ``seat`` in ``state``, in ``legal_actions``' order, as a sequence
    that lists a kind only when one of its actions is asked for.

    ``len()`` costs about as much as counting the actions of each kind (the constructions,
    nine in ten actions of a position, are counted from per-board tables, not listed);
    ``legal[i]`` (negative ``i`` too) builds one action, a slice a list of them;
    ``random.Random.choice(legal)`` picks exactly what it would from the full list. Iterating
    builds every action (as ``legal_actions``). ``specs()`` gives (class, fields) pairs,
    optionally of one kind only, and ``counts()`` the number of actions of each kind. The state
    must not change while the sequence is in use."""

    __slots__ = ("_blocks", "_ends")

    def __init__(self, state: GameState, seat: int) -> None:
        self._blocks = legal_blocks(state, seat)
        self._ends = list(itertools.accumulate(b.count for b in self._blocks))

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def spec(self, i: int) -> Spec:
        """The ``i``-th legal action as (class, fields)."""
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"legal action {i} of {n}")
        k = bisect.bisect_right(self._ends, i)
        block = self._blocks[k]
        return block.spec(i - (self._ends[k] - block.count))

    @overload
    def __getitem__(self, i: int) -> Action: ...

    @overload
    def __getitem__(self, i: slice) -> list[Action]: ...

    def __getitem__(self, i: int | slice) -> Action | list[Action]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        cls, fields = self.spec(i)
        return listed_action(cls, fields)

    def __iter__(self) -> Iterator[Action]:
        for block in self._blocks:
            for cls, fields in block.specs():
                yield listed_action(cls, fields)

    def specs(self, kind: str | None = None) -> Iterator[Spec]:
        """The actions as (class, fields), all of them or those of one ``kind``
        (``"construct"``, ``"upgrade"`` ...: an action's ``kind``), listing only the blocks
        that may hold that kind."""
        for block in self._blocks:
            if kind is None or block.kind == kind:
                yield from block.specs()
            elif block.kind is None:
                yield from (s for s in block.specs() if _kind(s[0]) == kind)

    def counts(self) -> dict[str, int]:
        """The number of legal actions of each kind present, in the order they come."""
        out: dict[str, int] = {}
        for block in self._blocks:
            if block.kind is not None:
                out[block.kind] = out.get(block.kind, 0) + block.count
            else:
                for cls, _ in block.specs():
                    out[_kind(cls)] = out.get(_kind(cls), 0) + 1
        return out


def _kind(cls: type[Action]) -> str:
    return str(cls.model_fields["kind"].default)
