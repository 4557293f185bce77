"""`quizbot export results`: the rows a teacher gets, as CSV and JSON, from DATABASE_URL."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.cli import main
from bot.quiz.engine import Outcome, Progress, grade
from bot.store import AnswerRequest, PostInfo, Store, make_engine
from tests.factories import choice

GUILD = 800000000000000001
ALICE, BOB = 111111111111111111, 222222222222222222
MONDAY = datetime(2025, 3, 10, 10, 0, tzinfo=UTC)


def _grade(post: PostInfo, request: AnswerRequest, progress: Progress) -> Outcome:
    assert post.task is not None
    return grade(post.task, progress, request.picks)


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Alice solves t-one on Monday (second try) and t-two on Wednesday (first try, after the
    hint); Bob misses t-one three times, on Monday; another server's member too."""
    path = tmp_path / "quizbot.db"
    engine = make_engine(f"sqlite:///{path}")
    store = Store(engine)
    one = store.create_post(GUILD, 1, choice("t-one"), None, now=MONDAY)
    two = store.create_post(GUILD, 1, choice("t-two"), None, now=MONDAY + timedelta(days=2))
    other = store.create_post(GUILD + 1, 1, choice("t-one"), None, now=MONDAY)

    def answer(post: PostInfo, user: int, pick: str, name: str = "member") -> None:
        store.answer(AnswerRequest(post.id, post.guild_id, user, name, (pick,)), _grade, MONDAY)

    answer(one, ALICE, "B", "Alice Liddell")
    answer(one, ALICE, "A", "Alice Liddell")
    for _ in range(3):
        answer(one, BOB, "C", "Bob")
    store.reveal_hint(two.id, GUILD, ALICE, "Alice Liddell", MONDAY + timedelta(days=2))
    answer(two, ALICE, "A", "Alice Liddell")
    answer(other, 333, "A")
    engine.dispose()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{path}")
    yield path


def export(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["export", "results", "--guild", str(GUILD), *args]) == 0
    return capsys.readouterr().out


def test_csv_has_a_header_and_one_row_per_member_and_task(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = list(csv.reader(io.StringIO(export(capsys))))
    assert rows == [
        ["member_id", "task_id", "attempts", "solved", "points", "first_try", "hint", "solution"],
        [str(ALICE), "t-one", "2", "1", rows[1][4], "0", "0", "0"],
        [str(ALICE), "t-two", "1", "1", rows[2][4], "1", "1", "0"],
        [str(BOB), "t-one", "3", "0", "0", "0", "0", "0"],
    ]
    assert int(rows[1][4]) > 0 and int(rows[2][4]) > 0
    assert "Alice" not in "".join(",".join(r) for r in rows)  # no names unless asked


def test_json_keeps_ids_exact_and_adds_names_when_asked(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = json.loads(export(capsys, "--format", "json", "--names"))
    assert [(r["member_id"], r["name"], r["task_id"]) for r in records] == [
        (str(ALICE), "Alice Liddell", "t-one"),
        (str(ALICE), "Alice Liddell", "t-two"),
        (str(BOB), "Bob", "t-one"),
    ]
    assert records[1] | {"points": 0} == {
        "member_id": str(ALICE), "name": "Alice Liddell", "task_id": "t-two", "attempts": 1,
        "solved": True, "points": 0, "first_try": True, "hint": True, "solution": False,
    }
    assert "name" not in json.loads(export(capsys, "--format", "json"))[0]


def test_since_counts_the_posts_made_from_that_date(
    db: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "grades.csv"
    assert export(capsys, "--since", "2025-03-11", "--output", str(out)) == ""
    rows = list(csv.reader(out.open()))
    assert [r[:2] for r in rows[1:]] == [[str(ALICE), "t-two"]]


def test_since_is_a_day_of_the_bots_zone_for_a_server_without_one(
    db: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Monday 10:00 UTC is already Tuesday 00:00 at UTC+14: t-one was posted on the 11th there.
    monkeypatch.setenv("QUIZBOT_TIMEZONE", "Pacific/Kiritimati")
    rows = list(csv.reader(io.StringIO(export(capsys, "--since", "2025-03-11"))))
    assert [r[:2] for r in rows[1:]] == [
        [str(ALICE), "t-one"],
        [str(ALICE), "t-two"],
        [str(BOB), "t-one"],
    ]


def test_a_bad_date_or_a_missing_database_is_one_line_not_a_traceback(
    db: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["export", "results", "--guild", str(GUILD), "--since", "last monday"])
    assert exit_.value.code == 2
    assert "is not a date like" in capsys.readouterr().err
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/nothing.db")
    assert main(["export", "results", "--guild", str(GUILD)]) == 1
    err = capsys.readouterr().err
    assert "no database at" in err and "Traceback" not in err
    assert not (tmp_path / "nothing.db").exists()
