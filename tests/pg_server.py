"""A throwaway PostgreSQL server for the tests (a pytest plugin, registered in tests/conftest.py).

The `postgresql` tier of the store, service and e2e tests runs against a real server. Once per
session (so once per pytest-xdist worker, each on its own port and folder), the first test
that asks for one (`pg_server`) makes a cluster in a temporary folder with `initdb`, starts it
with `pg_ctl` listening on 127.0.0.1 only, on a free port (its unix socket in the folder),
trusting local connections (it holds nothing but test data), with fsync off, and migrates a
template database; each test then gets its own copy of that template
(`PgServer.new_database`), dropped when the test ends. At the session's end (also after a
failure or Ctrl-C) the server is stopped and the folder deleted.

The benchmarks use the same cluster, durable (fsync on, as in production):
`with throwaway_server(durable=True) as server: ...`.

`initdb` refuses to run as root: as root, the cluster belongs to the `postgres` system user
(Debian's package creates it) and the binaries run as that user (`runuser`).

Where to find the binaries: `initdb`/`pg_ctl` on PATH, else Debian's /usr/lib/postgresql/*/bin
(the newest). Without them the tests skip, saying how to enable them; under `CI=true` they
fail instead, since CI must run the tier. QUIZBOT_TEST_POSTGRES_URL (e.g.
`postgresql+psycopg://user:pw@host:5432/postgres`, a role that may create databases) uses an
existing server instead of starting one.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import pytest
from sqlalchemy import create_engine, make_url, text
from sqlalchemy.engine import URL
from sqlalchemy.pool import NullPool

URL_SETTING: Final = "QUIZBOT_TEST_POSTGRES_URL"
HOW_TO_ENABLE: Final = (
    "PostgreSQL tests need a server: install Debian's postgresql-15 package (or put initdb and "
    f"pg_ctl on PATH), or set {URL_SETTING} to a server's URL (a role that may create databases)"
)
TEMPLATE: Final = "quizbot_template"
SYSTEM_USER: Final = "postgres"
"""The user a root test run starts the cluster as (initdb refuses root)."""


def find_binaries() -> Path | None:
    """The folder holding initdb and pg_ctl: PATH first, then Debian's newest version."""
    on_path = shutil.which("initdb")
    if on_path and shutil.which("pg_ctl"):
        return Path(on_path).resolve().parent
    debian = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
    )
    for folder in reversed(debian):
        if (folder / "initdb").exists() and (folder / "pg_ctl").exists():
            return folder
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PgServer:
    """A running server: the admin URL, and (when the tests started it) how to stop it."""

    admin_url: URL
    """A URL of the `postgres` database, as a role that may create databases."""
    bin_dir: Path | None = None
    data_dir: Path | None = None
    run_as: Sequence[str] = ()
    _names: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def url(self, database: str) -> str:
        return self.admin_url.set(database=database).render_as_string(hide_password=False)

    def admin(self, *statements: str) -> None:
        """Run statements outside a transaction (CREATE/DROP DATABASE) on `postgres`."""
        engine = create_engine(self.admin_url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
        try:
            with engine.connect() as conn:
                for statement in statements:
                    conn.execute(text(statement))
        finally:
            engine.dispose()

    def make_template(self) -> None:
        """The template every test database copies: migrated to the head, like a new store."""
        from bot.store.migrate import make_engine

        self.admin(f"DROP DATABASE IF EXISTS {TEMPLATE}", f"CREATE DATABASE {TEMPLATE}")
        make_engine(self.url(TEMPLATE)).dispose()

    def new_database(self, *, empty: bool = False) -> str:
        """A fresh database's URL: a copy of the migrated template, or `empty` (no tables)."""
        with self._lock:
            name = f"quizbot_test_{os.getpid()}_{next(self._names)}"
        source = "template0" if empty else TEMPLATE
        self.admin(f"CREATE DATABASE {name} TEMPLATE {source} STRATEGY FILE_COPY")
        return self.url(name)

    def drop_database(self, url: str) -> None:
        name = make_url(url).database
        self.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def allow_connections(self, url: str, allowed: bool) -> None:
        """Refuse (or accept again) new connections to a database: what a bot sees while its
        server restarts."""
        name = make_url(url).database
        self.admin(f"ALTER DATABASE {name} ALLOW_CONNECTIONS {str(allowed).lower()}")

    # -- the server the tests started ------------------------------------------------------

    def pg_ctl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run pg_ctl; with `check`, a failure raises RuntimeError with what pg_ctl and the
        server's log said (a test that restarts the server then shows why it did not start)."""
        assert self.bin_dir is not None and self.data_dir is not None
        command = [*self.run_as, str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), *args]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        if check and done.returncode != 0:
            said = " ".join(f"{done.stdout}{done.stderr}".split())
            raise RuntimeError(
                f"pg_ctl {' '.join(args)} failed ({done.returncode}): {said}\n"
                f"the server's log ends:\n{self.log_tail()}"
            )
        return done

    def log_tail(self, lines: int = 20) -> str:
        if self.data_dir is None:
            return ""
        with contextlib.suppress(OSError):
            written = (self.data_dir.parent / "server.log").read_text(errors="replace")
            return "\n".join(written.splitlines()[-lines:])
        return ""

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (`pg_ctl stop -m mode`): the tests of connection faults do this."""
        self.pg_ctl("stop", "-m", mode, "-w")

    def start(self) -> None:
        log = self.data_dir.parent / "server.log" if self.data_dir else None
        self.pg_ctl("start", "-w", "-t", "60", "-l", str(log))

    def postmaster_pid(self) -> int | None:
        """The running server's main process (the benchmarks measure its CPU)."""
        if self.data_dir is None:
            return None
        with contextlib.suppress(OSError, ValueError, IndexError):
            return int((self.data_dir / "postmaster.pid").read_text().split()[0])
        return None


DURABLE: Final = {"fsync": "on", "synchronous_commit": "on", "full_page_writes": "on"}
"""What a production server runs with: a commit is on disk before it returns."""
FAST: Final = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}
"""The tests' default: nothing survives a crash of the machine, and nothing needs to."""


def start_server(
    bin_dir: Path, *, durable: bool = False, settings: Mapping[str, str] | None = None
) -> PgServer:
    """initdb and start a cluster in a new temporary folder; see the module docstring.

    `durable`: fsync, synchronous_commit and full_page_writes on, as in production (the
    benchmarks measure this); off by default, for the tests' speed. `settings`: more
    postgresql.conf lines (name: value), e.g. a benchmark's shared_buffers."""
    root = Path(tempfile.mkdtemp(prefix="quizbot-pg-"))
    run_as: list[str] = []
    user = None
    if os.geteuid() == 0:
        try:
            account = pwd.getpwnam(SYSTEM_USER)
        except KeyError:
            shutil.rmtree(root, ignore_errors=True)
            raise RuntimeError(
                f"running as root, and initdb refuses root: create the {SYSTEM_USER!r} system "
                "user (Debian's postgresql package does)"
            ) from None
        os.chown(root, account.pw_uid, account.pw_gid)
        run_as = ["runuser", "-u", SYSTEM_USER, "--"]
        user = SYSTEM_USER
    data = root / "data"
    port = _free_port()
    server = PgServer(
        URL.create(
            "postgresql+psycopg",
            username=user or pwd.getpwuid(os.geteuid()).pw_name,
            host="127.0.0.1",
            port=port,
            database="postgres",
        ),
        bin_dir=bin_dir,
        data_dir=data,
        run_as=run_as,
    )
    try:
        subprocess.run(
            [
                *run_as,
                str(bin_dir / "initdb"),
                "-D",
                str(data),
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C",
                "--no-sync",
                "-U",
                server.admin_url.username or "",
            ],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        conf_lines = {
            "listen_addresses": "'127.0.0.1'",
            "port": str(port),
            "unix_socket_directories": f"'{root}'",
            **(DURABLE if durable else FAST),
            "max_connections": "300",
            "shared_buffers": "64MB",
            **(settings or {}),
        }
        with (data / "postgresql.conf").open("a") as conf:
            conf.writelines(f"{key} = {value}\n" for key, value in conf_lines.items())
        _start_on_a_free_port(server)
        server.make_template()
    except BaseException:
        stop_server(server, root)
        raise
    return server


def _start_on_a_free_port(server: PgServer, tries: int = 3) -> None:
    """Start the server; if another process (a parallel test worker's server) took its port
    after `_free_port` found it free, move to another free port and try again."""
    assert server.data_dir is not None
    for attempt in range(tries):
        try:
            server.start()
            return
        except RuntimeError as exc:
            if attempt == tries - 1 or "already in use" not in str(exc):
                raise
        port = _free_port()
        with (server.data_dir / "postgresql.conf").open("a") as conf:
            conf.write(f"port = {port}\n")  # the last line wins
        server.admin_url = server.admin_url.set(port=port)


def stop_server(server: PgServer, root: Path) -> None:
    with contextlib.suppress(Exception):
        server.pg_ctl("stop", "-m", "immediate", "-w", check=False)
    shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def throwaway_server(
    bin_dir: Path | None = None,
    *,
    durable: bool = False,
    settings: Mapping[str, str] | None = None,
) -> Iterator[PgServer]:
    """A started cluster (`start_server`), stopped and deleted afterwards, also if the
    process ends without unwinding. RuntimeError if there are no binaries (`find_binaries`)."""
    bin_dir = bin_dir or find_binaries()
    if bin_dir is None:
        raise RuntimeError(f"no initdb/pg_ctl found. {HOW_TO_ENABLE}")
    server = start_server(bin_dir, durable=durable, settings=settings)
    assert server.data_dir is not None
    root = server.data_dir.parent
    atexit.register(stop_server, server, root)
    try:
        yield server
    finally:
        stop_server(server, root)
        atexit.unregister(stop_server)


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI must run the PostgreSQL tests: {reason}", pytrace=False)
    pytest.skip(f"{reason}. {HOW_TO_ENABLE}")


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """The session's PostgreSQL server (started on first use; see the module docstring)."""
    existing = os.environ.get(URL_SETTING)
    if existing:
        server = PgServer(make_url(existing).set(drivername="postgresql+psycopg"))
        server.make_template()
        yield server
        with contextlib.suppress(Exception):
            server.admin(f"DROP DATABASE IF EXISTS {TEMPLATE} WITH (FORCE)")
        return
    bin_dir = find_binaries()
    if bin_dir is None:
        _unavailable("no initdb/pg_ctl found (PATH, /usr/lib/postgresql/*/bin)")
        return
    # Stopped also if the session ends without tearing down (an error in pytest itself).
    with contextlib.ExitStack() as stack:
        try:
            server = stack.enter_context(throwaway_server(bin_dir))
        except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
            detail = getattr(exc, "stderr", None) or exc
            _unavailable(f"could not start a PostgreSQL server: {detail}")
            return
        yield server


@pytest.fixture
def pg_url(pg_server: PgServer) -> Iterator[str]:
    """A fresh database on the session's server, dropped after the test."""
    url = pg_server.new_database()
    yield url
    pg_server.drop_database(url)
