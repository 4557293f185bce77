"""`quizbot content import/export` as a person runs them, and the `confirmed` key they rely on."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests/content/importers/data"
SEED_PAGE = DATA / "page-seed-parallelism.txt"
SHIPPED = ROOT / "content"


def quizbot(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "CONTENT_CACHE": "", "LOG_LEVEL": "ERROR"},
    )


def test_importing_a_page_writes_a_bank_that_waits_for_a_person(tmp_path: Path) -> None:
    bank = tmp_path / "banks" / "seed.yaml"
    result = quizbot("content", "import", str(SEED_PAGE), "--output", str(bank), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""  # the bank went to the file
    # The report names the source and line of every guess.
    guesses = [line for line in result.stderr.splitlines() if "guessed" in line]
    assert len(guesses) == 2 and all(line.startswith(f"{SEED_PAGE}:") for line in guesses)
    assert "imported 10 task(s) as page, 2 to confirm" in result.stderr

    check = quizbot("content", "check", str(bank), cwd=tmp_path)
    assert check.returncode == 1
    unconfirmed = [line for line in check.stdout.splitlines() if "not confirmed" in line]
    assert [line.split(": ")[1] for line in unconfirmed] == [
        "task mlops-parallelism-fill-4, field confirmed",
        "task mlops-parallelism-fill-5, field confirmed",
    ]
    assert all(line.startswith(f"{bank}:") for line in unconfirmed)

    listed = quizbot("content", "list", str(bank), "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    confirmed = {t["id"]: t["confirmed"] for t in json.loads(listed.stdout)}
    assert len(confirmed) == 10
    assert [k for k, v in confirmed.items() if not v] == [
        "mlops-parallelism-fill-4",
        "mlops-parallelism-fill-5",
    ]

    # A person checks the answers and deletes the markers: the bank is then served.
    bank.write_text(bank.read_text().replace("    confirmed: false\n", ""))
    assert quizbot("content", "check", str(bank), cwd=tmp_path).returncode == 0


def test_the_bank_goes_to_stdout_and_the_report_to_stderr(tmp_path: Path) -> None:
    result = quizbot("content", "import", str(SEED_PAGE), "--topic", "Parallelism", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout.startswith("bank: ") and "topic: Parallelism" in result.stdout
    assert "bank:" not in result.stderr


def test_a_source_of_no_known_format_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "notes.txt"
    source.write_text("Just some notes about parallelism.\nNothing to import here.\n")
    result = quizbot("content", "import", str(source), cwd=tmp_path)
    assert result.returncode == 1
    assert "cannot tell the format" in result.stderr and "--format" in result.stderr


def test_a_source_with_no_importable_question_exits_1(tmp_path: Path) -> None:
    source = tmp_path / "essay.aiken.txt"
    source.write_text("What is the meaning of life?\nANSWER: B\n")
    result = quizbot("content", "import", str(source), "--format", "aiken", cwd=tmp_path)
    assert result.returncode == 1
    assert f"{source}:2: left out" in result.stderr and "no task imported" in result.stderr


def test_moodle_xml_export_imports_back_as_the_same_tasks(tmp_path: Path) -> None:
    exported = tmp_path / "quiz.xml"
    result = quizbot(
        "content",
        "export",
        str(SHIPPED),
        "--format",
        "moodle-xml",
        "--output",
        str(exported),
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    back = tmp_path / "back.yaml"
    result = quizbot("content", "import", str(exported), "--output", str(back), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "as moodle-xml" in result.stderr
    ids = [
        t["id"]
        for t in json.loads(quizbot("content", "list", str(back), "--json", cwd=tmp_path).stdout)
    ]
    shipped = json.loads(quizbot("content", "list", str(SHIPPED), "--json", cwd=tmp_path).stdout)
    exportable = [t["id"] for t in shipped if t["kind"] == "choice" or len(t["answers"]) == 1]
    assert ids == exportable


def test_confirmed_must_be_true_or_false(tmp_path: Path) -> None:
    bank = tmp_path / "b.yaml"
    shipped = (SHIPPED / "mlops/data-vs-model-parallelism.yaml").read_text()
    bank.write_text(
        shipped.replace("    kind: fill\n", "    kind: fill\n    confirmed: maybe\n", 1)
    )
    result = quizbot("content", "check", str(bank), cwd=tmp_path)
    assert result.returncode == 1
    assert "field confirmed: expected true or false" in result.stdout


CLEAN_GIFT = "::Q1:: What is 2+2? {=4 ~3 ~5}\n"


def in_folder(folder: Path, monkeypatch: pytest.MonkeyPatch, content: Path | None = None) -> None:
    """`main` run in process, from `folder`, with no content cache (and `content` served)."""
    monkeypatch.chdir(folder)
    if content is not None:
        monkeypatch.setenv("CONTENT_DIR", str(content))
    monkeypatch.setenv("CONTENT_CACHE", "")


def assert_cant_write(
    code: int, capsys: pytest.CaptureFixture[str], output: Path, reason: str
) -> None:
    captured = capsys.readouterr()
    assert code == 1
    assert captured.out == ""
    assert "Traceback" not in captured.err
    assert captured.err.splitlines() == [
        f"quizbot: can't write {output}: {reason} "
        "(give --output a file in a folder that exists and that you may write to)"
    ]


@pytest.mark.parametrize("where", ["a folder", "under a file"])
def test_an_import_output_that_cant_be_written_is_one_line(
    where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    in_folder(tmp_path, monkeypatch, content=SHIPPED)
    source = tmp_path / "quiz.gift"
    source.write_text(CLEAN_GIFT)
    (tmp_path / "banks").mkdir()
    output, reason = {
        "a folder": (tmp_path / "banks", "Is a directory"),
        "under a file": (tmp_path / "quiz.gift" / "bank.yaml", "Not a directory"),
    }[where]
    before = sorted(tmp_path.rglob("*"))
    code = main(["content", "import", str(source), "--output", str(output)])
    assert_cant_write(code, capsys, output, reason)
    assert sorted(tmp_path.rglob("*")) == before  # no bank, no part of one
    assert source.read_text() == CLEAN_GIFT


@pytest.mark.parametrize("where", ["a folder", "a missing folder"])
def test_an_export_output_that_cant_be_written_is_one_line(
    where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    in_folder(tmp_path, monkeypatch)
    (tmp_path / "out").mkdir()
    output = tmp_path / "out" if where == "a folder" else tmp_path / "nope" / "banks.gift"
    reason = "Is a directory" if where == "a folder" else "No such file or directory"
    code = main(["content", "export", str(SHIPPED), "--format", "gift", "--output", str(output)])
    assert_cant_write(code, capsys, output, reason)
    assert [p.name for p in tmp_path.rglob("*")] == ["out"]


def test_an_export_replaces_its_output_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    in_folder(tmp_path, monkeypatch)
    output = tmp_path / "banks.gift"
    output.write_text("last week's export\n")
    code = main(["content", "export", str(SHIPPED), "--format", "gift", "--output", str(output)])
    assert code == 0, capsys.readouterr().err
    assert "::" in output.read_text() and "last week" not in output.read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["banks.gift"]


def test_a_source_saved_as_windows_1252_is_refused_naming_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    in_folder(tmp_path, monkeypatch, content=SHIPPED)
    source = tmp_path / "questions.txt"
    source.write_bytes("What is “café”?\nA) Un café\nB) Un thé\nANSWER: A\n".encode("cp1252"))
    bank = tmp_path / "bank.yaml"

    code = main(["content", "import", str(source), "--output", str(bank)])

    assert code == 1
    assert capsys.readouterr().err == (
        f"{source}:1: not UTF-8 text: byte 0x93 at column 9 (invalid start byte); "
        "save the file as UTF-8\n"
    )
    assert not bank.exists()


def test_moodle_xml_declared_latin_1_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    in_folder(tmp_path, monkeypatch, content=SHIPPED)
    source = tmp_path / "cafe.xml"
    source.write_bytes(
        '<?xml version="1.0" encoding="ISO-8859-1"?>\n<quiz><question type="multichoice">'
        "<name><text>cafe</text></name><questiontext><text>Où est le café ?</text></questiontext>"
        '<answer fraction="100"><text>Ici</text></answer>'
        '<answer fraction="0"><text>Là</text></answer></question></quiz>\n'.encode("latin-1")
    )

    code = main(["content", "import", str(source)])

    assert code == 0
    assert "question: Où est le café ?" in capsys.readouterr().out
