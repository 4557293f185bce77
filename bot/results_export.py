"""`quizbot export results`: what each member did on each task, for teachers who grade
elsewhere. The rows come from the store (bot/store/insights.py `InsightsStore.results`); this
writes them as CSV or JSON. Public posts only: a member's private practice and review tasks
are not graded work, so the store leaves them out.

Member ids are always there; names only with `--names` (the member table's last seen display
name). JSON writes ids as strings: Discord ids exceed the integers JavaScript reads exactly.
CSV writes yes/no as 1/0, so a spreadsheet can sum them.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import IO, Any
from zoneinfo import ZoneInfo

from bot.clock import zone_or
from bot.store.insights import ResultRow

FORMATS = ("csv", "json")
FIELDS = ("member_id", "task_id", "attempts", "solved", "points", "first_try", "hint", "solution")
"""The columns, in order; `name` follows `member_id` with --names."""


def columns(names: bool) -> tuple[str, ...]:
    return (FIELDS[0], "name", *FIELDS[1:]) if names else FIELDS


def _record(row: ResultRow, names: bool) -> dict[str, Any]:
    record: dict[str, Any] = {"member_id": str(row.user_id)}
    if names:
        record["name"] = row.name or ""
    record |= {
        "task_id": row.task_id,
        "attempts": row.attempts,
        "solved": row.solved,
        "points": row.points,
        "first_try": row.first_try,
        "hint": row.hint,
        "solution": row.solution,
    }
    return record


def write_csv(rows: Sequence[ResultRow], out: IO[str], *, names: bool = False) -> None:
    writer = csv.DictWriter(out, fieldnames=columns(names), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        record = _record(row, names)
        writer.writerow({k: int(v) if isinstance(v, bool) else v for k, v in record.items()})


def write_json(rows: Sequence[ResultRow], out: IO[str], *, names: bool = False) -> None:
    json.dump([_record(row, names) for row in rows], out, ensure_ascii=False, indent=2)
    out.write("\n")


def export_results(
    url: str,
    guild_id: int,
    *,
    since: date | None,
    fmt: str,
    names: bool,
    output: Path | None,
    out: IO[str],
    err: IO[str],
    default_zone: ZoneInfo,
) -> int:
    """Read the rows from the database at `url` and write them; 1 with a message on stderr
    when there is no database to read, or it needs `quizbot db upgrade` first. `--since` is
    a day in the server's zone, else in `default_zone` (the bot's QUIZBOT_TIMEZONE), as the
    bot's own days are."""
    from bot.store import Store, make_engine
    from bot.store.insights import InsightsStore
    from bot.store.migrate import current_state, sqlite_file

    file = sqlite_file(url)
    if file is not None and not file.exists():
        print(f"quizbot: no database at {file}", file=err)
        return 1
    engine = make_engine(url, create=False)
    try:
        state = current_state(engine)
        if not state.is_head:
            print(f"quizbot: the database is {state.describe()}; run quizbot db upgrade", file=err)
            return 1
        store = Store(engine)
        zone = zone_or(store.guild_config(guild_id).timezone, default_zone)
        rows = InsightsStore(store).results(guild_id, zone, since=since, names=names)
    finally:
        engine.dispose()
    write = write_csv if fmt == "csv" else write_json
    if output is None:
        write(rows, out, names=names)
    else:
        with output.open("w", encoding="utf-8", newline="") as file_out:
            write(rows, file_out, names=names)
        print(f"wrote {len(rows)} rows to {output}", file=err)
    return 0
