"""The SIGKILL crash test under load, repeated on a durable PostgreSQL server.

    python -m benchmarks.crash_pg [--repeat 10] [--members 100] [--markdown FILE]

Starts a throwaway PostgreSQL server (tests/pg_server.py) with fsync, synchronous_commit and
full_page_writes on, as in production, and runs tests/e2e/test_crash_safety.py's PostgreSQL
case against it (`QUIZBOT_TEST_POSTGRES_URL`), `--repeat` times in a row (CRASH_REPEAT), each a
fresh emulator, bot and database. Prints each repetition's `crash-run` numbers as a Markdown
table: what was acknowledged before the kill and found in the database afterwards, and the
most attempts any member has on a post. Exits non-zero if any repetition failed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from benchmarks.machine import loadavg, machine_info
from tests.pg_server import URL_SETTING, throwaway_server

REPO_ROOT = Path(__file__).resolve().parent.parent
COLUMNS = (
    ("repeat", "run"),
    ("planned_clicks", "planned clicks"),
    ("sent_before_kill", "sent before the kill"),
    ("acked_before_kill", "acknowledged before the kill"),
    ("in_flight_at_kill", "in flight at the kill"),
    ("acked_found_in_db", "acknowledged and found in the database"),
    ("stored_without_ack", "stored, never acknowledged"),
    ("clicks_after_restart", "clicks after the restart"),
    ("max_attempts_per_member", "most attempts of a member"),
    ("run_seconds", "run s"),
)


def table(runs: list[dict[str, object]]) -> str:
    head = "| " + " | ".join(title for _, title in COLUMNS) + " |"
    rule = "|" + "---:|" * len(COLUMNS)
    rows = ["| " + " | ".join(str(run[key]) for key, _ in COLUMNS) + " |" for run in runs]
    return "\n".join([head, rule, *rows])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.crash_pg", description=__doc__)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--members", type=int, default=100)
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    args = parser.parse_args(argv)
    print(f"machine: {machine_info()} load average {loadavg()}", flush=True)
    with throwaway_server(durable=True) as server:
        env = {
            **os.environ,
            URL_SETTING: server.admin_url.render_as_string(hide_password=False),
            "CRASH_REPEAT": str(args.repeat),
            "CRASH_MEMBERS": str(args.members),
        }
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-s",
            "-n0",  # -s shows the runs' lines only without xdist's workers
            "-p",
            "no:cacheprovider",
            "tests/e2e/test_crash_safety.py",
            "-k",
            "postgresql",
        ]
        done = subprocess.run(
            command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, check=False
        )
    runs = [
        json.loads(line.split("crash-run", 1)[1])
        for line in done.stdout.splitlines()
        if "crash-run {" in line
    ]
    summary = [line for line in done.stdout.splitlines() if " passed" in line or " failed" in line]
    text = table(runs)
    lost = sum(int(r["acked_before_kill"]) - int(r["acked_found_in_db"]) for r in runs)
    most = max((int(r["max_attempts_per_member"]) for r in runs), default=0)
    text += (
        f"\n\n- {len(runs)} runs: acknowledged answers lost {lost}; most attempts of any member "
        f"on a post {most}; pytest: {summary[-1].strip('= ') if summary else '?'}; "
        f"load average at the end {loadavg()}"
    )
    print(text)
    if args.markdown is not None:
        args.markdown.write_text(text + "\n")
    if done.returncode != 0:
        print(done.stdout[-6000:], done.stderr[-3000:], sep="\n", file=sys.stderr)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
