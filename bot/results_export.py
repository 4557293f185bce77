"""`quizbot export results`: each member's result on each public task, as CSV or JSON, for
teachers who grade elsewhere. Ids as JSON strings (JavaScript loses precision); CSV with a BOM,
1/0 for yes/no, and formula-like cells made inert (`inert`).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from bot.clock import zone_or
from bot.files import cannot_write, write_output, write_stdout

if TYPE_CHECKING:  # the store is imported by the functions that read it: `quizbot --help`
    # shows FIELDS without loading SQL
    from bot.store.insights import ResultRow

FORMATS = ("csv", "json")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What makes Excel, LibreOffice or Sheets read a cell as a formula (OWASP's CSV injection list)."""
FIELDS = (
    "member_id", "task_id", "attempts", "solved", "points", "first_try", "hint", "solution",
    "answer",
)  # fmt: skip
"""The columns, in order; `name` follows `member_id` with --names. `answer`: the last one
stored, option letters or the text typed."""


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
        "answer": row.answer,
    }
    return record


def inert(value: Any) -> Any:
    """A text cell a spreadsheet shows rather than runs: members choose their display names,
    so `=HYPERLINK(...)` must not become a live formula on the teacher's machine. The leading
    quote is OWASP's advice; spreadsheets hide it. Numbers stay numbers, so sums still work."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return f"'{value}"
    return value


def write_csv(rows: Sequence[ResultRow], out: IO[str], *, names: bool = False) -> None:
    # CRLF, as RFC 4180 and spreadsheets have it; it also makes the writer quote a CR inside a
    # name, which with "\n" it left bare, splitting the row in two when read back.
    writer = csv.DictWriter(out, fieldnames=columns(names), lineterminator="\r\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: inert(v) for k, v in _record(row, names).items()})


def write_json(rows: Sequence[ResultRow], out: IO[str], *, names: bool = False) -> None:
    json.dump([_record(row, names) for row in rows], out, ensure_ascii=False, indent=2)
    out.write("\n")


def database_files(url: str) -> list[Path]:
    """The SQLite file the rows came from, with its journals and the running bot's lock file
    (`process_claim`): not to be written over."""
    from bot.store.db import sqlite_file

    file = sqlite_file(url)
    if file is None:
        return []
    ends = ("-wal", "-shm", "-journal", ".lock")
    return [file, *(file.with_name(file.name + end) for end in ends)]


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
    """Read the rows and write them; 1 with one line on stderr when the database needs an
    upgrade, knows nothing of the server, or `output` can't be written (an older file is kept).
    `since` is a day in the server's zone, else `default_zone`. HostError: no readable database."""
    from bot.store import Store, guild_config, make_engine
    from bot.store.insights import InsightsStore
    from bot.store.migrate import not_current
    from bot.store.preflight import check_readable

    check_readable(url)  # creates nothing: a missing database is said so, not made
    engine = make_engine(url, create=False)
    try:
        # One that must not be opened is one line, as in `run`.
        if (stale := not_current(engine)) is not None:
            print(stale, file=err)
            return 1
        store = Store(engine)
        with store.read() as conn:
            zone = zone_or(guild_config.guild_config(conn, guild_id).timezone, default_zone)
        rows = InsightsStore(store).results(guild_id, zone, since=since, names=names)
        known = bool(rows)
        if not known:
            with store.read() as conn:
                known = guild_config.known_guild(conn, guild_id)
    finally:
        engine.dispose()
    if not known:
        # Almost always a mistyped or copied-wrong id: an empty file would pass for "no grades".
        print(
            f"quizbot: no results for server {guild_id}: the database has no posts, members or "
            "settings of it (check the id: in Discord, right-click the server and Copy Server ID)",
            file=err,
        )
        return 1
    write = write_csv if fmt == "csv" else write_json
    if output is None:
        if not write_stdout(out, lambda file_out: write(rows, file_out, names=names), err):
            return 1
    else:
        # The BOM tells Excel the file is UTF-8; without it "Zoë" opens as "ZoÃ«". JSON has none.
        encoding = "utf-8-sig" if fmt == "csv" else "utf-8"
        try:
            write_output(
                output,
                encoding,
                lambda file_out: write(rows, file_out, names=names),
                reads=database_files(url),
            )
        except OSError as exc:
            print(cannot_write(output, exc), file=err)
            return 1
        print(f"wrote {len(rows):,} row{'' if len(rows) == 1 else 's'} to {output}", file=err)
    if not rows:
        # Known server, so the empty export is true; still, say so rather than let a header
        # pass for a result.
        hint = (
            f" since {since.isoformat()} (nobody answered a public post there since then; "
            "an earlier --since may find some)"
            if since
            else " (nobody has answered a public post there yet)"
        )
        print(f"quizbot: no results for server {guild_id}{hint}", file=err)
    return 0
