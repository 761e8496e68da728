"""Every rule of RULES.md has at least one test named after it (``test_r47_...``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT.parent / "shared" / "RULES.md"


def test_every_rule_has_a_test_named_after_it() -> None:
    if not RULES.exists():
        pytest.skip("../shared/RULES.md is not beside the project")
    rules = sorted({int(n) for n in re.findall(r"^- R(\d+)\.", RULES.read_text(), re.M)})
    assert len(rules) >= 40
    names = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        for match in re.finditer(r"def (test_r[\d_r]+)", path.read_text()):
            names.update(int(n) for n in re.findall(r"r(\d+)", match.group(1)))
    missing = [f"R{n}" for n in rules if n not in names]
    assert missing == [], f"rules without a test named after them: {missing}"
