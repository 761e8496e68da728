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

A second table weighs the careful evaluation's discounts (``TOP_SAFETY``, ``MAJORITY_SAFETY``):
each board's income the seat would collect now is split by the kind of hold that pays it (a
top of value 1, 2 or 3 on Might and Faith; a shared lead, a lead of one cube or of more on
Reason), and the income that board paid it at the next income (wherever its adventurers then
stood) is fitted on those parts, for the turn starts before the first income (rounds 1-3) and
between the two (rounds 5-6), where the rivals play before the seat collects. A kind's slope
is what an Ecu of it became: what the rivals took away, and what the seat added.

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

from ai.evaluate import (
    INCOME_ROUNDS,
    MAJORITY_SAFETY,
    TOP_SAFETY,
    best_placement,
    board_incomes,
    domains,
)
from engine import Action, Age, EndTurn, Family, GameState, income
from engine.state import Board

FIRST_SEED = 50_000
TOP_KINDS = ("top 1", "top 2", "top 3")  # Might and Faith (R47, R48): by the top's value
LEAD_KINDS = ("lead 0", "lead 1", "lead 2")  # Reason (R49): shared, by one cube, by more
SAFETY_PHASES = (("rounds 1-3", (1, 2, 3)), ("rounds 5-6", (5, 6)))


def kinds(board: Board, seat: int) -> dict[str, int]:
    """What ``seat`` would collect on ``board`` now (R47-R49, not discounted), by the kind of
    hold that pays it."""
    out: dict[str, int] = {}
    family = Family.MILITARY if board.age is Age.MIGHT else Family.RELIGIOUS
    for dom in domains(board):
        if board.age is Age.REASON:
            mine = dom.cubes.get(seat, 0)
            if not mine or not dom.worth or mine < max(dom.cubes.values()):
                continue
            second = max([k for s, k in dom.cubes.items() if s != seat], default=0)
            kind, amount = LEAD_KINDS[min(mine - second, 2)], dom.worth
        else:
            top = dom.top.get(family)
            if top is None or top[1] != 1 or top[2] != seat:
                continue
            kind, amount = TOP_KINDS[top[0] - 1], dom.civil
        out[kind] = out.get(kind, 0) + amount
    return out


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
        "kinds": [kinds(board, seat) for board in state.boards],
    }


def play(players: int, seed: int, level: str) -> list[dict[str, Any]]:
    """One game at ``level`` for every seat: a row per turn start, with the incomes its seat
    collected next (``next``) and after (``later``; None past the last), and what each board
    would have paid it at the next income (``boards``: on every board, not only where its
    adventurers stood)."""
    rows: list[dict[str, Any]] = []
    collected: dict[int, list[int]] = {s: [] for s in range(players)}
    boards: dict[int, list[list[float]]] = {s: [] for s in range(players)}

    def start(state: GameState) -> None:
        rows.append({**turn_start(state), "collected": len(collected[state.turn])})

    def chosen(state: GameState, seat: int, action: Action) -> None:
        if isinstance(action, EndTurn) and state.pending is None and state.round in INCOME_ROUNDS:
            collected[seat].append(income(state, seat)[0])  # paid as the turn ends (R12)
            n = len(state.players)
            boards[seat].append([board_incomes(b, n)[0][seat] for b in state.boards])

    play_watched(players, seed, level, start, chosen)
    for row in rows:
        got = collected[row["seat"]][row["collected"]:]
        row["next"] = got[0] if got else None
        row["later"] = got[1] if len(got) > 1 else None
        paid = boards[row["seat"]][row["collected"]:]
        row["boards"] = paid[0] if paid else None
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


def safety(rows: list[dict[str, Any]]) -> list[str]:
    """The second table: per kind of hold, the careful evaluation's factor and the slope of a
    board's next income on each kind's part, rounds 1-3 and 5-6 (rows of every board of every
    turn start; Might and Faith fitted together, Reason apart)."""
    factors = {**{k: TOP_SAFETY[i + 1] for i, k in enumerate(TOP_KINDS)},
               **{k: MAJORITY_SAFETY[i] for i, k in enumerate(LEAD_KINDS)}}
    slopes: dict[tuple[str, str], str] = {}
    for label, rounds in SAFETY_PHASES:
        chosen = [r for r in rows if r["round"] in rounds and r.get("boards") is not None]
        for names, ages in ((TOP_KINDS, (Age.MIGHT, Age.FAITH)), (LEAD_KINDS, (Age.REASON,))):
            xs = [[float(r["kinds"][a].get(k, 0)) for k in names] for r in chosen for a in ages]
            ys = [float(r["boards"][a]) for r in chosen for a in ages]
            try:
                fitted = least_squares(xs, ys)
            except (ValueError, IndexError):  # too few rows, or a kind never seen
                continue
            for i, k in enumerate(names):  # the fit's last figure, the intercept, not shown
                slopes[label, k] = f"{fitted[i]:+.2f} ({sum(x[i] for x in xs):.0f})"
    out = ["| kind | careful factor | " + " | ".join(
        f"{label}: slope (Ecus seen)" for label, _ in SAFETY_PHASES) + " |",
           "|---|---|" + "---|" * len(SAFETY_PHASES)]
    for k, factor in factors.items():
        cells = " | ".join(slopes.get((label, k), "-") for label, _ in SAFETY_PHASES)
        out.append(f"| {k} | {factor:.2f} | {cells} |")
    return out


def main() -> None:
    parser = games_parser(__doc__, "bench_evaluate", players=4, games=150)
    args = parser.parse_args()
    if args.table:
        rows = read_log(args.table)
    else:
        rows = play_logged(
            args.games, lambda g: play(args.players, FIRST_SEED + args.first + g, args.level),
            args.log)
        print(f"{args.games} games of {args.players} players at {args.level}; log: {args.log}")
    print("\n".join([*fits(rows), "", *safety(rows)]))


if __name__ == "__main__":
    main()
