"""`python -m bot` with a bad host setup: exit status 1 and one `quizbot: ` line on stderr
naming the setting, never a traceback, never the token."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest

from tests.cli_run import quizbot_env, run_quizbot_cli

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"
TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.cli-test-token"


def quizbot(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """The real command in `cwd` (no .env there), with only the settings the test gives."""
    clean = quizbot_env(
        CONTENT_DIR=str(CONTENT),
        CONTENT_CACHE="",
        DATABASE_URL=f"sqlite:///{cwd / 'quizbot.db'}",
        LOG_LEVEL="ERROR",
    )
    return run_quizbot_cli(*args, cwd=cwd, env=clean | env)


def assert_one_host_line(result: subprocess.CompletedProcess[str], setting: str) -> str:
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert TOKEN not in result.stderr + result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    (line,) = lines
    assert line.startswith("quizbot: ")
    assert f" ({setting}) — " in line
    return line


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # closed again on leaving: nothing listens there


# Every setting's messages are tested in tests/test_settings.py; these prove the process
# ends with the line and nothing else.
@pytest.mark.parametrize(
    ("command", "setting", "value"),
    [
        (["run"], "LOG_LEVEL", "garbage"),
        (["run"], "SCHEDULE_GRACE_MINUTES", "99999999999999"),  # was an OverflowError
        (["run"], "DATABASE_URL", "mysql://quizbot:hunter2@db/quizbot"),
        (["content", "check"], "LOG_LEVEL", "garbage"),
        (["content", "check"], "CONTENT_DIR", "/no/such/banks"),
    ],
)
def test_a_bad_setting_is_one_line(
    command: list[str], setting: str, value: str, tmp_path: Path
) -> None:
    result = quizbot(command, tmp_path, DISCORD_TOKEN=TOKEN, **{setting: value})
    line = assert_one_host_line(result, setting)
    assert "hunter2" not in line


def test_run_without_a_token(tmp_path: Path) -> None:
    line = assert_one_host_line(quizbot(["run"], tmp_path), "DISCORD_TOKEN")
    assert "the bot token is not set" in line


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("folder", "is a folder, not a database file"),
        ("under-a-file", "which is a file, not a folder"),
        ("not-a-database", "is not an SQLite database"),
        ("read-only", "is read-only"),
    ],
)
def test_run_refuses_an_unusable_database_before_connecting(
    name: str, expected: str, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("not a database\n" * 100)
    (tmp_path / "existing.db").touch()  # an empty file is a valid, empty SQLite database
    url = {
        "folder": f"sqlite:///{tmp_path}",
        "under-a-file": f"sqlite:///{tmp_path / 'notes.txt' / 'quizbot.db'}",
        "not-a-database": f"sqlite:///{tmp_path / 'notes.txt'}",
        "read-only": f"sqlite:///file:{tmp_path / 'existing.db'}?mode=ro&uri=true",
    }[name]
    # Nothing listens on the API base: the check must fail before the bot tries to log in.
    api = f"http://127.0.0.1:{closed_port()}/api/v10"
    result = quizbot(["run"], tmp_path, DISCORD_TOKEN=TOKEN, DATABASE_URL=url, DISCORD_API_BASE=api)
    assert expected in assert_one_host_line(result, "DATABASE_URL")


def test_practice_checks_its_database_too(tmp_path: Path) -> None:
    result = quizbot(["practice", "--db", str(tmp_path)], tmp_path)
    assert "is a folder" in assert_one_host_line(result, "DATABASE_URL")


@pytest.mark.parametrize("command", [["run"], ["sync", "--guild", "1"]])
def test_an_unreachable_api_is_one_line(command: list[str], tmp_path: Path) -> None:
    api = f"http://127.0.0.1:{closed_port()}/api/v10"
    result = quizbot(command, tmp_path, DISCORD_TOKEN=TOKEN, DISCORD_API_BASE=api)
    line = assert_one_host_line(result, "DISCORD_API_BASE")
    assert f"cannot reach the Discord API at {api}: " in line


def test_content_check_of_a_given_path_needs_no_content_dir(tmp_path: Path) -> None:
    """The path argument replaces CONTENT_DIR, so authors can check banks from anywhere."""
    result = quizbot(["content", "check", str(CONTENT)], tmp_path, CONTENT_DIR="/no/such/banks")
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip().endswith(": OK")


@pytest.mark.parametrize("guild", ["0", "-5", "99999999999999999999999"])
def test_sync_to_a_server_id_no_server_has_is_refused_before_logging_in(
    guild: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["sync", "--guild", guild])
    assert exit_info.value.code == 2
    line = capsys.readouterr().err.splitlines()[-1]
    assert line.startswith(f"quizbot sync: error: argument --guild: '{guild}' is not a Discord id")


# -- issue 26, class 10: settings, zones and the terminal ------------------------------------


def test_run_with_an_unclosed_quote_in_dotenv_names_that_line(tmp_path: Path) -> None:
    """It was "the bot token is not set": python-dotenv had skipped the line with a warning."""
    (tmp_path / ".env").write_text(f'LOG_LEVEL=ERROR\nDISCORD_TOKEN="{TOKEN}\n')
    line = assert_one_host_line(quizbot(["run"], tmp_path), ".env")
    assert line.startswith(
        'quizbot: .env line 2: the value of DISCORD_TOKEN opens a " quote that is not closed'
    )
    assert "token is not set" not in line


def test_run_refuses_localtime_as_the_default_zone(tmp_path: Path) -> None:
    api = f"http://127.0.0.1:{closed_port()}/api/v10"
    result = quizbot(
        ["run"], tmp_path, DISCORD_TOKEN=TOKEN, QUIZBOT_TIMEZONE="localtime", DISCORD_API_BASE=api
    )
    assert "'localtime' is not a time zone I know" in assert_one_host_line(
        result, "QUIZBOT_TIMEZONE"
    )


def test_practice_db_given_a_url_never_makes_a_folder_of_it(tmp_path: Path) -> None:
    """`--db postgresql+psycopg://…` was read as a path: an SQLite file under
    ./postgresql+psycopg:/. A URL is a URL: here a server that is not there, one line."""
    url = f"postgresql+psycopg://quizbot:hunter2@127.0.0.1:{closed_port()}/quizbot"
    result = quizbot(["practice", "--db", url], tmp_path)
    line = assert_one_host_line(result, "DATABASE_URL")
    assert "cannot connect to the PostgreSQL database" in line and "hunter2" not in line
    assert list(tmp_path.iterdir()) == []


def test_practice_db_given_an_sqlite_url_records_there(tmp_path: Path) -> None:
    db = tmp_path / "elsewhere" / "practice.db"
    db.parent.mkdir()
    result = run_quizbot_cli(
        "practice",
        "--db",
        f"sqlite:///{db}",
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "CONTENT_DIR": str(CONTENT)},
        input="B\n:quit\n",
    )
    assert result.returncode == 0, result.stderr
    assert db.is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere"]  # no ./sqlite:/ folder
