"""What the bot sent, checked against Discord's own OpenAPI description: the requests the
fake Discord recorded (``fake.requests``) go through the checker of ``shared/discord-spec``
(``check.py``: the schema of each route's body, and the documented limits the schema does
not encode: 2,000 characters of content, 40 components and 4,000 characters of text
displays in a Components V2 message, a gallery item naming a file of its message …).

The checker lives beside the repository (``../shared/discord-spec`` of the main checkout, or
``KHRONOS_DISCORD_SPEC``); a test that needs it is skipped, saying so, where it is absent."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.fakediscord.models import RequestRecord

ROOT = Path(__file__).resolve().parents[2]


def spec_dir() -> Path | None:
    """The folder of ``check.py`` and ``openapi.json``, if there is one."""
    named = os.environ.get("KHRONOS_DISCORD_SPEC")
    candidates = [Path(named)] if named else []
    candidates += [parent / "shared" / "discord-spec" for parent in ROOT.parents]
    return next((c for c in candidates if (c / "check.py").is_file()
                 and (c / "openapi.json").is_file()), None)


def checker_module() -> ModuleType:
    """discord-spec's ``check.py``, or the test is skipped with the reason."""
    folder = spec_dir()
    if folder is None:
        pytest.skip("Discord's OpenAPI checker (shared/discord-spec/check.py) is not beside "
                    "this checkout; set KHRONOS_DISCORD_SPEC to its folder to run this check")
    spec = importlib.util.spec_from_file_location("discord_spec_check", folder / "check.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def findings(requests: Sequence[RequestRecord],
             severity: str = "error") -> list[dict[str, Any]]:
    """What Discord would refuse (``error``) among ``requests``, one finding per problem."""
    check = checker_module()
    checker = check.Checker(check.Spec(lenient=True))
    out: list[dict[str, Any]] = []
    for req in requests:
        _, found = checker.check(req["method"], req["path"], req.get("json"),
                                 query=req.get("query"), files=req.get("files"),
                                 text=req.get("text"))
        out += [dict(f, request=f"{req['method']} {req['path']}") for f in found
                if f["severity"] == severity]
    return out
