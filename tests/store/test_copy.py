"""`quizbot db copy`: a played deployment moves whole into an empty database (another SQLite
file, or PostgreSQL: every test runs on both targets), keeps working there, and a target with
anything in it is refused untouched. The source is the database the real 0.1.0 played, upgraded:
so this is also 0.1.0's way onto PostgreSQL."""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, inspect, make_url, text

from bot.cli import main
from bot.clock import utcnow
from bot.content import load_banks
from bot.quiz.engine import Status
from bot.service import QuizService
from bot.store import Store, answers, leaderboard, make_engine
from bot.store.copy import CopyError, copy_database
from bot.store.migrate import current_state
from bot.store.process_claim import claim_database_file
from tests.pg_server import PgServer
from tests.store.fixtures import make_0_1_0_db as fixture
from tests.store.test_migrations import CONTENT, EXPECTED, OLD_DB
from tests.store_calls import write
from tests.test_cli_db import assert_one_database_line, unusable_database_url


@pytest.fixture
def source(tmp_path: Path) -> str:
    """The database 0.1.0 played, upgraded to this quizbot's schema (as `quizbot run` does)."""
    path = tmp_path / "src" / "quizbot.db"
    path.parent.mkdir()
    shutil.copyfile(OLD_DB, path)
    url = f"sqlite:///{path}"
    make_engine(url).dispose()
    return url


@pytest.fixture
def target(empty_database_url: str) -> str:
    """An empty database to copy into: an SQLite file, or a PostgreSQL database."""
    return empty_database_url


def row_counts_of(url: str) -> dict[str, int]:
    engine = make_engine(url, create=False)
    try:
        with engine.connect() as conn:
            names = [n for n in inspect(conn).get_table_names() if n != "alembic_version"]
            return {
                name: conn.execute(text(f'SELECT count(*) FROM "{name}"')).scalar_one()
                for name in names
            }
    finally:
        engine.dispose()


REFUSE_SCORES = {
    "sqlite": [
        "CREATE TRIGGER no_scores BEFORE INSERT ON score"
        " BEGIN SELECT RAISE(ABORT, 'disk full'); END"
    ],
    "postgresql": [
        "CREATE FUNCTION no_scores() RETURNS trigger LANGUAGE plpgsql"
        " AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$",
        "CREATE TRIGGER no_scores BEFORE INSERT ON score FOR EACH ROW EXECUTE FUNCTION no_scores()",
    ],
}
ALLOW_SCORES = {
    "sqlite": ["DROP TRIGGER no_scores"],
    "postgresql": ["DROP TRIGGER no_scores ON score", "DROP FUNCTION no_scores()"],
}


@pytest.fixture
def copied(source: str, target: str) -> Iterator[Engine]:
    copy_database(source, target, lambda _line: None)
    engine = make_engine(target)
    yield engine
    engine.dispose()


def test_every_row_and_every_leaderboard_arrives(source: str, copied: Engine) -> None:
    before = row_counts_of(source)
    after = row_counts_of(copied.url.render_as_string(hide_password=False))
    assert after == before and after["attempt"] == 16
    now = fixture.NOW + timedelta(hours=1)
    old, new = Store(make_engine(source)), Store(copied)
    for guild, zone in fixture.ZONES.items():
        for period in ("today", "week", "all"):
            board = leaderboard.leaderboard(
                new, guild, period, fixture.ZoneInfo(zone), now, None, 10
            )
            assert board == leaderboard.leaderboard(
                old, guild, period, fixture.ZoneInfo(zone), now, None, 10
            )
        rows = EXPECTED["leaderboards"][str(guild)]["all"]["rows"]
        all_time = leaderboard.leaderboard(new, guild, "all", fixture.ZoneInfo(zone), now, None, 10)
        assert [r.points for r in all_time.rows] == [r["points"] for r in rows]
    old.engine.dispose()


async def test_old_posts_take_answers_in_the_new_database(copied: Engine) -> None:
    store = Store(copied)
    now = fixture.NOW + timedelta(hours=1)
    service = QuizService(load_banks(CONTENT), store, clock=lambda: now)
    guild, carol = fixture.GUILD_A, fixture.CAROL
    open_post = EXPECTED["open_post"]
    before = {
        r["user_id"]: r["points"] for r in EXPECTED["leaderboards"][str(guild)]["all"]["rows"]
    }
    try:
        task = service.catalog.get_or_raise(EXPECTED["posts"][str(open_post)]["task_id"])
        reply = await service.answer(open_post, guild, carol, "carol", task.answers)
        board = await service.leaderboard(guild, "all", carol)
        # New rows get ids after the copied ones (PostgreSQL's sequences were moved on).
        fresh = await service.create_post(guild, 10, task, posted_by=fixture.MOD)
    finally:
        await service.close()
    assert reply.outcome.status is Status.CORRECT
    assert board.me is not None and board.me.points == before[carol] + reply.outcome.points
    assert fresh.post.id > max(int(post_id) for post_id in EXPECTED["posts"])


def change_target(url: str, statement: str) -> None:
    engine = make_engine(url, create=False)
    with engine.begin() as conn:
        conn.execute(text(statement))
    engine.dispose()


def test_a_copy_run_again_checks_the_earlier_copy_instead_of_refusing_it(
    source: str, target: str
) -> None:
    """Ctrl-C during the check leaves a full target: running the same copy again finishes the
    check, copying nothing twice."""
    first = copy_database(source, target, lambda _line: None)
    counts = row_counts_of(target)
    lines: list[str] = []
    again = copy_database(source, target, lines.append)
    assert again == first and sum(again.rows.values()) > 0
    assert "already holds as many rows as the source" in lines[0]
    assert lines[-1].startswith(f"verified: {len(first.rows)} tables")
    assert row_counts_of(target) == counts


@pytest.mark.parametrize(
    ("change", "refusal"),
    [
        (
            "DELETE FROM member_total WHERE user_id = (SELECT min(user_id) FROM member_total)",
            r"not empty \(member_total has 4 rows\)",
        ),
        (
            "UPDATE member_total SET points = points + 1",
            r"not empty \(its leaderboard totals differ from the source's\)",
        ),
    ],
    ids=["other counts", "same counts, other totals"],
)
def test_a_target_with_other_rows_is_refused_and_left_alone(
    source: str, target: str, change: str, refusal: str
) -> None:
    copy_database(source, target, lambda _line: None)
    change_target(target, change)
    counts = row_counts_of(target)
    with pytest.raises(CopyError, match=refusal) as refused:
        copy_database(source, target, lambda _line: None)
    assert refused.value.setting == "DST_URL"
    assert "drop it" not in str(refused.value)  # someone's data is never called incomplete
    assert row_counts_of(target) == counts


def test_the_source_itself_as_the_target_is_refused(source: str) -> None:
    with pytest.raises(CopyError, match="the target is the source itself") as refused:
        copy_database(source, source, lambda _line: None)
    assert refused.value.setting == "DST_URL"


def test_a_target_with_other_tables_is_refused(source: str, target: str) -> None:
    engine = make_engine(target, create=False)
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE invoices (id INTEGER PRIMARY KEY)"))
    engine.dispose()
    with pytest.raises(CopyError, match=r"not empty \(tables invoices\)"):
        copy_database(source, target, lambda _line: None)


def test_a_source_behind_the_schema_is_refused_with_the_upgrade_command(
    tmp_path: Path, target: str
) -> None:
    old = tmp_path / "old.db"
    shutil.copyfile(OLD_DB, old)
    with pytest.raises(CopyError, match="quizbot db upgrade") as refused:
        copy_database(f"sqlite:///{old}", target, lambda _line: None)
    assert refused.value.setting == "SRC_URL"
    with pytest.raises(CopyError, match="no database at"):
        copy_database(f"sqlite:///{tmp_path / 'missing.db'}", target, lambda _line: None)
    assert not (tmp_path / "missing.db").exists()


def test_a_copy_that_fails_half_way_leaves_the_target_empty(
    source: str, target: str, backend: str
) -> None:
    """A fault on the target after most tables went in (here a trigger refusing scores, as a
    full disk or a dropped connection would) rolls the whole copy back: run it again."""
    engine = make_engine(target)
    with engine.begin() as conn:
        for statement in REFUSE_SCORES[backend]:
            conn.execute(text(statement))
    engine.dispose()
    with pytest.raises(CopyError, match="disk full") as failed:
        copy_database(source, target, lambda _line: None)
    assert failed.value.setting == "DST_URL"
    assert "the copy failed at score, writing the target" in failed.value.problem
    assert "run the copy again" in failed.value.fix
    engine = make_engine(target, create=False)
    assert current_state(engine).is_head
    with engine.connect() as conn:
        for table in ("post", "attempt", "member", "member_total"):
            assert conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one() == 0
        for statement in ALLOW_SCORES[backend]:
            conn.execute(text(statement))
        conn.commit()
    engine.dispose()
    copy_database(source, target, lambda _line: None)  # the second run goes through


def test_the_command_reports_progress_and_refuses_in_one_line(
    source: str, target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["db", "copy", source, target]) == 0
    out = capsys.readouterr().out
    assert "attempt: 16 rows" in out and "score: 10 rows" in out
    assert out.rstrip().splitlines()[-1].startswith("verified: ")
    change_target(target, "UPDATE member_total SET solved = solved + 1")
    assert main(["db", "copy", source, target]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("quizbot: the target ") and "(DST_URL)" in line
    assert main(["db", "copy", "mysql://x/y", target]) == 1
    assert "unsupported database 'mysql'" in capsys.readouterr().err


def empty_after_a_failed_copy(url: str) -> bool:
    return set(row_counts_of(url).values()) <= {0}


def test_a_source_row_that_cannot_be_read_is_one_line_and_copies_nothing(
    source: str, target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A name another tool wrote as bytes that are no UTF-8: SQLite keeps them, reading them
    fails. The host is told which table, on which side, and that nothing was copied."""
    path = source.removeprefix("sqlite:///")
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute("UPDATE member SET name = CAST(X'EDA080' AS TEXT) WHERE user_id = 13")
        conn.commit()
    line = assert_one_database_line(
        main(["db", "copy", source, target]), capsys, "failed at member, reading", "SRC_URL"
    )
    assert "nothing was copied" in line and "run the copy again" in line
    assert empty_after_a_failed_copy(target)


@pytest.mark.postgresql
def test_a_value_postgresql_cannot_store_is_one_line_and_copies_nothing(
    source: str, pg_server: PgServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """SQLite stores a NUL character in text; PostgreSQL refuses one."""
    path = source.removeprefix("sqlite:///")
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute("UPDATE member SET name = 'b' || char(0) || 'ob' WHERE user_id = 12")
        conn.commit()
    target = pg_server.new_database(empty=True)
    try:
        line = assert_one_database_line(
            main(["db", "copy", source, target]), capsys, "failed at member, writing", "DST_URL"
        )
        assert "NUL" in line and "nothing was copied" in line
        assert empty_after_a_failed_copy(target)
    finally:
        pg_server.drop_database(target)


@pytest.mark.parametrize(
    ("side", "kind", "expected"),
    [
        ("source", "not-sqlite", "is not an SQLite database"),
        ("source", "folder", "is a folder, not a database file"),
        ("source", "unreachable", "cannot connect to the PostgreSQL database"),
        ("target", "not-sqlite", "is not an SQLite database"),
        ("target", "folder", "is a folder, not a database file"),
        ("target", "unreachable", "cannot connect to the PostgreSQL database"),
    ],
)
def test_an_unusable_source_or_target_is_one_line_naming_it(
    side: str,
    kind: str,
    expected: str,
    source: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bad, _ = unusable_database_url(kind, tmp_path / "bad")
    new_target = f"sqlite:///{tmp_path / 'new' / 'copy.db'}"
    urls = [bad, new_target] if side == "source" else [source, bad]
    setting = "SRC_URL" if side == "source" else "DST_URL"
    assert_one_database_line(main(["db", "copy", *urls]), capsys, expected, setting)
    assert not (tmp_path / "new" / "copy.db").exists()
    assert (tmp_path / "bad" / "notes.txt").read_text() == "not a database\n" * 100
    assert list((tmp_path / "bad" / "folder").iterdir()) == []


@pytest.mark.parametrize(
    ("side", "url", "problem"),
    [
        ("SRC_URL", "postgres://quizbot:hunter2@db/quizbot", "unsupported database 'postgres'"),
        ("DST_URL", "postgresql+psycopg://quizbot:hun@ter2:x@db/quizbot", "%40"),
        ("DST_URL", "postgresql+psycopg://quizbot:hunter2@db:port/quizbot", "not a number"),
    ],
)
def test_a_url_it_cannot_use_is_one_line_naming_the_side_without_its_password(
    side: str, url: str, problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = f"sqlite:///{tmp_path / 'other.db'}"
    argv = ["db", "copy", url, other] if side == "SRC_URL" else ["db", "copy", other, url]
    line = assert_one_database_line(main(argv), capsys, problem, side)
    assert "ter2" not in line
    assert "postgresql+psycopg://" in line.split(" — ")[1]  # how to write one that works
    assert not (tmp_path / "other.db").exists()


@pytest.mark.postgresql
@pytest.mark.parametrize(
    ("revision", "advice"),
    [("0003_server_banks", "quizbot db upgrade"), ("9999_from_the_future", "newer quizbot")],
)
def test_a_postgresql_source_at_another_revision_is_refused_without_its_password(
    revision: str, advice: str, pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """PostgreSQL to SQLite (or to another server): the refusal's advice must not print the
    source's password, and a source newer than this quizbot is not one `db upgrade` can help."""
    engine = make_engine(pg_url, create=False)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = :r"), {"r": revision})
    engine.dispose()
    source = str(make_url(pg_url).set(password="hunter2").render_as_string(hide_password=False))
    line = assert_one_database_line(
        main(["db", "copy", source, f"sqlite:///{tmp_path / 'new.db'}"]), capsys, advice, "SRC_URL"
    )
    assert revision in line
    assert not (tmp_path / "new.db").exists()


def test_a_source_a_bot_is_running_on_is_refused_and_nothing_is_copied(
    source: str, target: str, tmp_path: Path
) -> None:
    """README: nothing may write the SQLite file while it is copied. A bot running on it holds
    `<database>.lock`; the copy said "verified" all the same, and the bot's later answers were
    lost in the move."""
    running_bot = claim_database_file(source)
    try:
        with pytest.raises(CopyError, match="already running") as refused:
            copy_database(source, target, lambda _line: None)
    finally:
        running_bot.release()
    assert refused.value.setting == "SRC_URL"
    assert empty_after_a_failed_copy(target)


def test_a_source_without_a_lock_file_is_copied_without_writing_beside_it(
    tmp_path: Path, target: str
) -> None:
    """The source is only read: its folder may be a read-only mount, so no lock file is made
    there to look for a running bot (a bot makes one)."""
    folder = tmp_path / "ro"
    folder.mkdir()
    shutil.copyfile(OLD_DB, folder / "quizbot.db")
    source = f"sqlite:///{folder / 'quizbot.db'}"
    make_engine(source).dispose()
    for leftover in folder.glob("quizbot.db?*"):  # the upgrade's backup, -wal, -shm
        leftover.unlink()
    before = sorted(p.name for p in folder.iterdir())
    copy_database(source, target, lambda _line: None)
    assert sorted(p.name for p in folder.iterdir()) == before


def test_a_target_with_some_rows_is_refused_naming_a_table_it_holds_rows_in(
    source: str, target: str
) -> None:
    """Issue 26: the first table whose counts differ may be empty in the target ("guild_config
    has 0 rows"); the refusal names what the target does hold."""
    engine = make_engine(target)
    try:
        write(
            Store(engine), answers.upsert_member, 123, 456, "someone", utcnow()
        )  # a bot ran on it briefly
    finally:
        engine.dispose()
    with pytest.raises(CopyError) as refused:
        copy_database(source, target, lambda _line: None)
    assert "not empty (member has 1 row)" in str(refused.value)
    assert " 0 rows" not in str(refused.value)
    assert row_counts_of(target)["member"] == 1
