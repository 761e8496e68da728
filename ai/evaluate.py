"""How good a position is for a seat: Ecus now plus the income its domains promise (R46-R49).

The computer players judge positions with this one function. It reads only what every player
sees (boards, Ecus, adventurers, the round), so it is the same on every sampled hidden hand.
Domains are computed here from the tiles, independently of the engine's internals, over the
public ``engine`` surface only; ``tests/ai`` checks the income figures against ``engine.income``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engine import BUILDINGS, PRINTED_HAMLETS, Age, Family, GameState
from engine.state import Board, Tile

from .work import EVALUATE_UNITS, WORK

COLS = 20
ROWS = 16
INCOME_ROUNDS = (4, 7)
ROUNDS = 7

# Weights of the evaluation (docs/ai.md explains each).
NEXT_INCOME_WEIGHT = 1.0  # the next income this seat will collect
LATER_INCOME_WEIGHT = 0.6  # the one after (round 7 seen from rounds 1-4): boards will change
CONTROL_BONUS = 0.4  # per domain whose top it holds on Might/Faith, per income to come
WIN_BONUS = 50.0  # a finished game: winning is what counts
LEADER_SHARE = 0.5  # multi-player: weight of the strongest rival against the rivals' mean
# ``careful`` evaluation (normal level): how much of a domain's income is counted as safe
TOP_SAFETY = {1: 0.5, 2: 0.8, 3: 1.0}  # by the value of the controlling top building
MAJORITY_SAFETY = {0: 0.6, 1: 0.8, 2: 1.0}  # Reason: by the lead in cubes (0: shared lead)


def _cells(at: int, size: int) -> tuple[int, ...]:
    row, col = divmod(at, COLS)
    return tuple((row + dr) * COLS + col + dc for dr in range(size) for dc in range(size))


@dataclass
class _Domain:
    civil: int = 0  # R47/R48: sum of civil values (a printed hamlet counts 1)
    worth: int = 0  # R49: sum of military and religious values (ruins at ruin value)
    top: dict[Family, tuple[int, int, int | None]] = field(default_factory=dict)
    # family -> (highest value, how many hold it, owner of one of them)
    cubes: dict[int, int] = field(default_factory=dict)  # R49: seat -> cubes on civil buildings


def domain_groups(board: Board) -> list[list[Tile | int]]:
    """The domains of one board (R19): groups of buildings joined through shared sides, each
    building a tile or, for a printed hamlet no tile covers, its square."""
    items: list[Tile | int] = list(board.tiles)
    layout = tuple((t.at, BUILDINGS[t.type].size) for t in board.tiles)
    found = _LAYOUTS.get(layout)
    if found is None:
        if len(_LAYOUTS) >= _LAYOUTS_MAX:
            _LAYOUTS.clear()
        found = _LAYOUTS[layout] = _layout_groups(layout)
    hamlets, groups = found
    items.extend(hamlets)
    return [[items[i] for i in group] for group in groups]


# tiles' squares and sizes -> (the printed hamlets no tile covers, the groups of indices into
# the tiles then those hamlets): a domain's grouping depends on where its buildings stand only
# (a search meets a few hundred layouts, half of them again and again; about 2.4 KB each in
# four-player games, so at most about 10 MB)
_LAYOUTS: dict[tuple[tuple[int, int], ...], tuple[list[int], list[list[int]]]] = {}
_LAYOUTS_MAX = 4_000


def _layout_groups(layout: tuple[tuple[int, int], ...]) -> tuple[list[int], list[list[int]]]:
    """``domain_groups`` by indices, for tiles at these squares of these sizes."""
    grid: dict[int, int] = {}
    for n, (at, size) in enumerate(layout):
        for c in _cells(at, size):
            grid[c] = n
    hamlets: list[int] = []
    for sq in PRINTED_HAMLETS:
        if sq not in grid:
            grid[sq] = len(layout) + len(hamlets)
            hamlets.append(sq)
    parent = list(range(len(layout) + len(hamlets)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for c, i in grid.items():
        row, col = divmod(c, COLS)
        for n in (c + 1 if col + 1 < COLS else -1, c + COLS if row + 1 < ROWS else -1):
            j = grid.get(n)
            if j is not None and j != i:
                a, b = find(i), find(j)
                if a != b:
                    parent[a] = b
    groups: dict[int, list[int]] = {}
    for i in range(len(parent)):
        groups.setdefault(find(i), []).append(i)
    return hamlets, list(groups.values())


def domains(board: Board) -> list[_Domain]:
    """The domains of one board (R19), with what income needs to know of each."""
    out: list[_Domain] = []
    for group in domain_groups(board):
        dom = _Domain()
        for item in group:
            if isinstance(item, int):  # a printed hamlet: civil 1, cubes on Reason
                dom.civil += 1
                seat = board.hamlet_cubes.get(item)
                if seat is not None:
                    dom.cubes[seat] = dom.cubes.get(seat, 0) + 1
                continue
            spec = BUILDINGS[item.type]
            if spec.family is Family.CIVIL:
                dom.civil += spec.value
                for s in item.cubes:
                    dom.cubes[s] = dom.cubes.get(s, 0) + 1
                continue
            dom.worth += spec.ruin_value if item.ruin else spec.value
            top = dom.top.get(spec.family)
            if top is None or spec.value > top[0]:
                dom.top[spec.family] = (spec.value, 1, item.owner)
            elif spec.value == top[0]:
                dom.top[spec.family] = (spec.value, top[1] + 1, item.owner)
        out.append(dom)
    return out


_CACHE: dict[tuple[object, ...], tuple[list[float], list[int]]] = {}
_CACHE_MAX = 50_000


def board_incomes(
    board: Board, players: int, careful: bool = False
) -> tuple[list[float], list[int]]:
    """``_board_incomes``, remembered by the board's contents (a search meets the same board
    again and again: most moves change one board or two)."""
    key = (
        board.age,
        players,
        careful,
        tuple((t.type, t.at, t.owner, t.ruin, tuple(t.cubes)) for t in board.tiles),
        tuple(board.hamlet_cubes.items()),
    )
    found = _CACHE.get(key)
    if found is None:
        if len(_CACHE) >= _CACHE_MAX:
            _CACHE.clear()
        found = _CACHE[key] = _board_incomes(board, players, careful)
    return found


def _board_incomes(
    board: Board, players: int, careful: bool = False
) -> tuple[list[float], list[int]]:
    """Per seat: the income an adventurer on ``board`` would collect now (R47-R49), and the
    number of domains whose top (military on Might, religious on Faith) the seat holds.

    ``careful`` discounts what a rival can easily take: a domain held by a low top (a rival
    overtakes it with a higher building) or a cube majority by one cube."""
    income = [0.0] * players
    control = [0] * players
    fam = Family.MILITARY if board.age is Age.MIGHT else Family.RELIGIOUS
    for dom in domains(board):
        if board.age is Age.REASON:
            if dom.cubes and dom.worth:
                counts = sorted(dom.cubes.values(), reverse=True)
                best = counts[0]
                lead = best - (counts[1] if len(counts) > 1 else 0)
                share = MAJORITY_SAFETY[min(lead, 2)] if careful else 1.0
                for s, k in dom.cubes.items():
                    if k == best:
                        income[s] += dom.worth * share
            continue
        top = dom.top.get(fam)
        if top is not None and top[1] == 1 and top[2] is not None:
            share = TOP_SAFETY[top[0]] if careful else 1.0
            income[top[2]] += dom.civil * share
            control[top[2]] += 1
    return income, control


def incomes_to_come(state: GameState, seat: int) -> int:
    """How many income phases (R46) ``seat`` will still reach, counting this turn's own."""
    n = len(state.players)
    done_this_round = (seat - state.first_seat) % n < (state.turn - state.first_seat) % n
    return sum(
        1 for r in INCOME_ROUNDS if r > state.round or (r == state.round and not done_this_round)
    )


def best_placement(income: Sequence[float], at: Sequence[Age]) -> float:
    """The best two boards for the adventurers: their ``income`` less 1 Ecu per adventurer that
    must travel (R13) to get there (paid once, whatever the number of incomes to come)."""
    key = tuple(at)
    moves = _MOVES.get(key)
    if moves is None:
        moves = _MOVES[key] = _placements(at)
    best = 0.0
    for a, b, travels in moves:
        best = max(best, income[a] + (income[b] if b is not a else 0) - travels)
    return best


# where the adventurers stand -> every pair of boards to stand on, with the travels it takes
_MOVES: dict[tuple[Age, ...], list[tuple[Age, Age, int]]] = {}


def _placements(at: Sequence[Age]) -> list[tuple[Age, Age, int]]:
    """Each pair of boards (the same one twice included), with how many of the adventurers
    ``at`` their boards must travel to stand on it: those on a wanted board stay."""
    out = []
    ages = list(Age)
    for i, a in enumerate(ages):
        for b in ages[i:]:
            want = [a, b]
            for w in at:
                if w in want:
                    want.remove(w)
            out.append((a, b, len(want)))
    return out


def seat_values(state: GameState, careful: bool = False) -> list[float]:
    """Each seat's worth in Ecus: what it has plus the income to come, discounted."""
    n = len(state.players)
    if state.over:
        return [float(p.ecus) for p in state.players]
    per_board = [board_incomes(b, n, careful) for b in state.boards]
    out: list[float] = []
    for p in state.players:
        seat = p.seat
        left = incomes_to_come(state, seat)
        value = float(p.ecus)
        if left:
            weight = NEXT_INCOME_WEIGHT + LATER_INCOME_WEIGHT * (left - 1)
            income = [
                weight * (per_board[a][0][seat] + CONTROL_BONUS * per_board[a][1][seat])
                for a in Age
            ]
            value += best_placement(income, p.adventurers)
        out.append(value)
    return out


def relative(values: Sequence[float], seat: int) -> float:
    """``seat``'s value against its rivals: against the one rival in two-player games, against a
    blend of the strongest rival and the rivals' mean with more players."""
    rivals = [v for s, v in enumerate(values) if s != seat]
    if not rivals:
        return values[seat]
    other = LEADER_SHARE * max(rivals) + (1 - LEADER_SHARE) * sum(rivals) / len(rivals)
    return values[seat] - other


def evaluate(state: GameState, seat: int, careful: bool = False) -> float:
    """The score the computer players maximise for ``seat`` (higher is better)."""
    WORK.units += EVALUATE_UNITS
    values = seat_values(state, careful)
    score = relative(values, seat)
    if state.over:
        best = max(values)
        if values[seat] == best:
            score += WIN_BONUS / sum(1 for v in values if v == best)
    return score


def evaluate_all(state: GameState, careful: bool = False) -> list[float]:
    """``evaluate(state, seat, careful)`` for every seat at once (the seats' values are computed
    once): what each seat maximises in a search where every seat plays for itself."""
    WORK.units += EVALUATE_UNITS
    values = seat_values(state, careful)
    scores = [relative(values, seat) for seat in range(len(values))]
    if state.over:
        best = max(values)
        winners = [s for s, v in enumerate(values) if v == best]
        for s in winners:
            scores[s] += WIN_BONUS / len(winners)
    return scores
