"""How much of a game's outcome the evaluation foretells, against weights fitted to outcomes.

Plays whole games at ``--level`` for every seat and, at every turn start, notes each seat's
figures (``FEATURES``: what every player sees); when the game is over, each seat's final
Ecus. Then, round by round, it fits the final margin of a seat over its rivals' mean on the
same difference of the figures (least squares with a little ridge, so that figures that move
together stay moderate), and prints:

- per round, the share of the final margins (their squares) each evaluation foretells on
  games it was not fitted on (four folds by game): the careful evaluation's margin
  (``evaluate.py``, as the search counts it), the same scaled by its best factor, and the
  fitted weights;
- the weights fitted on every game, per round (``FEATURES`` order), for a search to try (with
  a tournament: a fit describes the games of ``--level``, and a figure that goes with
  winning there need not make a seat win when a search chases it; docs/ai-figures.md).

    .venv/bin/python benchmarks/bench_learn.py --players 2 --games 350 --log /tmp/l2.jsonl
    .venv/bin/python benchmarks/bench_learn.py --table /tmp/l2.jsonl
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rows import games_parser, play_logged, play_watched, read_log

from ai.evaluate import ROUNDS, board_incomes, seat_values
from engine import BUILDINGS, Age, GameState

FIRST_SEED = 95_000
RIDGE = 0.01  # per row, added to the normal equations' diagonal
FOLDS = 4
FEATURES = (
    "ecus",  # Ecus now
    "future",  # the careful evaluation's income to come (its value less the Ecus)
    "cubes",  # control cubes in the supply (R6: 25 at the start)
    "mover",  # 1 for the seat whose turn it is
    "care_might", "care_faith", "care_reason",  # careful income of each board, now
    "tops_might", "tops_faith",  # domain tops held on Might and Faith
    "own_might", "own_faith",  # buildings with the seat's cube on Might and Faith
    "value_might", "value_faith",  # their values summed
)


def features(state: GameState) -> list[list[float]]:
    """Per seat, the figures of ``FEATURES``, in that order."""
    n = len(state.players)
    careful = seat_values(state, careful=True)
    per_board = [board_incomes(board, n, careful=True) for board in state.boards]
    own = [[0.0] * 4 for _ in range(n)]  # Might count, Faith count, Might value, Faith value
    for board in state.boards:
        if board.age is Age.REASON:
            continue
        k = 0 if board.age is Age.MIGHT else 1
        for t in board.tiles:
            if t.owner is not None:
                own[t.owner][k] += 1
                own[t.owner][k + 2] += BUILDINGS[t.type].value
    return [
        [float(p.ecus), careful[p.seat] - p.ecus, float(p.cubes),
         1.0 if state.turn == p.seat else 0.0,
         *(per_board[a][0][p.seat] for a in Age),
         float(per_board[Age.MIGHT][1][p.seat]), float(per_board[Age.FAITH][1][p.seat]),
         *own[p.seat]]
        for p in state.players
    ]


def play(players: int, seed: int, level: str, game: int) -> list[dict[str, Any]]:
    """One game at ``level`` for every seat: a row per turn start, each seat's figures and
    the final Ecus."""
    rows: list[dict[str, Any]] = []
    state = play_watched(players, seed, level, lambda state: rows.append(
        {"game": game, "round": state.round, "features": features(state)}))
    final = [p.ecus for p in state.players]
    return [{**row, "final": final} for row in rows]


def _against_rivals(values: Sequence[float], seat: int) -> float:
    rivals = [v for s, v in enumerate(values) if s != seat]
    return values[seat] - sum(rivals) / len(rivals)


def examples(rows: list[dict[str, Any]]) -> tuple[list[list[float]], list[float]]:
    """Every seat of every row: its figures less its rivals' mean, and its final margin so."""
    xs: list[list[float]] = []
    ys: list[float] = []
    for row in rows:
        table = row["features"]
        for seat in range(len(table)):
            columns = zip(*table, strict=True)
            xs.append([_against_rivals(col, seat) for col in columns])
            ys.append(_against_rivals(row["final"], seat))
    return xs, ys


def ridge(xs: Sequence[Sequence[float]], ys: Sequence[float], penalty: float) -> list[float]:
    """The weights minimising the squared error plus ``penalty`` times their squares, per row
    (no intercept: the figures are differences, a seat's and its rivals')."""
    k = len(xs[0])
    a = [[sum(x[i] * x[j] for x in xs) + (penalty * len(xs) if i == j else 0.0)
          for j in range(k)] for i in range(k)]
    b = [sum(x[i] * y for x, y in zip(xs, ys, strict=True)) for i in range(k)]
    for col in range(k):
        pivot = max(range(col, k), key=lambda i: abs(a[i][col]))
        a[col], a[pivot], b[col], b[pivot] = a[pivot], a[col], b[pivot], b[col]
        for i in range(k):
            if i != col and a[col][col]:
                f = a[i][col] / a[col][col]
                a[i] = [v - f * w for v, w in zip(a[i], a[col], strict=True)]
                b[i] -= f * b[col]
    return [b[i] / a[i][i] if a[i][i] else 0.0 for i in range(k)]


def explained(weights: Sequence[float], xs: list[list[float]], ys: list[float]) -> float:
    """The share of the final margins' squares the weights foretell (1 - error / total)."""
    error = sum((sum(w * v for w, v in zip(weights, x, strict=True)) - y) ** 2
                for x, y in zip(xs, ys, strict=True))
    total = sum(y * y for y in ys)
    return 1 - error / total if total else 0.0


CAREFUL = [1.0 if name in ("ecus", "future") else 0.0 for name in FEATURES]


def fits(rows: list[dict[str, Any]]) -> tuple[list[str], dict[int, list[float]]]:
    """The table of foretold shares per round, and the weights fitted on every row."""
    out = ["| round | rows | careful evaluation | scaled | learnt |", "|---|---|---|---|---|"]
    weights: dict[int, list[float]] = {}
    for round_ in range(1, ROUNDS + 1):
        chosen = [r for r in rows if r["round"] == round_]
        if not chosen:
            continue
        shares = [0.0, 0.0, 0.0]
        for fold in range(FOLDS):
            xs, ys = examples([r for r in chosen if r["game"] % FOLDS != fold])
            tx, ty = examples([r for r in chosen if r["game"] % FOLDS == fold])
            if not xs or not tx:
                continue
            careful = [sum(x) for x in ([c * v for c, v in zip(CAREFUL, x, strict=True)]
                                        for x in xs)]
            scale = ridge([[c] for c in careful], ys, 0.0)[0]
            for i, w in enumerate((CAREFUL, [scale * c for c in CAREFUL],
                                   ridge(xs, ys, RIDGE))):
                shares[i] += explained(w, tx, ty) / FOLDS
        xs, ys = examples(chosen)
        weights[round_] = [round(w, 3) for w in ridge(xs, ys, RIDGE)]
        out.append(f"| {round_} | {len(xs)} | {shares[0]:.2f} | {shares[1]:.2f} "
                   f"| {shares[2]:.2f} |")
    return out, weights


def main() -> None:
    parser = games_parser(__doc__, "bench_learn", players=2, games=350)
    args = parser.parse_args()
    if args.table:
        rows = read_log(args.table)
    else:
        rows = play_logged(
            args.games,
            lambda g: play(args.players, FIRST_SEED + args.first + g, args.level, args.first + g),
            args.log)
        print(f"{args.games} games of {args.players} players at {args.level}; log: {args.log}")
    table, weights = fits(rows)
    print("\n".join(table))
    print(f"    {len(rows[0]['final'])}: {{")
    for round_, w in weights.items():
        print(f"        {round_}: ({', '.join(str(v) for v in w)}),")
    print("    },")


if __name__ == "__main__":
    main()
