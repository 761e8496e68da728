"""docker-compose.yml: PostgreSQL and two bot processes sharing two shards (docs/deploy.md).

No Docker engine here, so the file is checked, not run: it is written in YAML's JSON form,
so that the standard library reads it; the bots' settings it gives are loaded as the bot
would load them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.settings import load_settings

COMPOSE = Path(__file__).resolve().parent.parent / "docker-compose.yml"


def interpolated(value: str) -> str:
    """What compose makes of ``${KHRONOS_DB_PASSWORD:?…}`` with a password in .env."""
    start = value.find("${KHRONOS_DB_PASSWORD")
    if start < 0:
        return value
    end = value.index("}", start)
    return value[:start] + "pw" + value[end + 1:]


def test_two_bots_share_the_shards_over_one_healthy_database(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    spec: dict[str, Any] = json.loads(COMPOSE.read_text())
    services = spec["services"]
    bots = {name: s for name, s in services.items() if name.startswith("bot")}
    assert len(bots) == 2
    pg = services["postgres"]
    assert pg["healthcheck"]["test"][0] in ("CMD", "CMD-SHELL")
    volumes = set(spec["volumes"])
    assert pg["volumes"][0].split(":")[0] in volumes
    shards: list[int] = []
    data_volumes = set()
    for bot in bots.values():
        assert bot["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert bot["init"] is True and bot["build"] == "."
        assert bot["healthcheck"]["test"][:4] == ["CMD", "python", "-m", "bot.health"]
        (volume,) = bot["volumes"]
        name, mount = volume.split(":")
        assert mount == "/data" and name in volumes
        data_volumes.add(name)
        with monkeypatch.context() as env:
            env.setenv("KHRONOS_DATA_DIR", str(tmp_path))
            for key, value in bot["environment"].items():
                env.setenv(key, interpolated(value))
            settings = load_settings()
        assert settings.database_url == "postgresql://khronos:pw@postgres:5432/khronos"
        options = settings.shard_options()
        assert options["shard_count"] == 2
        shards += options["shard_ids"]
    assert sorted(shards) == [0, 1], "each shard served by exactly one process"
    assert len(data_volumes) == 2, "each bot its own heartbeat folder"
    env = pg["environment"]
    assert (env["POSTGRES_USER"], env["POSTGRES_DB"]) == ("khronos", "khronos")
