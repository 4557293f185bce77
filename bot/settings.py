"""Typed settings, read from the environment (and a `.env` file); documented in README."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

README_TOKEN_SECTION = "README.md, section 'Creating the Discord application'"


class MissingTokenError(RuntimeError):
    def __init__(self) -> None:
        super().__init__(
            "DISCORD_TOKEN is not set. Put the bot token in the environment or in a .env file "
            f"(see {README_TOKEN_SECTION})."
        )


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", frozen=True
    )

    # SecretStr keeps the token out of repr(), logs and tracebacks of the settings object.
    discord_token: SecretStr | None = Field(default=None, validation_alias="DISCORD_TOKEN")
    database_url: str = Field(default="sqlite:///data/quizbot.db", validation_alias="DATABASE_URL")
    content_dir: Path = Field(default=Path("content"), validation_alias="CONTENT_DIR")
    # Where the last validated catalog is kept so restarts skip parsing; empty disables it.
    content_cache: Path | None = Field(
        default=Path("data/content-cache.pickle"), validation_alias="CONTENT_CACHE"
    )
    timezone: str = Field(default="UTC", validation_alias="QUIZBOT_TIMEZONE")
    log_level: str = Field(default="INFO", validation_alias="LOG_LEVEL")
    schedule_grace_minutes: int = Field(
        default=120, ge=0, validation_alias="SCHEDULE_GRACE_MINUTES"
    )
    # Only for tests and benchmarks against an emulated Discord; production leaves it unset.
    discord_api_base: str | None = Field(default=None, validation_alias="DISCORD_API_BASE")
    loop_lag_probe: bool = Field(default=False, validation_alias="QUIZBOT_LOOP_LAG_PROBE")

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown IANA time zone {value!r}") from exc
        return value

    @field_validator("content_cache", mode="before")
    @classmethod
    def _empty_is_off(cls, value: object) -> object:
        return None if value == "" else value

    @field_validator("log_level")
    @classmethod
    def _upper(cls, value: str) -> str:
        return value.upper()

    @cached_property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    def token(self) -> str:
        if self.discord_token is None or not self.discord_token.get_secret_value().strip():
            raise MissingTokenError()
        return self.discord_token.get_secret_value().strip()
