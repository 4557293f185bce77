"""A file imported as the CLI imports it, and the round trip (import, export, import again):
for the tests of each kind's formats."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

from bot.content import check_banks, importers
from bot.content.importers.drafts import bank_yaml
from bot.content.transfer import exported, import_command
from bot.quiz.tasks import Task


def imported(tmp_path: Path, text: str, name: str) -> tuple[int, list[Task], str]:
    """`quizbot bank import` of `text` as file `name`: its exit code, the tasks of the bank it
    wrote (which must pass the content check) and what it said on stderr."""
    source = tmp_path / name
    source.write_text(text, encoding="utf-8")
    output = tmp_path / "bank.yaml"
    err = io.StringIO()
    code = import_command(
        source, fmt=None, topic="History", output=output, out=io.StringIO(), err=err
    )
    catalog, problems = check_banks(output)
    assert problems == [], problems
    return code, list(catalog), err.getvalue()


def assert_round_trip(tmp_path: Path, bank_text: str, *, fmt: str, title: str) -> None:
    """The bank's tasks exported in `fmt`, imported and loaded again are the same tasks (but
    for the bank they are in); nothing is left out of the export."""
    bank = tmp_path / "bank.yaml"
    bank.write_text(bank_text, encoding="utf-8")
    catalog, problems = check_banks(bank)
    assert problems == []
    tasks = list(catalog)
    text, left = exported(tasks, fmt=fmt, bank=title)
    assert left == {}
    _, result = importers.parse(text, source=f"back.{fmt}", fmt=fmt)
    again_file = tmp_path / "again" / "bank.yaml"
    again_file.parent.mkdir()
    again_file.write_text(bank_yaml(result), encoding="utf-8")
    again, problems = check_banks(again_file)
    assert problems == []
    assert [replace(t, bank="") for t in again] == [replace(t, bank="") for t in tasks]
