"""`quizbot content check` and `quizbot content list`, called as the CLI calls them."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

from bot.content.commands import check_command, list_command

from .test_loader import GOOD_BANK, write


def test_check_clean_content(tmp_path: Path) -> None:
    write(tmp_path, GOOD_BANK, "one.yaml")
    write(tmp_path, GOOD_BANK.replace("t-", "u-"), "sub/two.yml")
    out = StringIO()

    assert check_command(tmp_path, out) == 0
    assert out.getvalue() == "4 tasks in 2 banks: OK\n"


def test_check_single_file_singular_wording(tmp_path: Path) -> None:
    file = write(tmp_path, GOOD_BANK)
    out = StringIO()
    assert check_command(file, out) == 0
    assert out.getvalue() == "2 tasks in 1 bank: OK\n"


def test_check_lists_every_problem_and_fails(tmp_path: Path) -> None:
    file = write(tmp_path, GOOD_BANK.replace("answer: B", "answer: E").replace("hard", "tough"))
    out = StringIO()

    assert check_command(tmp_path, out) == 1

    lines = out.getvalue().splitlines()
    assert lines == [
        f"{file}:13: task t-choice, field answer: answer 'E' is not among the options A–C",
        f"{file}:27: task t-fill, field difficulty: "
        "difficulty 'tough' is not one of easy, medium, hard",
        "2 problems in 1 file",
    ]


def test_list_one_line_per_task(tmp_path: Path) -> None:
    out = StringIO()
    assert list_command(write(tmp_path, GOOD_BANK), as_json=False, out=out) == 0
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[0].split()[:5] == ["t-choice", "choice", "easy", "Testing", "Which"]
    assert lines[1].split()[:4] == ["t-fill", "fill", "hard", "Python"]
    assert lines[1].endswith("Complete the code to parse a number.")


def test_list_json_is_the_stable_export(tmp_path: Path) -> None:
    out = StringIO()
    assert list_command(write(tmp_path, GOOD_BANK), as_json=True, out=out) == 0
    choice, fill = json.loads(out.getvalue())
    assert list(choice)[:9] == [
        "id", "bank", "topic", "kind", "difficulty", "instruction", "prompt", "language", "options",
    ]  # fmt: skip
    assert choice["answers"] == ["B"] and choice["hint"] == "Not red."
    assert choice["options"] == [
        {"label": "A", "text": "red"},
        {"label": "B", "text": "green"},
        {"label": "C", "text": "blue"},
    ]
    assert choice["mistakes"][0] == {"note": "Red is the colour of roses.", "options": ["A"]}
    assert choice["solution"]["steps"] == [{"title": "Look outside", "text": "Grass is green."}]
    assert fill["prompt"] == "value = [1](text.[2]())" and fill["answers"] == ["A", "C"]
    assert fill["instruction"] == "Complete the code to parse a number."


def test_list_refuses_broken_content_and_keeps_stdout_clean(tmp_path: Path) -> None:
    file = write(tmp_path, GOOD_BANK.replace("kind: fill", "kind: essay"))
    out, err = StringIO(), StringIO()

    assert list_command(file, as_json=True, out=out, err=err) == 1

    assert out.getvalue() == ""
    assert "kind 'essay' is not one of choice, fill" in err.getvalue()
