"""Settings from the environment or a ``.env`` file (pydantic-settings).

Each field names its variable in full (``KHRONOS_DATA_DIR``; the token is ``DISCORD_TOKEN``, the
name every Discord guide uses), so the same names work as keyword arguments
(``Settings(KHRONOS_DATA_DIR=...)``). An empty value (``KHRONOS_TEST_GUILD_ID=``,
as ``.env.example`` ships it) means "not set": the default applies. A value that cannot be
used is refused by :func:`load_settings` with :class:`SettingsError`, one sentence per setting.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]

# what each setting must be, in the words of a refusal
_EXPECTED = {
    "DISCORD_TOKEN": "the bot's token from the Discord developer portal",
    "KHRONOS_DATA_DIR": "a folder path",
    "KHRONOS_TEST_GUILD_ID": "a server id (a whole number), or nothing",
    "KHRONOS_LOG_LEVEL": "one of DEBUG, INFO, WARNING, ERROR",
    "KHRONOS_REMINDER_HOURS": "a number of hours above 0",
    "KHRONOS_DATABASE_URL": "a PostgreSQL URL (postgresql://user:password@host:port/database), "
                            "or nothing for the SQLite file",
    "KHRONOS_SHARD_COUNT": "the total number of shards (a whole number from 1), or nothing",
    "KHRONOS_AI_WORKERS": "a whole number of worker processes from 0 to 16 (0: threads "
                          "of the bot's own process)",
    "KHRONOS_SHARD_IDS": "the shards of this process, whole numbers separated by commas "
                         "(like 0,1), or nothing",
}


class SettingsError(ValueError):
    """A setting that cannot be used; ``str()`` is one sentence per bad setting."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        env_ignore_empty=True,  # "KHRONOS_TEST_GUILD_ID=" means not set, not an empty id
        extra="ignore",
    )

    discord_token: str | None = Field(default=None, alias="DISCORD_TOKEN")
    data_dir: Path = Field(default=Path("./data"), alias="KHRONOS_DATA_DIR")
    test_guild_id: int | None = Field(default=None, gt=0, lt=2**64,
                                      alias="KHRONOS_TEST_GUILD_ID")
    log_level: LogLevel = Field(default="INFO", alias="KHRONOS_LOG_LEVEL")
    reminder_hours: float = Field(default=24.0, gt=0, allow_inf_nan=False,
                                  alias="KHRONOS_REMINDER_HOURS")
    # PostgreSQL instead of the SQLite file (several processes; docs/storage-postgres.md)
    database_url: str | None = Field(default=None, alias="KHRONOS_DATABASE_URL")
    # several processes share the shards: each gets the total and its own ids
    shard_count: int | None = Field(default=None, ge=1, le=100_000,
                                    alias="KHRONOS_SHARD_COUNT")
    shard_ids: Annotated[list[int] | None, NoDecode] = Field(default=None,
                                                             alias="KHRONOS_SHARD_IDS")
    # computer seats (docs/ai.md): seconds before one acts, and its thinking time per decision
    computer_delay: float = Field(default=3.0, ge=0, le=600, allow_inf_nan=False,
                                  alias="KHRONOS_COMPUTER_DELAY")
    computer_budget: float = Field(default=0.8, ge=0, le=30, allow_inf_nan=False,
                                   alias="KHRONOS_COMPUTER_BUDGET")
    # processes the computers think in (0: a thread of the bot's process); docs/ai.md
    ai_workers: int = Field(default=1, ge=0, le=16, alias="KHRONOS_AI_WORKERS")

    @field_validator("discord_token", mode="before")
    @classmethod
    def _strip_token(cls, value: object) -> object:
        # a token pasted with spaces around it, or only spaces, is the same as none
        if isinstance(value, str):
            return value.strip() or None
        return value

    @field_validator("test_guild_id", mode="before")
    @classmethod
    def _blank_guild(cls, value: object) -> object:
        if isinstance(value, str):
            return value.strip() or None
        return value

    @field_validator("database_url", mode="before")
    @classmethod
    def _postgres_url(cls, value: object) -> object:
        if isinstance(value, str):
            value = value.strip() or None
            if value is not None and not value.startswith(("postgresql://", "postgres://")):
                raise ValueError("not a postgresql:// URL")
        return value

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _split_ids(cls, value: object) -> object:
        # "0,1" or "0 1" in the environment; a list when given as a keyword
        if isinstance(value, str):
            parts = value.replace(",", " ").split()
            return parts or None
        return value

    @model_validator(mode="after")
    def _shards_fit(self) -> Settings:
        ids = self.shard_ids
        if ids is None:
            return self
        if self.shard_count is None:
            raise ValueError("KHRONOS_SHARD_IDS needs KHRONOS_SHARD_COUNT (the total number "
                             "of shards) to be set too.")
        wrong = sorted({i for i in ids if not 0 <= i < self.shard_count})
        if wrong or len(set(ids)) != len(ids):
            raise ValueError(f"KHRONOS_SHARD_IDS must be distinct shard numbers from 0 to "
                             f"{self.shard_count - 1} (KHRONOS_SHARD_COUNT is "
                             f"{self.shard_count}); it is {','.join(map(str, ids))}.")
        return self

    def shard_options(self) -> dict[str, Any]:
        """Keyword arguments for ``AutoShardedBot``: the shard count and this process's
        shard ids when set; empty (discord.py asks Discord for the count) otherwise."""
        options: dict[str, Any] = {}
        if self.shard_count is not None:
            options["shard_count"] = self.shard_count
            options["shard_ids"] = sorted(self.shard_ids) if self.shard_ids is not None else (
                list(range(self.shard_count)))
        return options

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_level(cls, value: object) -> object:
        return value.strip().upper() if isinstance(value, str) else value


def load_settings() -> Settings:
    """The settings from the environment and ``./.env`` (the environment wins).

    Raises :class:`SettingsError` naming each bad variable and what it must be."""
    try:
        return Settings()
    except ValidationError as exc:
        sentences = []
        for error in exc.errors():
            if not error["loc"]:  # a check across settings: its message is the sentence
                sentences.append(str(error["msg"]).removeprefix("Value error, "))
                continue
            name = str(error["loc"][0])
            value = error.get("input")
            secret = name in ("DISCORD_TOKEN", "KHRONOS_DATABASE_URL")  # never echo a secret
            shown = f" (it is {value!r})" if isinstance(value, str) and not secret else ""
            expected = _EXPECTED.get(name, error["msg"])
            sentences.append(f"{name} must be {expected}{shown}.")
        raise SettingsError(" ".join(sentences)) from None


def data_dir_problem(path: Path) -> str | None:
    """None if the data folder exists (or can be made) and this user can write in it; else
    the sentence that says what to do."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        who = f"user id {os.getuid()}" if hasattr(os, "getuid") else "this user"
        return (f"Cannot write in the data folder {path} ({exc.strerror or exc}): make it "
                f"writable by {who}, or set KHRONOS_DATA_DIR (or --data-dir) to another folder.")
    return None
