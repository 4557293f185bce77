"""The schema's lifecycle, with Alembic (`upgrade_database`): an empty database is created
from the models and stamped at the head (a test checks the migrations give the same schema); an
unversioned 0.1.0 one is stamped at the baseline and upgraded; an older revision is upgraded.
Refused, writing nothing: a newer revision (`SchemaTooNewError`), a version it cannot trust
(`VersionTableError`), tables that are not quizbot's (`UnrecognisedSchemaError`).

An SQLite file is backed up beside it first; PostgreSQL is the operator's `pg_dump` (logged).
The upgrade runs in one transaction, so a failed one changes nothing.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Final

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import URL, Connection, Engine, MetaData, inspect
from sqlalchemy.exc import DBAPIError
from sqlmodel import SQLModel

from bot.host_errors import HostError
from bot.store import dialect, faults
from bot.store.db import (
    BUSY_TIMEOUT_MS,
    DEFAULT_SYNCHRONOUS,
    build_engine,
    is_postgres,
    sqlite_file,
    writer,
)
from bot.store.faults import Fault

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).resolve().with_name("migrations")
BASELINE = "0001_baseline"
"""The revision whose schema is quizbot 0.1.0's, the last release without migrations."""
BASELINE_TABLES = frozenset(
    [
        "member",
        "guild_config",
        "post",
        "attempt",
        "reveal",
        "score",
        "board_state",
        "member_total",
        "member_period",
        "schedule",
        "schedule_run",
    ]
)
"""What `create_all` made in 0.1.0: an unversioned database with all of these is one."""
SETTING = "DATABASE_URL"


def target_metadata() -> MetaData:
    """The models' metadata with every table registered (the store's modules import lazily)."""
    from bot.store import departures, learning_tables, schedule_tables, tables  # noqa: F401

    return SQLModel.metadata


def alembic_config(connection: Connection | None = None, url: str | None = None) -> Config:
    """Alembic's configuration, in code (so an installed wheel finds its scripts). `env.py`
    runs on `connection`, else on `url` (writing new revisions against a scratch database)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if url is not None:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    config.attributes["connection"] = connection
    return config


@cache
def _scripts() -> ScriptDirectory:
    return ScriptDirectory.from_config(alembic_config())


def head_revision() -> str:
    head = _scripts().get_current_head()
    assert head is not None, f"no migration scripts in {MIGRATIONS_DIR}"
    return head


@cache
def known_revisions() -> frozenset[str]:
    return frozenset(script.revision for script in _scripts().walk_revisions())


class SchemaError(HostError):
    """A database this quizbot must not open: the host's to fix, printed as one line."""

    def __init__(self, problem: str, remedy: str) -> None:
        super().__init__(SETTING, problem, remedy)


class SchemaTooNewError(SchemaError):
    def __init__(self, url: str, revision: str, head: str, file: Path | None) -> None:
        backup = f" (a {file.name}.backup-<time> file beside it)" if file else ""
        super().__init__(
            f"the database {url} is at schema revision {revision!r}, newer than this quizbot "
            f"knows (its newest is {head!r})",
            "run the newer quizbot that upgraded it, or restore the backup taken before that "
            f"upgrade{backup}",
        )


class UnrecognisedSchemaError(SchemaError):
    def __init__(self, url: str, missing: Collection[str], revision: str | None = None) -> None:
        version = (
            "no schema version"
            if revision is None
            else f"a schema version quizbot never had ({revision!r})"
        )
        super().__init__(
            f"the database {url} has tables but {version}, and lacks quizbot's tables "
            f"{', '.join(sorted(missing))}: it is not a quizbot database",
            "point DATABASE_URL at your quizbot database, or at a new file to start afresh",
        )


class MissingTablesError(SchemaError):
    """At the head, but tables are gone (dropped by hand): Alembic trusts the version, so
    nothing would create them."""

    def __init__(self, url: str, revision: str, missing: Collection[str]) -> None:
        super().__init__(
            f"the database {url} is at quizbot's schema revision {revision!r} but lacks its "
            f"tables {', '.join(sorted(missing))}",
            "restore it from a backup, or point DATABASE_URL at a new file to start afresh",
        )


class VersionTableError(SchemaError):
    """Quizbot's tables, but `alembic_version` does not say which revision (dropped or
    emptied after 0.1.0, several versions, unreadable): upgrading could fail half-way."""

    @classmethod
    def of(cls, conn: Connection, state: SchemaState) -> VersionTableError | None:
        url = _shown(conn)
        if state.doubled:
            problem = (
                f"the database {url} has {len(state.versions)} schema versions "
                f"({', '.join(map(repr, state.versions))}) in its alembic_version table, where "
                "there is one"
            )
            mend = f"DELETE FROM alembic_version WHERE version_num <> '{state.head}'"
        elif state.lost:
            problem = (
                f"the database {url} has quizbot's tables but no schema version (its "
                "alembic_version table was dropped or emptied)"
            )
            mend = (
                "CREATE TABLE IF NOT EXISTS alembic_version (version_num VARCHAR(32) NOT NULL "
                f"PRIMARY KEY); DELETE FROM alembic_version; INSERT INTO alembic_version "
                f"VALUES ('{state.head}')"
            )
        else:
            return None
        restore = "restore the database from a backup"
        if _is_head_schema(conn):
            return cls(
                problem,
                f"its tables are this quizbot's schema {state.head}: with the bot stopped, "
                f"record that version with the SQL `{mend}`; or {restore}",
            )
        return cls(
            problem,
            f"its tables are not this quizbot's schema {state.head}, so which upgrades it had "
            f"is unknown: {restore}",
        )


def _is_head_schema(conn: Connection) -> bool:
    with conn.begin_nested():  # PostgreSQL: an error inside would end the whole transaction
        return not compare_metadata(MigrationContext.configure(conn), target_metadata())


def _shown(conn: Connection) -> str:
    return conn.engine.url.render_as_string(hide_password=True)


NOT_PERMITTED: Final = Fault(
    "the database role may not create or change tables",
    "make the role the database's owner (createdb -O <role>), or GRANT CREATE ON SCHEMA "
    "public TO <role>",
)
INSUFFICIENT_PRIVILEGE: Final = "42501"  # PostgreSQL 15+: only the owner creates in `public`


class UpgradeRefusedError(SchemaError):
    """The database refused the upgrade (locked, full disk, read-only, no CREATE right);
    rolled back whole."""

    def __init__(self, url: str, what: str, detail: str, fix: str) -> None:
        super().__init__(
            f"the schema of the database {url} could not be created or upgraded, and nothing "
            f"was changed: {what} ({detail})",
            fix,
        )

    @classmethod
    def of(cls, url: URL, error: BaseException) -> UpgradeRefusedError | None:
        """The host's line for `error`; None if it is no fault of the database (a bug)."""
        name, driver = faults.error_name(error)
        if getattr(driver, "sqlstate", None) == INSUFFICIENT_PRIVILEGE:
            fault: Fault | None = NOT_PERMITTED
        else:
            fault = faults.classify(error)
        if fault is None:
            return None
        fix = fault.fix
        if fault.busy:  # "it passes by itself" is true of a member's click, not of a start
            fix = (
                "another process holds the database (another quizbot upgrading it, or an "
                "sqlite3 shell or backup inside a transaction): let it finish or stop it, "
                "then start again"
            )
        # The first line only: PostgreSQL's next ones quote the statement.
        reason = (str(driver).strip().splitlines() or [""])[0]
        return cls(url.render_as_string(hide_password=True), fault.what, f"{name}: {reason}", fix)


@dataclass(frozen=True, slots=True)
class SchemaState:
    revision: str | None
    """None: no version (empty, or 0.1.0), or several (`doubled`)."""
    head: str
    tables: frozenset[str]
    versions: tuple[str, ...] = ()  # every row of `alembic_version`

    @property
    def empty(self) -> bool:
        return self.revision is None and not self.tables and not self.versions

    @property
    def doubled(self) -> bool:
        return len(set(self.versions)) > 1

    @property
    def missing(self) -> frozenset[str]:
        """0.1.0's tables lacking when that makes the database someone else's: unversioned
        and lacking any, or at a foreign version and lacking all (a newer quizbot may drop
        a table, never all)."""
        if self.doubled or self.empty or self.revision in known_revisions():
            return frozenset()
        missing = BASELINE_TABLES - self.tables
        if self.revision is not None and missing != BASELINE_TABLES:
            return frozenset()
        return missing

    @property
    def gutted(self) -> frozenset[str]:
        """The tables a database at the head lacks (`MissingTablesError`)."""
        return _model_tables() - self.tables if self.is_head else frozenset()

    @property
    def lost(self) -> bool:
        """Unversioned, with tables that came after 0.1.0: its version was dropped."""
        return (
            self.revision is None
            and not self.doubled
            and not self.missing
            and bool(self.tables & (_model_tables() - BASELINE_TABLES))
        )

    @property
    def is_head(self) -> bool:
        return self.revision == self.head

    @property
    def too_new(self) -> bool:
        return self.revision not in (None, *known_revisions()) and not self.missing

    def describe(self) -> str:
        """One line for `quizbot db current`."""
        if self.empty:
            return f"empty (no tables yet; quizbot creates it at {self.head})"
        if self.doubled:
            return f"several versions ({', '.join(self.versions)}): which is unknown"
        if self.missing:
            return "not a quizbot database (it lacks quizbot's tables)"
        if self.lost:
            return "quizbot's tables without their schema version (alembic_version dropped)"
        if self.revision is None:
            return f"unversioned (a quizbot 0.1.0 database); head is {self.head}"
        if self.gutted:
            return f"{self.revision} (head) but without its tables {', '.join(sorted(self.gutted))}"
        if self.is_head:
            return f"{self.revision} (head)"
        if self.too_new:
            return f"{self.revision} (newer than this quizbot knows; its newest is {self.head})"
        return f"{self.revision} (behind head {self.head}; run `quizbot db upgrade`)"


def _model_tables() -> frozenset[str]:
    return frozenset(target_metadata().tables)


def read_state(conn: Connection) -> SchemaState:
    context = MigrationContext.configure(conn)
    tables = frozenset(inspect(conn).get_table_names()) - {context.version_table}
    try:
        with conn.begin_nested():  # PostgreSQL: an error would end the whole transaction
            versions = tuple(str(v) for v in context.get_current_heads())
    except DBAPIError as exc:
        if faults.classify(exc) is not None:
            raise  # the database's fault (locked, damaged): reported as such
        # A table of that name made by hand, without a version_num column.
        raise VersionTableError(
            f"the database {_shown(conn)} has an alembic_version table quizbot cannot read "
            f"({faults.one_line(exc)})",
            "restore the database from a backup, or drop that table if it is not quizbot's",
        ) from None
    revision = versions[0] if len(set(versions)) == 1 else None
    return SchemaState(revision, head_revision(), tables, versions)


def problem(conn: Connection, state: SchemaState) -> SchemaError | None:
    """Why the database must not be opened or upgraded, if it must not."""
    if state.missing:
        return UnrecognisedSchemaError(_shown(conn), state.missing, state.revision)
    if state.gutted:
        assert state.revision is not None
        return MissingTablesError(_shown(conn), state.revision, state.gutted)
    return VersionTableError.of(conn, state)


def current_state(engine: Engine) -> SchemaState:
    with engine.connect() as conn, conn.begin():
        return read_state(conn)


def checked_state(engine: Engine) -> SchemaState:
    """`current_state`, raising the SchemaError `problem` finds (`quizbot db current`)."""
    with engine.connect() as conn, conn.begin():
        state = read_state(conn)
        found = problem(conn, state)
        if found is not None:
            raise found
        return state


def not_current(engine: Engine) -> str | None:
    """The host's one line when the database is not at the head (a host command never
    upgrades it behind their back); None when it is. SchemaError as `checked_state`."""
    state = checked_state(engine)
    if state.is_head:
        return None
    return f"quizbot: the database is {state.describe()}; run quizbot db upgrade"


@dataclass(frozen=True, slots=True)
class UpgradeResult:
    before: str | None  # None: a new or a 0.1.0 database
    after: str
    created: bool  # it was empty: created at the head
    backup: Path | None = None

    @property
    def changed(self) -> bool:
        return self.created or self.before != self.after


def upgrade_database(engine: Engine, *, backup: bool = True) -> UpgradeResult:
    """Bring the database to the head (see the module docstring); with `backup`, an SQLite
    file with data is copied first. Raises a SchemaError, having changed nothing."""
    try:
        return _upgrade(engine, backup=backup)
    except (DBAPIError, sqlite3.Error) as exc:
        refused = UpgradeRefusedError.of(engine.url, exc)
        if refused is None:
            raise  # not the database's fault: a bug in a migration
        raise refused from exc


def _upgrade(engine: Engine, *, backup: bool) -> UpgradeResult:
    # A read first: a database already at the head (every start but the first after an
    # upgrade) takes no write lock, and a read-only database still opens.
    state = current_state(engine)
    if not state.too_new and state.is_head and not state.gutted:
        return UpgradeResult(state.revision, state.head, created=False)
    url = engine.url.render_as_string(hide_password=True)
    # The write lock (on PostgreSQL, the advisory one) is held from the re-check to the
    # commit: two processes starting together upgrade once.
    with writer(engine).begin() as conn:
        dialect.lock(conn, "schema", ["upgrade"])
        state = read_state(conn)
        file = sqlite_file(engine.url)
        if state.too_new:
            assert state.revision is not None
            raise SchemaTooNewError(url, state.revision, state.head, file)
        if state.is_head and not state.gutted:
            return UpgradeResult(state.revision, state.head, created=False)
        if state.empty:
            target_metadata().create_all(conn)
            MigrationContext.configure(conn).stamp(_scripts(), "head")
            return UpgradeResult(None, state.head, created=True)
        found = problem(conn, state)
        if found is not None:
            raise found
        dialect.lift_statement_timeout(conn)  # upgrading a large database may take long
        saved = None
        if backup and file is not None:  # the committed file, as it is about to be upgraded
            saved = backup_sqlite(file)
        config = alembic_config(conn)
        if state.revision is None:
            command.stamp(config, BASELINE)
        command.upgrade(config, "head")
    before = state.revision or f"unversioned 0.1.0 ({BASELINE})"
    if saved is not None:
        log.info(
            "upgraded the database schema from %s to %s; the backup is %s",
            before,
            state.head,
            saved,
        )
    elif is_postgres(engine.url):
        log.warning(
            "upgraded the database schema from %s to %s; quizbot does not copy a PostgreSQL "
            "database: back it up with pg_dump before upgrading",
            before,
            state.head,
        )
    else:
        log.warning(
            "upgraded the database schema from %s to %s without a backup", before, state.head
        )
    return UpgradeResult(state.revision, state.head, created=False, backup=saved)


def backup_sqlite(path: Path, now: datetime | None = None) -> Path:
    """A consistent copy of `path` beside it (`quizbot.db.backup-20261201T140512Z`), made
    with SQLite's online backup API while other connections keep working."""
    stamp = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.backup-{stamp}")
    n = 1
    while target.exists():  # two upgrades within a second (tests, a crash loop)
        n += 1
        target = path.with_name(f"{path.name}.backup-{stamp}-{n}")
    with (
        contextlib.closing(sqlite3.connect(path)) as source,
        contextlib.closing(sqlite3.connect(target)) as copy,
    ):
        source.backup(copy)
        dialect.leave_wal_mode(copy)  # one file: restoring it is a plain copy
    return target


def make_engine(
    url: str,
    *,
    create: bool = True,
    synchronous: str = DEFAULT_SYNCHRONOUS,
    busy_timeout_ms: int = BUSY_TIMEOUT_MS,
) -> Engine:
    """The application's one engine (`db.build_engine`); with `create`, the schema brought to
    the current revision first."""
    engine = build_engine(url, synchronous=synchronous, busy_timeout_ms=busy_timeout_ms)
    if create:
        try:
            upgrade_database(engine)
        except BaseException:
            engine.dispose()
            raise
    return engine
