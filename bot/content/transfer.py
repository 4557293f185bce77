"""`quizbot content import` and `quizbot content export`: banks in and out of other formats.
An import writes one bank, its report (`SOURCE:LINE: …` on stderr), then checks the bank.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Final, TextIO

from bot.content import importers
from bot.content.cloze_syntax import ClozeSyntaxError
from bot.content.cloze_syntax import parse as parse_cloze
from bot.content.importers.drafts import (
    DIFFICULTIES,
    Draft,
    ImportResult,
    bank_tree,
    bank_yaml,
    draft_weights,
)
from bot.content.loader import check_banks, check_tree, not_utf8, read_banks
from bot.content.matching_parts import matching_options
from bot.content.problems import Unconfirmed
from bot.files import cannot_write, write_output, write_stdout
from bot.quiz.cloze import ClozePart
from bot.quiz.tasks import (
    CREDIT_TOLERANCE,
    OPTION_LABELS,
    Difficulty,
    Kind,
    Option,
    Solution,
    Task,
)

MAX_SOURCE_BYTES: Final = 10_000_000  # refused unread; 10,000 GIFT questions are about 2 MB


def import_command(
    source: Path,
    *,
    fmt: str | None,
    topic: str | None,
    output: Path | None,
    out: TextIO,
    err: TextIO,
) -> int:
    text = _read(source, err)
    if text is None:
        return 1
    try:
        fmt, result = importers.parse(text, source=str(source), fmt=fmt, topic=topic)
    except importers.UnknownFormatError as exc:
        print(f"{source}: {exc}", file=err)
        return 1
    bank = bank_yaml(result) if result.drafts else None
    # Before the report: a bank that can't be written is the one line to fix first.
    if bank is not None and output is not None and not _write(output, bank, err, [source]):
        return 1
    for line in result.report:
        print(line.render(str(source)), file=err)
    if bank is None:
        print(f"{source}: no task imported ({fmt})", file=err)
        return 1
    if output is None and not write_stdout(out, lambda file_out: file_out.write(bank), err):
        return 1
    unconfirmed, failing = _check(result, bank, output, source, err)
    print(
        f"{source}: imported {len(result.drafts)} task(s) as {fmt}"
        + (f", {unconfirmed} to confirm" if unconfirmed else "")
        + f"; {len(result.report)} report line(s)"
        + (f"; {failing} task(s) fail the check (above): fix them in the bank" if failing else ""),
        file=err,
    )
    # A question left out (said in the report) fails the import, as a failing task does.
    return 1 if failing or any(line.left_out for line in result.report) else 0


def export_command(path: Path, *, fmt: str, output: Path | None, out: TextIO, err: TextIO) -> int:
    """Export every task at `path`; one not read back the same is left out with a line, exit 1."""
    if fmt not in importers.EXPORTS:
        choose = " or ".join(importers.EXPORTS)
        print(f"quizbot: cannot export to {fmt!r}: choose {choose}", file=err)
        return 1
    parsed, problems = read_banks(path)
    if problems or not all(p.confirmed for p in parsed):
        _, problems = check_banks(path)  # the same problems, the unconfirmed tasks' too
        for problem in problems:
            print(problem, file=err)
        print(f"{path}: fix these before exporting", file=err)
        return 1
    tasks = [p.task for p in parsed]
    banks = sorted({t.bank for t in tasks})
    title = banks[0] if len(banks) == 1 else f"quizbot banks from {path.name or path}"
    text, left = exported(tasks, fmt=fmt, bank=title)
    if output is None:
        if not write_stdout(out, lambda file_out: file_out.write(text), err):
            return 1
    elif not _write(output, text, err, _files(path)):
        return 1
    for task in parsed:
        why = left.get(task.task.id)
        if why:
            where = f"{task.file or path}:{task.line}"
            print(f"{where}: task {task.task.id}: not exported: {why}", file=err)
    if left:
        print(
            f"quizbot: exported {len(tasks) - len(left)} of {len(tasks)} task(s) as {fmt}; "
            f"{len(left)} left out (above)",
            file=err,
        )
        return 1
    return 0


def exported(tasks: Sequence[Task], *, fmt: str, bank: str) -> tuple[str, dict[str, str]]:
    """`tasks` in format `fmt`, and why each task is left out (id -> why): the text is read back
    and a task that differs is left out too, so an export never garbles a task."""
    left = {t.id: why for t in tasks if (why := importers.cannot_export(t, fmt=fmt))}
    while True:
        text = importers.export(tasks, fmt=fmt, bank=bank, skip=left)
        changed = _not_read_back(tasks, text, fmt, left)
        if not changed:
            return text, left
        left.update(changed)


_FORMAT_NAMES: Final = {"gift": "GIFT", "moodle-xml": "Moodle XML"}


def _not_read_back(
    tasks: Sequence[Task], text: str, fmt: str, left: Mapping[str, str]
) -> dict[str, str]:
    """Why each task not in `left` does not come back as it is from our import of `text`. A draft
    equal to a checked task passes the check again, so the bank is not checked here (10×)."""
    name = _FORMAT_NAMES.get(fmt, fmt)
    _, result = importers.parse(text, source=f"export.{fmt}", fmt=fmt)
    found = {draft.id: draft for draft in result.drafts}
    changed: dict[str, str] = {}
    missing: list[Task] = []
    for task in tasks:
        draft = found.get(task.id)
        again = _as_task(draft, result.topic) if draft is not None else None
        if task.id in left:
            continue
        if again is None:
            missing.append(task)
            continue
        field = _first_difference(task, again)
        if field:
            changed[task.id] = f"its {field} would not read back the same from {name}"
    # A task not given back at all says why alone; one that comes back alone stays in.
    alone = {task.id: _alone(task, fmt) for task in missing}
    culprits = {task_id: why for task_id, why in alone.items() if why is not None}
    for task_id in culprits or alone:
        why = culprits.get(task_id) or ""
        changed[task_id] = f"our {name} import would not read it back{why and f' ({why})'}"
    return changed


def _alone(task: Task, fmt: str) -> str | None:
    """None when `task` exported alone comes back as it is; else our import's report on it."""
    text = importers.export([task], fmt=fmt, bank=task.bank or "export")
    _, result = importers.parse(text, source=f"export.{fmt}", fmt=fmt)
    back = [_as_task(draft, result.topic) for draft in result.drafts]
    if len(back) == 1 and back[0] is not None and _first_difference(task, back[0]) is None:
        return None
    return next((line.message for line in result.report), "")


def _as_task(draft: Draft, bank_topic: str) -> Task | None:
    """The task the content check builds from `draft`, or None for one it would not serve."""
    if not draft.confirmed or draft.kind not in set(Kind) or draft.difficulty not in DIFFICULTIES:
        return None
    fill = draft.kind == Kind.FILL
    options = tuple(Option(OPTION_LABELS[i], t) for i, t in enumerate(draft.options))
    answers = tuple(draft.answers)
    if draft.kind == Kind.MATCHING:
        paired = [answer for _, answer in draft.pairs]
        options, answers = matching_options(paired, list(draft.distractors))
    prompt = (draft.code if fill else draft.question) or ""
    parts: tuple[ClozePart, ...] = ()
    if draft.kind == Kind.CLOZE:
        try:
            prompt, parts = parse_cloze(prompt)
        except ClozeSyntaxError:
            return None
    return Task(
        id=draft.id,
        topic=draft.topic or bank_topic,
        kind=Kind(draft.kind),
        difficulty=Difficulty(draft.difficulty),
        prompt=prompt,
        options=options,
        answers=answers,
        hints=tuple(draft.hints),
        solution=Solution(
            steps=tuple(draft.steps),
            final_answer=draft.final_answer or None,
            quick_check=draft.quick_check or None,
            explanation=draft.explanation or None,
        ),
        mistakes=tuple(draft.mistakes),
        instruction=draft.instruction if fill else None,
        language=(draft.language or "python") if fill else "python",
        weights=draft_weights(draft) if draft.kind == Kind.MULTI else (),
        show_count=draft.show_count,
        single=draft.single,
        short=draft.short,
        numeric=draft.numeric,
        stems=tuple(stem for stem, _ in draft.pairs),
        parts=parts,
    )


def _first_difference(task: Task, again: Task) -> str | None:
    """The first field in which `again` differs from `task`; notes as a member sees them."""
    names = ("id", "topic", "kind", "difficulty", "prompt", "options", "answers", "hints")
    for name in (*names, "show_count", "single", "short", "numeric", "stems", "parts"):
        if getattr(task, name) != getattr(again, name):
            return {"prompt": "code" if task.kind is Kind.FILL else "question"}.get(name, name)
    for name in ("instruction", "language"):
        if task.kind is Kind.FILL and getattr(task, name) != getattr(again, name):
            return name
    # Moodle writes a third as 33.33333: a weight within the check's tolerance grades the same.
    pairs = zip(task.weights, again.weights, strict=False)
    if len(task.weights) != len(again.weights) or any(
        abs(a - b) > CREDIT_TOLERANCE for a, b in pairs
    ):
        return "weights"
    if task.solution != again.solution:
        return "solution"
    return "mistake notes" if _shown_notes(task) != _shown_notes(again) else None


def _shown_notes(task: Task) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
    general = task.general_notes
    blanks = range(1, max(task.blanks, 1) + 1) if task.kind is Kind.MATCHING else (1,)
    shown = (task.notes_at(b, label) or general for b in blanks for label in task.labels)
    return tuple(shown), general


def _write(output: Path, text: str, err: TextIO, reads: list[Path]) -> bool:
    """Write `text` to `output` (none of `reads`); False with one line on `err` if it can't."""
    try:
        write_output(output, "utf-8", lambda file_out: file_out.write(text), reads=reads)
    except OSError as exc:
        print(cannot_write(output, exc), file=err)
        return False
    return True


def _files(path: Path) -> list[Path]:
    """The files an export read from, which --output may not overwrite."""
    return [path] if not path.is_dir() else [p for p in path.rglob("*") if p.is_file()]


def _read(source: Path, err: TextIO) -> str | None:
    try:
        with source.open("rb") as fh:
            data = fh.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        print(f"{source}: cannot read it: {exc.strerror or exc}", file=err)
        return None
    if len(data) > MAX_SOURCE_BYTES:
        print(f"{source}: larger than {MAX_SOURCE_BYTES:,} bytes; split it", file=err)
        return None
    try:
        return importers.decode(data)
    except UnicodeDecodeError as exc:
        line, message = not_utf8(exc)
        print(f"{source}:{line}: {message}", file=err)
        return None


def _check(
    result: ImportResult, bank: str, output: Path | None, source: Path, err: TextIO
) -> tuple[int, int]:
    """Check the written bank's node tree (composing its text is slow; done only for the lines
    of a failure), report its problems at their source lines, count to confirm and failing."""
    shown = output or Path("<stdout>")
    _, problems = check_tree(shown, bank_tree(result))
    if any(not isinstance(p, Unconfirmed) for p in problems):
        with tempfile.TemporaryDirectory() as folder:
            file = Path(folder) / shown.name
            file.write_text(bank, encoding="utf-8")
            _, problems = check_banks(file)
        problems = [replace(p, file=shown) for p in problems]
    unconfirmed = sum(isinstance(p, Unconfirmed) for p in problems)
    lines = {draft.id: draft.source_line for draft in result.drafts}
    failing: set[str | None] = set()
    for problem in problems:
        if not isinstance(problem, Unconfirmed):
            line = lines.get(problem.task) if problem.task else None
            at = f"{source}:{line}: imported as " if line is not None else ""
            print(f"{at}{problem}", file=err)
            failing.add(problem.task)
    return unconfirmed, len(failing)
