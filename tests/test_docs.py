"""The documents a reader follows: links that stay inside the repository, and the rules page
(docs/rules.md) saying what the project's RULES.md says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_RULES = ROOT.parent / "shared" / "RULES.md"
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def rules_part(text: str) -> str:
    """The numbered rules: from section 1 to the end."""
    start = text.index("## 1. Components")
    return text[start:].strip()


def pages() -> list[Path]:
    return [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_links_point_to_files_of_the_repository(page: Path) -> None:
    for target in LINK.findall(page.read_text()):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a web address, or a place in the same page
        path = (page.parent / target.split("#", 1)[0]).resolve()
        assert path.is_relative_to(ROOT), f"{page.name}: {target} is outside the repository"
        assert path.exists(), f"{page.name}: {target} does not exist"


def test_the_rules_page_numbers_every_rule_once() -> None:
    numbers = [int(n) for n in re.findall(r"^- R(\d+)\.", (ROOT / "docs" / "rules.md")
                                          .read_text(), re.M)]
    assert numbers == sorted(set(numbers))
    assert numbers[0] == 1 and numbers[-1] == 50


def test_the_rules_page_says_what_rules_md_says() -> None:
    if not SHARED_RULES.exists():
        pytest.skip("../shared/RULES.md is not beside the project")
    ours = rules_part((ROOT / "docs" / "rules.md").read_text())
    assert ours == rules_part(SHARED_RULES.read_text()), (
        "docs/rules.md differs from ../shared/RULES.md: copy its sections again")


def test_the_readme_tells_what_the_product_has() -> None:
    """Every setting the bot reads is in the README's table, every command in its list, and
    the terminal's flags for computers and language are told (issue of a newcomer: they were
    only in --help and .env.example)."""
    from bot.commands import COMMANDS
    from bot.settings import Settings

    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("### Settings"):readme.index("## Commands")]
    for field in Settings.model_fields.values():
        if field.alias:
            assert f"| `{field.alias}` |" in table, field.alias
    commands = readme[readme.index("## Commands"):]
    for spec in COMMANDS.values():
        assert f"`/{spec.path}" in commands or f", `/{spec.path}`" in commands, spec.path
    assert "`/game settings [reminder] [deadline] [language] [hints]`" in commands
    for flag in ("--bots", "--level", "--lang"):
        assert flag in readme, flag
    assert "`/travel faith 1`" in readme  # the terminal's order of words
