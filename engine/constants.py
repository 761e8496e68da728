"""Closed sets of the game (R1, R4) and the building table, kept in one place."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum

COLS = 20  # R1: columns A..T
ROWS = 16  # R1: rows 1..16
COL_LETTERS = "ABCDEFGHIJKLMNOPQRST"

ROUNDS = 7  # R8
INCOME_ROUNDS = (4, 7)  # R46
HAND_SIZE = 4  # R9, R12
START_ECUS = 4  # R6
START_CUBES = 25  # R6
ADVENTURERS = 2  # R6
CARDS_PER_ADVENTURER = 2  # R14
EXCHANGE_COST = 2  # R9
TRAVEL_COST = 1  # R13
DEMOLISH_ECUS = 1  # R22
MIN_PLAYERS = 2
MAX_PLAYERS = 5


class Age(IntEnum):
    """The three boards, in time order (R1)."""

    MIGHT = 0
    FAITH = 1
    REASON = 2

    @property
    def label(self) -> str:
        return self.name.capitalize()

    @classmethod
    def parse(cls, text: str) -> Age:
        key = text.strip().upper()
        for age in cls:
            if age.name == key or str(age.value + 1) == key or age.name[0] == key:
                return age
        raise ValueError(text)


class Family(StrEnum):
    """Card colours and building families (R4)."""

    MILITARY = "military"
    RELIGIOUS = "religious"
    CIVIL = "civil"


class Terrain(StrEnum):
    """R2: one terrain per square."""

    PLAIN = "plain"
    FOREST = "forest"
    MOUNTAIN = "mountain"
    RIVER = "river"


class BuildingType(StrEnum):
    WATCHTOWER = "watchtower"
    KEEP = "keep"
    CASTLE = "castle"
    CHAPEL = "chapel"
    MONASTERY = "monastery"
    ABBEY = "abbey"
    HAMLET = "hamlet"
    TOWN = "town"
    CITY = "city"

    @property
    def family(self) -> Family:
        return BUILDINGS[self].family

    @property
    def size(self) -> int:
        return BUILDINGS[self].size

    @property
    def label(self) -> str:
        """``"Keep"``: the name players read."""
        return str(self).capitalize()


@dataclass(frozen=True)
class BuildingSpec:
    family: Family
    size: int
    value: int  # = card cost = income value (R4)
    stock: int  # tiles in the box (R4)
    ruin_value: int  # = renovation cost; 0 where the tile has no ruin side


# R4: the one table of building values. A variant changes it here.
BUILDINGS: dict[BuildingType, BuildingSpec] = {
    BuildingType.WATCHTOWER: BuildingSpec(Family.MILITARY, 1, 1, 20, 0),
    BuildingType.KEEP: BuildingSpec(Family.MILITARY, 2, 2, 24, 1),
    BuildingType.CASTLE: BuildingSpec(Family.MILITARY, 3, 3, 9, 2),
    BuildingType.CHAPEL: BuildingSpec(Family.RELIGIOUS, 1, 1, 20, 0),
    BuildingType.MONASTERY: BuildingSpec(Family.RELIGIOUS, 2, 2, 20, 1),
    BuildingType.ABBEY: BuildingSpec(Family.RELIGIOUS, 3, 3, 9, 2),
    BuildingType.HAMLET: BuildingSpec(Family.CIVIL, 1, 1, 20, 0),
    BuildingType.TOWN: BuildingSpec(Family.CIVIL, 2, 3, 24, 0),
    BuildingType.CITY: BuildingSpec(Family.CIVIL, 3, 5, 9, 0),
}

PRINTED_HAMLET_VALUE = 1  # R47: a printed hamlet counts 1

# Types of each family ordered by size (index 0 = size 1).
LADDER: dict[Family, tuple[BuildingType, BuildingType, BuildingType]] = {
    Family.MILITARY: (BuildingType.WATCHTOWER, BuildingType.KEEP, BuildingType.CASTLE),
    Family.RELIGIOUS: (BuildingType.CHAPEL, BuildingType.MONASTERY, BuildingType.ABBEY),
    Family.CIVIL: (BuildingType.HAMLET, BuildingType.TOWN, BuildingType.CITY),
}

# R7: the deck.
DECK: dict[Family, int] = {Family.MILITARY: 18, Family.RELIGIOUS: 18, Family.CIVIL: 19}
DECK_SIZE = sum(DECK.values())

# R31: order in which a junction checks the families, per age.
HIERARCHY_ORDER: dict[Age, tuple[Family, ...]] = {
    Age.MIGHT: (Family.MILITARY, Family.RELIGIOUS),
    Age.FAITH: (Family.RELIGIOUS, Family.MILITARY),
    Age.REASON: (),
}

# R17: bonus for building or upgrading to size 2-3.
BONUS: dict[Age, int] = {Age.MIGHT: 1, Age.FAITH: 2, Age.REASON: 0}


def forest_surcharge(players: int) -> int:
    """R18: extra cards when the footprint covers forest."""
    return 1 if players <= 3 else 0


def mountain_surcharge(players: int) -> int:
    """R18: extra cards when the footprint covers mountain."""
    if players <= 3:
        return 2
    return 1 if players == 4 else 0


def capacity(btype: BuildingType) -> int:
    """R41: cubes a civil building holds, all players together (= its value)."""
    return BUILDINGS[btype].value if btype.family is Family.CIVIL else 0

