"""`quizbot export results`: the rows a teacher gets, as CSV and JSON, from DATABASE_URL."""

from __future__ import annotations

import csv
import errno
import io
import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO

import pytest

from bot.cli import main
from bot.results_export import FIELDS
from bot.store import AnswerRequest, PostInfo, Store, answers, make_engine
from tests import store_calls
from tests.factories import choice
from tests.store_calls import create_post, reveal_hint, write
from tests.test_cli_db import assert_refused_touching_nothing

GUILD = 800000000000000001
ALICE, BOB = 111111111111111111, 222222222222222222
MONDAY = datetime(2025, 3, 10, 10, 0, tzinfo=UTC)


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Alice solves t-one on Monday (second try) and t-two on Wednesday (first try, after the
    hint); Bob misses t-one three times, on Monday; another server's member too."""
    path = tmp_path / "quizbot.db"
    engine = make_engine(f"sqlite:///{path}")
    store = Store(engine)
    t_one = choice("t-one", texts=("right", "wrong", "also wrong", "far off"))
    one = create_post(store, GUILD, 1, t_one, now=MONDAY)
    two = create_post(store, GUILD, 1, choice("t-two"), now=MONDAY + timedelta(days=2))
    other = create_post(store, GUILD + 1, 1, t_one, now=MONDAY)

    def answer(post: PostInfo, user: int, pick: str, name: str = "member") -> None:
        store_calls.answer(
            store, AnswerRequest(post.id, post.guild_id, user, name, (pick,)), MONDAY
        )

    answer(one, ALICE, "B", "Alice Liddell")
    answer(one, ALICE, "A", "Alice Liddell")
    for pick in "BCD":  # three different misses (a repeat would use no attempt)
        answer(one, BOB, pick, "Bob")
    reveal_hint(store, two.id, GUILD, ALICE, "Alice Liddell", MONDAY + timedelta(days=2))
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
        [
            *("member_id", "task_id", "attempts", "solved", "points", "first_try", "hint"),
            *("solution", "answer"),
        ],
        [str(ALICE), "t-one", "2", "1", rows[1][4], "0", "0", "0", "A"],  # the last answer
        [str(ALICE), "t-two", "1", "1", rows[2][4], "1", "1", "0", "A"],
        [str(BOB), "t-one", "3", "0", "0", "0", "0", "0", "D"],
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
        "member_id": str(ALICE),
        "name": "Alice Liddell",
        "task_id": "t-two",
        "attempts": 1,
        "solved": True,
        "points": 0,
        "first_try": True,
        "hint": True,
        "solution": False,
        "answer": "A",
    }
    assert "name" not in json.loads(export(capsys, "--format", "json"))[0]


def test_since_counts_the_posts_made_from_that_date(
    db: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "grades.csv"
    assert export(capsys, "--since", "2025-03-11", "--output", str(out)) == ""
    rows = list(csv.reader(out.open(encoding="utf-8-sig", newline="")))
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


def _failure(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """The host's one line on stderr, after a run that must fail with exit 1 and no output."""
    assert main(["export", "results", "--guild", str(GUILD), *args]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("quizbot: ") and captured.err.count("\n") == 1
    return captured.err


@pytest.mark.parametrize(
    ("target", "reason"),
    [("missing/grades.csv", "No such file or directory"), (".", "Is a directory")],
)
def test_an_output_that_cannot_be_written_is_one_line_and_leaves_nothing_behind(
    db: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, target: str, reason: str
) -> None:
    before = sorted(tmp_path.iterdir())
    err = _failure(capsys, "--output", str(tmp_path / target))
    assert f"can't write {tmp_path / target}: {reason}" in err
    assert sorted(tmp_path.iterdir()) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_an_output_in_a_read_only_folder_is_one_line(
    db: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    err = _failure(capsys, "--output", str(locked / "grades.csv"))
    assert f"can't write {locked / 'grades.csv'}: Permission denied" in err
    assert list(locked.iterdir()) == []


def test_a_write_that_fails_halfway_keeps_the_old_file_and_leaves_no_part(
    db: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full_disk(rows: object, out: IO[str], *, names: bool = False) -> None:
        out.write("member_id,task_id\n")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("bot.results_export.write_csv", full_disk)
    out = tmp_path / "grades.csv"
    out.write_text("last week's grades\n")
    before = sorted(tmp_path.iterdir())
    err = _failure(capsys, "--output", str(out))
    assert f"can't write {out}: {os.strerror(errno.ENOSPC)}" in err
    assert out.read_text() == "last week's grades\n"
    assert sorted(tmp_path.iterdir()) == before


@pytest.mark.parametrize("guild", ["0", "-5", str(2**63), "abc"])
def test_a_guild_id_outside_discords_range_is_an_argparse_error(
    db: Path, capsys: pytest.CaptureFixture[str], guild: str
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["export", "results", "--guild", guild])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --guild: {guild!r} is not a Discord id" in err
    assert "Traceback" not in err


def test_the_first_day_of_year_one_is_refused_not_a_crash_east_of_utc(
    db: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its midnight in Berlin is still year 0 in UTC, which no datetime can hold.
    monkeypatch.setenv("QUIZBOT_TIMEZONE", "Europe/Berlin")
    with pytest.raises(SystemExit) as exit_:
        main(["export", "results", "--guild", str(GUILD), "--since", "0001-01-01"])
    assert exit_.value.code == 2
    assert "argument --since: '0001-01-01' is too early" in capsys.readouterr().err
    rows = list(csv.reader(io.StringIO(export(capsys, "--since", "0001-01-02"))))
    assert len(rows) == 4


def test_csv_neutralises_names_a_spreadsheet_would_run_but_json_keeps_them(
    db: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    names = ['=HYPERLINK("http://x")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\tx", "\ry"]
    store = Store(make_engine(f"sqlite:///{db}"))
    post = create_post(store, GUILD, 1, choice("t-three"), now=MONDAY)
    for user, name in enumerate(names, start=1):
        request = AnswerRequest(post.id, GUILD, user, name, ("A",))
        store_calls.answer(store, request, MONDAY)
    store.engine.dispose()
    out = tmp_path / "grades.csv"
    assert export(capsys, "--names", "--output", str(out)) == ""
    rows = list(csv.reader(out.open(encoding="utf-8-sig", newline="")))
    assert [r[1] for r in rows[1 : len(names) + 1]] == [f"'{name}" for name in names]
    assert [r[3] for r in rows[1 : len(names) + 1]] == ["1"] * len(names)  # numbers untouched
    records = json.loads(export(capsys, "--names", "--format", "json"))
    assert [r["name"] for r in records[: len(names)]] == names


def test_an_unknown_server_is_an_error_and_writes_nothing(
    db: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "grades.csv"
    assert main(["export", "results", "--guild", "42", "--output", str(out)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("quizbot: no results for server 42")
    assert "(check the id" in captured.err and captured.err.count("\n") == 1
    assert not out.exists()


def test_a_known_server_with_nothing_since_the_date_says_so_and_writes_the_header(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", "results", "--guild", str(GUILD), "--since", "2030-01-01"]) == 0
    captured = capsys.readouterr()
    assert list(csv.reader(io.StringIO(captured.out))) == [list(FIELDS)]
    assert captured.err.startswith(f"quizbot: no results for server {GUILD} since 2030-01-01")
    assert captured.err.count("\n") == 1


def test_the_count_written_is_worded_for_one_row_and_for_more(
    db: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "grades.csv"
    for since, said in [("2025-03-11", "1 row"), ("2025-03-01", "3 rows")]:
        args = ["--since", since, "--output", str(out)]
        assert main(["export", "results", "--guild", str(GUILD), *args]) == 0
        assert capsys.readouterr().err == f"wrote {said} to {out}\n"


def test_a_csv_file_starts_with_a_bom_so_spreadsheets_read_utf8(
    db: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    store = Store(make_engine(f"sqlite:///{db}"))
    write(store, answers.upsert_member, GUILD, BOB, "Zoë", MONDAY)
    store.engine.dispose()
    out = tmp_path / "grades.csv"
    assert export(capsys, "--names", "--output", str(out)) == ""
    assert out.read_bytes().startswith(b"\xef\xbb\xbfmember_id,name,")
    rows = list(csv.reader(out.open(encoding="utf-8-sig", newline="")))
    assert rows[0][0] == "member_id" and rows[3][1] == "Zoë"


@pytest.mark.parametrize("kind", ["folder", "not-sqlite", "unreachable"])
def test_an_unusable_database_is_one_line_not_a_traceback(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["export", "results", "--guild", str(GUILD), "--output", "grades.csv"]
    assert_refused_touching_nothing(argv, kind, tmp_path, monkeypatch, capsys)
