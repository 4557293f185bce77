"""What a DATABASE_URL's query string and an in-memory database do (issue 26, class 1).

`?mode=ro` was dropped with SQLAlchemy warnings (the file opened writable); with `uri=true`
SQLite created a file literally named `b.db?mode=ro`. SQLite's URI options are now honoured
(the URL is opened in SQLite's URI form), anything else in the query is refused in one line,
and no file is ever named after a query. `run` refuses an in-memory database in one line.
"""

from __future__ import annotations

import contextlib
import sqlite3
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import main
from bot.clock import utcnow
from bot.quiz.errors import StoreUnavailableError
from bot.store import Store, answers, guild_config, make_engine
from bot.store.db import check_url, is_memory, sqlite_file
from tests.store.conftest import GUILD
from tests.store_calls import read, write
from tests.test_cli_db import assert_one_database_line

pytestmark = pytest.mark.sqlite_only


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A quizbot database with one member; cwd is its folder, DISCORD_TOKEN set."""
    path = tmp_path / "b.db"
    engine = make_engine(f"sqlite:///{path}")
    write(Store(engine), answers.upsert_member, GUILD, 7, "ada", utcnow())
    engine.dispose()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DISCORD_TOKEN", "not-a-real-token")
    monkeypatch.setenv("DISCORD_API_BASE", "http://127.0.0.1:9/api/v10")  # never reached
    return path


@contextlib.contextmanager
def no_warnings() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def names(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


@pytest.mark.parametrize("query", ["?mode=ro", "?mode=ro&uri=true"])
def test_mode_ro_is_honoured_and_names_no_file_after_the_query(db: Path, query: str) -> None:
    before = names(db.parent)
    with no_warnings():
        engine = make_engine(f"sqlite:///b.db{query}", create=False)
    store = Store(engine)
    try:
        assert read(store, guild_config.guild_config, GUILD).guild_id == GUILD  # it reads
        with pytest.raises(StoreUnavailableError):
            write(store, answers.upsert_member, GUILD, 8, "bob", utcnow())  # and it does not write
    finally:
        engine.dispose()
    assert not [n for n in names(db.parent) if "?" in n or "mode" in n]
    assert names(db.parent) <= before | {"b.db-wal", "b.db-shm"}
    with contextlib.closing(sqlite3.connect(db)) as raw:
        assert raw.execute("SELECT count(*) FROM member").fetchone() == (1,)


@pytest.mark.parametrize("query", ["?mode=ro", "?mode=ro&uri=true"])
def test_run_on_a_read_only_url_is_one_line_and_db_current_reads_it(
    db: Path, query: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///b.db{query}")
    assert_one_database_line(main(["run"]), capsys, "is read-only")
    assert main(["db", "current"]) == 0
    assert "(head)" in capsys.readouterr().out
    assert not [n for n in names(db.parent) if "?" in n]


def test_a_read_only_url_to_no_file_creates_nothing_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DISCORD_TOKEN", "not-a-real-token")
    monkeypatch.setenv("DATABASE_URL", "sqlite:///new.db?mode=ro&uri=true")
    line = assert_one_database_line(main(["db", "upgrade"]), capsys, "there is no database at")
    assert "mode=ro does not let quizbot create one" in line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("?mode=readonly", "mode='readonly' is not one SQLite takes"),
        ("?foo=bar", "option 'foo' is not an SQLite one"),
        ("?mode=ro&mode=rw", "gives its option 'mode' more than once"),
    ],
)
def test_an_option_sqlite_would_ignore_is_refused_in_one_line(
    tmp_path: Path,
    query: str,
    expected: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///b.db{query}")
    for argv in (["db", "upgrade"], ["db", "current"]):
        assert_one_database_line(main(argv), capsys, expected)
    assert list(tmp_path.iterdir()) == []


def test_the_uri_form_without_uri_true_opens_the_file_it_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    make_engine("sqlite:///file:data/q.db").dispose()
    assert (tmp_path / "data" / "q.db").is_file()
    assert names(tmp_path) == {"data"}  # not a folder named `file:`


@pytest.mark.parametrize(
    "url",
    [
        "sqlite://",
        "sqlite:///:memory:",
        "sqlite:///file:x?mode=memory&uri=true",
        "sqlite:///x?mode=memory",
    ],
)
def test_run_refuses_an_in_memory_database_in_one_line(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DISCORD_TOKEN", "not-a-real-token")
    monkeypatch.setenv("DISCORD_API_BASE", "http://127.0.0.1:9/api/v10")  # never reached
    monkeypatch.setenv("DATABASE_URL", url)
    for argv in (["run"], ["db", "upgrade"]):
        line = assert_one_database_line(main(argv), capsys, "is an in-memory database")
        assert "lost when quizbot stops" in line and "sqlite:///data/quizbot.db" in line
    assert list(tmp_path.iterdir()) == []


def test_db_copy_refuses_an_in_memory_target(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["db", "copy", f"sqlite:///{db}", "sqlite://"])
    assert_one_database_line(code, capsys, "is an in-memory database", "DST_URL")


def test_in_memory_urls_name_no_file_and_postgresql_urls_are_left_alone() -> None:
    from bot.store.db import connect_url  # new in issue 26

    assert is_memory("sqlite:///x?mode=memory") and sqlite_file("sqlite:///x?mode=memory") is None
    url = "postgresql+psycopg://quizbot:pw@db/quizbot?sslmode=require"
    assert connect_url(url).render_as_string(hide_password=False) == url
    assert str(connect_url("sqlite:///data/q.db")) == "sqlite:///data/q.db"
    assert check_url("sqlite:///data/q.db?timeout=3") == "sqlite:///data/q.db?timeout=3"
