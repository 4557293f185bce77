"""Importers: other quiz formats (GIFT, Moodle XML, Aiken, practice pages) into our banks,
and our banks back out as GIFT or Moodle XML.

Each format is one module with `parse(text, *, source, topic) -> ImportResult` (and, where it
exports, `export(tasks, *, bank) -> str`, and `looks_like(text)` for detection). The parser
produces `drafts.Draft` tasks and a report of what it left out; `drafts.bank_yaml` writes them
as one bank, which the ordinary content check then validates.
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
"""Format name -> its module in this package."""
EXPORTS: Final = ("gift", "moodle-xml")
DETECTION_ORDER: Final = ("moodle-xml", "page", "gift", "aiken")
"""Most specific first: an XML document or a practice page could also pass the looser checks."""


_XML_ENCODING = re.compile(rb"""<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z][\w.:-]*)["']""")
"""The encoding an XML declaration names, at the very start of the file."""


def decode(data: bytes) -> str:
    """A source's text: UTF-8 (a byte order mark dropped), or an XML document in the encoding
    its declaration names. XML may be in any encoding it declares, and tools other than Moodle
    write ISO-8859-1. UnicodeDecodeError for any other bytes that are not UTF-8."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as not_utf8:
        declared = _XML_ENCODING.match(data)
        if declared is None:
            raise
        try:
            return data.decode(declared[1].decode("ascii"))
        except (LookupError, UnicodeError):
            # No such encoding, not a text encoding (base64), or not these bytes' encoding:
            # what is wrong is still that the file is not UTF-8.
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


def parse(text: str, *, source: str, fmt: str | None = None, topic: str | None = None) -> (
    tuple[str, ImportResult]
):
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
