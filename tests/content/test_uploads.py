"""An uploaded bank (`/bank upload`): each format becomes a checked bank, and a refusal lists
every problem with its line, as `quizbot content check` would."""

from __future__ import annotations

import importlib.util
import multiprocessing
import resource
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from bot import service
from bot.content import uploads
from bot.content.uploads import (
    MAX_UPLOAD_BYTES,
    MAX_UPLOAD_TASKS,
    RefusedUpload,
    UploadedBank,
    bank_name,
    check_upload,
    stored_tasks,
)
from bot.quiz.tasks import Kind
from tests.factories import bank_yaml

DATA = Path(__file__).parent / "importers" / "data"
HAS_GIFT = importlib.util.find_spec("bot.content.importers.gift") is not None
needs_gift = pytest.mark.skipif(not HAS_GIFT, reason="the GIFT importer (h-gift) is not merged")

GIFT = b"""// A bank uploaded in a server
::net-tcp:: Which protocol guarantees ordered delivery? {
=TCP
~UDP#UDP does not reorder or retransmit.
~ICMP#ICMP carries control messages.
}

::net-port:: HTTPS listens on port {=443 ~80#80 is plain HTTP.}
"""
MOODLE = b"""<?xml version="1.0"?>
<quiz>
  <question type="multichoice">
    <name><text>net-dns</text></name>
    <questiontext format="html"><text>What does DNS resolve?</text></questiontext>
    <answer fraction="100"><text>Names to addresses</text></answer>
    <answer fraction="0"><text>Addresses to MACs</text></answer>
  </question>
</quiz>
"""


def one_task_yaml(task_id: str = "own-1", extra: str = "") -> str:
    return bank_yaml(task_id, bank="Our own", extra=extra)


def accepted(result: UploadedBank | RefusedUpload) -> UploadedBank:
    assert isinstance(result, UploadedBank), result
    return result


def refused(result: UploadedBank | RefusedUpload) -> tuple[str, ...]:
    assert isinstance(result, RefusedUpload), result
    return result.problems


def test_our_yaml_is_stored_as_uploaded() -> None:
    text = one_task_yaml()
    bank = accepted(check_upload(text.encode(), "Our Own.yaml"))
    assert (bank.name, bank.fmt, bank.yaml) == ("our-own", "yaml", text)
    assert [t.id for t in bank.tasks] == ["own-1"]


def test_our_yaml_is_told_by_its_content_too() -> None:
    assert accepted(check_upload(one_task_yaml().encode(), "bank.txt")).fmt == "yaml"


def test_moodle_xml_becomes_a_bank_in_our_yaml_with_the_given_topic() -> None:
    bank = accepted(check_upload(MOODLE, "dns.xml", topic="Networking"))
    assert (bank.name, bank.fmt) == ("dns", "moodle-xml")
    (task,) = bank.tasks
    assert (task.id, task.topic, task.kind) == ("net-dns", "Networking", Kind.CHOICE)
    assert stored_tasks(bank.name, bank.yaml) == (list(bank.tasks), [])  # rebuilt at start


@needs_gift
def test_gift_becomes_a_bank() -> None:
    bank = accepted(check_upload(GIFT, "networking.gift", topic="Networking"))
    assert bank.fmt == "gift"
    assert {t.id for t in bank.tasks} == {"net-tcp", "net-port"}
    assert stored_tasks(bank.name, bank.yaml)[0] == list(bank.tasks)


@needs_gift
def test_aiken_is_detected_from_its_content() -> None:
    data = (DATA / "questions.aiken.txt").read_bytes()
    assert accepted(check_upload(data, "questions.txt")).fmt == "aiken"


def test_a_broken_yaml_is_refused_with_every_problem_and_its_line() -> None:
    text = one_task_yaml().replace("answer: A", "answer: E")
    text = text.replace("    solution:\n      final_answer: Network\n", "")
    problems = refused(check_upload(text.encode(), "mine.yaml"))
    assert any(p.startswith("mine.yaml:9: task own-1, field answer:") for p in problems)
    missing = "mine.yaml:4: task own-1, field solution: missing required key"
    assert any(missing in p for p in problems)


def test_yaml_that_does_not_parse_names_its_line() -> None:
    (problem,) = refused(check_upload(b"bank: x\ntopic: [\n", "x.yaml"))
    assert problem.startswith("x.yaml:3: YAML does not parse")


def test_a_problem_in_an_imported_task_is_on_the_line_of_its_question() -> None:
    text = MOODLE.replace(b'fraction="100"', b'fraction="0"')  # no right answer
    problems = refused(check_upload(text, "dns.xml"))
    assert any(p.startswith("dns.xml:3:") for p in problems), problems


def test_an_id_of_a_shipped_or_other_bank_is_refused_naming_both() -> None:
    taken = {"own-1": "the shipped bank 'MLOps'"}
    (problem,) = refused(check_upload(one_task_yaml().encode(), "mine.yaml", taken=taken))
    assert problem == (
        "mine.yaml:4: task own-1, field id: id 'own-1' is already used by the shipped bank "
        "'MLOps': give the task another id"
    )


def test_unconfirmed_tasks_are_refused_with_the_content_check_message() -> None:
    text = one_task_yaml(extra="    confirmed: false\n")
    (problem,) = refused(check_upload(text.encode(), "mine.yaml"))
    assert problem.startswith("mine.yaml:13: task own-1, field confirmed: not confirmed:")
    assert "delete the line `confirmed: false`" in problem


def test_an_imported_practice_page_with_guessed_answers_is_refused() -> None:
    data = (DATA / "page-seed-parallelism.txt").read_bytes()
    problems = refused(check_upload(data, "page.txt"))
    assert any("field confirmed: not confirmed" in p for p in problems)


def test_a_file_over_1_mb_is_refused_unread() -> None:
    (problem,) = refused(check_upload(b"x" * (MAX_UPLOAD_BYTES + 1), "big.gift"))
    assert "1,000,001 bytes" in problem and "at most 1,000,000" in problem


def test_a_bank_over_2000_tasks_is_refused() -> None:
    task = """  - id: t-{n}
    kind: choice
    difficulty: easy
    question: Q{n}?
    options: [a, b]
    answer: A
    hint: h
    solution: {{final_answer: a}}
"""
    text = "bank: many\ntopic: T\ntasks:\n" + "".join(
        task.format(n=n) for n in range(MAX_UPLOAD_TASKS + 1)
    )
    assert len(text) < MAX_UPLOAD_BYTES
    (problem,) = refused(check_upload(text.encode(), "many.yaml"))
    assert "2,000" in problem


def test_not_utf8_and_unknown_formats_are_refused() -> None:
    (problem,) = refused(check_upload(b"\xff\xfe bank", "x.yaml"))
    assert "not UTF-8" in problem
    problems = refused(check_upload(b"<html>nothing here</html>", "x.xml"))
    assert problems[0].startswith("x.xml:1: refused: not Moodle XML")


def test_bank_names_come_from_the_file_name() -> None:
    assert bank_name("Networking 101.gift") == "networking-101"
    assert bank_name("...") == "task"


def test_a_file_saved_as_windows_1252_is_refused_naming_its_line_and_column() -> None:
    data = "::q1:: Which? {=yes ~no}\n\n::q2:: Où est le “café”? {=ici ~là}\n".encode("cp1252")
    assert refused(check_upload(data, "french.gift")) == (
        "french.gift:3: not UTF-8 text: byte 0xF9 at column 9 (invalid start byte); "
        "save the file as UTF-8",
    )


LATIN_1_MOODLE = """<?xml version="1.0" encoding="ISO-8859-1"?>
<quiz>
  <question type="multichoice">
    <name><text>cafe</text></name>
    <questiontext format="html"><text>Où est le café ?</text></questiontext>
    <answer fraction="100"><text>Ici</text></answer>
    <answer fraction="0"><text>Là</text></answer>
  </question>
</quiz>
""".encode("latin-1")


def test_moodle_xml_in_the_encoding_its_declaration_names_is_read_in_it() -> None:
    bank = accepted(check_upload(LATIN_1_MOODLE, "cafe.xml"))
    (task,) = bank.tasks
    assert task.prompt == "Où est le café ?"
    assert [o.text for o in task.options] == ["Ici", "Là"]


def test_a_file_of_no_known_format_is_refused_naming_the_formats_tried() -> None:
    notes = b"Some notes about MLOps.\nNothing to import.\n"
    (problem,) = refused(check_upload(notes, "notes.txt"))
    assert problem.startswith("notes.txt: cannot tell the file's format (yaml, ")
    assert "aiken" in problem


def test_an_imported_file_of_over_2000_questions_is_refused() -> None:
    question = "Q{n}: which one?\nA) yes\nB) no\nANSWER: A\n\n"
    text = "".join(question.format(n=n) for n in range(MAX_UPLOAD_TASKS + 1))
    assert len(text) < MAX_UPLOAD_BYTES
    (problem,) = refused(check_upload(text.encode(), "many.aiken.txt", topic="T"))
    assert problem.startswith("many.aiken.txt: 2,001 questions; a bank may hold at most 2,000")


# --- the worker's memory cap -------------------------------------------------------------------

MEMORY_REFUSAL = (
    "checking it needs more memory than an upload may take: split it into several banks"
)


def _many_questions(count: int) -> bytes:
    question = "::q{}:: Which protocol is number {}? {{=TCP ~UDP#not that one ~ICMP#nor that}}"
    return "\n\n".join(question.format(i, i) for i in range(count)).encode()


def test_a_check_out_of_memory_is_refused_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def out_of_memory(*args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr(uploads, "check_upload", out_of_memory)
    result = uploads.check_upload_encoded(GIFT, "net.gift")
    assert result == RefusedUpload((f"net.gift: {MEMORY_REFUSAL}",))


@needs_gift
def test_the_upload_worker_refuses_a_file_over_its_memory_cap_and_lives_on() -> None:
    # The real worker, its cap lowered to 4 MB over what it maps at start: checking an 80 kB
    # file of 1,000 questions needs more (under the real cap it is accepted).
    hungry = _many_questions(1000)
    assert isinstance(check_upload(hungry, "big.gift", topic="Networking"), UploadedBank)
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        1, mp_context=context, initializer=uploads.limit_worker_memory, initargs=(4 * 2**20,)
    ) as pool:
        check = pool.submit(uploads.check_upload_encoded, hungry, "big.gift", topic="Networking")
        assert check.result(timeout=120) == RefusedUpload((f"big.gift: {MEMORY_REFUSAL}",))
        after = pool.submit(uploads.check_upload_encoded, GIFT, "net.gift").result(timeout=60)
    assert isinstance(after, uploads.EncodedBank)
    assert [t.id for t in after.decode().tasks] == ["net-tcp", "net-port"]


def test_the_service_checks_uploads_in_a_worker_whose_memory_is_capped() -> None:
    pool = service._upload_process()
    try:
        soft, _ = pool.submit(resource.getrlimit, resource.RLIMIT_AS).result(timeout=60)
    finally:
        pool.shutdown()
    assert soft != resource.RLIM_INFINITY
    assert soft < 4 * 2**30  # what it maps at start, plus uploads.WORKER_MEMORY


@needs_gift
def test_a_list_over_its_bound_is_refused_before_the_bank_is_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 1 MB of one question's notes took 25 s to write as YAML and read back (the upload's time
    # limit is 30 s) only to be refused for their count: the count is checked first.
    def never(*args: object) -> str:
        raise AssertionError("the bank was written")

    monkeypatch.setattr(uploads, "bank_yaml", never)
    notes = "\n".join(f"- note {i}" for i in range(30))
    gift = f"\n\n::q:: Which one? {{=a ~b#{notes}}}\n\n::ok:: Fine? {{=a ~b}}"
    result = check_upload(gift.encode(), "many.gift", topic="Networking")
    assert refused(result) == (
        "many.gift:3: task q, field mistakes: 30 mistake notes; at most 25 are allowed",
    )
