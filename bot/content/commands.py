"""`quizbot content check` and `quizbot content list`: the bodies, without argparse."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final, TextIO

from bot.content.loader import check_banks, find_bank_files, read_banks
from bot.content.problems import Problem, tally
from bot.content.schema import ParsedTask
from bot.quiz.task_codec import (
    numeric_data,
    options_data,
    parts_data,
    short_data,
    solution_data,
)
from bot.quiz.tasks import Kind, Task
from bot.rendering import truncate

SHORT_PROMPT: Final = 60


def _report(problems: list[Problem], out: TextIO) -> None:
    for problem in problems:
        print(problem, file=out)
    files = len({p.file for p in problems})
    print(f"{tally(problems)} in {files:,} file{'' if files == 1 else 's'}", file=out)


def check_command(path: Path, out: TextIO) -> int:
    """Print "N tasks in M banks: OK", or every problem; exit status 0 or 1."""
    catalog, problems = check_banks(path)
    if problems:
        _report(problems, out)
        return 1
    banks = len(find_bank_files(path))
    tasks = f"{len(catalog):,} task{'' if len(catalog) == 1 else 's'}"
    print(f"{tasks} in {banks:,} bank{'' if banks == 1 else 's'}: OK", file=out)
    return 0


def task_record(task: Task, *, confirmed: bool = True) -> dict[str, Any]:
    """The task as plain data, for the JSON export; keys and their order are stable."""
    return {
        "id": task.id,
        "bank": task.bank,
        "topic": task.topic,
        "kind": task.kind.value,
        "difficulty": task.difficulty.value,
        "instruction": task.instruction,
        "prompt": task.prompt,
        "language": task.language if task.kind is Kind.FILL else None,
        "options": options_data(task),
        "answers": list(task.answers),
        "hint": task.hints[0] if task.hints else None,
        "solution": solution_data(task.solution),
        "mistakes": [{"note": n.text, "options": list(n.options)} for n in task.mistakes],
        # Last, so the keys before it keep their order for older readers.
        "confirmed": confirmed,
        "hints": list(task.hints),  # the whole ladder; `hint` is its first, or None
        "bank_language": task.bank_language,  # the bank's `language:` tag, or None
    } | (
        # A multi task's weights in percent, one per option; `answers` are its right options;
        # `single` (only when set): one pick, graded by its weight.
        {"weights": [float(w) for w in task.weights], "show_count": task.show_count}
        | ({"single": True} if task.single else {})
        if task.kind is Kind.MULTI
        else {}
    ) | (
        # A typed task's grading: accepted answers, credits, case, typos, units, known mistakes.
        {"short": short_data(task.short)} if task.short is not None else {}
    ) | ({"numeric": numeric_data(task.numeric)} if task.numeric is not None else {}) | (
        # A matching task's stems; `answers` holds each one's option label, in stem order.
        {"stems": list(task.stems)} if task.kind is Kind.MATCHING else {}
    ) | (
        # A cloze task's parts, each with its answers, credits and notes; `question` marks
        # each one's place `{#n}`.
        {"parts": parts_data(task.parts)} if task.kind is Kind.CLOZE else {}
    )


def _row(task: Task) -> tuple[str, str, str, str]:
    # The bank's language beside the topic, as /topics shows it beside the bank.
    topic = f"{task.topic} · {task.bank_language}" if task.bank_language else task.topic
    return task.id, task.kind.value, task.difficulty.value, topic


def _listing(tasks: list[ParsedTask]) -> list[str]:
    rows = [_row(p.task) for p in tasks]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = []
    for row, p in zip(rows, tasks, strict=True):
        task = p.task
        # The instruction reads better in a listing than the first line of a code template.
        text = task.instruction if task.kind is Kind.FILL and task.instruction else task.prompt
        text = truncate(" ".join(text.split()), SHORT_PROMPT)
        cells = "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        lines.append(f"{cells}  {'(not confirmed) ' if not p.confirmed else ''}{text}")
    return lines


def list_command(path: Path, as_json: bool, out: TextIO, err: TextIO | None = None) -> int:
    """List every task (or JSON), else the problems to `err`, so JSON on `out` stays parseable."""
    tasks, problems = read_banks(path)
    if problems:
        _report(problems, err or out)
        return 1
    if as_json:
        records = [task_record(p.task, confirmed=p.confirmed) for p in tasks]
        json.dump(records, out, indent=2, ensure_ascii=False)
        out.write("\n")
    else:
        for line in _listing(tasks):
            print(line, file=out)
    return 0
