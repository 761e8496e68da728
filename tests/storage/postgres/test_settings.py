"""The settings of several processes: the database URL and each process's shards."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.settings import SettingsError, load_settings


@pytest.fixture(autouse=True)
def in_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    for name in ("KHRONOS_DATABASE_URL", "KHRONOS_SHARD_COUNT", "KHRONOS_SHARD_IDS"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_unset_means_sqlite_and_discord_chooses_the_shards() -> None:
    settings = load_settings()
    assert settings.database_url is None
    assert settings.shard_options() == {}


def test_empty_values_are_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("KHRONOS_DATABASE_URL", "KHRONOS_SHARD_COUNT", "KHRONOS_SHARD_IDS"):
        monkeypatch.setenv(name, "")
    settings = load_settings()
    assert (settings.database_url, settings.shard_count, settings.shard_ids) == (None, None, None)


def test_a_process_with_its_shards(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KHRONOS_DATABASE_URL", " postgresql://bot:pw@db/khronos ")
    monkeypatch.setenv("KHRONOS_SHARD_COUNT", "4")
    monkeypatch.setenv("KHRONOS_SHARD_IDS", "3, 1")
    settings = load_settings()
    assert settings.database_url == "postgresql://bot:pw@db/khronos"
    assert settings.shard_options() == {"shard_count": 4, "shard_ids": [1, 3]}


def test_a_count_alone_gives_this_process_every_shard(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KHRONOS_SHARD_COUNT", "2")
    assert load_settings().shard_options() == {"shard_count": 2, "shard_ids": [0, 1]}


@pytest.mark.parametrize(("env", "said"), [
    ({"KHRONOS_DATABASE_URL": "mysql://db/x"}, "KHRONOS_DATABASE_URL must be a PostgreSQL URL"),
    ({"KHRONOS_SHARD_COUNT": "0"}, "KHRONOS_SHARD_COUNT must be the total number of shards"),
    ({"KHRONOS_SHARD_COUNT": "two"}, "KHRONOS_SHARD_COUNT must be the total number of shards"),
    ({"KHRONOS_SHARD_IDS": "0"}, "KHRONOS_SHARD_IDS needs KHRONOS_SHARD_COUNT"),
    ({"KHRONOS_SHARD_COUNT": "2", "KHRONOS_SHARD_IDS": "0,2"},
     "KHRONOS_SHARD_IDS must be distinct shard numbers from 0 to 1"),
    ({"KHRONOS_SHARD_COUNT": "2", "KHRONOS_SHARD_IDS": "1,1"},
     "KHRONOS_SHARD_IDS must be distinct shard numbers"),
    ({"KHRONOS_SHARD_COUNT": "2", "KHRONOS_SHARD_IDS": "a"},
     "KHRONOS_SHARD_IDS must be the shards of this process"),
])
def test_a_bad_value_is_one_sentence(monkeypatch: pytest.MonkeyPatch, env: dict[str, str],
                                     said: str) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError, match=said):
        load_settings()


def test_a_refused_url_never_shows_its_password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KHRONOS_DATABASE_URL", "mysql://bot:hunter2@db/x")
    with pytest.raises(SettingsError) as refusal:
        load_settings()
    assert "hunter2" not in str(refusal.value)
