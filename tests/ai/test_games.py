"""Computer players over complete games of every size (2-5): never an illegal move, never a
stall, every invariant of RULES.md section 9 after every action (R8, R12, R37, R50).

KHRONOS_LONG_RUN=N plays N games per size instead of the CI default of one."""

from __future__ import annotations

import os

import pytest

from ai.match import check_invariants, play_game
from ai.policy import forget_plans
from engine import Choose, GameState, check

GAMES = int(os.environ.get("KHRONOS_LONG_RUN", "1"))

# one mix per size, hard in every one, every level in most (random seats keep CI quick),
# Hold'em in two
LINEUPS: dict[int, tuple[list[str], bool]] = {
    2: (["normal", "hard"], False),
    3: (["easy", "normal", "hard"], True),
    4: (["random", "easy", "hard", "normal"], False),
    5: (["easy", "random", "hard", "normal", "random"], True),
}
BUDGET_S = 0.05  # normal's and hard's budget in CI: enough for a shallow search, and quick


@pytest.mark.parametrize("players", sorted(LINEUPS))
def test_r50_computers_finish_every_game_size_with_legal_moves(players: int) -> None:
    """R8/R50: the game reaches its end after round 7; apply (which checks) accepts every
    computer move, and the invariants hold after each one."""
    lineup, holdem = LINEUPS[players]
    for game in range(GAMES):
        forget_plans()
        seen: list[GameState] = []
        record = play_game(
            lineup[game % players :] + lineup[: game % players],
            seed=900 + 31 * game + players,
            budget_s=BUDGET_S,
            holdem=holdem,
            on_state=seen.append,
        )
        final = record.final
        assert final.over and final.round == 7 and final.winners
        assert len(seen) == len(record.actions) + 1
        for state in seen:
            check_invariants(state)
        # every move was legal where it was played (apply would have raised otherwise)
        for before, (seat, action) in zip(seen, record.actions, strict=False):
            check(before, seat, action)
        # every seat played: about 7 turns each, not one action per turn by default
        for seat in range(players):
            moves = [a for s, a in record.actions if s == seat and not isinstance(a, Choose)]
            assert len(moves) >= 7
