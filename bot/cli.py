"""The `quizbot` command line (also `python -m bot`)."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import textwrap
from collections.abc import Sequence
from datetime import date, timedelta
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

# Only what every command needs: a command's own modules (the store, discord.py, the content
# loaders) are imported by that command, so `--help` or `content check` loads no SQL library.
from bot.files import OUTPUT_HELP
from bot.host_errors import HostError
from bot.quiz.errors import StoreError
from bot.results_export import FIELDS
from bot.settings import Settings, load_settings
from bot.terminal_progress import ProgressLine

Subparsers = Any  # argparse's subparsers action has no public type

PRACTICE_DB_HELP = "$XDG_DATA_HOME/quizbot/practice.db, else ~/.local/share/quizbot/practice.db"


def default_database() -> Path:
    """`quizbot practice`'s database: the user's own data folder (XDG), so practising leaves the
    bot's leaderboard alone and progress carries over between sessions."""
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "quizbot" / "practice.db"


def output_path(text: str) -> Path:
    """An --output path as typed: pathlib drops a trailing slash, which would turn "a folder
    that does not exist yet" into a file of that name."""
    if text.endswith(("/", os.sep)):
        raise argparse.ArgumentTypeError(f"{text!r} names a folder: give a file's path")
    return Path(text)


def _version() -> str:
    try:
        return version("quizbot")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def _command(
    sub: Subparsers, name: str, summary: str, description: str, examples: str
) -> argparse.ArgumentParser:
    """A subcommand whose --help says what it does and shows how to call it."""
    return sub.add_parser(
        name,
        help=summary,
        description=_filled(description),
        epilog=f"examples:\n{textwrap.indent(examples.strip(), '  ')}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def _filled(text: str, width: int = 79) -> str:
    """Paragraphs wrapped to `width`; a paragraph of indented lines (a table) kept as written,
    as the raw formatter keeps every line (it is what lets the examples stay one per line)."""
    return "\n\n".join(
        part if part.startswith("  ") or "\n  " in part else textwrap.fill(part, width)
        for part in text.split("\n\n")
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="quizbot",
        description=_filled(
            "A Discord tutor bot for study groups: tasks, hints, daily quizzes and a "
            "leaderboard. Settings come from the environment or a .env file in the current folder "
            "(see .env.example)."
        ),
        epilog="quick start:\n  cp .env.example .env   # then put the bot token after "
        "DISCORD_TOKEN=\n  quizbot run\n\n`quizbot COMMAND --help` shows a command's options "
        "and examples.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"quizbot {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    _command(
        sub,
        "run",
        "start the bot and serve until stopped",
        "Start the bot: load the task banks, open (or create, or upgrade) the database, register "
        "the slash commands with Discord when they differ from Discord's, log in and serve until "
        "SIGTERM or Ctrl-C. Once connected it logs the URL that invites the bot to a server.\n\n"
        "Settings, from the environment or a .env file in the current folder:\n"
        "  DISCORD_TOKEN  the bot's token (required; Developer Portal, Bot, Reset Token)\n"
        "  DATABASE_URL   default sqlite:///data/quizbot.db (or a PostgreSQL URL)\n"
        "  CONTENT_DIR    the task banks, default content/\n"
        "Every setting: .env.example and docs/hosting.md.",
        "cp .env.example .env && quizbot run\n"
        "DATABASE_URL=postgresql+psycopg://quizbot:PASSWORD@localhost/quizbot quizbot run",
    )

    sync = _command(
        sub,
        "sync",
        "register the slash commands with Discord now",
        "Register the slash commands over HTTP and exit. `quizbot run` already registers them "
        "globally when they change; --guild registers them in one server only, at once: for "
        "trying out changed commands. Needs DISCORD_TOKEN.",
        "quizbot sync --guild 800000000000000001\nquizbot sync",
    )
    sync.add_argument(
        "--guild", type=_discord_id, help="sync to one server only (instant, for testing)"
    )

    _command(
        sub,
        "health",
        "exit 0 if the running bot is healthy (for health checks)",
        "Exit 0 only when the database answers and the running bot's gateway is connected (read "
        "from the status file `quizbot run` keeps: HEALTH_FILE, default in the temp folder). "
        "Otherwise print one line saying why and exit 1. Asks nothing of Discord.",
        "quizbot health && echo healthy\n"
        'healthcheck: test: ["CMD", "quizbot", "health"]   # compose.yaml',
    )

    content = _command(
        sub,
        "content",
        "check, list, import or export the task banks",
        "Work with the YAML task banks (CONTENT_DIR, default content/).",
        "quizbot content check\nquizbot content list --json > tasks.json",
    )
    content.set_defaults(group=content)
    content_sub = content.add_subparsers(dest="content_command", metavar="ACTION")
    check = _command(
        content_sub,
        "check",
        "validate banks; exit 1 on any problem",
        "Load and validate every bank, print each problem with its file and line, and exit 1 "
        "if there is any.",
        "quizbot content check\nquizbot content check content/python/python-basics.yaml",
    )
    check.add_argument(
        "path",
        nargs="?",
        type=Path,
        help="a bank file or folder (default: CONTENT_DIR, else content/)",
    )
    listing = _command(
        content_sub,
        "list",
        "print every task",
        "Print every task of the banks, one a line: its id, kind, difficulty, topic and the "
        "start of its text; --json for the stable JSON export of the whole tasks.",
        "quizbot content list\nquizbot content list content/sql --json",
    )
    listing.add_argument("path", nargs="?", type=Path, help="a bank file or folder")
    listing.add_argument("--json", action="store_true", help="the stable JSON export")
    importing = _command(
        content_sub,
        "import",
        "turn a GIFT, Moodle XML, Aiken or practice-page file into a bank",
        "Convert questions exported from Moodle (GIFT, Moodle XML), an Aiken file or a practice "
        "page into a YAML bank, and say what could not be converted.",
        "quizbot content import questions.gift --topic Python --output content/python/quiz.yaml",
    )
    importing.add_argument("source", type=Path, help="the file to import")
    importing.add_argument(
        "--format", choices=["gift", "moodle-xml", "aiken", "page"], help="default: detected"
    )
    importing.add_argument("--topic", help="the bank's topic (default: from the source)")
    importing.add_argument(
        "--output", type=output_path, help=f"the bank file to write {OUTPUT_HELP}"
    )
    exporting = _command(
        content_sub,
        "export",
        "write banks as GIFT or Moodle XML",
        "Write the banks' tasks as GIFT or Moodle XML, to import into Moodle.",
        "quizbot content export content/sql --format moodle-xml --output sql.xml",
    )
    exporting.add_argument("path", nargs="?", type=Path, help="a bank file or folder")
    exporting.add_argument("--format", choices=["gift", "moodle-xml"], required=True)
    exporting.add_argument("--output", type=output_path, help=f"the file to write {OUTPUT_HELP}")

    practice = _command(
        sub,
        "practice",
        "play the banks in the terminal, no Discord needed",
        "Practise the banks' tasks in the terminal, as the bot would ask them. Progress goes to "
        f"a database of its own ({PRACTICE_DB_HELP}), never the bot's, unless --db says "
        "otherwise; a task scores once, so one solved in an earlier session scores +0.",
        "quizbot practice --topic Python\nquizbot practice --db /tmp/practice.db",
    )
    practice.add_argument("--topic", help="only tasks of this topic")
    practice.add_argument(
        "--db",
        help=f"SQLite file, or a database URL, to record to (default: {PRACTICE_DB_HELP})",
    )
    practice.add_argument("--content", type=Path, help="bank file or folder (default: CONTENT_DIR)")

    export = _command(
        sub,
        "export",
        "export what members did, for grading elsewhere",
        "Export what members did in a server, from the bot's database (DATABASE_URL).",
        "quizbot export results --guild 800000000000000001 --output results.csv",
    )
    export.set_defaults(group=export)
    export_sub = export.add_subparsers(dest="export_command", metavar="WHAT")
    results = _command(
        export_sub,
        "results",
        "one row per member and task, as CSV or JSON",
        "One row per member and task posted in the server (DATABASE_URL), with the columns "
        f"{', '.join(FIELDS)} (and the member's display name after member_id with --names). "
        "Ids are kept as text; CSV opens in a spreadsheet as is.",
        "quizbot export results --guild 800000000000000001 --output results.csv\n"
        "quizbot export results --guild 800000000000000001 --since 2026-09-01 --format json",
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
    items = _command(
        export_sub,
        "items",
        "one row per task with its item analysis, as CSV or JSON",
        "One row per task answered on a public post in the server (DATABASE_URL): facility "
        "with its 95% interval, discrimination, each option's first picks and the flags "
        "(docs/moderators.md). /practice and /review attempts do not count.",
        "quizbot export items --guild 800000000000000001 --format json\n"
        "quizbot export items --guild 800000000000000001 --threshold too_easy=0.95",
    )
    items.add_argument("--guild", type=_discord_id, required=True, help="the server's id")
    items.add_argument("--since", type=_export_since, help="only attempts from this date on")
    items.add_argument("--format", choices=["csv", "json"], default="csv")
    items.add_argument(
        "--threshold",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="change a flag's threshold (bot/reports/items.py Thresholds), e.g. too_easy=0.95",
    )
    items.add_argument("--output", type=output_path, help=f"the file to write {OUTPUT_HELP}")

    db = _command(
        sub,
        "db",
        "the database schema (DATABASE_URL)",
        "See or upgrade the database's schema, or copy a whole deployment to another database.",
        "quizbot db current\nquizbot db upgrade",
    )
    db.set_defaults(group=db)
    db_sub = db.add_subparsers(dest="db_command", metavar="ACTION")
    _command(
        db_sub,
        "current",
        "show the schema revision and whether it is the newest",
        "Show the database's schema revision and whether this quizbot has a newer one; exit 1 "
        "if there is no database or it is newer than this quizbot. Creates and writes nothing.",
        "quizbot db current\nDATABASE_URL=sqlite:///backup.db quizbot db current",
    )
    _command(
        db_sub,
        "upgrade",
        "upgrade the schema to this quizbot's (an SQLite file is backed up first)",
        "Upgrade the database's schema to this quizbot's (`quizbot run` does it too). An SQLite "
        "file is backed up beside it first. Not while a bot runs on the same file.",
        "quizbot db upgrade",
    )
    copy = _command(
        db_sub,
        "copy",
        "copy a whole deployment into an empty database (e.g. SQLite to PostgreSQL), "
        "then verify row counts and leaderboard totals",
        "Copy every table of SRC_URL into the empty database DST_URL, then check that row counts "
        "and leaderboard totals match. Stop the bot first.",
        "quizbot db copy sqlite:///data/quizbot.db "
        "postgresql+psycopg://quizbot:PASSWORD@localhost/quizbot",
    )
    copy.add_argument("source", metavar="SRC_URL", help="e.g. sqlite:///data/quizbot.db")
    copy.add_argument(
        "target", metavar="DST_URL", help="an empty database, e.g. postgresql+psycopg://…"
    )

    forget = _command(
        sub,
        "forget",
        "delete a member's data in a server, or a whole server's (DATABASE_URL)",
        "Delete everything the bot keeps about one member in one server (--member), or about a "
        "whole server, in one step, and print what was deleted. Their points leave the "
        "leaderboard at once. docs/privacy.md lists what is kept.",
        "quizbot forget --guild 800000000000000001 --member 800000000000000002\n"
        "quizbot forget --guild 800000000000000001",
    )
    forget.add_argument("--guild", type=_discord_id, required=True, help="the server's id")
    forget.add_argument("--member", type=_discord_id, help="the member's id (default: everyone)")
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
    parser = build_parser()
    args = parser.parse_args(argv)
    unchosen = _unchosen(parser, args)
    if unchosen is not None:  # `quizbot`, `quizbot db`: a request for help
        unchosen.print_help()
        return 0
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


def _unchosen(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> argparse.ArgumentParser | None:
    """The parser whose command was left out (the top one, or a group's), if any."""
    if args.command is None:
        return parser
    group: argparse.ArgumentParser | None = getattr(args, "group", None)
    if group is not None and getattr(args, f"{args.command}_command") is None:
        return group
    return None


def _setting_overrides(args: argparse.Namespace) -> dict[str, str]:
    """A path given on the command line takes the place of its setting for this run (and is
    checked like it), so checking some other folder works wherever CONTENT_DIR points."""
    overrides = {}
    content = getattr(args, "path", None) or getattr(args, "content", None)
    if content:
        overrides["CONTENT_DIR"] = str(content)
    if args.command == "practice":
        overrides["DATABASE_URL"] = _practice_database(args.db)
    return overrides


def _practice_database(db: str | None) -> str:
    """`--db`: a URL ("scheme://…") as given, checked like DATABASE_URL; else an SQLite file.
    A URL read as a path became a folder named after it (`./postgresql+psycopg:/…`). Without
    it, practice's own file: never the bot's database (DATABASE_URL)."""
    if db is None:
        return f"sqlite:///{default_database()}"
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
                with ProgressLine(f"checking {path}", sys.stderr) as line:
                    return check_command(path, line.guard(sys.stdout))
            case "import":
                with ProgressLine(f"importing {args.source}", sys.stderr) as line:
                    return import_command(
                        args.source,
                        fmt=args.format,
                        topic=args.topic,
                        output=args.output,
                        out=line.guard(sys.stdout),
                        err=line.guard(sys.stderr),
                    )
            case "export":
                with ProgressLine(f"exporting {path}", sys.stderr) as line:
                    return export_command(
                        path,
                        fmt=args.format,
                        output=args.output,
                        out=line.guard(sys.stdout),
                        err=line.guard(sys.stderr),
                    )
        return list_command(path, args.json, sys.stdout, sys.stderr)
    if args.command == "practice":
        return _practice(args, settings)
    if args.command == "export" and args.export_command == "items":
        from bot.items_export import export_items, thresholds_of

        if (thresholds := thresholds_of(args.threshold, sys.stderr)) is None:
            return 2
        return export_items(
            settings.database_url,
            args.guild,
            since=args.since,
            fmt=args.format,
            output=args.output,
            out=sys.stdout,
            err=sys.stderr,
            default_zone=settings.zone,
            thresholds=thresholds,
        )
    if args.command == "export":
        from bot.results_export import export_results

        with ProgressLine(f"exporting the results of server {args.guild}", sys.stderr) as line:
            return export_results(
                settings.database_url,
                args.guild,
                since=args.since,
                fmt=args.format,
                names=args.names,
                output=args.output,
                out=line.guard(sys.stdout),
                err=line.guard(sys.stderr),
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

    if args.command == "health":
        return _health(settings)
    if args.command == "forget":
        from bot.forget import forget_command

        return forget_command(
            settings.database_url, args.guild, args.member, out=sys.stdout, err=sys.stderr
        )

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


def _health(settings: Settings) -> int:
    from bot.health import check_health

    problem = check_health(settings.database_url, settings.health_status_path)
    if problem is not None:
        print(f"quizbot: unhealthy: {problem}", file=sys.stderr)
        return 1
    print("healthy: the database answers and the gateway is connected")
    return 0


def _practice(args: argparse.Namespace, settings: Settings) -> int:
    from bot.content import ContentError, load_banks
    from bot.practice import PracticeSession
    from bot.store import Store, make_engine
    from bot.store.db import sqlite_file
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

    file = sqlite_file(settings.database_url)  # a server's URL is not shown: it may hold a password
    return PracticeSession(store, tasks, read, sys.stdout).run(str(file) if file else None)


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

    with ProgressLine("copying the database", sys.stderr) as progress:
        out = progress.guard(sys.stdout)

        def say(line: str) -> None:
            print(line, file=out, flush=True)
            progress.step(line)

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
