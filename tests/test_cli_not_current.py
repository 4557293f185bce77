"""The host commands that read or delete data (`export results`, `export items`, `forget`)
never upgrade a database behind the host's back: an old one is one line, and left as it was."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.cli import main
from bot.store.migrate import head_revision
from tests.test_cli_db import OLD_DB, row_counts


@pytest.mark.parametrize(
    "command",
    [["export", "results"], ["export", "items"], ["forget"]],
    ids=["export results", "export items", "forget"],
)
def test_an_old_database_is_one_line_and_left_as_it_was(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
) -> None:
    path = tmp_path / "quizbot.db"
    shutil.copyfile(OLD_DB, path)
    before = row_counts(path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{path}")
    assert main([*command, "--guild", "1"]) == 1
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err.splitlines() == [
        "quizbot: the database is unversioned (a quizbot 0.1.0 database); "
        f"head is {head_revision()}; run quizbot db upgrade"
    ]
    assert row_counts(path) == before
