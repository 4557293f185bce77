"""Importers: other quiz formats (GIFT, Moodle XML, Aiken, practice pages) into our banks,
and our banks back out as GIFT or Moodle XML.

Each format is one module with `parse(text, *, source, topic) -> ImportResult` (and, where it
exports, `export(tasks, *, bank) -> str`, and `looks_like(text)` for detection). The parser
produces `drafts.Draft` tasks and a report of what it left out; `drafts.bank_yaml` writes them
as one bank, which the ordinary content check then validates.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Final, cast

from bot.content.importers.drafts import ImportResult
from bot.quiz.tasks import Task

FORMATS: Final = {"gift": "gift", "moodle-xml": "moodle_xml", "aiken": "aiken", "page": "page"}
"""Format name -> its module in this package."""
EXPORTS: Final = ("gift", "moodle-xml")
DETECTION_ORDER: Final = ("moodle-xml", "page", "gift", "aiken")
"""Most specific first: an XML document or a practice page could also pass the looser checks."""


class UnknownFormatError(ValueError):
    """The source's format could not be told from its content."""


def _module(fmt: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{FORMATS[fmt]}")


def detect(text: str) -> str:
    """The format of `text`, from its content; UnknownFormatError when none fits."""
    for fmt in DETECTION_ORDER:
        if _module(fmt).looks_like(text):
            return fmt
    raise UnknownFormatError(
        f"cannot tell the format from the content: give --format ({', '.join(FORMATS)})"
    )


def parse(text: str, *, source: str, fmt: str | None = None, topic: str | None = None) -> (
    tuple[str, ImportResult]
):
    """The format used and what it parsed."""
    fmt = fmt or detect(text)
    parser = cast(Callable[..., ImportResult], _module(fmt).parse)
    return fmt, parser(text, source=source, topic=topic)


def export(tasks: Sequence[Task], *, fmt: str, bank: str) -> str:
    if fmt not in EXPORTS:
        raise UnknownFormatError(f"cannot export to {fmt!r}: choose {' or '.join(EXPORTS)}")
    return cast(Callable[..., str], _module(fmt).export)(tasks, bank=bank)
