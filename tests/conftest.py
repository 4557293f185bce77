"""Fixtures for every test: the database engines the store and service tests run on.

A test that asks for `database_url` (or a fixture built on it, such as tests/store's `store`)
runs twice: `[sqlite]` on an in-memory SQLite database and `[postgresql]` on a fresh database
of a real PostgreSQL server that the tests start themselves (tests/pg_server.py). So
`pytest -k postgresql` runs the PostgreSQL tier alone, `pytest -k sqlite` the other. Tests that
are about SQLite itself (its file, WAL, locks, a full disk, backups) ask for SQLite directly.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

# CI draws the same examples every run: a property test that passes once keeps passing there,
# and a new failing case is found on a developer's machine (random draws, remembered in
# .hypothesis/), where it becomes an @example.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("CI") == "true":
    settings.load_profile("ci")

if TYPE_CHECKING:  # imported by pytest as a plugin, below: not before (assertion rewriting)
    from tests.pg_server import PgServer

pytest_plugins = ["tests.pg_server"]

BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgresql),
]


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (pyproject's addopts): three workers a core, since the tests spend about half
    their time waiting on the bot's subprocesses and servers (on 2 cores, 6 workers ran the
    suite in 5:00 where 4 took 6:23); at most 8, each worker starting its own PostgreSQL
    server."""
    return min(3 * len(os.sched_getaffinity(0)), 8)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """The engine a parametrized test runs on: "sqlite" or "postgresql"."""
    return str(request.param)


def _postgres_database(request: pytest.FixtureRequest, *, empty: bool = False) -> Iterator[str]:
    server: PgServer = request.getfixturevalue("pg_server")
    url = server.new_database(empty=empty)
    yield url
    server.drop_database(url)


@pytest.fixture
def database_url(backend: str, request: pytest.FixtureRequest) -> Iterator[str]:
    """A new database at the schema's head, for one engine at a time: in-memory SQLite, or a
    fresh PostgreSQL database (dropped afterwards, whatever is still connected)."""
    if backend == "sqlite":
        yield "sqlite://"
        return
    yield from _postgres_database(request)


@pytest.fixture
def shared_database_url(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[str]:
    """Like `database_url`, but several engines (connections, processes) can share it: an
    SQLite file, or a PostgreSQL database. For tests of concurrent writers."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path}/data/quizbot.db"
        return
    yield from _postgres_database(request)


@pytest.fixture
def empty_database_url(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[str]:
    """A database without any tables (for the migrations' tests)."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path}/empty.db"
        return
    yield from _postgres_database(request, empty=True)
