"""Typed settings, read from the environment (and a `.env` file); documented in README.

Every setting is checked here, at load, so a bad value stops the bot before it starts with
one line naming the variable (`load_settings`), instead of a traceback minutes later.
"""

from __future__ import annotations

import io
import logging
from functools import cached_property
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from dotenv import dotenv_values
from pydantic import Field, SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic_core import ErrorDetails
from pydantic_settings import BaseSettings, SettingsConfigDict

# Not the store (nor bot.health, which reads it): every command reads the settings, and most
# load no SQL library at all (`quizbot content check`); the validators import it when needed.
from bot.database_defaults import DEFAULT_DATABASE_URL, DEFAULT_SYNCHRONOUS, SYNCHRONOUS_MODES
from bot.host_errors import HostError, HostErrors
from bot.schedule.zones import AmbiguousZoneError, NotAPlaceError, ZoneError, resolve_zone
from bot.sharding import ShardPlan

README_TOKEN_SECTION = "README.md, section 'Creating the Discord application'"

LOG_LEVELS: Final = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
MAX_GRACE_MINUTES: Final = 24 * 60
MAX_REMOVAL_GRACE_DAYS: Final = 3650
# Far more shards than Discord gives any bot, and still few enough to list: a typo such as
# 10**23 overflowed discord.py's range(), and 10**11 with a long SHARD_IDS hung the start.
MAX_SHARD_COUNT: Final = 2**16

# Values never echoed in a message: the token, and database URLs (they may hold a password).
_SECRET: Final = frozenset({"DISCORD_TOKEN", "DATABASE_URL"})

# What to do about a bad value, per setting: the second half of every settings message.
FIXES: Final[dict[str, str]] = {
    "DISCORD_TOKEN": f"put the bot token in the environment or in a .env file "
    f"(see {README_TOKEN_SECTION})",
    "DATABASE_URL": "use an SQLite URL such as sqlite:///data/quizbot.db, or a PostgreSQL "
    "one such as postgresql+psycopg://user:password@host/quizbot",
    "SQLITE_SYNCHRONOUS": f"use {' or '.join(SYNCHRONOUS_MODES)} (see README.md, section "
    "'Settings')",
    "CONTENT_DIR": "point CONTENT_DIR (or the path you gave) at the folder or file of YAML "
    "task banks",
    "CONTENT_CACHE": "give a file path, or set it empty to turn the cache off",
    "CONTENT_WATCH": "use true or false",
    "QUIZBOT_TIMEZONE": "use an IANA zone name such as UTC or Europe/Berlin, or a city such "
    "as Berlin",
    "LOG_LEVEL": f"use one of {', '.join(LOG_LEVELS)}",
    "SCHEDULE_GRACE_MINUTES": f"use a whole number of minutes from 0 to {MAX_GRACE_MINUTES}",
    "REMOVAL_GRACE_DAYS": f"use a whole number of days from 0 to {MAX_REMOVAL_GRACE_DAYS}",
    "DISCORD_API_BASE": "leave it unset to use Discord itself (it is for tests), "
    "or give an http(s) URL such as http://127.0.0.1:8080/api/v10",
    "QUIZBOT_LOOP_LAG_PROBE": "use true or false",
    "SHARD_COUNT": f"use a whole number of shards from 1 to {MAX_SHARD_COUNT}, or leave it "
    "unset for one process (see README.md, section 'Scaling out')",
    "HEALTH_FILE": "give a file path the bot's user may write, or leave it unset",
    "SHARD_IDS": "list this process's shards, e.g. 0,1 or 0-3, each below SHARD_COUNT, "
    "with SHARD_COUNT set (see README.md, section 'Scaling out')",
}


def _is_other_than_a_file(path: Path) -> bool:
    """Whether something other than a regular file is at `path` (through its links)."""
    try:
        return not path.is_file() and path.exists()
    except OSError:  # out of the bot's reach: the cache warns when it cannot be written
        return False


class MissingTokenError(HostError):
    def __init__(self) -> None:
        super().__init__("DISCORD_TOKEN", "the bot token is not set", FIXES["DISCORD_TOKEN"])


class MalformedTokenError(HostError):
    def __init__(self) -> None:
        super().__init__(
            "DISCORD_TOKEN",
            "the bot token contains spaces, line breaks or quotes, which no token has",
            f"set the token alone, without quotes or a 'Bot ' prefix (see {README_TOKEN_SECTION})",
        )


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", frozen=True
    )

    # SecretStr keeps the token out of repr(), logs and tracebacks of the settings object.
    discord_token: SecretStr | None = Field(default=None, validation_alias="DISCORD_TOKEN")
    database_url: str = Field(default=DEFAULT_DATABASE_URL, validation_alias="DATABASE_URL")
    # FULL: an acknowledged answer survives a power loss; NORMAL trades that for speed.
    sqlite_synchronous: str = Field(
        default=DEFAULT_SYNCHRONOUS, validation_alias="SQLITE_SYNCHRONOUS"
    )
    # A default that is missing is left to the commands that read banks (`db` reads none); a
    # folder the host named must exist.
    content_dir: Path = Field(
        default=Path("content"), validation_alias="CONTENT_DIR", validate_default=False
    )
    # Where the last validated catalog is kept so restarts skip parsing; empty disables it.
    content_cache: Path | None = Field(
        default=Path("data/content-cache.pickle"), validation_alias="CONTENT_CACHE"
    )
    # Reload the banks when a file under CONTENT_DIR changes (SIGHUP reloads either way).
    content_watch: bool = Field(default=True, validation_alias="CONTENT_WATCH")
    timezone: str = Field(default="UTC", validation_alias="QUIZBOT_TIMEZONE")
    log_level: str = Field(default="INFO", validation_alias="LOG_LEVEL")
    # Bounded: a day covers any outage worth catching up on, and a huge value overflows
    # the datetime arithmetic of the scheduler.
    schedule_grace_minutes: int = Field(
        default=120, ge=0, le=MAX_GRACE_MINUTES, validation_alias="SCHEDULE_GRACE_MINUTES"
    )
    # Days a server's data is kept after the bot is removed from it (docs/privacy.md).
    removal_grace_days: int = Field(
        default=30, ge=0, le=MAX_REMOVAL_GRACE_DAYS, validation_alias="REMOVAL_GRACE_DAYS"
    )
    # Only for tests and benchmarks against an emulated Discord; production leaves it unset.
    discord_api_base: str | None = Field(default=None, validation_alias="DISCORD_API_BASE")
    loop_lag_probe: bool = Field(default=False, validation_alias="QUIZBOT_LOOP_LAG_PROBE")
    # Sharded processes (README "Scaling out"): how many shards in all, and which this process
    # runs. Unset: one process, as discord.py decides. Read through `shards`.
    shard_count: int | None = Field(
        default=None, ge=1, le=MAX_SHARD_COUNT, validation_alias="SHARD_COUNT"
    )
    shard_ids: str | None = Field(default=None, validation_alias="SHARD_IDS")
    # The running bot's status file for `quizbot health`; unset: one in the temp folder named
    # after the database and the shards (read through `health_status_path`).
    health_file: Path | None = Field(default=None, validation_alias="HEALTH_FILE")

    @field_validator("database_url")
    @classmethod
    def _supported_database(cls, value: str) -> str:
        if value == DEFAULT_DATABASE_URL:
            return value  # the store's own default; checking it would load SQL for every command
        from bot.store.db import check_url

        return check_url(value)

    @field_validator("sqlite_synchronous")
    @classmethod
    def _synchronous_mode(cls, value: str) -> str:
        mode = value.strip().upper()
        if mode not in SYNCHRONOUS_MODES:
            raise ValueError(f"unknown synchronous mode {value!r}")
        return mode

    @field_validator("content_dir")
    @classmethod
    def _content_exists(cls, value: Path) -> Path:
        try:
            value.stat()
        except (FileNotFoundError, NotADirectoryError):
            raise ValueError(f"no such file or folder: {value}") from None
        except OSError as exc:  # a folder on the way the bot's user may not look into
            raise ValueError(f"cannot reach {value} ({exc.strerror or exc})") from None
        return value

    @field_validator("content_cache", "health_file", mode="before")
    @classmethod
    def _empty_is_off(cls, value: object) -> object:
        return None if value == "" else value

    @field_validator("content_cache")
    @classmethod
    def _cache_is_a_file(cls, value: Path | None) -> Path | None:
        try:
            folder = value is not None and value.is_dir()
        except OSError:
            # Out of the bot's reach: the cache only speeds starts up, so it is skipped then
            # with a warning (bot/content/cache.py), as when it cannot be written.
            folder = False
        if folder:
            raise ValueError(f"{value} is a folder")
        if value is not None and _is_other_than_a_file(value):
            # /dev/null (a natural guess for "off"), a FIFO (whose read waits for ever): the
            # cache is written by renaming a new file over it.
            raise ValueError(f"{value} is not a regular file (a device, a pipe or a socket)")
        return value

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        # The resolver /schedule and /config use, so the host's default is one they accept:
        # a city ("berlin") works, "localtime" (whatever the host is set to) does not.
        try:
            return resolve_zone(value)
        except (AmbiguousZoneError, NotAPlaceError) as exc:
            raise ValueError(exc.problem) from None
        except ZoneError:
            raise ValueError(f"unknown IANA time zone {_shown(value)}") from None

    @field_validator("log_level")
    @classmethod
    def _named_level(cls, value: str) -> str:
        level = value.strip().upper()
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown log level {value!r}")
        return level

    @field_validator("discord_api_base")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if not value:
            return None
        try:
            parts = urlsplit(value)
            usable = parts.scheme in ("http", "https") and bool(parts.hostname)
            parts.port  # noqa: B018  (raises ValueError on a port that is not a number)
        except ValueError:
            usable = False
        if not usable:
            raise ValueError(f"not an http(s) URL: {value!r}")
        return value

    @field_validator("shard_count", "shard_ids", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        # `SHARD_IDS=` (e.g. an empty compose variable) means not set.
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("shard_ids")
    @classmethod
    def _shard_ids(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None or "shard_count" not in info.data:
            return value  # unset, or SHARD_COUNT is wrong (and reported) already
        ShardPlan.parse(info.data["shard_count"], value)  # its ValueError is the message
        return value

    @cached_property
    def shards(self) -> ShardPlan:
        """This process's shards (bot/sharding.py); `ShardPlan.UNSHARDED` without settings."""
        return ShardPlan.parse(self.shard_count, self.shard_ids)

    @cached_property
    def health_status_path(self) -> Path:
        from bot.health import default_status_path

        return self.health_file or default_status_path(self.database_url, self.shard_ids)

    @cached_property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    def token(self) -> str:
        if self.discord_token is None or not self.discord_token.get_secret_value().strip():
            raise MissingTokenError()
        token = self.discord_token.get_secret_value().strip()
        # A line break cannot go into the Authorization header (aiohttp raises, a traceback);
        # a space or a quote would only earn Discord's refusal, which cannot say why.
        if any(char.isspace() or not char.isprintable() or char in "\"'" for char in token):
            raise MalformedTokenError()
        return token


_ALIASES: Final = {
    name: str(info.validation_alias) for name, info in Settings.model_fields.items()
}
"""Field name -> environment variable: an error on a default names the field."""


def load_settings(**overrides: Any) -> Settings:
    """Settings from the environment; every bad value becomes one HostError line."""
    env_file = overrides.get("_env_file", Settings.model_config.get("env_file"))
    if isinstance(env_file, str | Path):
        _check_env_file(Path(env_file))
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        raise settings_errors(exc) from None


def _check_env_file(path: Path) -> None:
    """pydantic-settings reads the .env file with a bare open(): one it cannot read or decode
    would end the start with a traceback, so it is read once here first."""
    if not path.exists():
        return  # none is fine: the environment alone then
    if not path.is_file():  # a FIFO would hold every command at its open, a folder fail it
        raise HostError(
            ".env",
            f"{path} is not a regular file",
            "make .env a plain text file of NAME=value lines, or remove it",
        )
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise HostError(
            ".env",
            f"{path} is not UTF-8 text",
            "save it as UTF-8 (Windows PowerShell's > and Out-File write UTF-16)",
        ) from None
    except OSError as exc:
        raise HostError(
            ".env",
            f"cannot read {path} ({exc.strerror or exc})",
            "give the bot's user read access to it, or set the variables in the environment",
        ) from None
    # read_text turned every line break into "\n", as python-dotenv counts lines.
    lines = text.split("\n")
    unparsed = [_statement_start(lines, number) for number in _unparsed_lines(text)]
    if unparsed:
        raise HostErrors(
            [
                HostError(
                    ".env",
                    f"{path} line {number}: "
                    f"{_what_is_wrong(lines[number - 1] if number <= len(lines) else '')}",
                    "write it as NAME=value (a quoted value ends with the same quote), or "
                    "delete the line",
                )
                for number in unparsed
            ]
        )


class _Unparsed(logging.Filter):
    """Keeps the line numbers python-dotenv warns it could not parse, and the warnings
    themselves out of the log: they become one line each of ours."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[int] = []

    def filter(self, record: logging.LogRecord) -> bool:
        # "python-dotenv could not parse statement starting at line %s": its one warning
        # with a line number (a positive int) as its argument.
        args = record.args if isinstance(record.args, tuple) else ()
        line = args[0] if args else None
        if record.levelno >= logging.WARNING and isinstance(line, int) and line > 0:
            self.lines.append(line)
            return False
        return True


def _unparsed_lines(text: str) -> list[int]:
    """The lines python-dotenv skips (it warns, then goes on): an unclosed quote dropped the
    token without a word, and the start then said it was not set. The same parser
    pydantic-settings reads the file with, asked through its public dotenv_values."""
    logger = logging.getLogger("dotenv.main")
    unparsed = _Unparsed()
    logger.addFilter(unparsed)
    try:
        dotenv_values(stream=io.StringIO(text))
    finally:
        logger.removeFilter(unparsed)
    return unparsed.lines


def _statement_start(lines: list[str], number: int) -> int:
    """python-dotenv counts a statement from the blank lines before it: the line it starts on."""
    while number < len(lines) and not lines[number - 1].strip():
        number += 1
    return number


def _what_is_wrong(line: str) -> str:
    """Why a NAME=value line does not parse, naming the variable but never the value (it
    may be the token)."""
    name, equals, value = line.strip().removeprefix("export ").partition("=")
    name = name.strip()
    if not equals or not name or any(c.isspace() for c in name):
        return "this line is not NAME=value"
    shown = name if name.isidentifier() else _shown(name)
    value = value.strip()
    quote = value[:1]
    if quote in ("'", '"'):
        if not _closes(value, quote):
            return f"the value of {shown} opens a {quote} quote that is not closed on this line"
        return f"the value of {shown} has text after its closing {quote} quote"
    return f"the value of {shown} cannot be read"


def _closes(value: str, quote: str) -> bool:
    """Whether the quote opened at value[0] closes on this line (a backslash escapes it)."""
    index = 1
    while index < len(value):
        if value[index] == "\\":
            index += 2
            continue
        if value[index] == quote:
            return True
        index += 1
    return False


def settings_errors(exc: ValidationError) -> HostErrors:
    """The one place a pydantic ValidationError becomes `<what is wrong> (<SETTING>) — <fix>`."""
    errors = []
    for error in exc.errors():
        field = str(error["loc"][0]) if error["loc"] else "settings"
        setting = _ALIASES.get(field, field)
        fix = FIXES.get(setting, "see README.md, section 'Settings'")
        errors.append(HostError(setting, _problem(setting, error), fix))
    return HostErrors(errors)


def _problem(setting: str, error: ErrorDetails) -> str:
    context = error.get("ctx") or {}
    if error["type"] == "value_error":
        return str(context["error"])  # our validators' own wording
    value = "the value" if setting in _SECRET else _shown(error["input"])
    match error["type"]:
        case "int_parsing" | "int_from_float":
            return f"{value} is not a whole number"
        case "less_than_equal":
            return f"{value} is more than {context['le']}"
        case "greater_than_equal":
            return f"{value} is less than {context['ge']}"
        case "bool_parsing":
            return f"{value} is not true or false"
    # An error type we have no wording for: pydantic's message, still without the input.
    return f"{value} is not valid: {error['msg'][:1].lower()}{error['msg'][1:]}"


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
