"""The command line a newcomer meets (issue 29): help without guessing, `--version`, examples in
every command's help, `quizbot health` for health checks, and terminal practice on a database
of its own that says why a right answer scored nothing."""

from __future__ import annotations

import contextlib
import io
import json
import re
import tomllib
from datetime import UTC, datetime, timedelta
from importlib.metadata import version
from pathlib import Path

import pytest
import yaml

from bot.cli import main
from bot.health import STALE_AFTER_SECONDS, GatewayStatus, check_health, write_status
from tests.cli_run import ROOT, quizbot_env, run_quizbot_cli

SEED = ROOT / "content" / "mlops" / "data-vs-model-parallelism.yaml"


def commands_in(args: list[str]) -> list[list[str]]:
    """Every command under `quizbot ARGS`, found as a user finds them: in the help's list."""
    with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.suppress(SystemExit):
        main([*args, "--help"])
    listed = re.findall(r"^    ([a-z][a-z-]*)(?:  |$)", out.getvalue(), flags=re.MULTILINE)
    return [found for name in listed for found in ([*args, name], *commands_in([*args, name]))]


SUBCOMMANDS = commands_in([])


def test_the_help_lists_every_command() -> None:
    assert {" ".join(args) for args in SUBCOMMANDS} >= {
        "run",
        "sync",
        "health",
        "content check",
        "content import",
        "export results",
        "db copy",
    }


def help_of(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exit_:
        main([*args, "--help"])
    assert exit_.value.code == 0
    return capsys.readouterr().out


def test_bare_quizbot_prints_the_help_and_exits_0() -> None:
    result = run_quizbot_cli()
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: quizbot")
    for command in ("run", "sync", "health", "content", "practice", "export", "db"):
        assert f"\n    {command} " in result.stdout
    assert "quizbot run" in result.stdout  # the quick start
    assert result.stderr == ""


def test_a_command_group_without_its_action_prints_its_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["db"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: quizbot db")
    assert "current" in out and "upgrade" in out and "copy" in out


def test_version_is_the_installed_one() -> None:
    result = run_quizbot_cli("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"quizbot {version('quizbot')}"
    # The installed version is the project's (a stale install would show an older one).
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert version("quizbot") == project


@pytest.mark.parametrize("args", SUBCOMMANDS, ids=" ".join)
def test_every_command_says_what_it_does_and_shows_an_example(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    text = help_of(args, capsys)
    usage, description, *_ = text.split("\n\n")
    assert usage.startswith(f"usage: quizbot {' '.join(args)}")
    assert len(description.split()) >= 8, description
    examples = text.split("examples:\n", 1)[1].splitlines()
    assert examples and all("quizbot" in line for line in examples), examples
    # Nothing left unsaid ("ACTION ..." in the usage line is argparse's; the URL is db copy's).
    said = text.removeprefix(usage).replace("postgresql+psycopg://…", "")
    assert "..." not in said and "…" not in said


def test_run_help_names_the_token_the_database_and_env(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_of(["run"], capsys)
    for word in ("DISCORD_TOKEN", "DATABASE_URL", ".env", "invite", "slash commands"):
        assert word in text


def test_export_help_says_what_it_exports(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_of(["export", "results"], capsys)
    flat = " ".join(text.split())
    for column in ("member_id", "task_id", "attempts", "solved", "points", "first_try"):
        assert column in flat


# -- quizbot health ------------------------------------------------------------------------------


@pytest.fixture
def database(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'quizbot.db'}"
    assert run_quizbot_cli("db", "upgrade", env=quizbot_env(DATABASE_URL=url)).returncode == 0
    return url


def health(tmp_path: Path, url: str, status: Path) -> tuple[int, str, str]:
    env = quizbot_env(DATABASE_URL=url, HEALTH_FILE=str(status))
    result = run_quizbot_cli("health", env=env, cwd=tmp_path)
    return result.returncode, result.stdout, result.stderr


def test_health_is_0_while_the_database_answers_and_the_gateway_is_connected(
    tmp_path: Path, database: str
) -> None:
    status = tmp_path / "status.json"
    write_status(status, GatewayStatus(connected=True, at=datetime.now(UTC), state="connected"))
    code, out, err = health(tmp_path, database, status)
    assert (code, err) == (0, "")
    assert out == "healthy: the database answers and the gateway is connected\n"


@pytest.mark.parametrize(
    ("connected", "age", "why"),
    [
        (False, 0.0, "the gateway is not connected (disconnected "),
        (True, STALE_AFTER_SECONDS + 30, "s old: it stopped or hangs"),
    ],
)
def test_health_is_1_with_one_line_when_the_gateway_is_down_or_the_status_stale(
    tmp_path: Path, database: str, connected: bool, age: float, why: str
) -> None:
    status = tmp_path / "status.json"
    at = datetime.now(UTC) - timedelta(seconds=age)
    state = "connected" if connected else "disconnected"
    write_status(status, GatewayStatus(connected=connected, at=at, state=state))
    code, out, err = health(tmp_path, database, status)
    assert (code, out) == (1, "")
    assert err.startswith("quizbot: unhealthy: ") and err.count("\n") == 1, err
    assert why in err


def test_health_without_a_running_bot_or_a_database_says_which(tmp_path: Path) -> None:
    status = tmp_path / "status.json"
    code, _, err = health(tmp_path, f"sqlite:///{tmp_path / 'none.db'}", status)
    assert code == 1
    assert err.startswith("quizbot: unhealthy: the database does not answer: there is no database")
    write_status(status, GatewayStatus(connected=True, at=datetime.now(UTC), state="connected"))
    assert check_health(f"sqlite:///{tmp_path / 'none.db'}", status) is not None


def test_health_names_a_missing_status_file(tmp_path: Path, database: str) -> None:
    code, _, err = health(tmp_path, database, tmp_path / "nothing.json")
    assert code == 1
    assert "the bot is not running" in err and err.count("\n") == 1


def test_a_garbled_status_is_unhealthy_not_a_traceback(tmp_path: Path, database: str) -> None:
    status = tmp_path / "status.json"
    status.write_text(json.dumps({"connected": True}))
    code, _, err = health(tmp_path, database, status)
    assert code == 1 and "cannot read the status" in err and "Traceback" not in err


# -- quizbot practice ----------------------------------------------------------------------------


def first_task_answer() -> str:
    task = yaml.safe_load(SEED.read_text())["tasks"][0]
    return " ".join(task["answers"]) if task["kind"] == "fill" else str(task["answer"])


def practice_once(tmp_path: Path, database_url: str) -> str:
    """One session as a user runs it: the first task answered right at once, then :quit."""
    env = quizbot_env(DATABASE_URL=database_url, XDG_DATA_HOME=str(tmp_path / "data-home"))
    result = run_quizbot_cli(
        "practice",
        "--content",
        str(SEED),
        input=f"{first_task_answer()}\n:quit\n",
        env=env,
        cwd=tmp_path,
    )
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    return result.stdout


def test_practice_records_to_its_own_database_and_says_where(tmp_path: Path) -> None:
    bot_database = tmp_path / "bot.db"
    out = practice_once(tmp_path, f"sqlite:///{bot_database}")
    own = tmp_path / "data-home" / "quizbot" / "practice.db"
    assert out.startswith(f"Recording your progress to {own} (--db to choose another).")
    assert own.is_file()
    assert not bot_database.exists()  # the bot's leaderboard is left alone


def test_a_second_session_says_why_a_right_answer_scores_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'bot.db'}"
    first = practice_once(tmp_path, url)
    assert "Correct! +" in first and "Correct! +0" not in first
    again = practice_once(tmp_path, url)
    assert (
        "Correct! +0 point(s). A task scores once: you finished this one in an earlier session."
        in again
    )
