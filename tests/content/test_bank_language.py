"""A bank's `language:` tag (issue 30): checked with Babel, carried to every task, shown by
`quizbot content list`, kept by an uploaded bank, and absent from the version of a task whose
bank has none, so such a task keeps its hash."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from io import StringIO
from pathlib import Path

import pytest

from bot.content import load_banks
from bot.content.commands import check_command, list_command
from bot.content.uploads import EncodedBank, check_upload_encoded, stored_tasks
from bot.quiz.task_codec import canonical_json, decode_task, task_hash, task_to_dict
from tests.factories import bank_yaml, choice, note

from .test_loader import GOOD_BANK, write


def with_language(tag: str) -> str:
    """GOOD_BANK with `language: <tag>` on line 4, after `source:`."""
    source = "source: written for the tests\n"
    return GOOD_BANK.replace(source, f"{source}language: {tag}\n")


@pytest.mark.parametrize(
    ("written", "kept"), [("de", "de"), ("pt-BR", "pt-BR"), ("pt_BR", "pt-BR")]
)
def test_every_task_of_the_bank_carries_its_language(
    tmp_path: Path, written: str, kept: str
) -> None:
    catalog = load_banks(write(tmp_path, with_language(written)))
    assert {task.id: task.bank_language for task in catalog} == {"t-choice": kept, "t-fill": kept}
    # The fill task's code language is another field, left as it was.
    assert catalog.get_or_raise("t-fill").language == "python"


def test_a_bank_without_language_has_none(tmp_path: Path) -> None:
    catalog = load_banks(write(tmp_path, GOOD_BANK))
    assert [task.bank_language for task in catalog] == [None, None]


UNKNOWN = "is not a language Babel knows: write a tag such as de, pt-BR or en"
ALIAS = "is an old or undetermined tag (Babel reads it as '{}'): write the bank's language, e.g. de"


@pytest.mark.parametrize(
    ("tag", "message"),
    [
        ("klingon", f"'klingon' {UNKNOWN}"),
        ("de-XX", f"'de-XX' {UNKNOWN}"),
        ("de DE", f"'de DE' {UNKNOWN}"),
        ("iw", f"'iw' {ALIAS.format('he')}"),
        ("und", f"'und' {ALIAS.format('en')}"),
        ("no", "expected text, got true/false ('no') (put it in quotes)"),
        ("[de]", "expected text, got a list"),
    ],
)
def test_a_bad_tag_is_a_problem_on_its_line(tmp_path: Path, tag: str, message: str) -> None:
    file = write(tmp_path, with_language(tag))
    out = StringIO()

    assert check_command(tmp_path, out) == 1

    lines = out.getvalue().splitlines()
    assert lines == [f"{file}:4: field language: {message}", "1 problem in 1 file"]


def test_content_list_shows_the_language_beside_the_topic(tmp_path: Path) -> None:
    write(tmp_path, with_language("de"), "de.yaml")
    write(tmp_path, GOOD_BANK.replace("t-", "u-"), "plain.yaml")
    out = StringIO()

    assert list_command(tmp_path, as_json=False, out=out) == 0

    rows = {line.split()[0]: line for line in out.getvalue().splitlines()}
    assert rows["t-choice"].split()[2:6] == ["easy", "Testing", "·", "de"]
    assert rows["t-fill"].split()[2:6] == ["hard", "Python", "·", "de"]
    assert rows["u-choice"].split()[2:4] == ["easy", "Testing"] and "·" not in rows["u-choice"]


def test_content_list_json_gives_the_bank_language_last(tmp_path: Path) -> None:
    write(tmp_path, with_language("pt_BR"), "pt.yaml")
    write(tmp_path, GOOD_BANK.replace("t-", "u-"), "plain.yaml")
    out = StringIO()

    assert list_command(tmp_path, as_json=True, out=out) == 0

    records = {r["id"]: r for r in json.loads(out.getvalue())}
    assert list(records["t-choice"])[-1] == "bank_language"  # the keys before keep their order
    assert records["t-choice"]["bank_language"] == "pt-BR"
    assert records["t-fill"]["bank_language"] == "pt-BR"
    assert records["t-fill"]["language"] == "python"  # the fill task's code, as before
    assert records["u-choice"]["bank_language"] is None


def test_an_uploaded_bank_keeps_its_language() -> None:
    """Through the upload worker (tasks leave it as task versions) and back from the store."""
    text = bank_yaml(extra="").replace("topic: Networking\n", "topic: Networking\nlanguage: fr\n")
    encoded = check_upload_encoded(text.encode(), "reseaux.yaml")
    assert isinstance(encoded, EncodedBank), encoded
    bank = encoded.decode()
    assert [task.bank_language for task in bank.tasks] == ["fr"]
    tasks, problems = stored_tasks(bank.name, bank.yaml)
    assert problems == [] and [task.bank_language for task in tasks] == ["fr"]


def test_a_task_of_a_bank_without_language_keeps_its_version_and_hash() -> None:
    """The version before `language:` existed (the golden text of test_task_codec), unchanged."""
    task = choice("golden", texts=("yes", "no"), mistakes=(note("No.", "B"),))
    before = (
        '{"answers":["A"],"bank":"","difficulty":"easy","format":1,"hint":"It is the first.",'
        '"id":"golden","instruction":null,"kind":"choice","language":"python",'
        '"mistakes":[{"options":["B"],"text":"No."}],'
        '"options":[{"label":"A","text":"yes"},{"label":"B","text":"no"}],'
        '"prompt":"Which one?","solution":{"explanation":null,"final_answer":"A",'
        '"quick_check":null,"steps":[]},"topic":"Testing"}'
    )
    assert "bank_language" not in task_to_dict(task)
    assert task_hash(task) == hashlib.sha256(before.encode()).hexdigest()


def test_a_bank_language_is_part_of_the_version() -> None:
    task = choice("golden")
    german = replace(task, bank_language="de")
    assert task_to_dict(german)["bank_language"] == "de"
    assert task_hash(german) != task_hash(task)
    assert decode_task(canonical_json(german)) == german
