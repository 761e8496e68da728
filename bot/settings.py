"""Settings from the environment or a ``.env`` file (pydantic-settings).

Each field names its variable in full (``KHRONOS_DATA_DIR``; the token is ``DISCORD_TOKEN``, the
name every Discord guide uses), so the same names work as keyword arguments
(``Settings(KHRONOS_DATA_DIR=...)``). An empty value (``KHRONOS_TEST_GUILD_ID=``,
as ``.env.example`` ships it) means "not set": the default applies. A value that cannot be
used is refused by :func:`load_settings` with :class:`SettingsError`, one sentence per setting.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]

# what each setting must be, in the words of a refusal
_EXPECTED = {
    "DISCORD_TOKEN": "the bot's token from the Discord developer portal",
    "KHRONOS_DATA_DIR": "a folder path",
    "KHRONOS_TEST_GUILD_ID": "a server id (a whole number), or nothing",
    "KHRONOS_LOG_LEVEL": "one of DEBUG, INFO, WARNING, ERROR",
    "KHRONOS_REMINDER_HOURS": "a number of hours above 0",
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
    # computer seats (docs/ai.md): seconds before one acts, and its thinking time per decision
    computer_delay: float = Field(default=3.0, ge=0, le=600, allow_inf_nan=False,
                                  alias="KHRONOS_COMPUTER_DELAY")
    computer_budget: float = Field(default=1.0, ge=0, le=30, allow_inf_nan=False,
                                   alias="KHRONOS_COMPUTER_BUDGET")

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
            name = str(error["loc"][0]) if error["loc"] else "?"
            value = error.get("input")
            secret = name == "DISCORD_TOKEN"  # never echo a token
            shown = f" (it is {value!r})" if isinstance(value, str) and not secret else ""
            expected = _EXPECTED.get(name, error["msg"])
            sentences.append(f"{name} must be {expected}{shown}.")
        raise SettingsError(" ".join(sentences)) from None
