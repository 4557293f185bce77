"""Load task banks from YAML: every file under a folder, or one file.

`check_banks` returns what loaded and every problem; `load_banks` raises on any, since the bot
would rather not start than serve half a bank.
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
from bot.content.limits import MAX_FILE_BYTES, MAX_TASKS_PER_BANK, too_large
from bot.content.problems import ContentError, Problem, Unconfirmed, file_report
from bot.content.safety import look_alike
from bot.content.schema import BankChecker, ParsedBank, ParsedTask
from bot.quiz.tasks import Catalog

BANK_SUFFIXES: Final = (".yaml", ".yml")  # in any case
# libyaml's parser where PyYAML has it: about 3× faster, most of the bot's start-up time.
SAFE_LOADER: Final = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def is_bank_name(name: str) -> bool:
    """A YAML suffix in any case: a `b.YAML` skipped unsaid is a bank the host thinks served."""
    return Path(name).suffix.lower() in BANK_SUFFIXES


def find_bank_files(path: Path) -> list[Path]:
    """The file, or every bank below the folder, sorted, once; broken links too, to be said."""
    if path.is_file():
        return [path]
    return [] if not path.is_dir() else _once(sorted(_banks_below(path)))


def _once(files: list[Path]) -> list[Path]:
    """Each file once: a link beside it (a ConfigMap) would make its tasks clash with themselves."""
    seen: set[tuple[int, int]] = set()
    # A broken link, or gone (None): listed, so that reading it says why.
    return [file for file in files if _first_time(file, seen) is not False]


def _first_time(path: Path, seen: set[tuple[int, int]]) -> bool | None:
    """Whether the file `path` names is not in `seen` (now it is); None if it cannot be stat'ed."""
    try:
        st = path.stat()
    except OSError:
        return None
    key = (st.st_dev, st.st_ino)
    if key in seen:
        return False
    seen.add(key)
    return True


def _banks_below(root: Path) -> Iterator[Path]:
    walked: set[tuple[int, int]] = set()
    # A folder the walk may not open is listed as a bank, so that reading it says why.
    unopened: list[OSError] = []
    for folder, folders, names in os.walk(root, followlinks=True, onerror=unopened.append):
        if not _first_time(Path(folder), walked):  # gone, a link back up, or a second link
            folders.clear()
            continue
        folders.sort()  # the same path for a bank reached twice, whatever the listing order
        for name in names:
            file = Path(folder, name)
            if file.is_file():
                if is_bank_name(name):
                    yield file
            elif (
                file.is_symlink() and not file.exists() and (is_bank_name(name) or not file.suffix)
            ):
                yield file
    yield from (Path(exc.filename) for exc in unopened if exc.filename not in (None, str(root)))


def read_file(file: Path) -> tuple[str | None, list[Problem]]:
    """The file's text, or the problem that prevents reading it; never more than the bound."""
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
            return None, [_file_problem(file, too_large(size, MAX_FILE_BYTES))]
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
    """The line of the first byte that is not UTF-8, and a message an editor user can act on."""
    data: bytes = exc.object
    start = data.rfind(b"\n", 0, exc.start) + 1
    line = data.count(b"\n", 0, start) + 1
    column = len(data[start : exc.start].decode("utf-8", "replace")) + 1
    return line, (
        f"not UTF-8 text: byte 0x{data[exc.start]:02X} at column {column} ({exc.reason}); "
        "save the file as UTF-8"
    )


def _file_problem(file: Path, message: str) -> Problem:
    return Problem(file, None, None, None, message)


def parse_text(file: Path, text: str) -> tuple[Node | None, list[Problem]]:
    """`text`'s YAML node tree (problems placed in `file`), or the problem that prevents it."""
    try:
        # Safe: tags are never executed. An alias is its anchor's node, walked once (`fresh`).
        return yaml.compose(text, Loader=SAFE_LOADER), []
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        what = " ".join(part for part in (exc.context, exc.problem) if part)
        return None, [Problem(file, line, None, None, f"YAML does not parse: {what}")]
    except yaml.YAMLError as exc:
        return None, [_file_problem(file, f"YAML does not parse: {exc}")]
    except RecursionError:
        # libyaml stops at 1,000 levels itself; PyYAML's own composer recurses per level.
        return None, [_file_problem(file, "YAML does not parse: it is nested too deeply")]


def check_file(file: Path) -> ParsedBank:
    text, problems = read_file(file)
    root = None
    if text is not None:
        root, problems = parse_text(file, text)
    if problems:
        return ParsedBank(file, problems=problems)
    return _check_root(file, root, MAX_TASKS_PER_BANK)


def _check_root(file: Path, root: Node | None, max_tasks: int) -> ParsedBank:
    bank = BankChecker(file, max_tasks=max_tasks).check(root)
    _check_rendering(bank)
    return bank


def _check_rendering(bank: ParsedBank) -> None:
    """Drop the tasks the bot could not show, each too-long text reported once (a shared topic)."""
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
    """Tasks with ids not seen before, and by file a problem naming both places of each repeated
    id, or of a topic that reads the same as another but is written otherwise."""
    first: dict[str, tuple[Path, int]] = {}
    topics: dict[str, tuple[str, str]] = {}  # look-alike form -> as first written, and where
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
"""Each bank's path, device, inode, size, mtime and ctime: it changes when a bank does."""


@dataclass(frozen=True, slots=True)
class Survey:
    """One stat of each bank: the watch's fingerprint, and each file's real path."""

    fingerprint: Fingerprint
    real: tuple[str, ...]

    @property
    def complete(self) -> bool:
        """Whether every file could be stat'ed (a broken link cannot)."""
        return all(stamp[1] != _UNSTATED for stamp in self.fingerprint)


_UNSTATED: Final = -1

_checked: dict[Path, tuple[Fingerprint, bool]] = {}  # see `last_check`


def fingerprint(files: Iterable[Path]) -> Fingerprint:
    """The fingerprint of `files` now; one that cannot be stat'ed gets -1s, unlike any stat."""
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


def last_check(path: Path) -> tuple[Fingerprint, bool] | None:
    """The fingerprint taken before the last check of `path` (for a watch armed later), and
    whether a bank of it lies outside the watched folder (its change brings no event)."""
    return _checked.get(path.absolute())


def _why_no_banks(path: Path) -> str:
    """Why `path` gave no bank file; an unreadable folder says so rather than "no banks"."""
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


Checked = tuple[list[ParsedTask], list[Problem]]  # tasks, and every problem


def read_banks(path: Path) -> Checked:
    """Every valid task at `path`, confirmed or not, and every problem in the files."""
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
    """Every task the bot may serve at `path`, and every problem, unconfirmed tasks included."""
    tasks, problems = read_banks(path)
    served = Catalog.of(p.task for p in tasks if p.confirmed)
    return served, problems + _unconfirmed(tasks, path)


def _unconfirmed(tasks: Iterable[ParsedTask], path: Path) -> list[Problem]:
    return [
        Unconfirmed.of(p.file or path, p.lines.get("confirmed", p.line), p.task.id)
        for p in tasks
        if not p.confirmed
    ]


def check_text(file: Path, text: str, *, max_tasks: int = MAX_TASKS_PER_BANK) -> Checked:
    """One bank given as text, checked as `check_banks` checks a file (the caller bounds it)."""
    root, problems = parse_text(file, text)
    return ([], problems) if problems else check_tree(file, root, max_tasks=max_tasks)


def check_tree(file: Path, root: Node | None, *, max_tasks: int = MAX_TASKS_PER_BANK) -> Checked:
    """`check_text` for a node tree: an import's is checked without reading its text back."""
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
