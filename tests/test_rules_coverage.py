"""Every rule of the rules page (docs/rules.md, the repository's copy of RULES.md, which
tests/test_docs.py keeps equal to it) has at least one test named after it (``test_r47_...``)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules.md"


def test_every_rule_has_a_test_named_after_it() -> None:
    rules = sorted({int(n) for n in re.findall(r"^- R(\d+)\.", RULES.read_text(), re.M)})
    assert len(rules) >= 40
    names: set[int] = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        for match in re.finditer(r"def (test_r[\d_r]+)", path.read_text()):
            names.update(int(n) for n in re.findall(r"r(\d+)", match.group(1)))
    missing = [f"R{n}" for n in rules if n not in names]
    assert missing == [], f"rules without a test named after them: {missing}"
