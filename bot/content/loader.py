"""Load task banks from YAML: every file under a folder, or one file.

`check_banks` returns what loaded and every problem found; `load_banks` is for the bot, which
refuses to start on broken content rather than serve half a bank. A file over `MAX_FILE_BYTES`
is refused unread, and each file lists at most `MAX_PROBLEMS_PER_FILE` problems (`limits`).
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import yaml
from yaml.nodes import Node

from bot import rendering
from bot.content.limits import MAX_FILE_BYTES, MAX_TASKS_PER_BANK
from bot.content.problems import ContentError, Problem, Unconfirmed, file_report
from bot.content.safety import look_alike
from bot.content.schema import BankChecker, ParsedBank, ParsedTask
from bot.quiz.tasks import Catalog

BANK_SUFFIXES: Final = (".yaml", ".yml")
"""In any case: `b.YAML` is a bank as much as `b.yaml` (see `is_bank_name`)."""
# libyaml's parser when PyYAML was built with it (the PyPI wheels are): a 10,000-task content
# folder composes about 3× faster, which is most of the bot's start-up time.
SAFE_LOADER: Final = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def is_bank_name(name: str) -> bool:
    """Whether a file of this name is a bank: a YAML suffix, in any case (`b.YAML` too: a
    bank skipped without a word for its name's case is a bank the host thinks is served)."""
    return Path(name).suffix.lower() in BANK_SUFFIXES


def find_bank_files(path: Path) -> list[Path]:
    """The bank files at `path`: the file itself, or every YAML file below it, sorted.

    Nothing that looks like a bank goes missing without a word: a folder linked in (a symbolic
    link) is walked like any other, once however many links lead to it, and a broken symbolic
    link that could be a bank (its name's) or a folder of banks (no suffix) is listed too, so
    that reading it reports it."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        return []
    return _once(sorted(_banks_below(path)))


def _once(files: list[Path]) -> list[Path]:
    """Each file once, at its first path: a link to a bank beside it (Kubernetes mounts a
    ConfigMap so: `a.yaml -> ..data/a.yaml`) or a hard link would read it twice, and every
    task of it would clash with itself."""
    seen: set[tuple[int, int]] = set()
    unique = []
    for file in files:
        try:
            st = file.stat()
        except OSError:  # a broken link, or gone: listed, so that reading it says why
            unique.append(file)
            continue
        if (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            unique.append(file)
    return unique


def _banks_below(root: Path) -> Iterator[Path]:
    walked: set[tuple[int, int]] = set()
    # A folder the walk may not open is listed as if it were a bank, so that reading it says
    # why: os.walk would otherwise skip it, and its banks would vanish without a word.
    unopened: list[OSError] = []
    for folder, folders, names in os.walk(root, followlinks=True, onerror=unopened.append):
        try:
            st = Path(folder).stat()
        except OSError:  # gone since it was listed
            folders.clear()
            continue
        if (st.st_dev, st.st_ino) in walked:  # a link back up, or a second link to it
            folders.clear()
            continue
        walked.add((st.st_dev, st.st_ino))
        folders.sort()  # the same path for a bank reached twice, whatever the listing order
        for name in names:
            file = Path(folder, name)
            if file.is_file():
                if is_bank_name(name):
                    yield file
            elif _broken_link(file) and (is_bank_name(name) or not file.suffix):
                yield file
    yield from (Path(exc.filename) for exc in unopened if exc.filename not in (None, str(root)))


def _broken_link(file: Path) -> bool:
    return file.is_symlink() and not file.exists()


def read_file(file: Path) -> tuple[str | None, list[Problem]]:
    """The file's text, or the problem that prevents reading it; no more than the bound is
    ever read, whatever the file claims its size to be."""
    if file.is_dir():  # a folder below the banks that the walk could not open
        try:
            next(file.iterdir(), None)
        except OSError as exc:
            return None, [_file_problem(file, _cannot_read(file, exc))]
        return None, [_file_problem(file, "cannot read this folder: it changed while it was read")]
    try:
        with file.open("rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            size = file.stat().st_size
            return None, [_file_problem(file, _too_large(size))]
        return data.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        line, message = not_utf8(exc)
        return None, [Problem(file, line, None, None, message)]
    except OSError as exc:
        return None, [_file_problem(file, _unreadable(file, exc))]


def _unreadable(file: Path, exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError) and file.is_symlink():
        try:
            target = file.readlink()
        except OSError:  # replaced meanwhile: the error says enough
            return f"cannot read the file: {exc}"
        return f"a broken symbolic link: its target {target} does not exist"
    return f"cannot read the file: {exc}"


def not_utf8(exc: UnicodeDecodeError) -> tuple[int, str]:
    """The line of a file's first byte that is not UTF-8, and a message that finds it in an
    editor: a byte offset means nothing to the person who saved the file as Windows-1252."""
    data: bytes = exc.object
    start = data.rfind(b"\n", 0, exc.start) + 1
    line = data.count(b"\n", 0, start) + 1
    column = len(data[start : exc.start].decode("utf-8", "replace")) + 1
    return line, (
        f"not UTF-8 text: byte 0x{data[exc.start]:02X} at column {column} ({exc.reason}); "
        "save the file as UTF-8"
    )


def _too_large(size: int) -> str:
    return (
        f"the file is {size:,} bytes; a bank may be at most {MAX_FILE_BYTES:,} bytes: "
        "split it into several banks"
    )


def _file_problem(file: Path, message: str) -> Problem:
    return Problem(file, None, None, None, message)


def parse_file(file: Path) -> tuple[Node | None, list[Problem]]:
    """The file's YAML node tree, or the problem that prevents reading it."""
    text, problems = read_file(file)
    if text is None:
        return None, problems
    return parse_text(file, text)


def parse_text(file: Path, text: str) -> tuple[Node | None, list[Problem]]:
    """`text`'s YAML node tree (problems placed in `file`), or the problem that prevents it."""
    try:
        # SafeLoader: tags such as !!python/object are kept as plain tags, never executed.
        # Aliases are not expanded here: an alias is the anchored node itself, and the walk
        # refuses to walk a node twice (nodes.NodeChecker.fresh).
        return yaml.compose(text, Loader=SAFE_LOADER), []
    except yaml.MarkedYAMLError as exc:
        return None, [_yaml_problem(file, exc)]
    except yaml.YAMLError as exc:
        return None, [_file_problem(file, f"YAML does not parse: {exc}")]
    except RecursionError:
        # libyaml stops at 1,000 levels itself; PyYAML's own composer recurses per level.
        return None, [_file_problem(file, "YAML does not parse: it is nested too deeply")]


def _yaml_problem(file: Path, exc: yaml.MarkedYAMLError) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark else None
    what = " ".join(part for part in (exc.context, exc.problem) if part)
    return Problem(file, line, None, None, f"YAML does not parse: {what}")


def check_file(file: Path) -> ParsedBank:
    root, problems = parse_file(file)
    if problems:
        return ParsedBank(file, problems=problems)
    return _check_root(file, root, MAX_TASKS_PER_BANK)


def _check_root(file: Path, root: Node | None, max_tasks: int) -> ParsedBank:
    bank = BankChecker(file, max_tasks=max_tasks).check(root)
    _check_rendering(bank)
    return bank


def _check_rendering(bank: ParsedBank) -> None:
    """Drop the tasks the bot could not show, reporting each rendered string that is too long.

    A field the tasks share (the bank's topic) is reported once, for the first task, not once
    per task.
    """
    shown: list[ParsedTask] = []
    reported: set[tuple[int, str, str]] = set()
    for parsed in bank.tasks:
        found = rendering.render_problems(parsed.task)
        for field, message in found:
            line = parsed.lines.get(field, parsed.line)
            if (line, field, message) not in reported:
                reported.add((line, field, message))
                bank.problems.append(Problem(bank.file, line, parsed.task.id, field, message))
        if not found:
            shown.append(parsed)
    bank.tasks = shown


def _unique(banks: Iterable[ParsedBank]) -> tuple[list[ParsedTask], dict[Path, list[Problem]]]:
    """Tasks with ids not seen before; a problem naming both places for each repeat, by file.
    And a topic that reads the same as another (`MLOps`, `mlops`, or with a zero-width space)
    but is not written the same: members would see two topics of one name, each with part of
    the tasks."""
    first: dict[str, tuple[Path, int]] = {}
    topics: dict[str, tuple[str, str]] = {}
    """Each topic's look-alike form -> the topic as first written, and where."""
    reported: set[str] = set()
    kept: list[ParsedTask] = []
    problems: dict[Path, list[Problem]] = defaultdict(list)
    for bank in banks:
        for parsed in bank.tasks:
            task_id = parsed.task.id
            topic, at = parsed.task.topic, parsed.lines.get("topic", parsed.line)
            written = topics.setdefault(look_alike(topic), (topic, f"{bank.file}:{at}"))
            if written[0] != topic and f"{bank.file}:{at}" not in reported:
                reported.add(f"{bank.file}:{at}")  # a bank's topic: once, not once per task
                message = (
                    # repr: the difference may be an invisible character, which it spells out.
                    f"topic {topic!r} reads the same as the topic {written[0]!r} at "
                    f"{written[1]}: write it the same way in every bank"
                )
                problems[bank.file].append(Problem(bank.file, at, task_id, "topic", message))
            line = parsed.lines.get("id", parsed.line)
            if task_id in first:
                where = "{}:{}".format(*first[task_id])
                message = f"id '{task_id}' is already used by the task at {where}"
                problems[bank.file].append(Problem(bank.file, line, task_id, "id", message))
            else:
                first[task_id] = (bank.file, line)
                kept.append(parsed)
    return kept, problems


Fingerprint = tuple[tuple[str, int, int, int, int, int], ...]
"""Each bank file's path, device, inode, size, mtime and ctime: what changes when a bank does,
read without reading the banks."""


@dataclass(frozen=True, slots=True)
class Survey:
    """The bank files as one stat of each found them: the fingerprint the watch compares, and
    where each file really is (its links followed), for the content cache's key and to know
    whether a bank lies outside the folder watched for it."""

    fingerprint: Fingerprint
    real: tuple[str, ...]

    @property
    def complete(self) -> bool:
        """Whether every file could be stat'ed (a broken link cannot)."""
        return all(stamp[1] != _UNSTATED for stamp in self.fingerprint)


_UNSTATED: Final = -1

_checked: dict[Path, tuple[Fingerprint, bool]] = {}
"""Per content path: the fingerprint before its last check, and whether a bank of that check
lies outside the watched folder (`links_outside`)."""


def fingerprint(files: Iterable[Path]) -> Fingerprint:
    """The fingerprint of `files` now; a file that cannot be stat'ed has one of its own
    (-1s), so that it differs from the file before and after."""
    stamps = []
    for file in files:
        try:
            st = file.stat()
        except OSError:
            stamps.append((str(file), _UNSTATED, _UNSTATED, _UNSTATED, _UNSTATED, _UNSTATED))
            continue
        stamps.append((str(file), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(stamps)


def fingerprint_of(path: Path) -> Fingerprint | None:
    """The fingerprint of the banks at `path` now; None if the folder cannot be walked."""
    try:
        return fingerprint(find_bank_files(path))
    except OSError:
        return None


def survey(files: list[Path]) -> Survey:
    """`files` now: each stat'ed once, and its link followed."""
    return Survey(fingerprint(files), tuple(str(file.resolve()) for file in files))


def remember_checked(path: Path, seen: Survey) -> None:
    """Note that the banks at `path` were checked as they were when `seen` was taken."""
    folder = path if path.is_dir() else path.parent  # the folder a watch of `path` watches
    root = str(folder.resolve())
    outside = any(os.path.commonpath((root, real)) != root for real in seen.real)
    _checked[path.absolute()] = (seen.fingerprint, outside)


def last_checked(path: Path) -> Fingerprint | None:
    """The fingerprint of the banks at `path` taken before their last check in this process
    (a start-up's load, a reload), or None: a watch armed later compares it with the banks
    now, so that a change made in between is not missed (`reload.ContentReloader`)."""
    checked = _checked.get(path.absolute())
    return None if checked is None else checked[0]


def links_outside(path: Path) -> bool:
    """Whether a bank of the last check at `path` lies outside the folder watched for it (a
    link to a shared bank, a mounted secret): its change brings no event from that folder,
    so only then must a watch compare fingerprints on its own."""
    checked = _checked.get(path.absolute())
    return checked is not None and checked[1]


def _why_no_banks(path: Path) -> str:
    """Why `path` gave no bank file. rglob lists a folder it may not open as empty, so an
    unreadable CONTENT_DIR was "no banks here": opening it says why not."""
    if path.is_dir():
        unreadable: list[OSError] = []
        for _ in os.walk(path, onerror=unreadable.append):
            if unreadable:
                break
        if unreadable:  # the folder itself, or the first folder below it
            return _cannot_read(path, unreadable[0])
    return "no *.yaml or *.yml banks here" if path.exists() else "no such file or directory"


def _cannot_read(path: Path, exc: OSError) -> str:
    what = "this folder" if exc.filename in (None, str(path)) else str(exc.filename)
    return (
        f"cannot read {what} ({exc.strerror or exc}): the bot's user needs read and search "
        "(r-x) permission on the folder"
    )


def read_banks(path: Path) -> tuple[list[ParsedTask], list[Problem]]:
    """Every valid task at `path`, confirmed or not, and every problem in the files (an
    unconfirmed task is not one: `check_banks` adds those)."""
    try:
        files = find_bank_files(path)
    except OSError as exc:  # a folder that lists but whose entries cannot be looked at (r--)
        return [], [Problem(path, None, None, None, _cannot_read(path, exc))]
    # Taken before any file is read: a change made during the check makes it differ.
    remember_checked(path, survey(files))
    if not files:
        return [], [Problem(path, None, None, None, _why_no_banks(path))]
    banks = [check_file(file) for file in files]
    tasks, duplicates = _unique(banks)
    problems = [
        problem
        for bank in banks
        for problem in file_report(bank.file, bank.problems + duplicates.get(bank.file, []))
    ]
    return tasks, problems


def check_banks(path: Path) -> tuple[Catalog, list[Problem]]:
    """Every task the bot may serve at `path`, and every problem (empty when the content is
    clean). A task not yet confirmed (`confirmed: false`) is left out and is a problem here."""
    tasks, problems = read_banks(path)
    served = Catalog.of(p.task for p in tasks if p.confirmed)
    return served, problems + _unconfirmed(tasks, path)


def _unconfirmed(tasks: Iterable[ParsedTask], path: Path) -> list[Problem]:
    """The problem of each task not yet confirmed: it is not served."""
    return [
        Unconfirmed.of(p.file or path, p.lines.get("confirmed", p.line), p.task.id)
        for p in tasks
        if not p.confirmed
    ]


def check_text(
    file: Path, text: str, *, max_tasks: int = MAX_TASKS_PER_BANK
) -> tuple[list[ParsedTask], list[Problem]]:
    """One bank given as text (an upload, or a bank stored in the database), checked exactly
    as `check_banks` checks a file, problems placed in `file`: the tasks it may serve, and
    every problem, unconfirmed tasks included. The caller bounds the text's size."""
    root, problems = parse_text(file, text)
    if problems:
        return [], problems
    return check_tree(file, root, max_tasks=max_tasks)


def check_tree(
    file: Path, root: Node | None, *, max_tasks: int = MAX_TASKS_PER_BANK
) -> tuple[list[ParsedTask], list[Problem]]:
    """`check_text` for a bank already held as a YAML node tree. An importer's tree comes from
    YAML's own representer, so it is the tree composing its text would give, less the line
    numbers: the import checks it without reading its 6 MB back (see content/transfer.py)."""
    bank = _check_root(file, root, max_tasks)
    tasks, duplicates = _unique([bank])
    problems = file_report(file, bank.problems + duplicates.get(file, []))
    return [p for p in tasks if p.confirmed], problems + _unconfirmed(tasks, file)


def load_banks(path: Path) -> Catalog:
    """Every task at `path`; raises ContentError listing all problems if there are any."""
    catalog, problems = check_banks(path)
    if problems:
        raise ContentError(problems)
    return catalog
