"""Settings are checked at load: each bad value is one line naming the variable and the fix."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bot.host_errors import HostError, HostErrors
from bot.settings import (
    FIXES,
    MAX_GRACE_MINUTES,
    MalformedTokenError,
    MissingTokenError,
    Settings,
    load_settings,
)

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.secret-token-value"


@pytest.fixture(autouse=True)
def no_host_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for setting in FIXES:
        monkeypatch.delenv(setting, raising=False)


def load(**env: str) -> Settings:
    # No .env file and no environment: the test decides every value that is not a default.
    return load_settings(_env_file=None, **{"CONTENT_DIR": str(ROOT / "content"), **env})


def problems(**env: str) -> list[str]:
    with pytest.raises(HostErrors) as caught:
        load(**env)
    return caught.value.lines()


def test_defaults_and_good_values_load() -> None:
    settings = load(
        DISCORD_TOKEN=TOKEN,
        LOG_LEVEL=" debug ",
        SCHEDULE_GRACE_MINUTES=str(MAX_GRACE_MINUTES),
        QUIZBOT_TIMEZONE="Europe/Berlin",
        DISCORD_API_BASE="http://127.0.0.1:8080/api/v10",
        QUIZBOT_LOOP_LAG_PROBE="yes",
        CONTENT_CACHE="",
        SQLITE_SYNCHRONOUS=" normal ",
    )
    assert settings.log_level == "DEBUG"
    assert settings.sqlite_synchronous == "NORMAL"
    assert load().sqlite_synchronous == "FULL"
    assert settings.schedule_grace_minutes == MAX_GRACE_MINUTES
    assert settings.zone.key == "Europe/Berlin"
    assert settings.loop_lag_probe is True
    assert settings.content_cache is None
    assert settings.token() == TOKEN
    assert load().database_url == "sqlite:///data/quizbot.db"
    assert load(SCHEDULE_GRACE_MINUTES="0").schedule_grace_minutes == 0


@pytest.mark.parametrize(
    "url",
    [
        "sqlite://",
        "sqlite:///:memory:",
        "sqlite:////var/lib/quizbot/quizbot.db",
        "sqlite+pysqlite:///data/q.db",
        "sqlite:///file:data/q.db?mode=ro&uri=true",
        # Accepted ahead of its support, so the setting does not change when it lands.
        "postgresql+psycopg://quizbot:pw@db/quizbot",
    ],
)
def test_supported_database_urls_load(url: str) -> None:
    assert load(DATABASE_URL=url).database_url == url


@pytest.mark.parametrize(
    ("setting", "value", "problem", "fix"),
    [
        ("LOG_LEVEL", "garbage", "unknown log level 'garbage'", "use one of DEBUG, INFO"),
        ("SCHEDULE_GRACE_MINUTES", "99999999999999", "is more than 1440", "from 0 to 1440"),
        ("SCHEDULE_GRACE_MINUTES", "-5", "'-5' is less than 0", "from 0 to 1440"),
        ("SCHEDULE_GRACE_MINUTES", "two hours", "is not a whole number", "minutes"),
        ("DATABASE_URL", "nonsense", "not a database URL", "sqlite:///data/quizbot.db"),
        ("DATABASE_URL", "mysql://quizbot@db/quizbot", "unsupported database 'mysql'", "SQLite"),
        ("DATABASE_URL", "postgresql://db/quizbot", "unsupported database 'postgresql'", "SQLite"),
        ("CONTENT_DIR", "/no/such/banks", "no such file or folder: /no/such/banks", "YAML"),
        ("QUIZBOT_TIMEZONE", "Mars/Olympus", "unknown IANA time zone 'Mars/Olympus'", "UTC"),
        ("DISCORD_API_BASE", "ftp://127.0.0.1/api", "not an http(s) URL", "leave it unset"),
        ("DISCORD_API_BASE", "127.0.0.1:8080", "not an http(s) URL", "leave it unset"),
        ("DISCORD_API_BASE", "http://h:port/api", "not an http(s) URL", "leave it unset"),
        ("DISCORD_API_BASE", "http://[::1/api", "not an http(s) URL", "leave it unset"),
        ("QUIZBOT_LOOP_LAG_PROBE", "maybe", "'maybe' is not true or false", "true or false"),
        ("SQLITE_SYNCHRONOUS", "OFF", "unknown synchronous mode 'OFF'", "FULL or NORMAL"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_setting(
    setting: str, value: str, problem: str, fix: str
) -> None:
    (line,) = problems(**{setting: value})
    assert f"({setting}) — " in line
    wrong, todo = line.split(f" ({setting}) — ")
    assert problem in wrong
    assert fix in todo


def test_a_content_cache_that_is_a_folder_is_refused(tmp_path: Path) -> None:
    (line,) = problems(CONTENT_CACHE=str(tmp_path))
    assert line.startswith(f"{tmp_path} is a folder (CONTENT_CACHE) — ")


def test_every_bad_setting_is_reported_at_once() -> None:
    lines = problems(LOG_LEVEL="loud", QUIZBOT_TIMEZONE="Nowhere")
    assert [line.split("(")[-1].split(")")[0] for line in lines] == [
        "QUIZBOT_TIMEZONE",
        "LOG_LEVEL",
    ]


def test_messages_never_echo_the_token_or_a_database_password() -> None:
    lines = problems(
        DISCORD_TOKEN=TOKEN,
        DATABASE_URL="mysql://quizbot:hunter2@db/quizbot",
        SCHEDULE_GRACE_MINUTES="forever",
    )
    assert len(lines) == 2
    text = "\n".join(lines)
    assert "hunter2" not in text
    assert TOKEN not in text


def test_the_validation_error_does_not_travel_with_the_host_error() -> None:
    """`from None`: a caller that logs the exception shows no pydantic dump with inputs."""
    with pytest.raises(HostErrors) as caught:
        load(DATABASE_URL="mysql://quizbot:hunter2@db/quizbot")
    assert caught.value.__cause__ is None
    assert caught.value.__suppress_context__


@pytest.mark.parametrize("token", [None, "", "   "])
def test_a_missing_token_names_the_variable(token: str | None) -> None:
    settings = load() if token is None else load(DISCORD_TOKEN=token)
    with pytest.raises(MissingTokenError) as caught:
        settings.token()
    assert str(caught.value).startswith("the bot token is not set (DISCORD_TOKEN) — ")
    assert "Creating the Discord application" in str(caught.value)


@pytest.mark.parametrize(
    "token",
    [f"{TOKEN}\n{TOKEN}", f"Bot {TOKEN}", f'"{TOKEN}"', f"'{TOKEN}'", f"{TOKEN}\x00", "a\tb"],
)
def test_a_malformed_token_is_one_line_without_the_token(token: str) -> None:
    with pytest.raises(MalformedTokenError) as caught:
        load(DISCORD_TOKEN=token).token()
    assert str(caught.value) == (
        "the bot token contains spaces, line breaks or quotes, which no token has "
        "(DISCORD_TOKEN) — set the token alone, without quotes or a 'Bot ' prefix (see "
        "README.md, section 'Creating the Discord application')"
    )


def test_the_token_is_used_without_the_whitespace_around_it() -> None:
    assert load(DISCORD_TOKEN=f"  {TOKEN}\r\n").token() == TOKEN


def test_content_watch_is_on_unless_turned_off() -> None:
    assert load().content_watch is True
    assert load(CONTENT_WATCH="false").content_watch is False
    (line,) = problems(CONTENT_WATCH="sometimes")
    assert line == "'sometimes' is not true or false (CONTENT_WATCH) — use true or false"


def test_no_shard_settings_is_one_unsharded_process() -> None:
    shards = load().shards
    assert not shards.sharded
    assert shards.client_options() == {}
    assert not load(SHARD_COUNT="", SHARD_IDS=" ").shards.sharded  # empty is unset


def test_shard_settings_load() -> None:
    assert load(SHARD_COUNT="4", SHARD_IDS="0,2-3").shards.ids == (0, 2, 3)
    everything = load(SHARD_COUNT="2").shards
    assert (everything.count, everything.ids) == (2, (0, 1))
    assert load(SHARD_COUNT="2", SHARD_IDS="1").shards.client_options() == {
        "shard_count": 2,
        "shard_ids": [1],
    }


@pytest.mark.parametrize(
    ("env", "setting", "problem"),
    [
        ({"SHARD_IDS": "0"}, "SHARD_IDS", "SHARD_IDS is set but SHARD_COUNT is not"),
        ({"SHARD_COUNT": "0"}, "SHARD_COUNT", "'0' is less than 1"),
        ({"SHARD_COUNT": "two"}, "SHARD_COUNT", "'two' is not a whole number"),
        ({"SHARD_COUNT": "1" + "0" * 23}, "SHARD_COUNT", "is more than 65536"),
        ({"SHARD_COUNT": "100000000000", "SHARD_IDS": "0-99999999"}, "SHARD_COUNT", "more"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "0-2"}, "SHARD_IDS", "shard 2 in '0-2' does not exist"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "1,1"}, "SHARD_IDS", "shard 1 appears twice"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "0..3"}, "SHARD_IDS", "not a list of shard numbers"),
    ],
)
def test_a_bad_shard_setting_is_one_line(env: dict[str, str], setting: str, problem: str) -> None:
    (line,) = problems(**env)
    wrong, todo = line.split(f" ({setting}) — ")
    assert problem in wrong
    assert "Scaling out" in todo


def test_a_bad_shard_count_is_reported_once_not_again_for_the_ids() -> None:
    (line,) = problems(SHARD_COUNT="many", SHARD_IDS="0-3")
    assert "(SHARD_COUNT)" in line


def test_a_dotenv_file_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    # What Windows PowerShell's `echo DISCORD_TOKEN=... > .env` writes.
    env_file = tmp_path / ".env"
    env_file.write_text(f"DISCORD_TOKEN={TOKEN}\n", encoding="utf-16")
    with pytest.raises(HostError) as caught:
        load_settings(_env_file=env_file, CONTENT_DIR=str(ROOT / "content"))
    assert caught.value.lines() == [
        f"{env_file} is not UTF-8 text (.env) — save it as UTF-8 (Windows PowerShell's > and "
        "Out-File write UTF-16)"
    ]
    assert TOKEN not in str(caught.value)


def test_a_dotenv_file_the_bot_cannot_read_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(f"DISCORD_TOKEN={TOKEN}\n")
    read_text = Path.read_text

    def denied(self: Path, *args: object, **kwargs: object) -> str:
        # Root reads any file, so the test cannot take the permission away for real.
        if self == env_file:
            raise PermissionError(13, "Permission denied", str(self))
        return read_text(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "read_text", denied)
    with pytest.raises(HostError) as caught:
        load_settings(_env_file=env_file, CONTENT_DIR=str(ROOT / "content"))
    assert str(caught.value) == (
        f"cannot read {env_file} (Permission denied) (.env) — give the bot's user read access "
        "to it, or set the variables in the environment"
    )


def test_a_readable_dotenv_file_is_used(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(f'DISCORD_TOKEN="{TOKEN}"\n', encoding="utf-8")
    settings = load_settings(_env_file=env_file, CONTENT_DIR=str(ROOT / "content"))
    assert settings.token() == TOKEN


@pytest.fixture
def locked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder the bot's user may not look into: what is under it cannot even be stat()ed.
    Root may look anyway, so the refusal is made by hand (as the OS would make it)."""
    folder = tmp_path / "locked"
    folder.mkdir()
    stat = Path.stat

    def refused(self: Path, **kwargs: bool) -> object:
        if folder in self.parents:
            raise PermissionError(13, "Permission denied", str(self))
        return stat(self, **kwargs)

    monkeypatch.setattr(Path, "stat", refused)
    return folder


def test_content_out_of_the_bots_reach_is_one_line(locked: Path) -> None:
    (line,) = problems(CONTENT_DIR=str(locked / "banks"))
    assert line.startswith(
        f"cannot reach {locked / 'banks'} (Permission denied) (CONTENT_DIR) — point CONTENT_DIR"
    )


def test_a_content_cache_out_of_the_bots_reach_is_left_to_its_warning(locked: Path) -> None:
    assert load(CONTENT_CACHE=str(locked / "cache.pickle")).content_cache == (
        locked / "cache.pickle"
    )


@pytest.mark.parametrize(
    "url",
    [
        # An @ in the password, not written %40: SQLAlchemy reads the host (or the port) from
        # the rest of the password, and every message that showed the URL printed that part.
        "postgresql+psycopg://quizbot:hun@ter2@db/quizbot",
        "postgresql+psycopg://quizbot:hun@ter2:x@db:5432/quizbot",
    ],
)
def test_a_password_with_a_bare_at_sign_is_refused_without_showing_any_of_it(url: str) -> None:
    (line,) = problems(DATABASE_URL=url)
    assert "ter2" not in line and "hun" not in line
    assert line.startswith("not a database URL") or line.startswith("the URL's host holds an @")
    assert "%40" in line and "(DATABASE_URL) — " in line


def test_a_password_written_percent_encoded_loads() -> None:
    url = "postgresql+psycopg://quizbot:hun%40ter2@db:5432/quizbot"
    assert load(DATABASE_URL=url).database_url == url


@pytest.mark.parametrize("zone", ["Europe", "America/", "Europe/" + "x" * 300])
def test_a_region_folder_or_overlong_name_as_time_zone_is_one_line(zone: str) -> None:
    """`Europe` names a folder of tzdata, not a zone: ZoneInfo raised IsADirectoryError (and
    a name too long for the file system OSError), a traceback instead of the line."""
    (line,) = problems(QUIZBOT_TIMEZONE=zone)
    assert line.startswith("unknown IANA time zone ") and "(QUIZBOT_TIMEZONE) — " in line


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        # Two slashes: SQLAlchemy reads `data` as a host and raised ArgumentError when the
        # engine was made, a traceback after the settings had passed.
        ("sqlite://data/quizbot.db", "three slashes"),
        ("sqlite:///data/quizbot.db?timeout=soon", "the URL's options are not SQLite's"),
    ],
)
def test_an_sqlite_url_the_engine_would_refuse_is_one_line(url: str, problem: str) -> None:
    (line,) = problems(DATABASE_URL=url)
    assert problem in line.split(" (DATABASE_URL) — ")[0]


def test_a_postgresql_url_without_the_driver_installed_says_which_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as without the `postgres` extra
    (line,) = problems(DATABASE_URL="postgresql+psycopg://quizbot:hunter2@db/quizbot")
    assert "pip install -e '.[postgres]'" in line and "(DATABASE_URL) — " in line
    assert "hunter2" not in line


# -- QUIZBOT_TIMEZONE takes what /schedule takes (issue 26, class 10) ------------------------


@pytest.mark.parametrize(
    ("typed", "zone"),
    [("berlin", "Europe/Berlin"), ("europe/berlin", "Europe/Berlin"), ("Kiev", "Europe/Kiev")],
)
def test_the_default_zone_takes_a_city_or_any_case(typed: str, zone: str) -> None:
    settings = load(QUIZBOT_TIMEZONE=typed)
    assert (settings.timezone, settings.zone.key) == (zone, zone)


@pytest.mark.parametrize("zone", ["localtime", "Factory", "posixrules", "posix/Europe/Berlin"])
def test_the_default_zone_refuses_what_schedule_refuses(zone: str) -> None:
    """`localtime` loaded (tzdata has the file): the host's default was a zone /schedule and
    /config refuse, and it moved with the host's own setting."""
    (line,) = problems(QUIZBOT_TIMEZONE=zone)
    assert f"'{zone}' " in line and "(QUIZBOT_TIMEZONE) — " in line


def test_an_ambiguous_city_as_the_default_zone_names_the_candidates() -> None:
    (line,) = problems(QUIZBOT_TIMEZONE="central")
    assert line.startswith("'central' could be any of Canada/Central, US/Central")


# -- a .env line python-dotenv cannot read (issue 26, class 10) ------------------------------


def dotenv_problems(tmp_path: Path, text: str) -> list[str]:
    env_file = tmp_path / ".env"
    env_file.write_text(text, encoding="utf-8")
    with pytest.raises(HostError) as caught:
        load_settings(_env_file=env_file, CONTENT_DIR=str(ROOT / "content"))
    return caught.value.lines()


def test_an_unclosed_quote_in_dotenv_names_the_line_not_a_missing_token(
    tmp_path: Path,
) -> None:
    """python-dotenv skipped the line with a warning, and the start then said the bot token
    was not set."""
    lines = dotenv_problems(tmp_path, f'LOG_LEVEL=INFO\n\nDISCORD_TOKEN="{TOKEN}\nX=1\n')
    assert lines == [
        f"{tmp_path / '.env'} line 3: the value of DISCORD_TOKEN opens a \" quote that is not "
        "closed on this line (.env) — write it as NAME=value (a quoted value ends with the "
        "same quote), or delete the line"
    ]
    assert TOKEN not in lines[0] and "secret" not in lines[0]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("DISCORD_TOKEN='abc\n", "line 1: the value of DISCORD_TOKEN opens a ' quote"),
        # The quote runs on to the next line's quote: both lines are lost.
        ('A=1\nDISCORD_TOKEN="abc\nDATABASE_URL="sqlite:///x.db"\n', "line 2: the value of "),
        ('LOG_LEVEL="INFO"x\n', "line 1: the value of LOG_LEVEL has text after its closing"),
        ("LOG LEVEL=INFO\n", "line 1: this line is not NAME=value"),
        ("=INFO\n", "line 1: this line is not NAME=value"),
    ],
)
def test_each_unreadable_dotenv_line_is_named(tmp_path: Path, text: str, problem: str) -> None:
    (line,) = dotenv_problems(tmp_path, text)
    assert problem in line and line.endswith("or delete the line")


def test_every_unreadable_dotenv_line_is_reported_at_once(tmp_path: Path) -> None:
    lines = dotenv_problems(tmp_path, "A b=1\nLOG_LEVEL=INFO\nC d=2\n")
    assert [line.split(": ")[0].rsplit(" ", 1)[-1] for line in lines] == ["1", "3"]


def test_what_python_dotenv_reads_still_loads(tmp_path: Path) -> None:
    """No false alarm: comments, export, quotes with escapes, and a quoted value over two
    lines are all python-dotenv's NAME=value."""
    env_file = tmp_path / ".env"
    env_file.write_text(
        "# the bot\n"
        f"export DISCORD_TOKEN='{TOKEN}'  # from the portal\n"
        'LOG_LEVEL = "debug"\n'
        'NOTE="say \\"hi\\"\n  twice"\n'
        "EMPTY=\n"
        "\n",
        encoding="utf-8",
    )
    settings = load_settings(_env_file=env_file, CONTENT_DIR=str(ROOT / "content"))
    assert (settings.token(), settings.log_level) == (TOKEN, "DEBUG")
