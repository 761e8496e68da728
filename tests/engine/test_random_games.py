"""Property test: random legal games to the end, by the uniform player and by the
scenario-seeking one (engine/random_player.py), every invariant of RULES.md section 9 checked
after every action, JSON round trip, replay from seed + log, and a tally of the
cascades the games set off (R23-R37): each kind must happen at least ``AT_LEAST`` times. Every
event is also worded in French and German (engine/words.py). The games are checked in
``CHUNKS`` tests that pytest-xdist spreads over the cores; the tally adds up their cascades
(those of games checked in another process are played again for them).

KHRONOS_LONG_RUN=N plays N games of each player instead of the CI default."""

from __future__ import annotations

import os
import random
import re
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    Choose,
    Event,
    GameState,
    Options,
    apply,
    current_seat,
    default_choice,
    describe,
    describe_lines,
    describe_prompt,
    dump_action,
    invariant_problems,
    new_game,
    parse_action,
)
from engine.actions import Action
from engine.random_player import (
    CASCADE_KINDS,
    Chooser,
    cascade_counts,
    play_random_game,
    random_action,
    seeking_action,
)

LONG = os.environ.get("KHRONOS_LONG_RUN")
UNIFORM_GAMES = int(LONG or 24)
SEEKING_GAMES = int(LONG or 110)
AT_LEAST = 10
# The rarest kind (R26: a ripple stopped for want of a tile or cube) comes about once in 13
# seeking games, so after its SEEKING_GAMES the CI run plays further seeded seeking games until
# every kind has come AT_LEAST times, up to SEEKING_CAP games in all.
REQUIRED = list(CASCADE_KINDS)
SEEKING_CAP = int(LONG or 260)
CHUNKS = 8  # the games are checked in this many tests, which pytest-xdist spreads


def _game(
    options: Options, seed: int, player: Chooser, use_defaults: bool
) -> Iterator[tuple[int, Action, int, GameState, list[Event]]]:
    """One seeded game, action by action: (seat, action, the turn's seat, new state, events).
    With ``use_defaults`` a pending decision is left to its default half the time (R37)."""
    chooser = random.Random(seed * 7919 + 1)
    state = new_game(options, seed)
    while not state.over:
        seat = current_seat(state)
        assert seat is not None
        if state.pending is not None and use_defaults and chooser.random() < 0.5:
            action: Action = Choose(option=default_choice(state))
        else:
            _, action = player(state, chooser)
        mover = state.turn
        state, events = apply(state, seat, action)
        yield seat, action, mover, state, events


def _options(seed: int) -> Options:
    return Options(players=2 + seed % 4, holdem=seed % 3 == 0)


# The cascades of each game (player's name, seed) checked in this process, for the tally.
COUNTED: dict[tuple[str, int], Counter[str]] = {}


def _cascades(name: str, seed: int, player: Chooser) -> Counter[str]:
    """The cascades of game ``seed`` of ``player``: as counted when a chunk of this process
    checked it, else from the game played again without the checks (the same seed, hence the
    same game)."""
    found = COUNTED.get((name, seed))
    if found is None:
        found = Counter()
        for _, _, mover, _, events in _game(_options(seed), seed, player, seed % 2 == 0):
            found.update(cascade_counts(events, mover))
    return found


def _play_checked(name: str, seed: int, player: Chooser) -> Counter[str]:
    """Game ``seed`` of ``player`` with every check: the invariants after every action, every
    event worded, the end (R50); on one game in four the JSON round trip and the replay from
    the seed and the stored log. Returns (and keeps) the cascades it set off."""
    options = _options(seed)
    state = new_game(options, seed)
    assert invariant_problems(state) == []
    log = []
    counts: Counter[str] = Counter()
    for seat, action, mover, state, events in _game(options, seed, player, seed % 2 == 0):
        counts.update(cascade_counts(events, mover))
        _worded(state, events)
        problems = invariant_problems(state)
        assert problems == [], (seed, state.step, action, problems)
        log.append((seat, dump_action(action)))
        assert len(log) < 5000
    assert state.over and state.round == 7 and state.winners
    if seed % 4 == 0:
        # the state round-trips through JSON exactly
        assert GameState.model_validate_json(state.model_dump_json()) == state
        # replay from the seed and the stored log reproduces the same final state
        replay = new_game(options, seed)
        for seat, data in log:
            replay, _ = apply(replay, seat, parse_action(data))
        assert replay == state
    COUNTED[(name, seed)] = counts
    return counts


_LEFT_OVER = re.compile(r"\{(?!P\d+\})")  # a brace that is not a seat token


def _worded(state: GameState, events: list[Event]) -> None:
    """Every event (and a pending question) is worded in French and German from the engine's
    catalogues, and its English is its text (engine/words.py, docs/i18n.md)."""
    for event in events:
        assert describe(event, "en") == event.text
        for lang in ("fr", "de"):
            assert not _LEFT_OVER.search(describe(event, lang)), (lang, event)
            for line in describe_lines(event, lang):
                assert not _LEFT_OVER.search(line), (lang, line)
    if state.pending is not None:
        for lang in ("fr", "de"):
            assert not _LEFT_OVER.search(describe_prompt(state.pending, lang))


def _short(counts: Counter[str]) -> bool:
    return any(counts[k] < AT_LEAST for k in REQUIRED)


PLAYERS: list[tuple[str, Chooser, int]] = [
    ("uniform", random_action, UNIFORM_GAMES),
    ("seeking", seeking_action, SEEKING_GAMES),
]


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_games_keep_every_invariant(chunk: int) -> None:
    """R1-R50 invariants (RULES.md section 9) after every action of every game, both players:
    this chunk's games (runs of four seeds, 2 to 5 players, dealt to the chunks in turn; the
    further seeking games the cascade tally may need are checked by that test)."""
    counts: Counter[str] = Counter()
    played = 0
    for name, player, games in PLAYERS:
        for seed in range(games):
            if seed // 4 % CHUNKS == chunk:
                counts += _play_checked(name, seed, player)
                played += 1
    assert played == 0 or sum(counts.values()) > 0  # (a short KHRONOS_LONG_RUN leaves some empty)


def test_random_games_reach_every_cascade_ten_times(capsys: pytest.CaptureFixture[str]) -> None:
    """R23-R37: ripples, blocked ripples, paradoxes (R30 with and without a tie), junctions,
    downsizing of each building type, divisions, and choices by the mover and by another
    player each happen at least ten times in the run; the counts are printed.

    The cascades of the chunks' games are those the chunks counted in this process, or the
    games played again for them (``_cascades``); the seeking games played on until every kind
    has come ``AT_LEAST`` times (at most ``SEEKING_CAP``) are checked here as the chunks check
    theirs."""
    tallies: dict[str, Counter[str]] = {}
    played: dict[str, int] = {}
    for name, player, games in PLAYERS:
        counts: Counter[str] = Counter()
        seed = 0
        while seed < games or (
            name == "seeking"
            and seed < SEEKING_CAP
            and _short(tallies.get("uniform", Counter()) + counts)
        ):
            if seed < games:
                counts += _cascades(name, seed, player)
            else:
                counts += _play_checked(name, seed, player)
            seed += 1
        played[name] = seed
        tallies[name] = counts
    total = tallies["uniform"] + tallies["seeking"]
    with capsys.disabled():
        print(f"\ncascades in {played['uniform']} uniform + {played['seeking']} "
              "scenario-seeking games:")
        for kind in CASCADE_KINDS:
            u, s = tallies["uniform"][kind], tallies["seeking"][kind]
            print(f"  {kind:<45} {u:>6} + {s:>6}")
    missing = {k: total[k] for k in REQUIRED if total[k] < AT_LEAST}
    assert missing == {}, f"reached fewer than {AT_LEAST} times: {missing}"


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.integers(2, 5), holdem=st.booleans())
def test_same_seed_same_game(seed: int, players: int, holdem: bool) -> None:
    a, log_a = play_random_game(Options(players=players, holdem=holdem), seed, max_steps=60)
    b, log_b = play_random_game(Options(players=players, holdem=holdem), seed, max_steps=60)
    assert a == b and log_a == log_b
    assert invariant_problems(a) == []
