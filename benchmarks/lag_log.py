"""The loop-lag lines a bot logs (bot.discord_ui.loop_lag), and the writer-thread lines
logged beside them (`WriterLoad`, bot/service.py), read back from its log file."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

ANSI = re.compile(r"\x1b\[[0-9;]*m")
"""discord.utils.setup_logging (the floor bot's) colours its output whenever it can."""
LAG_LINE = re.compile(
    r"^\[?(?P<ts>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?:,(?P<ms>\d{3}))? .*loop-lag (?P<final>final )?"
    r"max_ms=(?P<max>[0-9.]+) p99_ms=(?P<p99>[0-9.]+) samples=(?P<n>\d+)"
)

WRITER_LINE = re.compile(
    r"^(?P<ts>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(?P<ms>\d{3}) .*writer "
    r"busy_pct=(?P<busy>[0-9.]+) units=(?P<n>\d+) wait_max_ms=(?P<wait>[0-9.]+)"
)


@dataclass
class LagLine:
    at: datetime
    final: bool
    max_ms: float
    p99_ms: float
    samples: int


def _matches(pattern: re.Pattern[str], log_text: str) -> list[tuple[datetime, re.Match[str]]]:
    """Each matching line with its time; without milliseconds (the floor's log format), the
    middle of its second."""
    found = []
    for raw in ANSI.sub("", log_text).splitlines():
        if m := pattern.search(raw):
            at = datetime.strptime(m["ts"], "%Y-%m-%d %H:%M:%S")
            found.append((at.replace(microsecond=int(m["ms"]) * 1000 if m["ms"] else 500_000), m))
    return found


def parse_lag_lines(log_text: str) -> list[LagLine]:
    return [
        LagLine(at, bool(m["final"]), float(m["max"]), float(m["p99"]), int(m["n"]))
        for at, m in _matches(LAG_LINE, log_text)
    ]


@dataclass
class WriterLine:
    """One second of the quiz bot's writer thread."""

    at: datetime
    busy_pct: float
    units: int
    wait_max_ms: float


def parse_writer_lines(log_text: str) -> list[WriterLine]:
    return [
        WriterLine(at, float(m["busy"]), int(m["n"]), float(m["wait"]))
        for at, m in _matches(WRITER_LINE, log_text)
    ]
