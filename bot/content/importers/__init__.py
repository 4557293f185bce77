"""Importers: other quiz formats into our banks, and our banks out as GIFT or Moodle XML. Each
format is one module: `parse`, `looks_like` and, where it exports, `export` and `cannot_export`.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Final, cast

from bot.content.importers.drafts import ImportResult
from bot.quiz.tasks import Task

FORMATS: Final = {"gift": "gift", "moodle-xml": "moodle_xml", "aiken": "aiken", "page": "page"}
EXPORTS: Final = ("gift", "moodle-xml")
# Most specific first: XML or a practice page could also pass the looser checks.
DETECTION_ORDER: Final = ("moodle-xml", "page", "gift", "aiken")

_XML_ENCODING = re.compile(rb"""<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z][\w.:-]*)["']""")


def decode(data: bytes) -> str:
    """A source's text: UTF-8, or XML in the encoding it declares; else UnicodeDecodeError."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as not_utf8:
        declared = _XML_ENCODING.match(data)
        if declared is None:
            raise
        try:
            return data.decode(declared[1].decode("ascii"))
        except (LookupError, UnicodeError):
            # No such encoding, or not these bytes': the file is still not UTF-8.
            raise not_utf8 from None


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


def parse(
    text: str, *, source: str, fmt: str | None = None, topic: str | None = None
) -> tuple[str, ImportResult]:
    """The format used and what it parsed."""
    fmt = fmt or detect(text)
    parser = cast(Callable[..., ImportResult], _module(fmt).parse)
    return fmt, parser(text, source=source, topic=topic)


def export(
    tasks: Sequence[Task], *, fmt: str, bank: str, skip: Mapping[str, str] | None = None
) -> str:
    """`tasks` in format `fmt`; a task `skip` names (id -> why) is written as a comment."""
    if fmt not in EXPORTS:
        raise UnknownFormatError(f"cannot export to {fmt!r}: choose {' or '.join(EXPORTS)}")
    return cast(Callable[..., str], _module(fmt).export)(tasks, bank=bank, skip=skip)


def cannot_export(task: Task, *, fmt: str) -> str | None:
    """Why format `fmt` cannot carry `task` (see each exporter's `cannot_export`), or None."""
    return cast(Callable[[Task], str | None], _module(fmt).cannot_export)(task)
