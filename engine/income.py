"""Income (R46-R49): what a player collects at the end of his turn in rounds 4 and 7."""

from __future__ import annotations

from collections import Counter
from typing import Any

from .board import square_name
from .constants import Age, Family
from .domains import board_index
from .state import GameState
from .words import phrase


def income(state: GameState, seat: int) -> tuple[int, list[dict[str, Any]]]:
    """What ``seat`` collects now, with one line per paying domain (a catalogue phrase)."""
    total = 0
    lines: list[dict[str, Any]] = []
    player = state.players[seat]
    reason_cubes = state.boards[Age.REASON].hamlet_cubes
    for age in sorted(set(player.adventurers)):  # R46: where his adventurers stand
        idx = board_index(state.boards[age])
        for dom in idx.domains:
            members = [idx.buildings[k] for k in dom.members]
            if age is Age.REASON:  # R49
                counts: Counter[int] = Counter()
                for b in members:
                    if b.family is not Family.CIVIL:
                        continue
                    if b.printed:
                        if b.at in reason_cubes:
                            counts[reason_cubes[b.at]] += 1
                    else:
                        tile = state.boards[age].tile(b.key)
                        assert tile is not None
                        counts.update(tile.cubes)
                if counts[seat] == 0 or counts[seat] < max(counts.values()):
                    continue
                amount = sum(b.income_value for b in members if b.family is not Family.CIVIL)
                why = phrase("phrase.income_cubes", cubes=counts[seat])
            else:  # R47, R48
                fam = Family.MILITARY if age is Age.MIGHT else Family.RELIGIOUS
                tops = idx.top_buildings(dom.members, fam)
                if len(tops) != 1 or tops[0].owner != seat:
                    continue
                amount = sum(b.value for b in members if b.family is Family.CIVIL)
                why = phrase(
                    "phrase.income_top", type=str(tops[0].type), at=square_name(tops[0].at)
                )
            if amount:
                first = min(members, key=lambda b: b.at)
                total += amount
                lines.append(
                    phrase(
                        "line.income",
                        age=age.name.lower(),
                        amount=amount,
                        at=square_name(first.at),
                        why=why,
                    )
                )
    return total, lines
