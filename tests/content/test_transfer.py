"""`quizbot content import/export` as a person runs them, and the `confirmed` key they rely on."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from bot.cli import main
from bot.content import importers
from bot.content.importers import gift
from bot.content.transfer import exported
from bot.quiz.tasks import Solution, SolutionStep
from tests.cli_run import run_quizbot_cli
from tests.factories import choice

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests/content/importers/data"
SEED_PAGE = DATA / "page-seed-parallelism.txt"
SHIPPED = ROOT / "content"


def quizbot(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "CONTENT_CACHE": "", "LOG_LEVEL": "ERROR"}
    return run_quizbot_cli(*args, cwd=cwd, env=env)


def test_importing_a_page_writes_a_bank_that_waits_for_a_person(tmp_path: Path) -> None:
    bank = tmp_path / "banks" / "seed.yaml"
    bank.parent.mkdir()  # --output makes no folder (tests/test_output_files.py)
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
    # Every task comes back but those the export names (exit 1 if any); the fill tasks with
    # several blanks go as cloze questions and come back as fill tasks.
    left = re.findall(r"task (\S+): not exported", result.stderr)
    assert result.returncode == (1 if left else 0), result.stderr
    back = tmp_path / "back.yaml"
    result = quizbot("content", "import", str(exported), "--output", str(back), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "as moodle-xml" in result.stderr
    ids = [
        t["id"]
        for t in json.loads(quizbot("content", "list", str(back), "--json", cwd=tmp_path).stdout)
    ]
    shipped = json.loads(quizbot("content", "list", str(SHIPPED), "--json", cwd=tmp_path).stdout)
    assert ids == [t["id"] for t in shipped if t["id"] not in left]
    several = {t["id"] for t in shipped if t["kind"] == "fill" and len(t["answers"]) > 1}
    assert several and several <= set(ids)


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
    assert code == 1  # the two tasks with several blanks, named on stderr
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


# ---------------------------------------------------------------------------------------------
# Export: every task is in the output, or named with why not (issue 26, class 6)
# ---------------------------------------------------------------------------------------------

SEED = SHIPPED / "mlops/data-vs-model-parallelism.yaml"


@pytest.mark.parametrize(("fmt", "why"), [("gift", "a fill task with {n} blanks has no GIFT form")])
def test_an_export_names_every_task_it_leaves_out_and_exits_1(
    fmt: str,
    why: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Two of the ten seed tasks were left out with not a line on the terminal, and exit 0.
    in_folder(tmp_path, monkeypatch)
    output = tmp_path / f"seed.{fmt}"

    code = main(["content", "export", str(SEED), "--format", fmt, "--output", str(output)])

    assert code == 1
    assert capsys.readouterr().err.splitlines() == [
        f"{SEED}:73: task mlops-parallelism-fill-4: not exported: {why.format(n=2)}",
        f"{SEED}:96: task mlops-parallelism-fill-5: not exported: {why.format(n=3)}",
        f"quizbot: exported 8 of 10 task(s) as {fmt}; 2 left out (above)",
    ]
    _, result = importers.parse(output.read_text(), source=output.name, fmt=fmt)
    assert len(result.drafts) == 8 and result.report == []


def test_moodle_xml_exports_a_fill_task_with_several_blanks_as_cloze_and_reads_it_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Left out until issue 28: now a cloze question of MULTICHOICE parts, tagged quizbot-fill.
    in_folder(tmp_path, monkeypatch)
    output = tmp_path / "seed.xml"

    code = main(["content", "export", str(SEED), "--format", "moodle-xml", "--output", str(output)])

    assert code == 0, capsys.readouterr().err
    _, result = importers.parse(output.read_text(), source=output.name, fmt="moodle-xml")
    assert len(result.drafts) == 10 and result.report == []
    fills = {d.id: d for d in result.drafts if d.kind == "fill" and len(d.answers) > 1}
    assert sorted(fills) == ["mlops-parallelism-fill-4", "mlops-parallelism-fill-5"]
    assert fills["mlops-parallelism-fill-5"].answers == ["A", "C", "C"]
    assert output.read_text().count('<question type="cloze">') == 2


def test_a_task_xml_cannot_carry_is_named_and_the_export_still_reads_back() -> None:
    # U+0001 went into the XML as it was: our own import refused the whole file, and the
    # export exited 0.
    tasks = [choice("ctl", prompt="What is \x01?"), choice("ok")]

    text, left = exported(tasks, fmt="moodle-xml", bank="B")

    assert left == {"ctl": "its question holds U+0001, which XML 1.0 cannot carry"}
    _, result = importers.parse(text, source="b.xml", fmt="moodle-xml")
    assert [d.id for d in result.drafts] == ["ok"] and result.report == []


def test_a_task_that_would_not_read_back_the_same_is_left_out_not_garbled() -> None:
    # A step whose text holds the layout's own label is split there by the GIFT import: no
    # escape can tell it apart, so the task is named instead of written garbled.
    garbled = choice(
        "split",
        solution=Solution(steps=(SolutionStep("One", "a\n\n**Final answer:** b"),)),
    )

    text, left = exported([garbled, choice("ok")], fmt="gift", bank="B")

    assert left == {"split": "its solution would not read back the same from GIFT"}
    assert "// left out: split: its solution would not read back the same from GIFT" in text
    assert [d.id for d in gift.parse(text, source="b.gift").drafts] == ["ok"]


def test_a_task_that_makes_the_whole_file_unreadable_is_found_and_only_it_is_left_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Were the exporter's own rules to miss a character XML cannot hold, our import would refuse
    # the whole file: the read-back finds the one task at fault and keeps the others.
    from bot.content.importers import moodle_xml

    monkeypatch.setattr(moodle_xml, "cannot_export", lambda task: None)
    tasks = [choice("before"), choice("ctl", hint="bell \x07"), choice("after")]

    text, left = exported(tasks, fmt="moodle-xml", bank="B")

    assert list(left) == ["ctl"]
    assert left["ctl"].startswith(
        "our Moodle XML import would not read it back (refused: not well-formed XML"
    )
    _, result = importers.parse(text, source="b.xml", fmt="moodle-xml")
    assert [d.id for d in result.drafts] == ["before", "after"]


def test_a_bank_with_u0001_never_exports_xml_our_import_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The case: exit 0, and an export that `content import` refused whole. Whether the
    # content check refuses the bank or the export leaves the task out, the exit is 1 and
    # whatever is written reads back.
    in_folder(tmp_path, monkeypatch)
    bank = tmp_path / "ctl.yaml"
    seed = SEED.read_text(encoding="utf-8")
    question = (
        "    question: >-\n      What is the main difference between data parallelism and model"
        " parallelism in machine\n      learning training?\n"
    )
    assert question in seed
    bank.write_text(seed.replace(question, '    question: "What is \\x01 here?"\n'))
    output = tmp_path / "ctl.xml"

    code = main(["content", "export", str(bank), "--format", "moodle-xml", "--output", str(output)])

    err = capsys.readouterr().err
    assert code == 1 and "U+0001" in err, err
    if output.exists():
        _, result = importers.parse(output.read_text(), source=output.name, fmt="moodle-xml")
        assert result.report == [] and "mlops-parallelism-mc-1" not in output.read_text()


def test_an_imported_question_that_is_no_valid_task_exits_1_naming_its_source_line(
    tmp_path: Path,
) -> None:
    """`{=a ~a}` imports as a task whose two options are one: the check refuses it, and the
    import said 'imported' and exited 0, naming only the written bank's line."""
    source = tmp_path / "q.gift"
    source.write_text("$CATEGORY: t\n\n::fine:: Fine? {=yes ~no}\n\n::twice:: What? {=a ~a}\n")
    result = quizbot("content", "import", str(source), cwd=tmp_path)
    assert result.returncode == 1
    assert f"{source}:5: imported as <stdout>:" in result.stderr
    assert "task twice" in result.stderr and "repeats option A" in result.stderr
    assert "1 task(s) fail the check" in result.stderr
    assert "Traceback" not in result.stderr
