"""A CONTENT_DIR the bot's user cannot read says so, and why (issue 26, class 10): it was
"no *.yaml or *.yml banks here", since pathlib's rglob lists a folder it may not open as
empty, and a folder that lists but whose files cannot be looked at (r--) was a traceback.

Root reads any folder whatever its mode, so as root the command runs without the two
capabilities that allow it (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), through setpriv: the
kernel then checks the mode as for anyone else. Where that cannot be done, the test is
skipped rather than faked."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli_run import quizbot_env, run_quizbot_cli

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "content" / "mlops" / "data-vs-model-parallelism.yaml"


@pytest.fixture(scope="module")
def as_anyone(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The command prefix under which a folder's mode is obeyed."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root reads any folder, and setpriv (util-linux) is not here to stop that")
    prefix = [setpriv, "--bounding-set", "-dac_override,-dac_read_search"]
    probe = tmp_path_factory.mktemp("probe") / "closed"
    probe.mkdir(mode=0o000)
    try:
        listed = subprocess.run([*prefix, "ls", str(probe)], capture_output=True, timeout=30)
    finally:
        probe.chmod(0o755)
    if listed.returncode == 0:
        pytest.skip("cannot drop root's file capabilities here (no CAP_SETPCAP?)")
    return prefix


@pytest.fixture(params=[0o000, 0o311, 0o444], ids=["none", "no-read", "no-search"])
def closed_banks(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "banks"
    folder.mkdir()
    shutil.copy(SEED, folder / SEED.name)
    folder.chmod(request.param)
    yield folder
    folder.chmod(0o755)  # so that pytest can remove it


def quizbot(prefix: list[str], args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = quizbot_env(CONTENT_CACHE="")
    return run_quizbot_cli(*args, prefix=prefix, cwd=cwd, env=env, input="")


def test_content_check_says_the_folder_cannot_be_read(
    as_anyone: list[str], closed_banks: Path, tmp_path: Path
) -> None:
    result = quizbot(as_anyone, ["content", "check", str(closed_banks)], tmp_path)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "no *.yaml or *.yml banks here" not in result.stdout
    assert f"{closed_banks}: cannot read " in result.stdout
    assert "(Permission denied): the bot's user needs read and search (r-x) permission" in (
        result.stdout
    )


def test_practice_says_it_too(as_anyone: list[str], closed_banks: Path, tmp_path: Path) -> None:
    db = tmp_path / "practice.db"
    result = quizbot(
        as_anyone, ["practice", "--content", str(closed_banks), "--db", str(db)], tmp_path
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "Permission denied" in result.stderr and "banks here" not in result.stderr


def test_a_closed_folder_below_is_named_too(as_anyone: list[str], tmp_path: Path) -> None:
    banks = tmp_path / "banks"
    closed = banks / "mlops"
    closed.mkdir(parents=True)
    shutil.copy(SEED, closed / SEED.name)
    closed.chmod(0o000)
    try:
        result = quizbot(as_anyone, ["content", "check", str(banks)], tmp_path)
    finally:
        closed.chmod(0o755)
    assert result.returncode == 1
    assert f"{closed}: cannot read this folder (Permission denied)" in result.stdout


def test_a_closed_folder_beside_readable_banks_is_named(
    as_anyone: list[str], tmp_path: Path
) -> None:
    """The readable bank alone used to pass the check: the closed folder's banks were gone
    without a word."""
    banks = tmp_path / "banks"
    closed = banks / "closed"
    closed.mkdir(parents=True)
    shutil.copy(SEED, banks / SEED.name)
    (closed / "more.yaml").write_text("bank: x\n", encoding="utf-8")
    closed.chmod(0o000)
    try:
        result = quizbot(as_anyone, ["content", "check", str(banks)], tmp_path)
    finally:
        closed.chmod(0o755)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert f"{closed}: cannot read this folder (Permission denied)" in result.stdout


def test_run_says_it_and_starts_nothing(
    as_anyone: list[str], closed_banks: Path, tmp_path: Path
) -> None:
    """With the content cache on (the default), the cache's look at the files came first, and
    an r-- folder ended the start with a PermissionError traceback."""
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "DISCORD_TOKEN": "MTIzNDU2Nzg5MDEyMzQ1Njc4.unreadable-banks",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'quizbot.db'}",
        "DISCORD_API_BASE": "http://127.0.0.1:9/api/v10",  # never reached
        "CONTENT_DIR": str(closed_banks),
        "CONTENT_CACHE": str(tmp_path / "content-cache.pickle"),
    }
    result = run_quizbot_cli("run", prefix=as_anyone, cwd=tmp_path, env=env)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert "not starting: 1 problem in the content" in result.stderr
    assert f"{closed_banks}: cannot read " in result.stderr
    assert "(Permission denied)" in result.stderr
