"""The `quizbot` command line (also `python -m bot`)."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Sequence
from datetime import date, timedelta
from pathlib import Path

from bot.files import OUTPUT_HELP
from bot.host_errors import HostError
from bot.quiz.errors import StoreError
from bot.settings import Settings, load_settings


def output_path(text: str) -> Path:
    """An --output path as typed: pathlib drops a trailing slash, which would turn "a folder
    that does not exist yet" into a file of that name."""
    if text.endswith(("/", os.sep)):
        raise argparse.ArgumentTypeError(f"{text!r} names a folder: give a file's path")
    return Path(text)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="quizbot", description="A Discord tutor bot.")
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("run", help="start the bot (needs DISCORD_TOKEN)")

    sync = sub.add_parser("sync", help="register the slash commands with Discord")
    sync.add_argument(
        "--guild", type=_discord_id, help="sync to one server only (instant, for testing)"
    )

    content = sub.add_parser("content", help="check or list the task banks")
    content_sub = content.add_subparsers(dest="content_command", required=True)
    check = content_sub.add_parser("check", help="validate banks; exit 1 on any problem")
    check.add_argument(
        "path",
        nargs="?",
        type=Path,
        help="a bank file or folder (default: CONTENT_DIR, else content/)",
    )
    listing = content_sub.add_parser("list", help="print every task")
    listing.add_argument("path", nargs="?", type=Path, help="a bank file or folder")
    listing.add_argument("--json", action="store_true", help="the stable JSON export")
    importing = content_sub.add_parser(
        "import", help="turn a GIFT, Moodle XML, Aiken or practice-page file into a bank"
    )
    importing.add_argument("source", type=Path, help="the file to import")
    importing.add_argument(
        "--format", choices=["gift", "moodle-xml", "aiken", "page"], help="default: detected"
    )
    importing.add_argument("--topic", help="the bank's topic (default: from the source)")
    importing.add_argument(
        "--output", type=output_path, help=f"the bank file to write {OUTPUT_HELP}"
    )
    exporting = content_sub.add_parser("export", help="write banks as GIFT or Moodle XML")
    exporting.add_argument("path", nargs="?", type=Path, help="a bank file or folder")
    exporting.add_argument("--format", choices=["gift", "moodle-xml"], required=True)
    exporting.add_argument("--output", type=output_path, help=f"the file to write {OUTPUT_HELP}")

    practice = sub.add_parser("practice", help="play the banks in the terminal, no Discord needed")
    practice.add_argument("--topic", help="only tasks of this topic")
    practice.add_argument(
        "--db",
        help="SQLite file, or a database URL, to record to (default: DATABASE_URL)",
    )
    practice.add_argument("--content", type=Path, help="bank file or folder (default: CONTENT_DIR)")

    export = sub.add_parser("export", help="export what members did, for grading elsewhere")
    export_sub = export.add_subparsers(dest="export_command", required=True)
    results = export_sub.add_parser(
        "results", help="one row per member and task (DATABASE_URL): attempts, points, ..."
    )
    results.add_argument("--guild", type=_discord_id, required=True, help="the server's id")
    results.add_argument(
        "--since",
        type=_export_since,
        help="only posts made from this date on, YYYY-MM-DD, in the server's time zone "
        "(else QUIZBOT_TIMEZONE's)",
    )
    results.add_argument("--format", choices=["csv", "json"], default="csv")
    results.add_argument(
        "--names", action="store_true", help="add members' display names (default: ids only)"
    )
    results.add_argument("--output", type=output_path, help=f"the file to write {OUTPUT_HELP}")

    db = sub.add_parser("db", help="the database schema (DATABASE_URL)")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    db_sub.add_parser("current", help="show the schema revision and whether it is the newest")
    db_sub.add_parser(
        "upgrade", help="upgrade the schema to this quizbot's (an SQLite file is backed up first)"
    )
    copy = db_sub.add_parser(
        "copy",
        help="copy a whole deployment into an empty database (e.g. SQLite to PostgreSQL), "
        "then verify row counts and leaderboard totals",
    )
    copy.add_argument("source", metavar="SRC_URL", help="e.g. sqlite:///data/quizbot.db")
    copy.add_argument(
        "target", metavar="DST_URL", help="an empty database, e.g. postgresql+psycopg://…"
    )
    return parser


def _local_date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date like 2025-09-01") from None


DISCORD_ID_LIMIT = 2**63
"""Discord ids (snowflakes) are positive and fit a signed 64-bit integer, as the database's do."""


def _discord_id(text: str) -> int:
    try:
        value: int | None = int(text)
    except ValueError:
        value = None
    if value is None or not 0 < value < DISCORD_ID_LIMIT:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a Discord id (a whole number from 1 to 2**63-1, "
            "e.g. 800000000000000001: right-click the server, Copy Server ID)"
        )
    return value


def _export_since(text: str) -> date:
    day = _local_date(text)
    # Midnight of the first day of year one is still year zero in UTC east of Greenwich, which
    # no datetime holds. The next day is safe in every zone: offsets stay under 24 hours.
    if day == date.min:
        raise argparse.ArgumentTypeError(
            f"{text!r} is too early (give {date.min + timedelta(days=1)} or later, "
            "or leave --since out for every post)"
        )
    return day


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "run" and hasattr(signal, "SIGHUP"):  # not on Windows
        # SIGHUP means "reload the banks" once the bot serves; before that they are being
        # loaded, and a change made meanwhile is found when the watch starts. Its default
        # action would end the process.
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        return _dispatch(args, load_settings(**_setting_overrides(args)))
    except HostError as exc:
        # The host's setup is wrong (a setting, the database file, the token, a database URL
        # given to `db copy`): one line each, no traceback. Any other exception is a bug and
        # keeps its traceback.
        for line in exc.lines():
            print(f"quizbot: {line}", file=sys.stderr)
        return 1
    except StoreError as exc:
        # The database failed under `practice` or `export` (the store logged the fault once).
        print(f"quizbot: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `quizbot content list | head`: the reader left; that is not an error of ours.
        sys.stderr.close()
        return 0


def _setting_overrides(args: argparse.Namespace) -> dict[str, str]:
    """A path given on the command line takes the place of its setting for this run (and is
    checked like it), so checking some other folder works wherever CONTENT_DIR points."""
    overrides = {}
    content = getattr(args, "path", None) or getattr(args, "content", None)
    if content:
        overrides["CONTENT_DIR"] = str(content)
    if getattr(args, "db", None):
        overrides["DATABASE_URL"] = _practice_database(args.db)
    return overrides


def _practice_database(db: str) -> str:
    """`--db`: a URL ("scheme://…") as given, checked like DATABASE_URL; else an SQLite file.
    A URL read as a path became a folder named after it (`./postgresql+psycopg:/…`)."""
    if "://" in db:
        return db
    return f"sqlite:///{db}"


def _dispatch(args: argparse.Namespace, settings: Settings) -> int:
    if args.command == "content":
        from bot.content.commands import check_command, list_command
        from bot.content.transfer import export_command, import_command

        path = settings.content_dir
        match args.content_command:
            case "check":
                return check_command(path, sys.stdout)
            case "import":
                return import_command(
                    args.source,
                    fmt=args.format,
                    topic=args.topic,
                    output=args.output,
                    out=sys.stdout,
                    err=sys.stderr,
                )
            case "export":
                return export_command(
                    path, fmt=args.format, output=args.output, out=sys.stdout, err=sys.stderr
                )
        return list_command(path, args.json, sys.stdout, sys.stderr)
    if args.command == "practice":
        return _practice(args, settings)
    if args.command == "export":
        from bot.results_export import export_results

        return export_results(
            settings.database_url,
            args.guild,
            since=args.since,
            fmt=args.format,
            names=args.names,
            output=args.output,
            out=sys.stdout,
            err=sys.stderr,
            default_zone=settings.zone,
        )
    if args.command == "db":
        if args.db_command == "copy":
            return _db_copy(args.source, args.target)
        if args.db_command == "upgrade":
            from bot.store.preflight import check_database, check_lasting

            check_lasting(settings.database_url)  # an upgrade of nothing that lasts
            check_database(settings.database_url)  # an upgrade writes: it must be writable
        return _db(args.db_command, settings.database_url)

    settings.token()  # fail fast, before logging in, with the message that names the variable
    if args.command == "run":
        from bot.store.preflight import check_database, check_lasting

        check_lasting(settings.database_url)  # a restart would lose everything
        check_database(settings.database_url)  # before going online: it must be writable

    from bot.discord_ui.runner import run_bot, sync_commands

    if args.command == "run":
        asyncio.run(run_bot(settings))
        return 0
    asyncio.run(sync_commands(settings, args.guild))
    return 0


def _practice(args: argparse.Namespace, settings: Settings) -> int:
    from bot.content import ContentError, load_banks
    from bot.practice import PracticeSession
    from bot.store import Store, make_engine
    from bot.store.preflight import check_database

    try:
        catalog = load_banks(settings.content_dir)
    except ContentError as exc:
        print(exc, file=sys.stderr)
        return 1
    tasks = catalog.select(topic=args.topic)
    if not tasks:
        print(
            f"quizbot: no tasks for topic {args.topic!r}; topics: {catalog.topics()}",
            file=sys.stderr,
        )
        return 1
    check_database(settings.database_url)
    store = Store(make_engine(settings.database_url, synchronous=settings.sqlite_synchronous))

    def read(prompt: str) -> str | None:
        try:
            return input(prompt)
        except EOFError:
            return None

    return PracticeSession(store, tasks, read, sys.stdout).run()


def _db_copy(source: str, target: str) -> int:
    from bot.settings import FIXES
    from bot.store.copy import SOURCE, TARGET, copy_database
    from bot.store.db import check_url

    for setting, url in ((SOURCE, source), (TARGET, target)):
        try:
            check_url(url)
        except ValueError as exc:
            # The URL is not echoed: it may hold a password.
            raise HostError(setting, str(exc), FIXES["DATABASE_URL"]) from None

    def say(line: str) -> None:
        print(line, flush=True)

    copy_database(source, target, say)
    return 0


def _db(command: str, url: str) -> int:
    from bot.store import make_engine
    from bot.store.db import sqlite_file
    from bot.store.migrate import checked_state, upgrade_database
    from bot.store.preflight import check_readable, database_exists
    from bot.store.process_claim import claim_database_file

    file = sqlite_file(url)
    if command == "current":
        if file is not None and not database_exists(file):
            # Looking must not create it.
            print(f"no database at {file} yet (quizbot run or quizbot db upgrade creates it)")
            return 1
        check_readable(url)  # a folder, another kind of file, a server that isn't there
    if command == "current":
        engine = make_engine(url, create=False)
        try:
            state = checked_state(engine)  # a version it cannot trust: one line, as `run` says
        finally:
            engine.dispose()
        print(state.describe())
        return 1 if state.too_new else 0
    # Not under a bot running on the same SQLite file: its code expects the schema it opened.
    claim = claim_database_file(url)
    try:
        engine = make_engine(url, create=False)
        try:
            result = upgrade_database(engine)
        finally:
            engine.dispose()
    finally:
        claim.release()
    if result.created:
        print(f"created a new database at revision {result.after}")
    elif not result.changed:
        print(f"already at revision {result.after} (head); nothing to do")
    else:
        print(f"upgraded from {result.before or 'unversioned (0.1.0)'} to {result.after}")
        print(f"backup: {result.backup}" if result.backup else "no backup (not an SQLite file)")
    return 0
