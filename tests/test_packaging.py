"""The pinned versions (requirements.txt, requirements-dev.txt) against pyproject.toml, the
installed packages and the Makefile: what `make run` installs is exactly the bot's runtime."""

from __future__ import annotations

import re
import subprocess
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def pins(name: str) -> dict[str, Version]:
    """``name==version`` lines of a requirements file, by canonical name."""
    out: dict[str, Version] = {}
    for line in (ROOT / name).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.fullmatch(r"([A-Za-z0-9._-]+)==([^\s;]+)", line)
        assert match, f"{name}: {line!r} is not an exact pin"
        out[canonicalize_name(match[1])] = Version(match[2])
    return out


RUN = pins("requirements.txt")
DEV = pins("requirements-dev.txt")


def closure(requirements: list[str]) -> set[str]:
    """The requirements and everything they need, as installed here (markers evaluated)."""
    seen: set[str] = set()
    todo = [(Requirement(r), "") for r in requirements]
    while todo:
        req, extra = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": extra}):
            continue
        name = canonicalize_name(req.name)
        key = f"{name}[{','.join(sorted(req.extras))}]"
        if key in seen:
            continue
        seen.add(key)
        for sub in metadata.requires(req.name) or []:
            sub_req = Requirement(sub)
            for wanted in sorted(req.extras) or [""]:
                todo.append((sub_req, wanted))
    return {k.split("[")[0] for k in seen}


def test_every_declared_dependency_is_pinned_within_its_range() -> None:
    for declared, pinned in ((PROJECT["dependencies"], RUN),
                             (PROJECT["optional-dependencies"]["dev"], {**RUN, **DEV})):
        for text in declared:
            req = Requirement(text)
            name = canonicalize_name(req.name)
            assert name in pinned, f"{req.name} is in pyproject.toml but not pinned: make lock"
            assert req.specifier.contains(pinned[name], prereleases=True), (
                f"{req.name}=={pinned[name]} is outside {req.specifier}: make lock")


def test_the_pins_are_exactly_what_the_dependencies_need() -> None:
    runtime = closure(PROJECT["dependencies"])
    assert set(RUN) == runtime, "requirements.txt differs from the runtime needs: make lock"
    dev = closure(PROJECT["optional-dependencies"]["dev"]) - runtime
    assert set(DEV) == dev, "requirements-dev.txt differs from the dev needs: make lock"
    for tool in ("pytest", "ruff", "mypy", "hypothesis"):
        assert tool not in RUN, f"{tool} would be installed by make run"


def test_this_environment_runs_on_the_pins() -> None:
    for name, version in {**RUN, **DEV}.items():
        assert Version(metadata.version(name)) == version, (
            f"{name} {metadata.version(name)} is installed, {version} is pinned: make test "
            "reinstalls from the pins")


def dry_run(target: str, tmp_path: Path) -> str:
    """The commands ``make <target>`` runs on a fresh machine (no venv yet), without running
    them."""
    done = subprocess.run(["make", "-n", target, f"VENV={tmp_path / 'venv'}"], check=False,
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("target", ["run", "local"])
def test_make_run_installs_the_runtime_only(target: str, tmp_path: Path) -> None:
    commands = dry_run(target, tmp_path)
    assert "-m venv" in commands
    assert "install -q -r requirements.txt" in commands
    assert "--no-deps -e ." in commands  # the project, its dependencies being the pins
    assert "requirements-dev.txt" not in commands
    assert "[dev]" not in commands


def test_make_test_adds_the_dev_tools(tmp_path: Path) -> None:
    commands = dry_run("test", tmp_path)
    assert "-r requirements.txt -r requirements-dev.txt" in commands
    assert "ruff check" in commands and "-m pytest" in commands
