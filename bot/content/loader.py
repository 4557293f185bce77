"""Load task banks from YAML: every file under a folder, or one file.

`check_banks` returns what loaded and every problem found; `load_banks` is for the bot, which
refuses to start on broken content rather than serve half a bank.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Final

import yaml
from yaml.nodes import Node

from bot import rendering
from bot.content.problems import ContentError, Problem
from bot.content.schema import BankChecker, ParsedBank, ParsedTask
from bot.quiz.tasks import Catalog

BANK_SUFFIXES: Final = (".yaml", ".yml")
# libyaml's parser when PyYAML was built with it (the PyPI wheels are): a 10,000-task content
# folder composes about 3× faster, which is most of the bot's start-up time.
SAFE_LOADER: Final = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def find_bank_files(path: Path) -> list[Path]:
    """The bank files at `path`: the file itself, or every YAML file below it, sorted."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        return []
    return sorted(p for p in path.rglob("*") if p.suffix in BANK_SUFFIXES and p.is_file())


def parse_file(file: Path) -> tuple[Node | None, list[Problem]]:
    """The file's YAML node tree, or the problem that prevents reading it."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [Problem(file, None, None, None, f"cannot read the file: {exc}")]
    try:
        # SafeLoader: tags such as !!python/object are kept as plain tags, never executed.
        return yaml.compose(text, Loader=SAFE_LOADER), []
    except yaml.MarkedYAMLError as exc:
        return None, [_yaml_problem(file, exc)]
    except yaml.YAMLError as exc:
        return None, [Problem(file, None, None, None, f"YAML does not parse: {exc}")]


def _yaml_problem(file: Path, exc: yaml.MarkedYAMLError) -> Problem:
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark else None
    what = " ".join(part for part in (exc.context, exc.problem) if part)
    return Problem(file, line, None, None, f"YAML does not parse: {what}")


def check_file(file: Path) -> ParsedBank:
    root, problems = parse_file(file)
    if problems:
        return ParsedBank(file, problems=problems)
    bank = BankChecker(file).check(root)
    _check_rendering(bank)
    return bank


def _check_rendering(bank: ParsedBank) -> None:
    """Drop the tasks the bot could not show, reporting each rendered string that is too long."""
    shown: list[ParsedTask] = []
    for parsed in bank.tasks:
        found = rendering.render_problems(parsed.task)
        bank.problems += [
            Problem(bank.file, parsed.lines.get(field, parsed.line), parsed.task.id, field, msg)
            for field, msg in found
        ]
        if not found:
            shown.append(parsed)
    bank.tasks = shown


def _unique(banks: Iterable[ParsedBank]) -> tuple[list[ParsedTask], list[Problem]]:
    """Tasks with ids not seen before; a problem naming both places for each repeat."""
    first: dict[str, tuple[Path, int]] = {}
    kept: list[ParsedTask] = []
    problems: list[Problem] = []
    for bank in banks:
        for parsed in bank.tasks:
            task_id = parsed.task.id
            line = parsed.lines.get("id", parsed.line)
            if task_id in first:
                where = "{}:{}".format(*first[task_id])
                message = f"id '{task_id}' is already used by the task at {where}"
                problems.append(Problem(bank.file, line, task_id, "id", message))
            else:
                first[task_id] = (bank.file, line)
                kept.append(parsed)
    return kept, problems


def _in_reading_order(problems: list[Problem], files: list[Path]) -> list[Problem]:
    order = {file: i for i, file in enumerate(files)}
    return sorted(problems, key=lambda p: (order.get(p.file, -1), p.line or 0))


def check_banks(path: Path) -> tuple[Catalog, list[Problem]]:
    """Every valid task at `path`, and every problem (empty when the content is clean)."""
    files = find_bank_files(path)
    if not files:
        why = "no *.yaml or *.yml banks here" if path.exists() else "no such file or directory"
        return Catalog(), [Problem(path, None, None, None, why)]
    banks = [check_file(file) for file in files]
    tasks, duplicates = _unique(banks)
    problems = [p for bank in banks for p in bank.problems] + duplicates
    return Catalog.of(p.task for p in tasks), _in_reading_order(problems, files)


def load_banks(path: Path) -> Catalog:
    """Every task at `path`; raises ContentError listing all problems if there are any."""
    catalog, problems = check_banks(path)
    if problems:
        raise ContentError(problems)
    return catalog
