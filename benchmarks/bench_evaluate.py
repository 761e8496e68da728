"""How well the evaluation's income estimate foretells the incomes the seats then collect.

The evaluation (``ai/evaluate.py``) values a seat at its Ecus plus the income it would collect
now on its two best boards (the careful estimate), weighted ``NEXT_INCOME_WEIGHT`` for the next
income phase and ``LATER_INCOME_WEIGHT`` for the one after, plus ``CONTROL_BONUS`` per domain
top it holds. This plays whole games between computers and, at every turn's start, notes each
seat's estimate and tops; when the game is over, the incomes each seat collected (R46-R49).
For each round it then prints the least-squares fit of the collected income on the estimate
(and on the estimate and the tops): a slope near the weight says the weight matches what the
play brings, a top's slope near ``CONTROL_BONUS`` says holding a top is worth it beyond its
income. The fits describe the games of ``--level``: a weight fit to ``easy``'s games is a
question to put to a tournament, not an answer.

    .venv/bin/python benchmarks/bench_evaluate.py                     # 150 four-player games
    .venv/bin/python benchmarks/bench_evaluate.py --players 2 --games 300 --log /tmp/e2.jsonl
    .venv/bin/python benchmarks/bench_evaluate.py --table /tmp/e2.jsonl
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rows import games_parser, play_logged, play_watched, read_log

from ai.evaluate import INCOME_ROUNDS, best_placement, board_incomes
from engine import Action, Age, EndTurn, GameState, income

FIRST_SEED = 50_000


def turn_start(state: GameState) -> dict[str, Any]:
    """The seat to play's estimate (careful, on its two best boards) and its domain tops."""
    seat = state.turn
    n = len(state.players)
    per_board = [board_incomes(board, n, careful=True) for board in state.boards]
    player = state.players[seat]
    return {
        "seat": seat,
        "round": state.round,
        "estimate": best_placement([per_board[a][0][seat] for a in Age], player.adventurers),
        "tops": sum(per_board[a][1][seat] for a in Age),
    }


def play(players: int, seed: int, level: str) -> list[dict[str, Any]]:
    """One game at ``level`` for every seat: a row per turn start, with the incomes its seat
    collected next (``next``) and after (``later``; None past the last)."""
    rows: list[dict[str, Any]] = []
    collected: dict[int, list[int]] = {s: [] for s in range(players)}

    def start(state: GameState) -> None:
        rows.append({**turn_start(state), "collected": len(collected[state.turn])})

    def chosen(state: GameState, seat: int, action: Action) -> None:
        if isinstance(action, EndTurn) and state.pending is None and state.round in INCOME_ROUNDS:
            collected[seat].append(income(state, seat)[0])  # paid as the turn ends (R12)

    play_watched(players, seed, level, start, chosen)
    for row in rows:
        got = collected[row["seat"]][row["collected"]:]
        row["next"] = got[0] if got else None
        row["later"] = got[1] if len(got) > 1 else None
    return rows


def least_squares(xs: Sequence[Sequence[float]], ys: Sequence[float]) -> list[float]:
    """The slopes and, last, the intercept of the least-squares fit of ``ys`` on the columns
    ``xs`` (rows of equal length): the normal equations, solved by elimination."""
    rows = [[*x, 1.0] for x in xs]
    k = len(rows[0])
    a = [[sum(r[i] * r[j] for r in rows) for j in range(k)] for i in range(k)]
    b = [sum(r[i] * y for r, y in zip(rows, ys, strict=True)) for i in range(k)]
    for col in range(k):
        pivot = max(range(col, k), key=lambda i: abs(a[i][col]))
        if abs(a[pivot][col]) < 1e-12:
            raise ValueError("the columns do not vary independently")
        a[col], a[pivot], b[col], b[pivot] = a[pivot], a[col], b[pivot], b[col]
        for i in range(k):
            if i != col:
                f = a[i][col] / a[col][col]
                a[i] = [v - f * w for v, w in zip(a[i], a[col], strict=True)]
                b[i] -= f * b[col]
    return [b[i] / a[i][i] for i in range(k)]


def fits(rows: list[dict[str, Any]]) -> list[str]:
    """The table: per round, the next income's slope on the estimate (alone, then with the
    tops), and for rounds before the first income the later income's slope."""
    out = ["| round | income | rows | on the estimate | with the tops: estimate, top |",
           "|---|---|---|---|---|"]
    for target, label in (("next", "next"), ("later", "the one after")):
        for round_ in range(1, max(INCOME_ROUNDS) + 1):
            if target == "later" and round_ > INCOME_ROUNDS[0]:
                continue
            chosen = [r for r in rows if r["round"] == round_ and r[target] is not None]
            ys = [float(r[target]) for r in chosen]
            try:
                alone = least_squares([[r["estimate"]] for r in chosen], ys)
                both = least_squares([[r["estimate"], r["tops"]] for r in chosen], ys)
            except (ValueError, IndexError):  # too few rows, or an estimate that never varies
                continue
            out.append(f"| {round_} | {label} | {len(chosen)} | {alone[0]:+.2f} "
                       f"| {both[0]:+.2f}, {both[1]:+.2f} |")
    return out


def main() -> None:
    parser = games_parser(__doc__, "bench_evaluate", players=4, games=150)
    args = parser.parse_args()
    if args.table:
        print("\n".join(fits(read_log(args.table))))
        return
    rows = play_logged(
        args.games, lambda g: play(args.players, FIRST_SEED + args.first + g, args.level),
        args.log)
    print(f"{args.games} games of {args.players} players at {args.level}; log: {args.log}")
    print("\n".join(fits(rows)))


if __name__ == "__main__":
    main()
