"""Settings from the environment or a ``.env`` file (pydantic-settings)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    discord_token: str | None = Field(default=None, alias="DISCORD_TOKEN")
    data_dir: Path = Field(default=Path("./data"), alias="KHRONOS_DATA_DIR")
    test_guild_id: int | None = Field(default=None, alias="KHRONOS_TEST_GUILD_ID")
    log_level: str = Field(default="INFO", alias="KHRONOS_LOG_LEVEL")
    reminder_hours: float = Field(default=24.0, gt=0, alias="KHRONOS_REMINDER_HOURS")


def load_settings() -> Settings:
    return Settings()
