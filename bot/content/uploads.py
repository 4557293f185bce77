"""A bank a moderator uploads (`/bank upload`): from the file's bytes to a bank, or to every
problem with its line; pure, run by the service in a worker. An import is written as one bank
and checked as `quizbot content check` checks a file, its problems on the source's lines.
"""

from __future__ import annotations

import re
import resource
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePath
from typing import Final

from bot.content import importers, limits
from bot.content.importers.drafts import ImportResult, bank_yaml, slug
from bot.content.loader import BANK_SUFFIXES, check_text, not_utf8
from bot.content.problems import Problem, file_report
from bot.content.safety import topic_problem
from bot.content.schema import ParsedTask
from bot.quiz.task_codec import canonical_json, decode_task
from bot.quiz.tasks import Task

MAX_UPLOAD_BYTES: Final = 1_000_000  # refused before it is downloaded
MAX_UPLOAD_TASKS: Final = 2_000
MAX_NAME: Final = 48  # a bank's name, from the file's
YAML_FORMAT: Final = "yaml"
# Formats told by the file's name; any other is told by the content.
SUFFIX_FORMATS: Final = {".gift": "gift", ".xml": "moodle-xml", ".html": "page", ".htm": "page"}
_BANK_KEY = re.compile(r"^bank:", re.MULTILINE)
_TASKS_KEY = re.compile(r"^tasks:", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class UploadedBank:
    """A bank that passed every check: ready to store and serve."""

    name: str
    yaml: str  # what is stored, and what `/bank download` gives back
    tasks: tuple[Task, ...]
    fmt: str
    notes: tuple[str, ...] = ()  # the importer's report, `FILE:LINE: …`


@dataclass(frozen=True, slots=True)
class RefusedUpload:
    """Every problem, one line each (`FILE:LINE: …`), in line order."""

    problems: tuple[str, ...]


def bank_name(filename: str) -> str:
    """`Networking 101.gift` is `networking-101`; a file of the same name replaces the bank."""
    return slug(PurePath(filename).stem, limit=MAX_NAME) or "bank"


def size_problem(filename: str, size: int) -> str | None:
    """Why a file of `size` bytes is refused unread, or None."""
    if size <= MAX_UPLOAD_BYTES:
        return None
    return f"{filename}: {limits.too_large(size, MAX_UPLOAD_BYTES)}"


def format_of(filename: str, text: str) -> str:
    """Our YAML (by suffix or content), a format told by the suffix, else the one detected."""
    suffix = PurePath(filename).suffix.lower()
    if suffix in BANK_SUFFIXES:
        return YAML_FORMAT
    if suffix in SUFFIX_FORMATS:
        return SUFFIX_FORMATS[suffix]
    # Two searches, not one `^bank:.*^tasks:`, which ran to the end from every `bank:` line.
    bank = _BANK_KEY.search(text, 0, MAX_UPLOAD_BYTES)
    if bank and _TASKS_KEY.search(text, bank.end(), MAX_UPLOAD_BYTES):
        return YAML_FORMAT
    return importers.detect(text)


def check_upload(
    data: bytes, filename: str, *, topic: str | None = None, taken: Mapping[str, str] | None = None
) -> UploadedBank | RefusedUpload:
    """The bank in `data`, or every problem; `taken`: the server's served ids -> where."""
    too_big = size_problem(filename, len(data))
    if too_big:
        return RefusedUpload((too_big,))
    bad_topic = topic and topic_problem(topic)
    if bad_topic:  # the moderator's topic option, given to every imported task
        return RefusedUpload((f"{filename}: {bad_topic}",))
    try:
        text = importers.decode(data)
    except UnicodeDecodeError as exc:
        line, message = not_utf8(exc)
        return RefusedUpload((f"{filename}:{line}: {message}",))
    try:
        fmt = format_of(filename, text)
    except importers.UnknownFormatError:
        known = ", ".join(("yaml", *importers.FORMATS))
        return RefusedUpload((f"{filename}: cannot tell the file's format ({known})",))
    if fmt == YAML_FORMAT:
        return _check_yaml(filename, taken or {}, text)
    _, result = importers.parse(text, source=filename, fmt=fmt, topic=topic or None)
    return _check_import(filename, taken or {}, fmt, result)


def _check_yaml(filename: str, taken: Mapping[str, str], text: str) -> UploadedBank | RefusedUpload:
    file = Path(filename)
    parsed, problems = check_text(file, text, max_tasks=MAX_UPLOAD_TASKS)
    problems += _collisions(file, parsed, taken, lambda p: p.lines.get("id", p.line))
    if problems:
        return RefusedUpload(tuple(str(p) for p in file_report(file, problems)))
    return UploadedBank(bank_name(filename), text, tuple(p.task for p in parsed), YAML_FORMAT)


def _check_import(
    filename: str, taken: Mapping[str, str], fmt: str, result: ImportResult
) -> UploadedBank | RefusedUpload:
    name = bank_name(filename)
    file = Path(filename)
    notes = tuple(line.render(filename) for line in result.report)
    if not result.drafts:
        return RefusedUpload((*notes, f"{filename}: no task could be imported ({fmt})"))
    if len(result.drafts) > MAX_UPLOAD_TASKS:
        return RefusedUpload(
            (
                f"{filename}: {len(result.drafts):,} questions; a bank may hold at "
                f"most {MAX_UPLOAD_TASKS:,} tasks: split it into several banks",
            )
        )
    oversized = _oversized(file, result)
    if oversized:
        return _refused(file, notes, oversized)
    text = bank_yaml(result)
    lines = {d.id: d.source_line for d in result.drafts}
    parsed, found = check_text(Path(f"{name}.yaml"), text, max_tasks=MAX_UPLOAD_TASKS)
    # Placed on the source's lines: the person fixes the file they uploaded.
    problems = [
        Problem(file, lines.get(p.task) if p.task else None, p.task, p.field, p.message)
        for p in found
    ]
    problems += _collisions(file, parsed, taken, lambda p: lines.get(p.task.id))
    if problems:
        return _refused(file, notes, problems)
    return UploadedBank(name, text, tuple(p.task for p in parsed), fmt, notes)


def _refused(file: Path, notes: tuple[str, ...], problems: list[Problem]) -> RefusedUpload:
    report = (str(p) for p in file_report(file, problems))
    return RefusedUpload((*notes[: limits.MAX_PROBLEMS_PER_FILE], *report))


# A draft's bounded lists: (attribute, field, what one item is, the bound).
_LISTS: Final = (
    ("options", "options", "option", limits.MAX_OPTIONS),
    ("steps", "solution.steps", "step", limits.MAX_STEPS),
    ("mistakes", "mistakes", "mistake note", limits.MAX_MISTAKES),
)


def _oversized(file: Path, result: ImportResult) -> list[Problem]:
    """A list over its bound, found before the YAML is written (the check took 25 s for 1 MB);
    in English, as the content report is (each bound is at least 1: the count is plural)."""
    return [
        Problem(file, d.source_line, d.id, name, f"{n:,} {what}s; at most {most:,} are allowed")
        for d in result.drafts
        for attribute, name, what, most in _LISTS
        if (n := len(getattr(d, attribute))) > most
    ]


LineOf = Callable[[ParsedTask], int | None]


def _collisions(
    file: Path, parsed: Sequence[ParsedTask], taken: Mapping[str, str], line: LineOf
) -> list[Problem]:
    why = "id '{}' is already used by {}: give the task another id"
    return [
        Problem(file, line(p), p.task.id, "id", why.format(p.task.id, taken[p.task.id]))
        for p in parsed
        if p.task.id in taken
    ]


@dataclass(frozen=True, slots=True)
class EncodedBank:
    """An accepted bank leaving the worker process, its tasks as canonical JSON: unpickling 2,000
    Tasks holds the GIL for 0.2 s at once; decoding JSON in a thread does not."""

    bank: UploadedBank  # with no tasks: they are `tasks`
    tasks: tuple[str, ...]

    def decode(self) -> UploadedBank:
        return replace(self.bank, tasks=tuple(decode_task(t) for t in self.tasks))


def check_upload_encoded(
    data: bytes, filename: str, *, topic: str | None = None, taken: Mapping[str, str] | None = None
) -> EncodedBank | RefusedUpload:
    """`check_upload` in a worker process; a check past the worker's memory is refused."""
    try:
        result = check_upload(data, filename, topic=topic, taken=taken)
        if isinstance(result, RefusedUpload):
            return result
        encoded = tuple(canonical_json(task) for task in result.tasks)
    except MemoryError:
        pass  # refused below, once the frames the error holds (and all they built) are freed
    else:
        return EncodedBank(replace(result, tasks=()), encoded)
    why = "checking it needs more memory than an upload may take: split it into several banks"
    return RefusedUpload((f"{filename}: {why}",))


# Address space the upload worker may map beyond its start; the worst 1 MB file we could build
# maps about 70 MB (BENCHMARKS.md, "Upload worker memory").
WORKER_MEMORY: Final = 512 * 2**20


def limit_worker_memory(headroom: int = WORKER_MEMORY) -> None:
    """The upload worker's initializer: RLIMIT_AS past `headroom` is a MemoryError (Linux)."""
    try:
        mapped = int(Path("/proc/self/statm").read_text().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = mapped + headroom
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def stored_tasks(name: str, yaml: str) -> tuple[list[Task], list[str]]:
    """A stored bank's tasks, and its problems if a check added since refuses some."""
    parsed, problems = check_text(Path(f"{name}.yaml"), yaml, max_tasks=MAX_UPLOAD_TASKS)
    return [p.task for p in parsed], [str(p) for p in problems]
