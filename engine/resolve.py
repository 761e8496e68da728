"""What a move sets off: ripples (R23-R28), paradoxes (R29-R30), junctions (R31-R32),
downsizing (R33-R35), division (R36) and the choices they ask for (R37).

The work is an agenda of tasks kept in the state. A task that needs a player's choice stops
the agenda with a ``Decision``; the ``choose`` action runs the same task again with the answer.
Ripples and paradoxes never need a choice, so they happen at once, inside the move.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .board import FOOTPRINTS, PRINTED_HAMLETS, Footprint, inner_positions, square_name
from .constants import BUILDINGS, HIERARCHY_ORDER, LADDER, Age, BuildingType, Family
from .domains import BoardIndex, Building, board_index
from .events import Event, event
from .rules import age_code, hierarchy_problem, prompt_words, who
from .state import (
    Choice,
    Decision,
    DownsizeTask,
    GameState,
    JunctionTask,
    SweepTask,
    Task,
    Tile,
    writable_tile,
)
from .words import english, phrase

TaskResult = tuple[bool, list[Task]] | Decision  # (task done?, tasks to run first) or a question
CONTINUE_WITH = False
DONE = True


def tile_words(tile: Tile | Building) -> dict[str, Any]:
    """``"{P1}'s Keep at F6"`` / ``"the Town at C4"`` / ``"the Keep ruin at C4"``, as a
    catalogue phrase."""
    where = square_name(tile.at)
    if isinstance(tile, Building) and tile.printed:
        return phrase("phrase.tile_printed", at=where)
    if tile.owner is not None:
        return phrase("phrase.tile_owned", who=who(tile.owner), type=str(tile.type), at=where)
    return phrase("phrase.tile_ruin" if tile.ruin else "phrase.tile", type=str(tile.type), at=where)


def tile_name(tile: Tile | Building) -> str:
    """``tile_words`` in English."""
    words = tile_words(tile)
    return english(words["key"], words["params"])


def _building_at(b: Building) -> dict[str, Any]:
    return phrase("phrase.building_at", type=str(b.type), at=square_name(b.at))


def cells_of(tile: Tile) -> tuple[int, ...]:
    fp = FOOTPRINTS[BUILDINGS[tile.type].size][tile.at]
    assert fp is not None
    return fp.cells


def new_tile_id(state: GameState) -> int:
    tid = state.next_tile_id
    state.next_tile_id += 1
    return tid


def touched_domains(
    idx: BoardIndex, cells: tuple[int, ...], border: tuple[int, ...]
) -> list[list[int]]:
    """The domains a footprint touches or covers, as lists of building keys (R31 originals)."""
    grid = idx.grid
    keys = {grid[c] for c in cells if grid[c] != 0} | {grid[c] for c in border if grid[c] != 0}
    labels = sorted({idx.label[k] for k in keys})
    return [list(idx.domains[d].members) for d in labels]


# --- removal (R5, R29, R30) ----------------------------------------------------------------


def remove_tile(
    state: GameState,
    age: Age,
    tile: Tile,
    events: list[Event],
    why: dict[str, Any],
    cascade: bool,
) -> None:
    """Take a tile off ``age``: tile to stock, cubes to their owners (R5), population by R30.
    ``why`` is the end of the event's sentence, a catalogue phrase.

    ``cascade``: a Faith tile also takes its own Reason copy with it (R29 decision)."""
    board = state.boards[age]
    board.tiles = [t for t in board.tiles if t.id != tile.id]
    state.stock[tile.type] += 1
    if tile.owner is not None:
        state.players[tile.owner].cubes += 1
    if tile.marker is not None:
        state.players[tile.marker].cubes += 1
    events.append(
        event(
            "removed",
            "event.removed",
            {"tile": tile_words(tile), "age": age_code(age), "why": why},
            age=age,
            squares=list(cells_of(tile)),
            seat=tile.owner,
        )
    )
    if tile.cubes:
        _release_population(state, age, tile, events)
    if cascade and age is Age.FAITH:
        for copy in [t for t in state.boards[Age.REASON].tiles if t.origin == tile.id]:
            why = phrase("phrase.why_faith_gone")
            remove_tile(state, Age.REASON, copy, events, why, False)


def _release_population(state: GameState, age: Age, tile: Tile, events: list[Event]) -> None:
    """R30: cubes go home; over a printed hamlet the clear majority keeps one cube there."""
    counts = Counter(tile.cubes)
    for seat, n in counts.items():
        state.players[seat].cubes += n
    # (the tile is off the board already and may still be the original state's: left as it is)
    cells = set(cells_of(tile))
    hamlets = [sq for sq in PRINTED_HAMLETS if sq in cells]
    if not hamlets:
        return
    leaders = _leaders(counts)
    tie_broken = False
    if len(leaders) > 1 and state.provoker in leaders:
        del counts[state.provoker]  # R30: on a tie the provoker's cubes come off first
        leaders = _leaders(counts)
        tie_broken = True
    board = state.boards[age]
    if len(leaders) == 1:
        keeper = leaders[0]
        board.hamlet_cubes[hamlets[0]] = keeper
        state.players[keeper].cubes -= 1
        why = phrase("phrase.cubes_provoker_off" if tie_broken else "phrase.cubes_lost_building")
        events.append(
            event(
                "hamlet_cube",
                "event.hamlet_cube",
                {"who": who(keeper), "at": square_name(hamlets[0]), "why": why},
                age=age,
                squares=[hamlets[0]],
                seat=keeper,
            )
        )
    else:
        events.append(
            event(
                "hamlet_cube",
                "event.hamlet_empty",
                {"at": square_name(hamlets[0])},
                age=age,
                squares=[hamlets[0]],
            )
        )


def _leaders(counts: Counter[int]) -> list[int]:
    if not counts:
        return []
    top = max(counts.values())
    return sorted(s for s, n in counts.items() if n == top)


# --- ripples (R23-R30) -----------------------------------------------------------------------


def ripple(
    state: GameState,
    age: Age,
    src: Tile,
    events: list[Event],
    tasks: list[Task],
    until: Age = Age.REASON,
) -> None:
    """Copy ``src`` (just built or upgraded on ``age``) onto the later boards up to ``until``."""
    while age < until:
        spec = BUILDINGS[src.type]
        if spec.size == 1:  # R23
            return
        dst = Age(age + 1)
        copy = _ripple_step(state, age, dst, src, events, tasks)
        if copy is None:
            return
        age, src = dst, copy


@dataclass(frozen=True)
class _Copy:
    """One step of a ripple: ``src``, on board ``age``, copied onto board ``dst`` (R24-R25)."""

    age: Age
    dst: Age
    src: Tile
    fp: Footprint
    owner: int | None  # the copy's cube: a military/religious copy on Faith only
    lineage: Tile | None  # the building's own earlier copy on ``dst``: replaced, no paradox

    @property
    def civil(self) -> bool:
        return BUILDINGS[self.src.type].family is Family.CIVIL

    @property
    def on_reason(self) -> bool:
        return self.dst is Age.REASON

    @property
    def needs_cube(self) -> bool:
        """A new cube of the owner goes on the copy (its earlier copy's cube stays if his)."""
        lineage = self.lineage
        return self.owner is not None and not (lineage is not None and lineage.owner == self.owner)

    @property
    def where(self) -> str:
        return square_name(self.src.at)

    def what(self) -> dict[str, Any]:
        """The copy as a catalogue phrase: "a Keep", or onto Reason "a Keep ruin"."""
        ruin = self.on_reason and not self.civil
        key = "phrase.ripple_what_ruin" if ruin else "phrase.ripple_what"
        return phrase(key, type=str(self.src.type))


def _ripple_step(
    state: GameState, age: Age, dst: Age, src: Tile, events: list[Event], tasks: list[Task]
) -> Tile | None:
    """Copy ``src`` from ``age`` onto ``dst``: returns the copy, or None where rippling stops
    (R26 nothing to make it with, R27 blocked)."""
    step = _copy_step(state, age, dst, src)
    if _lacks_tile_or_cube(state, step, events):  # R26
        return None
    overlapped = _overlapped(state, step)
    if _blocked_copy(state, step, overlapped, events):  # R27
        return None
    _paradox(state, step, overlapped, events)  # R29
    originals: list[list[int]] = []
    if step.civil:
        after = board_index(state.boards[dst])
        originals = touched_domains(after, step.fp.cells, step.fp.border)
    copy, moved = _place_copy(state, step)
    _population_moves_on(state, step, copy, moved)  # R30
    events.append(_rippled_event(step))
    if step.civil and len(originals) >= 2:  # R28
        _copy_junction(step, copy, originals, events, tasks)
    return copy


def _copy_step(state: GameState, age: Age, dst: Age, src: Tile) -> _Copy:
    """What copying ``src`` onto ``dst`` involves: its footprint, cube and earlier copy."""
    on_reason = dst is Age.REASON
    civil = BUILDINGS[src.type].family is Family.CIVIL
    lineage = next((t for t in state.boards[dst].tiles if t.origin == src.id), None)
    fp = FOOTPRINTS[BUILDINGS[src.type].size][src.at]
    assert fp is not None
    owner = None if civil or on_reason else src.owner
    return _Copy(age=age, dst=dst, src=src, fp=fp, owner=owner, lineage=lineage)


def _lacks_tile_or_cube(state: GameState, step: _Copy, events: list[Event]) -> bool:
    """R26: each copy needs its own tile and, for a Faith military/religious copy, a cube of
    the owner. Says so and returns True when one is missing (rippling stops here)."""
    src, lineage, owner = step.src, step.lineage, step.owner
    code = str(src.type)
    spare = 1 if lineage is not None and lineage.type is src.type else 0
    params: dict[str, Any] = {"what": step.what(), "where": step.where, "to": age_code(step.dst)}
    if state.stock[src.type] + spare <= 0:
        params["type"] = code
        events.append(event("not_rippled", "event.no_ripple_stock", params, age=step.dst))
        return True
    if step.needs_cube and owner is not None and state.players[owner].cubes <= 0:
        params["who"] = who(owner)
        events.append(event("not_rippled", "event.no_ripple_cube", params, age=step.dst))
        return True
    return False


def _overlapped(state: GameState, step: _Copy) -> list[int]:
    """R29: the other buildings (tiles, not printed hamlets) the copy's footprint overlaps on
    ``dst``, in reading order; the building's own earlier copy is not one of them."""
    idx = board_index(state.boards[step.dst])
    skip = step.lineage.id if step.lineage is not None else 0
    grid = idx.grid
    return sorted(
        {grid[c] for c in step.fp.cells if grid[c] > 0 and grid[c] != skip},
        key=lambda k: idx.buildings[k].at,
    )


def _blocked_copy(
    state: GameState, step: _Copy, overlapped: list[int], events: list[Event]
) -> bool:
    """R27: a military/religious copy on Faith that would break Dominion (R20) or Hierarchy
    (R21) is not placed (and nothing reaches Reason). It is judged as if the buildings it
    overlaps were gone, and as an upgrade of its own earlier copy, if it has one: R20 counts
    the domains the others touching it have with that copy still there (``joined_domains``).
    Says so and returns True when blocked."""
    if step.civil or step.dst is not Age.FAITH:
        return False
    board = state.boards[step.dst]
    judge = BoardIndex(board, exclude=overlapped) if overlapped else board_index(board)
    own = {step.lineage.id} if step.lineage is not None else set()
    name = phrase("phrase.its_copy_at", at=step.where)
    problem = hierarchy_problem(judge, step.dst, step.src.type, step.fp, own, name)
    if problem is None:
        return False
    params = {
        "what": step.what(),
        "where": step.where,
        "problem": phrase(problem.key, **problem.params),
    }
    events.append(
        event(
            "not_rippled",
            "event.no_ripple_hierarchy",
            params,
            age=step.dst,
            squares=list(step.fp.cells),
        )
    )
    return True


def _paradox(state: GameState, step: _Copy, overlapped: list[int], events: list[Event]) -> None:
    """R29: the copy removes every different building it overlaps on ``dst`` (a Faith one
    with its own Reason copy)."""
    board = state.boards[step.dst]
    for key in overlapped:
        victim = board.tile(key)
        if victim is not None:
            why = phrase("phrase.why_paradox", type=str(step.src.type), age=age_code(step.age))
            remove_tile(state, step.dst, victim, events, why, cascade=True)


def _place_copy(state: GameState, step: _Copy) -> tuple[Tile, list[int]]:
    """Put the copy on ``dst`` (R24-R25): the earlier copy's tile takes the new type, square
    and cube, or a new tile from the stock. Returns the copy and the population cubes that
    stood on the earlier copy (placed by ``_population_moves_on``)."""
    board = state.boards[step.dst]
    src, lineage, owner = step.src, step.lineage, step.owner
    ruin = step.on_reason and not step.civil
    moved: list[int] = []
    if lineage is not None:
        state.stock[lineage.type] += 1
        if lineage.marker is not None:
            state.players[lineage.marker].cubes += 1  # R25/R34: the marker goes home
        moved = list(lineage.cubes)
        copy = writable_tile(state, step.dst, lineage)
        copy.type = src.type
        copy.at = src.at
        copy.ruin = ruin
        copy.marker = None
        copy.cubes = []
        if owner is not None and copy.owner != owner:
            if copy.owner is not None:
                state.players[copy.owner].cubes += 1
            state.players[owner].cubes -= 1
            copy.owner = owner
    else:
        copy = Tile(
            id=new_tile_id(state), type=src.type, at=src.at, owner=owner, ruin=ruin, origin=src.id
        )
        board.tiles.append(copy)
        if owner is not None:
            state.players[owner].cubes -= 1
    state.stock[src.type] -= 1
    return copy, moved


def _population_moves_on(state: GameState, step: _Copy, copy: Tile, moved: list[int]) -> None:
    """R30: the cubes on the covered Reason building (the own earlier copy, a printed hamlet)
    move onto the copy, up to its capacity; the rest go back to their owners."""
    board = state.boards[step.dst]
    for sq in PRINTED_HAMLETS:
        if sq in step.fp.cells and sq in board.hamlet_cubes:
            moved.append(board.hamlet_cubes.pop(sq))
    if moved:
        copy.cubes = moved[: BUILDINGS[copy.type].value] if step.civil else []
        for seat in moved[len(copy.cubes) :]:
            state.players[seat].cubes += 1


def _rippled_event(step: _Copy) -> Event:
    params: dict[str, Any] = {
        "what": phrase("phrase.ripple_what", type=str(step.src.type)),
        "where": step.where,
        "to": age_code(step.dst),
    }
    said = "event.rippled"
    if step.needs_cube and step.owner is not None:
        said, params["who"] = "event.rippled_cube", who(step.owner)
    elif step.on_reason and not step.civil:
        said = "event.rippled_ruin"
    return event(
        "rippled", said, params, age=step.dst, squares=list(step.fp.cells), seat=step.owner
    )


def _copy_junction(
    step: _Copy,
    copy: Tile,
    originals: list[list[int]],
    events: list[Event],
    tasks: list[Task],
) -> None:
    """R28: a civil copy that joins domains is a junction (R31) on Faith; on Reason it is
    only said (no Hierarchy there)."""
    code, dst = str(step.src.type), step.dst
    events.append(
        event(
            "junction",
            "event.junction_copy_reason" if step.on_reason else "event.junction_copy",
            {"type": code, "where": step.where, "n": len(originals), "age": age_code(dst)},
            age=dst,
            squares=list(step.fp.cells),
        )
    )
    if not step.on_reason:
        tasks.append(
            JunctionTask(
                age=dst, joiner=copy.id, originals=originals, families=list(HIERARCHY_ORDER[dst])
            )
        )


# --- downsizing (R33-R35) --------------------------------------------------------------------


def smaller_type(state: GameState, btype: BuildingType) -> BuildingType | None:
    """R33: the next smaller tile in stock, or None (the building is destroyed)."""
    ladder = LADDER[BUILDINGS[btype].family]
    size = BUILDINGS[btype].size
    for t in reversed(ladder[: size - 1]):
        if state.stock[t] > 0:
            return t
    return None


def _default_position(
    state: GameState, age: Age, tile: Tile, new_type: BuildingType, positions: Sequence[int]
) -> int:
    """R37: the position that keeps the tile in the largest domain, ties in reading order."""
    old_type, old_at = tile.type, tile.at
    best, best_size = 0, -1
    for i, pos in enumerate(positions):
        tile.type, tile.at = new_type, pos
        idx = BoardIndex(state.boards[age])
        size = len(idx.domain_of(tile.id).members)
        if size > best_size:
            best, best_size = i, size
    tile.type, tile.at = old_type, old_at
    return best


def run_downsize(
    state: GameState, task: DownsizeTask, choice: int | None, events: list[Event]
) -> TaskResult:
    board = state.boards[task.age]
    found = board.tile(task.tile_id)
    if found is None:
        return DONE, []
    tile = writable_tile(state, task.age, found)  # its type and square change (or are tried)
    old_type, owner = tile.type, tile.owner
    assert owner is not None, "only military and religious buildings are downsized"
    new_type = smaller_type(state, old_type)
    if new_type is None:
        why = phrase("phrase.why_downsized_destroyed")
        remove_tile(state, task.age, tile, events, why, cascade=False)
        _destroy_copies(state, task.age, tile.id, old_type, owner, events)
        _recheck(state, task.age)
        return DONE, []
    size = BUILDINGS[old_type].size
    positions = inner_positions(tile.at, size, BUILDINGS[new_type].size)
    if choice is None:
        prompt = phrase(
            "phrase.prompt_place", tile=tile_words(tile), age=age_code(task.age), new=str(new_type)
        )
        return Decision(
            seat=owner,
            kind="place_downsized",
            age=task.age,
            prompt=english(prompt["key"], prompt["params"]),
            words=prompt,
            options=[Choice(label=square_name(p), at=p) for p in positions],
            default=_default_position(state, task.age, tile, new_type, positions),
        )
    pos = positions[choice]
    before = list(cells_of(tile))
    state.stock[old_type] += 1
    state.stock[new_type] -= 1
    tile.type, tile.at = new_type, pos
    events.append(
        event(
            "downsized",
            "event.downsized",
            {
                "who": who(owner),
                "old": str(old_type),
                "from": square_name(before[0]),
                "age": age_code(task.age),
                "new": str(new_type),
                "at": square_name(pos),
            },
            age=task.age,
            squares=before,
            seat=owner,
        )
    )
    last = _destroy_copies(state, task.age, tile.id, old_type, owner, events)
    if last is not None and BUILDINGS[new_type].size >= 2:
        # R34: the new Keep/Monastery ripples in its place as a construction does (R24-R30).
        ripple(state, task.age, tile, events, [], until=last)
    _recheck(state, task.age)
    return DONE, []


def _destroy_copies(
    state: GameState,
    age: Age,
    src_id: int,
    old_type: BuildingType,
    owner: int | None,
    events: list[Event],
) -> Age | None:
    """R34-R35: destroy the copies of a downsized building that are still identical, board
    after board; returns the last board where one was destroyed (None: none was)."""
    last: Age | None = None
    while age is not Age.REASON:
        nxt = Age(age + 1)
        copy = next((t for t in state.boards[nxt].tiles if t.origin == src_id), None)
        if copy is None:
            return last
        if copy.type is not old_type or (nxt is not Age.REASON and copy.owner != owner):
            events.append(
                event(
                    "copy_kept",
                    "event.copy_kept",
                    {"tile": tile_words(copy), "age": age_code(nxt)},
                    age=nxt,
                )
            )
            return last
        why = phrase("phrase.why_with_original")
        remove_tile(state, nxt, copy, events, why, cascade=False)
        last = nxt
        age, src_id = nxt, copy.id
    return last


def _recheck(state: GameState, age: Age) -> None:
    """R36: after a downsizing on ``age``, the domains of ``age`` and of the later boards with
    Hierarchy (Might, Faith) are checked again, even when the running task began elsewhere."""
    for board in (Age.MIGHT, Age.FAITH):
        if board >= age and not any(
            isinstance(t, SweepTask) and t.age is board for t in state.agenda[1:]
        ):
            state.agenda.append(SweepTask(age=board))


# --- junctions and division (R31, R32, R36) --------------------------------------------------


def _pick_and_downsize(
    state: GameState, age: Age, tops: list[Building], choice: int | None, why: dict[str, Any]
) -> TaskResult:
    """R32/R36: the provoker's own tied buildings go first; if he owns none, he chooses."""
    prov = state.provoker
    mine = [b for b in tops if b.owner == prov]
    if len(mine) == 1:
        return CONTINUE_WITH, [DownsizeTask(age=age, tile_id=mine[0].key)]
    pool = mine or tops
    if choice is None:
        assert prov is not None
        prompt = phrase("phrase.prompt_which_mine" if mine else "phrase.prompt_which", why=why)
        return Decision(
            seat=prov,
            kind="downsize_which",
            age=age,
            prompt=english(prompt["key"], prompt["params"]),
            words=prompt,
            options=[
                Choice(label=tile_name(b), words=tile_words(b), tile_id=b.key) for b in pool
            ],
            default=0,
        )
    return CONTINUE_WITH, [DownsizeTask(age=age, tile_id=pool[choice].key)]


def run_junction(
    state: GameState, task: JunctionTask, choice: int | None, events: list[Event]
) -> TaskResult:
    idx = board_index(state.boards[task.age])
    if task.joiner not in idx.buildings:
        return DONE, []
    members = idx.domain_of(task.joiner).members
    while task.families:
        fam = task.families[0]
        tops = idx.top_buildings(members, fam)
        if len(tops) < 2:
            task.families.pop(0)
            continue

        def origin(key: int) -> int:
            for i, o in enumerate(task.originals):
                if key in o:
                    return i
            return len(task.originals) + key  # not in any original: a domain of its own

        def power(i: int, fam: Family = fam) -> int:
            keys = task.originals[i] if 0 <= i < len(task.originals) else []
            return sum(
                idx.buildings[k].value
                for k in keys
                if k in idx.buildings and idx.buildings[k].family is fam
            )

        powers = {origin(b.key): power(origin(b.key)) for b in tops}
        strongest = max(powers.values())
        weaker = [b for b in tops if powers[origin(b.key)] < strongest]
        names = [_building_at(b) for b in tops]
        listing = ", ".join(str(p) for p in sorted(powers.values(), reverse=True))
        params = {
            "age": age_code(task.age),
            "names": names,
            "family": str(fam),
            "listing": listing,
        }
        if weaker:
            events.append(
                event(
                    "junction_power",
                    "event.junction_power",
                    params,
                    age=task.age,
                )
            )
            return CONTINUE_WITH, [DownsizeTask(age=task.age, tile_id=b.key) for b in weaker]
        return _pick_and_downsize(
            state,
            task.age,
            tops,
            choice,
            phrase("phrase.junction_tie", **params),
        )
    return DONE, []


def _first_tie(idx: BoardIndex, age: Age) -> tuple[int, Family] | None:
    """R36: the first domain (and family, in ``age``'s order) whose top buildings tie, or None.
    It depends on the board's tiles only: kept on the shared index."""
    if age in idx.first_tie:
        return idx.first_tie[age]
    found: tuple[int, Family] | None = None
    for d, dom in enumerate(idx.domains):
        for fam in HIERARCHY_ORDER[age]:
            top = dom.top.get(fam)
            if top is not None and top[1] >= 2:
                found = (d, fam)
                break
        if found is not None:
            break
    idx.first_tie[age] = found
    return found


def run_sweep(
    state: GameState, task: SweepTask, choice: int | None, events: list[Event]
) -> TaskResult:
    idx = board_index(state.boards[task.age])
    tie = _first_tie(idx, task.age)
    if tie is None:
        return DONE, []
    d, fam = tie
    tops = idx.top_buildings(idx.domains[d].members, fam)
    names = [_building_at(b) for b in tops]
    why = phrase("event.division", age=age_code(task.age), names=names)
    if choice is None:  # (a choice re-runs the same sweep: said once)
        events.append(event("division", why["key"], why["params"], age=task.age))
    return _pick_and_downsize(state, task.age, tops, choice, why)


def run_agenda(state: GameState, events: list[Event], choice: int | None = None) -> None:
    """Run tasks until the agenda is empty or a task asks a player to choose."""
    while state.agenda:
        task = state.agenda[0]
        if isinstance(task, JunctionTask):
            outcome = run_junction(state, task, choice, events)
        elif isinstance(task, SweepTask):
            outcome = run_sweep(state, task, choice, events)
        else:
            outcome = run_downsize(state, task, choice, events)
        choice = None
        if isinstance(outcome, Decision):
            state.pending = outcome
            events.append(
                event(
                    "decision",
                    "event.decision",
                    {"who": who(outcome.seat), "prompt": prompt_words(outcome)},
                    seat=outcome.seat,
                    age=outcome.age,
                )
            )
            return
        done, first = outcome
        if done:
            state.agenda.pop(0)
        state.agenda[0:0] = first
    state.pending = None
    state.provoker = None


def after_build(
    state: GameState,
    seat: int,
    age: Age,
    tile: Tile,
    originals: list[list[int]],
    events: list[Event],
) -> None:
    """Everything a construct or upgrade on Might/Faith sets off, then its resolution."""
    state.provoker = seat
    tasks: list[Task] = []
    if BUILDINGS[tile.type].family is Family.CIVIL and len(originals) >= 2:
        events.append(
            event(
                "junction",
                "event.junction",
                {
                    "type": str(tile.type),
                    "at": square_name(tile.at),
                    "n": len(originals),
                    "age": age_code(age),
                },
                age=age,
                squares=list(cells_of(tile)),
            )
        )
        tasks.append(
            JunctionTask(
                age=age, joiner=tile.id, originals=originals, families=list(HIERARCHY_ORDER[age])
            )
        )
    ripple(state, age, tile, events, tasks)
    tasks += [SweepTask(age=a) for a in (Age.MIGHT, Age.FAITH) if a >= age]
    state.agenda = tasks + state.agenda
    run_agenda(state, events)


def after_removal(state: GameState, seat: int, age: Age, events: list[Event]) -> None:
    """R36 after a demolition: the divided domains must obey Hierarchy, on this board and,
    since a downsizing there reaches the later boards, on Faith too."""
    state.provoker = seat
    sweeps: list[Task] = [SweepTask(age=a) for a in (Age.MIGHT, Age.FAITH) if a >= age]
    state.agenda = [*sweeps, *state.agenda]
    run_agenda(state, events)
