"""Legality in one place (style 4): the rule functions that ``check`` raises from and that
``legal_actions`` and the autocomplete queries filter with."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from .board import FOOTPRINTS, Footprint, outer_positions, square_name
from .constants import (
    BUILDINGS,
    CARDS_PER_ADVENTURER,
    LADDER,
    Age,
    BuildingType,
    Family,
    forest_surcharge,
    mountain_surcharge,
)
from .domains import BoardIndex, Building
from .errors import IllegalAction
from .state import GameState, Player

FAMILY_ORDER = (Family.MILITARY, Family.RELIGIOUS, Family.CIVIL)


def who(seat: int) -> str:
    """A token the service replaces with the player's name (see ``events.format_text``)."""
    return f"{{P{seat}}}"


def article(btype: BuildingType) -> str:
    return "an" if btype.label[0] in "AEIOU" else "a"


def board_name(age: Age) -> str:
    return age.label


class Ctx:
    """Per-call cache of board indexes."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self._idx: dict[Age, BoardIndex] = {}

    def index(self, age: Age) -> BoardIndex:
        idx = self._idx.get(age)
        if idx is None:
            idx = BoardIndex(self.state.boards[age])
            self._idx[age] = idx
        return idx


# --- cards and adventurers (R13, R14) --------------------------------------------------------


def allowance(player: Player, age: Age) -> int:
    """Cards the player may still play on ``age`` this turn (R14).

    R14 is a matching: every card played this turn must be assignable to an adventurer that
    stood on its board when it was played, at most 2 per adventurer. With two adventurers the
    cards fall in three bins: those only adventurer 0 could pay (``used[0]``), only adventurer 1
    (``used[1]``), or either (``shared``). By Hall's theorem an assignment exists exactly when
    ``used[0] <= 2``, ``used[1] <= 2`` and the total is at most 4, so ``k`` more cards fit on a
    board where only adventurer ``i`` stands when ``used[i] + k <= 2`` and the total stays within
    4, and on a board where both stand when the total stays within 4."""
    here = [i for i, where in enumerate(player.adventurers) if where is age]
    if not here:
        return 0
    total_left = CARDS_PER_ADVENTURER * len(player.adventurers) - played(player)
    if len(here) == len(player.adventurers):
        return total_left
    return min(CARDS_PER_ADVENTURER - player.used[here[0]], total_left)


def adventurer_left(player: Player, i: int) -> int:
    """Cards adventurer ``i`` could still pay alone this turn (R14), wherever it goes."""
    total_left = CARDS_PER_ADVENTURER * len(player.adventurers) - played(player)
    return min(CARDS_PER_ADVENTURER - player.used[i], total_left)


def played(player: Player) -> int:
    """Cards played this turn on boards (R14)."""
    return sum(player.used) + player.shared


def has_cards(hand: Sequence[Family], cards: Iterable[Family]) -> bool:
    have = Counter(hand)
    need = Counter(cards)
    return all(have[f] >= n for f, n in need.items())


def surcharge(fp: Footprint, players: int) -> int:
    """R18: extra cards of any family for forest and mountain under the footprint."""
    extra = 0
    if fp.forest:
        extra += forest_surcharge(players)
    if fp.mountain:
        extra += mountain_surcharge(players)
    return extra


def default_surcharge(hand: Sequence[Family], base: Sequence[Family], n: int) -> tuple[Family, ...]:
    """The cards the engine pays a surcharge with when the player does not say: always from the
    family he holds most of after the base cost, so his hand stays as varied as it can."""
    left = Counter(hand)
    left.subtract(base)
    out: list[Family] = []
    for _ in range(n):
        fam = max(FAMILY_ORDER, key=lambda f: (left[f], -FAMILY_ORDER.index(f)))
        if left[fam] <= 0:
            break
        left[fam] -= 1
        out.append(fam)
    return tuple(sorted(out, key=FAMILY_ORDER.index))


def surcharge_options(
    hand: Sequence[Family], base: Sequence[Family], n: int
) -> list[tuple[Family, ...]]:
    """Every distinct multiset of ``n`` cards the hand can pay a surcharge with after ``base``."""
    if n == 0:
        return [()]
    left = Counter(hand)
    left.subtract(base)
    out: list[tuple[Family, ...]] = []

    def rec(i: int, k: int, acc: list[Family]) -> None:
        if k == 0:
            out.append(tuple(acc))
            return
        if i == len(FAMILY_ORDER):
            return
        fam = FAMILY_ORDER[i]
        for take in range(min(k, max(left[fam], 0)), -1, -1):
            rec(i + 1, k - take, acc + [fam] * take)

    rec(0, n, [])
    return out


def payment_problem(
    state: GameState, seat: int, age: Age, cards: Sequence[Family], what: str
) -> IllegalAction | None:
    """R14 and the hand: can ``seat`` pay ``cards`` on ``age`` now?"""
    player = state.players[seat]
    if age not in player.adventurers:
        return IllegalAction(
            f"R14 Adventurers: you have no adventurer in the age of {age.label}; "
            f"travel there first (1 Ecu).",
            "R14",
        )
    if not has_cards(player.hand, cards):
        need = Counter(cards)
        have = Counter(player.hand)
        short = ", ".join(f"{n - have[f]} {f.value}" for f, n in need.items() if have[f] < n)
        return IllegalAction(
            f"R15 Cards: {what} needs {_cards_text(cards)}, and your hand lacks {short}.",
            "R15",
        )
    room = allowance(player, age)
    if len(cards) > room:
        return IllegalAction(
            f"R14 Card limit: {what} costs {len(cards)} cards, but your adventurers in the age "
            f"of {age.label} can play only {room} more this turn (2 per adventurer).",
            "R14",
        )
    return None


def _cards_text(cards: Sequence[Family]) -> str:
    c = Counter(cards)
    parts = [f"{c[f]} {f.value}" for f in FAMILY_ORDER if c[f]]
    return " + ".join(parts) + (" card" if len(cards) == 1 else " cards")


cards_text = _cards_text


# --- construct (R15, R18, R20, R21) ----------------------------------------------------------


@dataclass(frozen=True)
class Placement:
    """A legal footprint for a construct or upgrade, with its cost in cards."""

    at: int
    family: Family
    base: int  # cards of the family
    extra: int  # surcharge cards of any family

    @property
    def total(self) -> int:
        return self.base + self.extra


# A refusal without its sentence, for the generators that only need a yes or a no.
ILLEGAL = IllegalAction("", "")


def construct_problem(
    ctx: Ctx, age: Age, btype: BuildingType, at: int, explain: bool = True
) -> IllegalAction | None:
    """Board-side legality of a construction (no cards): R15, R18, R20, R21, R40.

    With ``explain=False`` a refusal is the shared ``ILLEGAL`` (no sentence is built)."""

    def name() -> str:
        return f"{article(btype).capitalize()} {btype.label} at {square_name(at)}"

    if age is Age.REASON:
        if not explain:
            return ILLEGAL
        return IllegalAction(
            "R40 Reason: nothing is constructed in the age of Reason; there you populate and "
            "renovate.",
            "R40",
        )
    spec = BUILDINGS[btype]
    fp = FOOTPRINTS[spec.size][at]
    if fp is None:
        if not explain:
            return ILLEGAL
        return IllegalAction(
            f"R15 Grid: {name()} would stick out of the board; a size-"
            f"{spec.size} building needs {spec.size}x{spec.size} squares inside A1-T16.",
            "R15",
        )
    idx = ctx.index(age)
    grid = idx.grid
    for c in fp.cells:
        if grid[c] != 0:
            if not explain:
                return ILLEGAL
            occupant = idx.buildings[grid[c]]
            kind = (
                "a printed Hamlet"
                if occupant.printed
                else f"{article(occupant.type)} {occupant.type.label}"
            )
            return IllegalAction(
                f"R15 Empty squares: {square_name(c)} on {age.label} already holds {kind}; "
                f"a building is constructed on empty squares only.",
                "R15",
            )
    if fp.river and btype not in (BuildingType.TOWN, BuildingType.CITY):
        if not explain:
            return ILLEGAL
        return IllegalAction(
            f"R18 River: {name()} would cover a river square; only a Town or City may stand "
            f"on the river.",
            "R18",
        )
    if ctx.state.stock[btype] <= 0:
        if not explain:
            return ILLEGAL
        return IllegalAction(f"R15 Stock: no {btype.label} tile is left in the stock.", "R15")
    if spec.family is not Family.CIVIL:
        return hierarchy_problem(idx, age, btype, fp, set(), name, explain)
    return None


def hierarchy_problem(
    idx: BoardIndex,
    age: Age,
    btype: BuildingType,
    fp: Footprint,
    own: set[int],
    name: str | Callable[[], str],
    explain: bool = True,
) -> IllegalAction | None:
    """R20 Dominion and R21 Hierarchy for a military/religious footprint.

    ``own`` holds the key of the building being upgraded (its domain is its own, not joined)."""
    spec = BUILDINGS[btype]
    keys = idx.neighbour_keys(fp.cells, fp.border) - own
    label = idx.label
    joined = {label[k] for k in keys} | {label[k] for k in own}
    if len(joined) >= 2:
        if not explain:
            return ILLEGAL
        return IllegalAction(
            f"R20 Dominion: {_text(name)} would join two domains; only a civil building may "
            f"join domains.",
            "R20",
        )
    if not joined:
        return None
    dom = idx.domains[joined.pop()]
    if own:
        tops = idx.top_buildings([m for m in dom.members if m not in own], spec.family)
        top_value = tops[0].value if tops else 0
    else:
        top_value = dom.top.get(spec.family, (0, 0))[0]
    if top_value == spec.value:
        if not explain:
            return ILLEGAL
        rival = idx.top_buildings([m for m in dom.members if m not in own], spec.family)[0]
        return IllegalAction(
            f"R21 Hierarchy: {_text(name)} would equal the {rival.type.label} at "
            f"{square_name(rival.at)}, the highest {spec.family.value} building of its domain; "
            f"build lower or higher.",
            "R21",
        )
    return None


def _text(name: str | Callable[[], str]) -> str:
    return name if isinstance(name, str) else name()


def construct_placement(ctx: Ctx, age: Age, btype: BuildingType, at: int) -> Placement:
    spec = BUILDINGS[btype]
    fp = FOOTPRINTS[spec.size][at]
    assert fp is not None
    return Placement(at, spec.family, spec.value, surcharge(fp, ctx.state.options.players))


def legal_construct_squares(ctx: Ctx, age: Age, btype: BuildingType) -> list[Placement]:
    """Every top-left square where ``btype`` may stand on ``age`` (board rules only)."""
    out = []
    size = BUILDINGS[btype].size
    for at, fp in enumerate(FOOTPRINTS[size]):
        if fp is None:
            continue
        if construct_problem(ctx, age, btype, at, explain=False) is None:
            out.append(construct_placement(ctx, age, btype, at))
    return out


# --- upgrade (R16) ---------------------------------------------------------------------------


def upgrade_targets(btype: BuildingType) -> list[BuildingType]:
    """Bigger types of the same family (R16: skipping a size is allowed)."""
    ladder = LADDER[BUILDINGS[btype].family]
    size = BUILDINGS[btype].size
    return [t for t in ladder if BUILDINGS[t].size > size]


def upgrade_problem(
    ctx: Ctx, seat: int, age: Age, building: Building, to: BuildingType, at: int
) -> IllegalAction | None:
    """Board-side legality of an upgrade (no cards): R16, R18, R20, R21, R40."""
    if age is Age.REASON:
        return IllegalAction("R40 Reason: nothing is upgraded in the age of Reason.", "R40")
    old = building.type
    what = "printed Hamlet" if building.printed else old.label
    if BUILDINGS[to].family is not building.family or to not in upgrade_targets(old):
        return IllegalAction(
            f"R16 Upgrade: a {what} can become only a bigger building of its own family "
            f"({', '.join(t.label for t in upgrade_targets(old)) or 'none'}).",
            "R16",
        )
    if building.family is not Family.CIVIL and building.owner != seat:
        return IllegalAction(
            f"R16 Upgrade: the {what} at {square_name(building.at)} is not yours; you may upgrade "
            f"military and religious buildings you control, and any civil building.",
            "R16",
        )
    size = BUILDINGS[to].size
    fp = FOOTPRINTS[size][at]
    old_size = BUILDINGS[old].size
    if fp is None or at not in outer_positions(building.at, old_size, size):
        return IllegalAction(
            f"R16 Upgrade: a {to.label} at {square_name(at)} would not cover the whole "
            f"{what} at {square_name(building.at)} inside the board.",
            "R16",
        )
    idx = ctx.index(age)
    inside = set(building.cells)
    for c in fp.cells:
        if c in inside:
            continue
        if idx.grid[c] != 0:
            return IllegalAction(
                f"R16 Upgrade: the {to.label} would also cover {square_name(c)}, which is not "
                f"empty; several buildings may not be merged into one.",
                "R16",
            )
    if fp.river and to not in (BuildingType.TOWN, BuildingType.CITY):
        return IllegalAction(
            f"R18 River: a {to.label} at {square_name(at)} would cover a river square; only a "
            f"Town or City may stand on the river.",
            "R18",
        )
    if ctx.state.stock[to] <= 0:
        return IllegalAction(f"R16 Stock: no {to.label} tile is left in the stock.", "R16")
    if building.family is not Family.CIVIL:
        name = f"upgrading the {what} at {square_name(building.at)} to a {to.label}"
        return hierarchy_problem(idx, age, to, fp, {building.key}, name)
    return None


def upgrade_placement(ctx: Ctx, building: Building, to: BuildingType, at: int) -> Placement:
    fp = FOOTPRINTS[BUILDINGS[to].size][at]
    assert fp is not None
    base = BUILDINGS[to].value - building.value
    return Placement(at, building.family, base, surcharge(fp, ctx.state.options.players))


def legal_upgrade_placements(
    ctx: Ctx, seat: int, age: Age, building: Building, to: BuildingType
) -> list[Placement]:
    size = BUILDINGS[to].size
    out = []
    for at in outer_positions(building.at, BUILDINGS[building.type].size, size):
        if upgrade_problem(ctx, seat, age, building, to, at) is None:
            out.append(upgrade_placement(ctx, building, to, at))
    return out
