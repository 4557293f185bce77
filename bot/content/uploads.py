"""A bank a moderator uploads (`/bank upload`): from the file's bytes to a bank, or to every
problem with its line. Pure of Discord and of the database; the service runs it in a worker
thread under a time limit (`QuizService.upload_bank`).

The file is any format `quizbot content import` reads (GIFT, Moodle XML, Aiken, a practice
page) or our own YAML. An import is written as one bank (`drafts.bank_yaml`), and the YAML is
then checked exactly as `quizbot content check` checks a file (`loader.check_text`), so an
unconfirmed task is refused with the same message. A problem inside an imported task is placed
on the line of the source where its question starts; a problem in a YAML upload on its own line.

Bounded before any work proportional to the file: its size (`MAX_UPLOAD_BYTES`, checked from
the size Discord announces before the file is downloaded, and again on the bytes) and its
tasks (`MAX_UPLOAD_TASKS`, counted before the YAML is written or walked); the walk itself has
the bounds of every bank (bot/content/limits.py).
"""

from __future__ import annotations

import re
import resource
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePath
from typing import Final

from bot.content import importers
from bot.content.importers.drafts import ImportResult, bank_yaml, slug
from bot.content.limits import MAX_MISTAKES, MAX_OPTIONS, MAX_PROBLEMS_PER_FILE, MAX_STEPS
from bot.content.loader import BANK_SUFFIXES, check_text, not_utf8
from bot.content.problems import Problem, file_report
from bot.content.safety import topic_problem
from bot.content.schema import ParsedTask
from bot.quiz.task_codec import canonical_json, decode_task
from bot.quiz.tasks import Task
from bot.wording import plural

MAX_UPLOAD_BYTES: Final = 1_000_000
"""An uploaded file over this (1 MB) is refused before it is downloaded."""
MAX_UPLOAD_TASKS: Final = 2_000
"""Tasks in one uploaded bank."""
MAX_NAME: Final = 48
"""A bank's name (from the file's name) is cut to this many characters."""
YAML_FORMAT: Final = "yaml"

SUFFIX_FORMATS: Final = {".gift": "gift", ".xml": "moodle-xml", ".html": "page", ".htm": "page"}
"""Formats told by the file's name; any other name is told by the content (`importers.detect`)."""
_BANK_KEY = re.compile(r"^bank:", re.MULTILINE)
_TASKS_KEY = re.compile(r"^tasks:", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class UploadedBank:
    """A bank that passed every check: ready to store and serve."""

    name: str
    yaml: str
    """The bank in our YAML (what is stored, and what `/bank download` gives back)."""
    tasks: tuple[Task, ...]
    fmt: str
    notes: tuple[str, ...] = ()
    """The importer's report: questions left out or changed, `FILE:LINE: …`."""


@dataclass(frozen=True, slots=True)
class RefusedUpload:
    """Every problem, one line each (`FILE:LINE: …`), in line order."""

    problems: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Source:
    filename: str
    name: str
    taken: Mapping[str, str] = field(default_factory=dict)


def bank_name(filename: str) -> str:
    """The bank's name, from the file's: `Networking 101.gift` is `networking-101`. Uploading
    a file of the same name replaces the bank."""
    return slug(PurePath(filename).stem, limit=MAX_NAME) or "bank"


def size_problem(filename: str, size: int) -> str | None:
    """Why a file of `size` bytes is refused unread, or None."""
    if size <= MAX_UPLOAD_BYTES:
        return None
    return (
        f"{filename}: the file is {size:,} bytes; a bank may be at most {MAX_UPLOAD_BYTES:,} "
        "bytes: split it into several banks"
    )


def format_of(filename: str, text: str) -> str:
    """Our YAML (by the name's suffix, or a `bank:` … `tasks:` document), a format told by
    the suffix, else the one `importers.detect` finds (UnknownFormatError if none)."""
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
    data: bytes,
    filename: str,
    *,
    topic: str | None = None,
    taken: Mapping[str, str] | None = None,
) -> UploadedBank | RefusedUpload:
    """The bank in `data`, or every problem with its line.

    `taken` maps the task ids already served in the server (the shipped banks and its other
    banks) to where they are, so a repeated id is refused naming both places. `topic` is the
    topic of an imported bank (our YAML names its own)."""
    source = _Source(filename, bank_name(filename), taken or {})
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
        return _check_yaml(source, text)
    _, result = importers.parse(text, source=filename, fmt=fmt, topic=topic or None)
    return _check_import(source, fmt, result)


def _check_yaml(source: _Source, text: str) -> UploadedBank | RefusedUpload:
    file = Path(source.filename)
    parsed, problems = check_text(file, text, max_tasks=MAX_UPLOAD_TASKS)
    problems += _collisions(file, parsed, source.taken, lambda p: p.lines.get("id", p.line))
    if problems:
        return RefusedUpload(tuple(str(p) for p in file_report(file, problems)))
    return UploadedBank(source.name, text, tuple(p.task for p in parsed), YAML_FORMAT)


def _check_import(source: _Source, fmt: str, result: ImportResult) -> UploadedBank | RefusedUpload:
    file = Path(source.filename)
    notes = tuple(line.render(source.filename) for line in result.report)
    if not result.drafts:
        return RefusedUpload((*notes, f"{source.filename}: no task could be imported ({fmt})"))
    if len(result.drafts) > MAX_UPLOAD_TASKS:
        return RefusedUpload(
            (
                f"{source.filename}: {len(result.drafts):,} questions; a bank may hold at "
                f"most {MAX_UPLOAD_TASKS:,} tasks: split it into several banks",
            )
        )
    oversized = _oversized(file, result)
    if oversized:
        report = file_report(file, oversized)
        return RefusedUpload((*notes[:MAX_PROBLEMS_PER_FILE], *(str(p) for p in report)))
    text = bank_yaml(result)
    lines = {d.id: d.source_line for d in result.drafts}
    parsed, found = check_text(Path(f"{source.name}.yaml"), text, max_tasks=MAX_UPLOAD_TASKS)
    # Placed on the source's lines: the person fixes the file they uploaded.
    problems = [
        Problem(file, lines.get(p.task) if p.task else None, p.task, p.field, p.message)
        for p in found
    ]
    problems += _collisions(file, parsed, source.taken, lambda p: lines.get(p.task.id))
    if problems:
        report = file_report(file, problems)
        return RefusedUpload((*notes[:MAX_PROBLEMS_PER_FILE], *(str(p) for p in report)))
    return UploadedBank(source.name, text, tuple(p.task for p in parsed), fmt, notes)


_LISTS: Final = (
    ("options", "options", "option", MAX_OPTIONS),
    ("steps", "solution.steps", "step", MAX_STEPS),
    ("mistakes", "mistakes", "mistake note", MAX_MISTAKES),
)
"""A draft's lists with a bound: (attribute, field, what one item is, the bound)."""


def _oversized(file: Path, result: ImportResult) -> list[Problem]:
    """A list over its bound, in the check's words, found before the bank's YAML is written:
    the check finds it too, but only once every item has been written and read back (about
    25 s for 1 MB of one question's `- note` lines, near the upload's time limit)."""
    return [
        Problem(
            file,
            draft.source_line,
            draft.id,
            name,
            f"{plural(count, what)}; at most {bound:,} are allowed",
        )
        for draft in result.drafts
        for attribute, name, what, bound in _LISTS
        if (count := len(getattr(draft, attribute))) > bound
    ]


def _collisions(
    file: Path,
    parsed: Sequence[ParsedTask],
    taken: Mapping[str, str],
    line_of: Callable[[ParsedTask], int | None],
) -> list[Problem]:
    return [
        Problem(
            file,
            line_of(p),
            p.task.id,
            "id",
            f"id '{p.task.id}' is already used by {taken[p.task.id]}: give the task another id",
        )
        for p in parsed
        if p.task.id in taken
    ]


@dataclass(frozen=True, slots=True)
class EncodedBank:
    """An accepted bank as it leaves the worker process that checked it: its tasks as
    canonical JSON (bot/quiz/task_codec.py). Unpickling 2,000 Task objects holds the bot's GIL
    for about 0.2 s in one go; decoding them from JSON, in a thread, does not."""

    bank: UploadedBank
    """With no tasks: they are `tasks`."""
    tasks: tuple[str, ...]

    def decode(self) -> UploadedBank:
        return replace(self.bank, tasks=tuple(decode_task(t) for t in self.tasks))


def check_upload_encoded(
    data: bytes,
    filename: str,
    *,
    topic: str | None = None,
    taken: Mapping[str, str] | None = None,
) -> EncodedBank | RefusedUpload:
    """`check_upload`, for a worker process: an accepted bank comes back as an EncodedBank. A
    check that needs more memory than the worker may take (`limit_worker_memory`) is refused
    like any other file."""
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


WORKER_MEMORY: Final = 512 * 2**20
"""Bytes of address space the upload worker may map beyond what it maps when it starts. The
check of the worst 1 MB file we could build maps about 70 MB more (BENCHMARKS.md, "Upload
worker memory"); a file that needs this much is refused, and never takes the host's memory."""


def limit_worker_memory(headroom: int = WORKER_MEMORY) -> None:
    """The upload worker process's initializer: caps its address space (RLIMIT_AS) at what it
    maps now plus `headroom`, so an allocation past it raises MemoryError, which
    `check_upload_encoded` turns into a refusal. Linux only (elsewhere, nothing is capped)."""
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
    """The tasks of a stored bank (rebuilt when the bot starts), and its problems, if a check
    added since it was uploaded refuses some of them."""
    parsed, problems = check_text(Path(f"{name}.yaml"), yaml, max_tasks=MAX_UPLOAD_TASKS)
    return [p.task for p in parsed], [str(p) for p in problems]
