"""`quizbot export items`: one row per task with its item analysis, from DATABASE_URL."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.cli import main
from bot.items_export import FIELDS
from bot.store import AnswerRequest, Store, make_engine
from tests import store_calls
from tests.factories import choice
from tests.store_calls import create_post

GUILD = 800000000000000001
MONDAY = datetime(2025, 3, 10, 10, 0, tzinfo=UTC)


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Twelve members answer an easy task (all right but one) and a task whose option D
    nobody picks."""
    path = tmp_path / "quizbot.db"
    engine = make_engine(f"sqlite:///{path}")
    store = Store(engine)
    made = {}
    for task in (
        choice("t-easy", texts=("right", "wrong", "also wrong")),
        choice("t-dull", texts=("right", "wrong", "also wrong", "=nobody")),
    ):
        made[task.id] = create_post(store, GUILD, 1, task, now=MONDAY)
    for user in range(1, 13):
        for task_id, pick in (("t-easy", "B" if user == 1 else "A"), ("t-dull", "ABC"[user % 3])):
            post = made[task_id]
            request = AnswerRequest(post.id, GUILD, user, f"m{user}", (pick,))
            store_calls.answer(store, request, MONDAY)
    engine.dispose()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{path}")
    yield path


def export(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["export", "items", "--guild", str(GUILD), *args]) == 0
    return capsys.readouterr().out


def test_json_has_every_figure_and_the_flags(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = {r["task_id"]: r for r in json.loads(export(capsys, "--format", "json"))}
    easy = records["t-easy"]
    assert set(easy) == set(FIELDS)
    assert (easy["answered"], easy["first_try"], easy["facility"]) == (12, 11, 0.917)
    assert easy["facility_low"] < 0.917 < easy["facility_high"]
    assert easy["discrimination"] is None and easy["discrimination_members"] == 0
    assert {"flag": "too-easy", "figure": "facility 0.92 (11/12)"} in easy["flags"]
    dull = records["t-dull"]
    assert {"flag": "unused-distractor", "figure": "D: 0/12 picked"} in dull["flags"]
    # The ratings the answers stored (issue 31): 11 of 12 right reads easy, 4 of 12 hard.
    assert (easy["group_difficulty"], dull["group_difficulty"]) == ("easy", "hard")
    assert easy["difficulty_rating"] < 0 < dull["difficulty_rating"]
    assert [(o["option"], o["picked"]) for o in dull["options"]] == [
        ("A", 4),
        ("B", 4),
        ("C", 4),
        ("D", 0),
    ]


def test_csv_is_one_row_per_task(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = list(csv.DictReader(io.StringIO(export(capsys))))
    assert sorted(r["task_id"] for r in rows) == ["t-dull", "t-easy"]
    easy = next(r for r in rows if r["task_id"] == "t-easy")
    assert easy["flags"] == "too-easy: facility 0.92 (11/12); unused-distractor: C: 0/12 picked"
    assert easy["options"].startswith("A* 11 (top 0/0, bottom 0/0); B 1")


def test_a_threshold_can_be_changed_and_a_bad_one_is_one_line(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = json.loads(export(capsys, "--format", "json", "--threshold", "too_easy=0.95"))
    assert all(f["flag"] != "too-easy" for r in records for f in r["flags"])
    assert main(["export", "items", "--guild", str(GUILD), "--threshold", "too_easy"]) == 2
    assert main(["export", "items", "--guild", str(GUILD), "--threshold", "easy=1"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "quizbot: --threshold 'too_easy': give NAME=VALUE, e.g. too_easy=0.95",
        "quizbot: --threshold: unknown threshold 'easy' (known: too_easy, too_hard, separates, "
        "min_members, min_tasks, min_answers, beyond_chance, min_each)",
    ]


def test_an_unknown_server_is_one_line(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "items", "--guild", "5"]) == 1
    assert capsys.readouterr().err.startswith("quizbot: no items for server 5:")
