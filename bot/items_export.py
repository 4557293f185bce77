"""`quizbot export items`: one row per task of a server with every item-analysis figure
(bot/reports/items.py), as CSV or JSON, for teachers who review their banks elsewhere. CSV
cells as `quizbot export results` writes them (formula-like text made inert)."""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import IO, Any
from zoneinfo import ZoneInfo

from bot import rendering
from bot.clock import day_start, zone_or
from bot.files import cannot_write, write_output, write_stdout
from bot.reports.items import DEFAULTS, ItemStats, Thresholds, item_stats
from bot.results_export import database_files, inert
from bot.store import Store, guild_config, make_engine
from bot.store.items import first_attempts
from bot.store.migrate import not_current
from bot.store.preflight import check_readable

FIELDS = (
    "task_id",
    "title",
    "topic",
    "bank",
    "author_difficulty",
    "group_difficulty",
    "difficulty_rating",
    "answered",
    "first_try",
    "facility",
    "facility_low",
    "facility_high",
    "discrimination",
    "discrimination_members",
    "flags",
    "options",
)
"""The columns, in order (JSON: the same keys; `flags` and `options` as lists there)."""


def thresholds_of(pairs: Sequence[str], err: IO[str]) -> Thresholds | None:
    """The thresholds `--threshold NAME=VALUE` asks for; None after one line on `err`."""
    values: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            print(f"quizbot: --threshold {pair!r}: give NAME=VALUE, e.g. too_easy=0.95", file=err)
            return None
        values[name.strip()] = value.strip()
    try:
        return DEFAULTS.with_overrides(values)
    except ValueError as exc:
        print(f"quizbot: --threshold: {exc}", file=err)
        return None


def record(item: ItemStats) -> dict[str, Any]:
    """One task's figures, every one with its count beside it."""
    task = item.task
    return {
        "task_id": item.task_id,
        "title": rendering.task_title(task) if task is not None else "",
        "topic": item.topic,
        "bank": item.bank,
        "author_difficulty": task.difficulty.value if task is not None else "",
        "group_difficulty": item.group_label.value if item.group_label is not None else "",
        "difficulty_rating": _round(item.rating.value if item.rating is not None else None),
        "answered": item.answered,
        "first_try": item.first_try,
        "facility": _round(item.facility),
        "facility_low": _round(item.interval.low),
        "facility_high": _round(item.interval.high),
        "discrimination": _round(item.discrimination),
        "discrimination_members": item.discriminated,
        "flags": [{"flag": flag.value, "figure": figure} for flag, figure in item.flags],
        "options": [
            {
                "blank": c.blank,
                "option": c.label,
                "right": c.right,
                "picked": c.picked,
                "top_third": c.top,
                "bottom_third": c.bottom,
                "third_size": item.third,
                "discrimination": _round(c.discrimination),
            }
            for c in item.choices
        ],
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _csv_cells(row: Mapping[str, Any]) -> dict[str, Any]:
    cells = dict(row)
    cells["flags"] = "; ".join(f"{f['flag']}: {f['figure']}" for f in row["flags"])
    cells["options"] = "; ".join(
        f"{o['option']}{'*' if o['right'] else ''} {o['picked']} "
        f"(top {o['top_third']}/{o['third_size']}, bottom {o['bottom_third']}/{o['third_size']})"
        for o in row["options"]
    )
    return {k: "" if v is None else inert(v) for k, v in cells.items()}


def write_csv(rows: Sequence[Mapping[str, Any]], out: IO[str]) -> None:
    writer = csv.DictWriter(out, fieldnames=FIELDS, lineterminator="\r\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(_csv_cells(row))


def write_json(rows: Sequence[Mapping[str, Any]], out: IO[str]) -> None:
    json.dump(list(rows), out, ensure_ascii=False, indent=2)
    out.write("\n")


def export_items(
    url: str,
    guild_id: int,
    *,
    since: date | None,
    fmt: str,
    output: Path | None,
    out: IO[str],
    err: IO[str],
    default_zone: ZoneInfo,
    thresholds: Thresholds = DEFAULTS,
) -> int:
    """Read, analyse and write; 1 with one line on stderr when the database needs an upgrade,
    knows nothing of the server, or `output` can't be written. HostError: no readable database."""
    check_readable(url)
    engine = make_engine(url, create=False)
    try:
        if (stale := not_current(engine)) is not None:
            print(stale, file=err)
            return 1
        store = Store(engine)
        with store.read() as conn:
            zone = zone_or(guild_config.guild_config(conn, guild_id).timezone, default_zone)
            read = first_attempts(conn, guild_id, day_start(since, zone) if since else None)
            known = bool(read.attempts) or guild_config.known_guild(conn, guild_id)
    finally:
        engine.dispose()
    if not known:
        print(
            f"quizbot: no items for server {guild_id}: the database has no posts, members or "
            "settings of it (check the id: in Discord, right-click the server and Copy Server ID)",
            file=err,
        )
        return 1
    rows = [record(item) for item in item_stats(read, thresholds)]
    write = write_csv if fmt == "csv" else write_json
    if output is None:
        if not write_stdout(out, lambda file_out: write(rows, file_out), err):
            return 1
    else:
        encoding = "utf-8-sig" if fmt == "csv" else "utf-8"  # the BOM: Excel reads UTF-8
        try:
            write_output(
                output, encoding, lambda file_out: write(rows, file_out), reads=database_files(url)
            )
        except OSError as exc:
            print(cannot_write(output, exc), file=err)
            return 1
        print(f"wrote {len(rows):,} task{'' if len(rows) == 1 else 's'} to {output}", file=err)
    if not rows:
        print(f"quizbot: no items for server {guild_id}: nobody answered a public post", file=err)
    return 0
