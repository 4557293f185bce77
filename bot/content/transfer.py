"""`quizbot content import` and `quizbot content export`: banks in and out of other formats.

An import writes one bank (to a file, or stdout) and its report to stderr: one line per
question left out or guessed, `SOURCE:LINE: …`. It succeeds (exit 0) when at least one task was
imported. The bank is then checked like any bank, and its problems are reported too, so a
person sees at once what to fix before it can be served.

A file given with `--output` is written whole or not at all (`bot.files.replace_file`); one
that can't be written is one `quizbot: can't write …` line and exit 1.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Final, TextIO

from bot.content import importers
from bot.content.importers.drafts import ImportResult, bank_tree, bank_yaml
from bot.content.loader import check_banks, check_tree, not_utf8
from bot.content.problems import Unconfirmed
from bot.files import cannot_write, replace_file

MAX_SOURCE_BYTES: Final = 10_000_000
"""A source larger than this is refused unread (10,000 GIFT questions are about 2 MB)."""


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
    if bank is not None and output is not None and not _write(output, bank, err, make_folder=True):
        return 1
    for line in result.report:
        print(line.render(str(source)), file=err)
    if bank is None:
        print(f"{source}: no task imported ({fmt})", file=err)
        return 1
    if output is None:
        out.write(bank)
    unconfirmed = _check(result, bank, output, err)
    print(
        f"{source}: imported {len(result.drafts)} task(s) as {fmt}"
        + (f", {unconfirmed} to confirm" if unconfirmed else "")
        + f"; {len(result.report)} report line(s)",
        file=err,
    )
    return 0


def export_command(path: Path, *, fmt: str, output: Path | None, out: TextIO, err: TextIO) -> int:
    catalog, problems = check_banks(path)
    if problems:
        for problem in problems:
            print(problem, file=err)
        print(f"{path}: fix these before exporting", file=err)
        return 1
    tasks = list(catalog)
    banks = sorted({t.bank for t in tasks})
    title = banks[0] if len(banks) == 1 else f"quizbot banks from {path.name or path}"
    try:
        text = importers.export(tasks, fmt=fmt, bank=title)
    except importers.UnknownFormatError as exc:
        print(f"quizbot: {exc}", file=err)
        return 1
    if output is None:
        out.write(text)
    elif not _write(output, text, err):
        return 1
    return 0


def _write(output: Path, text: str, err: TextIO, *, make_folder: bool = False) -> bool:
    """Write `text` to `output` whole (an import also makes its folder); False with one line
    on `err` if it can't be written, leaving no part of it behind."""
    try:
        if make_folder and not output.parent.exists():  # a file there: "Not a directory"
            output.parent.mkdir(parents=True, exist_ok=True)
        replace_file(output, "utf-8", lambda file_out: file_out.write(text))
    except OSError as exc:
        print(cannot_write(output, exc), file=err)
        return False
    return True


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


def _check(result: ImportResult, bank: str, output: Path | None, err: TextIO) -> int:
    """Check the written bank like any other; report its problems; count the tasks a person
    must confirm (those are expected, and not repeated here: the report named them).

    The check walks the bank's node tree as the writer built it, which is what parsing the
    text back would give (composing 10,000 tasks' YAML is most of an import's time). Only when
    that finds a problem is the text checked again, for the line numbers a person needs."""
    shown = output or Path("<stdout>")
    _, problems = check_tree(shown, bank_tree(result))
    if any(not isinstance(p, Unconfirmed) for p in problems):
        with tempfile.TemporaryDirectory() as folder:
            file = Path(folder) / shown.name
            file.write_text(bank, encoding="utf-8")
            _, problems = check_banks(file)
        problems = [replace(p, file=shown) for p in problems]
    unconfirmed = sum(isinstance(p, Unconfirmed) for p in problems)
    for problem in problems:
        if not isinstance(problem, Unconfirmed):
            print(problem, file=err)
    return unconfirmed
