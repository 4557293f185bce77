"""Schema migrations: a group upgrading from quizbot 0.1.0 loses nothing.

The fixture database was written by the real 0.1.0 code (see fixtures/make_0_1_0_db.py), with
the facts 0.1.0 read from it. Every later schema change adds its migration and keeps these
tests passing: that is what shows the upgrade keeps every point.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import shutil
import sqlite3
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, event, text

from bot.clock import utcnow
from bot.content import load_banks
from bot.quiz import ratings
from bot.quiz.engine import Progress, Status
from bot.quiz.errors import PostClosedError, StoreAction, UnknownTaskError
from bot.quiz.tasks import Catalog
from bot.service import QuizService
from bot.store import (
    AnswerRequest,
    GuildConfigInfo,
    Leaderboard,
    PostCounts,
    PostInfo,
    Store,
    guild_config,
    leaderboard,
    make_engine,
    posts,
    stats,
)
from bot.store import answers as answers_unit
from bot.store import ratings as stored_ratings
from bot.store.items import first_attempts
from bot.store.migrate import (
    BASELINE,
    SchemaTooNewError,
    UnrecognisedSchemaError,
    UpgradeRefusedError,
    alembic_config,
    backup_sqlite,
    current_state,
    head_revision,
    target_metadata,
    upgrade_database,
)
from bot.store.schedules import ScheduleStore
from tests.store.fixtures import make_0_1_0_db as fixture
from tests.store_calls import answer_batch, read, write

FIXTURES = Path(__file__).parent / "fixtures"
OLD_DB = FIXTURES / "quizbot-0.1.0.db"
EXPECTED = json.loads((FIXTURES / "quizbot-0.1.0.json").read_text())
CONTENT = Path(__file__).resolve().parents[2] / "content"


def row_counts(path: Path) -> dict[str, int]:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}


def schema(path: Path) -> dict[str, str]:
    """Every table's and index's DDL as SQLite stores it, whitespace normalised."""
    with contextlib.closing(sqlite3.connect(path)) as conn:
        rows = conn.execute(
            "SELECT name, sql FROM sqlite_master"
            " WHERE sql IS NOT NULL AND name != 'alembic_version'"
        ).fetchall()
    return {name: " ".join(sql.split()) for name, sql in rows}


@pytest.fixture
def old_db(tmp_path: Path) -> Path:
    """A copy of the 0.1.0 database. The fixture itself is never opened: it is in WAL mode,
    so even reading it would leave -wal/-shm files in the checkout."""
    path = tmp_path / "data" / "quizbot.db"
    path.parent.mkdir()
    shutil.copyfile(OLD_DB, path)
    return path


@pytest.fixture
def upgraded(old_db: Path) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{old_db}")
    yield engine
    engine.dispose()


@pytest.mark.sqlite_only  # an SQLite file
def test_the_fixture_is_an_unversioned_0_1_0_database(old_db: Path) -> None:
    counts = row_counts(old_db)
    assert "alembic_version" not in counts
    assert counts["attempt"] > 10 and counts["schedule_run"] == 3


class _Reads010:
    """0.1.0's `Store` reads that `fixture.facts` makes, on today's unit functions."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def get_post(self, post_id: int) -> PostInfo | None:
        return read(self.store, posts.get_post, post_id)

    def guild_config(self, guild_id: int) -> GuildConfigInfo:
        return read(self.store, guild_config.guild_config, guild_id)

    def leaderboard(
        self, guild_id: int, period: str, tz: ZoneInfo, now: datetime, user_id: int
    ) -> Leaderboard:
        return leaderboard.leaderboard(self.store, guild_id, period, tz, now, user_id, 10)

    def member_stats(self, guild_id: int, user_id: int, tz: ZoneInfo, now: datetime) -> Any:
        return read(self.store, stats.member_stats, guild_id, user_id, tz, now)

    def post_counts(self, post_id: int) -> PostCounts:
        return read(self.store, posts.post_counts, post_id)

    def progress(self, post_id: int, user_id: int) -> Progress:
        return read(self.store, answers_unit.read_progress, post_id, user_id)


@pytest.mark.sqlite_only  # an SQLite file
def test_upgrading_0_1_0_keeps_every_fact_it_read(old_db: Path, upgraded: Engine) -> None:
    state = current_state(upgraded)
    assert state.revision == head_revision() and state.is_head
    store = Store(upgraded)
    ids = {k: EXPECTED[k] for k in ("schedule_ids", "run_ids", "post_ids")}
    ids |= {"open_post": EXPECTED["open_post"], "closed_post": EXPECTED["closed_post"]}
    now_facts = fixture.plain(fixture.facts(_Reads010(store), ScheduleStore(store), ids))
    # 0002_task_versions: the posts have no version until the service pins them (below).
    for post in now_facts["posts"].values():
        assert (post.pop("task_version_id"), post.pop("task")) == (None, None)
        # 0004_learning: every post of 0.1.0 is public (no practice session).
        assert (post.pop("session_id"), post.pop("session")) == (None, None)
    # Progress.tried (the wrong answers, which a repeat of is not graded again) is read from
    # the attempts' picks: new since 0.1.0, and at most one per wrong try (0.1.0 graded a
    # repeat, so its members may have fewer different wrong answers than wrong tries).
    for members in now_facts["progress"].values():
        for progress in members.values():
            tried = progress.pop("tried")
            # New since 0.1.0, and set only where an answer, hint or solution is graded.
            assert progress.pop("finished_elsewhere") is False
            assert (progress.pop("wrong_elsewhere"), progress.pop("hints_elsewhere")) == (0, 0)
            # 0007_hint_ladder: how many hints were seen; every 0.1.0 hint seen is one.
            progress["hint_seen"] = {0: False, 1: True}[progress.pop("hints_seen")]
            assert progress.pop("tried_before") is False  # private posts only: none in 0.1.0
            assert len(tried) <= progress["wrong_tries"]
            assert all(isinstance(picks, tuple) and picks for picks in tried)
    # MemberStats.practice_points (points on private posts, apart from the board's): new since
    # 0.1.0, and 0 there (no private post).
    for members in now_facts["member_stats"].values():
        for figures in members.values():
            assert figures.pop("practice_points") == 0
    # Leaderboard.zone (the zone its days and weeks counted in, for its footer): new since 0.1.0.
    for guild, boards in now_facts["leaderboards"].items():
        for board in boards.values():
            assert board.pop("zone") == fixture.ZONES[int(guild)]
    # GuildConfigInfo.language (/config language, 0010): new since 0.1.0, and unset there.
    for config in now_facts["guild_config"].values():
        assert config.pop("language") is None
    # Compared one part at a time so a failure names what was lost.
    for part in EXPECTED:
        assert now_facts[part] == EXPECTED[part], part
    assert now_facts == EXPECTED


@pytest.mark.sqlite_only  # an SQLite file
def test_upgrade_keeps_every_row_and_backs_the_file_up_first(
    old_db: Path, caplog: pytest.LogCaptureFixture
) -> None:
    before = row_counts(old_db)
    with caplog.at_level(logging.INFO, logger="bot.store.migrate"):
        engine = make_engine(f"sqlite:///{old_db}")
    engine.dispose()
    after = row_counts(old_db)
    assert after.pop("alembic_version") == 1
    assert after.pop("task_version") == 0  # 0002: versions come when the service pins posts
    assert after.pop("server_bank") == 0  # 0003: banks come from /bank upload
    for table in ("practice_session", "review_card", "member_reminder"):
        assert after.pop(table) == 0, table  # 0004: the learning loop starts empty
    assert after.pop("guild_welcome") == 0  # 0006: written when the bot joins a server
    assert after.pop("guild_removal") == 0  # 0008: a mark comes when the bot leaves a server
    # 0009: backfilled from the first tries (test_0009_backfills_the_ratings_the_answers_made)
    assert after.pop("task_rating") > 0 and after.pop("member_rating") > 0
    assert after == before
    (backup,) = old_db.parent.glob("quizbot.db.backup-*")
    assert re.fullmatch(r"quizbot\.db\.backup-\d{8}T\d{6}Z", backup.name)
    assert row_counts(backup) == before  # the database as it was: unversioned
    # `quizbot run` logs at INFO: the one line that says where the backup is.
    (line,) = [r.getMessage() for r in caplog.records if str(backup) in r.getMessage()]
    assert line.startswith("upgraded the database schema from unversioned 0.1.0")
    # Already upgraded: the next start neither writes nor backs up.
    make_engine(f"sqlite:///{old_db}").dispose()
    assert len(list(old_db.parent.glob("quizbot.db.backup-*"))) == 1


@pytest.mark.sqlite_only  # an SQLite file
async def test_an_old_open_post_still_takes_answers_that_score(upgraded: Engine) -> None:
    store = Store(upgraded)
    now = fixture.NOW + timedelta(hours=1)
    service = QuizService(load_banks(CONTENT), store, clock=lambda: now)
    guild, carol = fixture.GUILD_A, fixture.CAROL
    open_post = EXPECTED["open_post"]
    board_then = EXPECTED["leaderboards"][str(guild)]["all"]["rows"]
    before = {row["user_id"]: row["points"] for row in board_then}
    try:
        task = service.catalog.get_or_raise(EXPECTED["posts"][str(open_post)]["task_id"])
        reply = await service.answer(open_post, guild, carol, "carol", task.answers)
        assert reply.outcome.status is Status.CORRECT and reply.outcome.points > 0
        board = await service.leaderboard(guild, "all", carol)
    finally:
        await service.close()
    assert board.me is not None
    assert board.me.points == before[carol] + reply.outcome.points
    assert board.me.solved == EXPECTED["member_stats"][str(guild)][str(carol)]["solved"] + 1
    # The maintained totals carried over and were kept: they equal the scores' sums.
    zone = fixture.ZoneInfo(fixture.ZONES[guild])
    assert leaderboard.leaderboard(store, guild, "all", zone, now, None, 10) == read(
        store, leaderboard.leaderboard_exact, guild, "all", zone, now, None, 10
    )


@pytest.mark.sqlite_only  # an SQLite file
async def test_an_old_closed_post_still_refuses_answers(upgraded: Engine) -> None:
    store = Store(upgraded)
    now = fixture.NOW + timedelta(hours=1)
    closed_post, guild, dave = EXPECTED["closed_post"], fixture.GUILD_A, fixture.DAVE
    service = QuizService(load_banks(CONTENT), store, clock=lambda: now)
    try:
        task = service.catalog.get_or_raise(EXPECTED["posts"][str(closed_post)]["task_id"])
        with pytest.raises(PostClosedError):
            await service.answer(closed_post, guild, dave, "dave", task.answers)
    finally:
        await service.close()
    request = AnswerRequest(closed_post, guild, dave, "dave", task.answers)
    (result,) = answer_batch(store, [request], now)
    assert isinstance(result, PostClosedError)
    assert read(store, answers_unit.read_progress, closed_post, dave).attempts_used == 0


@pytest.mark.sqlite_only  # an SQLite file
async def test_the_service_pins_old_posts_so_a_later_edit_does_not_change_them(
    upgraded: Engine,
) -> None:
    """0002_task_versions: a 0.1.0 post has no version; the service pins every one whose task
    is loaded when it starts, and from then on the post keeps that task, whatever the banks
    say. Posts of a task that is not loaded stay unpinned (and are pinned once it is)."""
    store = Store(upgraded)
    now = fixture.NOW + timedelta(hours=1)
    catalog = load_banks(CONTENT)
    open_post, guild, carol = EXPECTED["open_post"], fixture.GUILD_A, fixture.CAROL
    task_id = EXPECTED["posts"][str(open_post)]["task_id"]
    task = catalog.get_or_raise(task_id)
    others = [t for t in catalog if t.id != task_id]
    service = QuizService(Catalog.of(others), store, clock=lambda: now)
    try:
        await service.start()
        pinned = {p: read(store, posts.get_post, p) for p in EXPECTED["post_ids"]}
        assert pinned[open_post] is not None and pinned[open_post].task is None
        assert all(
            post.task == catalog.get(post.task_id)
            for post in pinned.values()
            if post is not None and post.task_id != task_id
        )
        # The task comes back (a reload), and is then edited: its right answer moves.
        await service.use_catalog(catalog)
        edited = replace(task, answers=(next(x for x in task.labels if x != task.answers[0]),))
        await service.use_catalog(Catalog.of([*others, edited]))
        reply = await service.answer(open_post, guild, carol, "carol", task.answers)
        assert reply.outcome.status is Status.CORRECT  # graded as it was pinned
        assert service.posted_of(reply.post).task == task
    finally:
        await service.close()
    with store.read() as conn:
        unversioned = conn.execute(text("SELECT count(*) FROM post WHERE task_version_id IS NULL"))
        assert unversioned.scalar() == 0


@pytest.mark.sqlite_only  # an SQLite file
async def test_an_old_post_whose_task_is_gone_is_refused_cleanly(
    upgraded: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    """A 0.1.0 post whose task is not in the loaded banks stays without a version; the store
    refuses an answer, a hint and the solution on it with UnknownTaskError (the member's
    "couldn't find" reply), stores nothing, and logs no traceback."""
    store = Store(upgraded)
    now = fixture.NOW + timedelta(hours=1)
    catalog = load_banks(CONTENT)
    open_post, guild, carol = EXPECTED["open_post"], fixture.GUILD_A, fixture.CAROL
    task = catalog.get_or_raise(EXPECTED["posts"][str(open_post)]["task_id"])
    others = Catalog.of([t for t in catalog if t.id != task.id])
    service = QuizService(others, store, clock=lambda: now)
    before = read(store, answers_unit.read_progress, open_post, carol)
    try:
        await service.start()
        with pytest.raises(UnknownTaskError, match="no longer in the loaded banks"):
            await service.answer(open_post, guild, carol, "carol", task.answers)
        with pytest.raises(UnknownTaskError):
            await service.hint(open_post, guild, carol, "carol")
        with pytest.raises(UnknownTaskError):
            await service.solution(open_post, guild, carol, "carol", confirmed=True)
        with pytest.raises(UnknownTaskError):
            await service.posted(open_post, guild)
    finally:
        await service.close()
    assert read(store, answers_unit.read_progress, open_post, carol) == before
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


@pytest.mark.sqlite_only  # an SQLite file
def test_0007_counts_each_hint_seen_in_0_1_0_as_the_first_of_a_ladder(upgraded: Engine) -> None:
    with upgraded.connect() as conn:
        rows = conn.execute(text("SELECT kind, hints FROM reveal")).all()
    assert ("hint", 1) in rows
    assert all(hints == (1 if kind == "hint" else None) for kind, hints in rows)


@pytest.mark.sqlite_only  # an SQLite file
def test_0009_backfills_the_ratings_the_answers_made(upgraded: Engine) -> None:
    """An upgraded group's ratings are what the online update would have reached: every
    member's first try on a channel post, replayed in order (item analysis' population)."""
    store = Store(upgraded)
    for guild in (fixture.GUILD_A, fixture.GUILD_B):
        tries = read(store, first_attempts, guild).attempts
        members, tasks = ratings.replay((t.user_id, t.task_id, t.correct) for t in tries)
        assert tasks and members
        assert read(store, stored_ratings.task_ratings, guild) == tasks
        for user_id, skill in members.items():
            assert read(store, stored_ratings.member_rating, guild, user_id) == skill


@pytest.mark.sqlite_only  # an SQLite file
def test_0002_downgrades_to_the_0_1_0_schema_keeping_every_row(
    upgraded: Engine, old_db: Path, tmp_path: Path
) -> None:
    reference = tmp_path / "reference.db"
    shutil.copyfile(OLD_DB, reference)
    before = row_counts(reference)
    task = load_banks(CONTENT).get_or_raise("mlops-parallelism-mc-1")
    post = write(
        Store(upgraded),
        posts.create_post,
        fixture.GUILD_A,
        1,
        task,
        None,
        now=fixture.NOW,
        schedule_id=None,
        closes_at=None,
        action=StoreAction.POST,
    )
    with upgraded.begin() as conn:
        command.downgrade(alembic_config(conn), BASELINE)
        assert conn.execute(text("PRAGMA foreign_key_check")).all() == []
    upgraded.dispose()
    after = row_counts(old_db)
    assert after.pop("alembic_version") == 1
    assert after.pop("post") == before.pop("post") + 1 == post.id
    assert after == before
    assert schema(old_db) == schema(reference)


@pytest.mark.sqlite_only  # an SQLite file
def test_the_baseline_builds_exactly_the_0_1_0_schema(old_db: Path, tmp_path: Path) -> None:
    """A 0.1.0 database is stamped with the baseline, never built by it: they must agree."""
    path = tmp_path / "migrated.db"
    engine = make_engine(f"sqlite:///{path}", create=False)
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), BASELINE)
    engine.dispose()
    assert schema(path) == schema(old_db)


def test_the_migrations_build_the_models_schema(empty_database_url: str) -> None:
    """New databases are made by create_all and stamped: the migrations must agree with it,
    on every engine."""
    engine = make_engine(empty_database_url, create=False)
    try:
        with engine.begin() as conn:
            command.upgrade(alembic_config(conn), "head")
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            assert compare_metadata(context, target_metadata()) == []
    finally:
        engine.dispose()


def test_down_to_the_baseline_and_up_again_gives_the_models_schema(
    empty_database_url: str, backend: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Every revision's downgrade and upgrade run on every engine; `upgrade_database` takes a
    database at an older revision to the head (on PostgreSQL saying the copy is pg_dump's)."""
    engine = make_engine(empty_database_url)
    try:
        write(Store(engine), answers_unit.upsert_member, 1, 2, "ada", utcnow())
        with engine.begin() as conn:
            command.downgrade(alembic_config(conn), BASELINE)
        assert current_state(engine).revision == BASELINE
        with caplog.at_level(logging.INFO, logger="bot.store.migrate"):
            result = upgrade_database(engine)
        assert (result.before, result.after) == (BASELINE, head_revision())
        assert ("pg_dump" in caplog.text) == (backend == "postgresql")
        with engine.begin() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            assert compare_metadata(context, target_metadata()) == []
            assert conn.execute(text("SELECT name FROM member")).scalars().all() == ["ada"]
    finally:
        engine.dispose()


def test_a_new_database_is_created_at_the_head(tmp_path: Path, empty_database_url: str) -> None:
    for url in ("sqlite://", empty_database_url):
        engine = make_engine(url)
        try:
            assert current_state(engine).is_head
            write(Store(engine), answers_unit.upsert_member, 1, 2, "ada", utcnow())
        finally:
            engine.dispose()
    assert list(tmp_path.glob("*.backup-*")) == []  # nothing to back up


@pytest.mark.sqlite_only  # an SQLite file
def test_a_database_newer_than_the_code_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/quizbot.db"
    make_engine(url).dispose()
    with sqlite3.connect(tmp_path / "quizbot.db") as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0099_from_the_future'")
    size = (tmp_path / "quizbot.db").stat().st_size
    with pytest.raises(SchemaTooNewError) as caught:
        make_engine(url)
    message = str(caught.value)
    assert message.startswith("the database ")
    assert "'0099_from_the_future'" in message and f"'{head_revision()}'" in message
    assert "(DATABASE_URL) — " in message
    assert "newer quizbot" in message and "restore the backup" in message
    assert "quizbot.db.backup-" in message
    assert (tmp_path / "quizbot.db").stat().st_size == size
    assert list(tmp_path.glob("*.backup-*")) == []
    engine = make_engine(url, create=False)
    try:  # what `quizbot db current` prints
        assert current_state(engine).describe() == (
            f"0099_from_the_future (newer than this quizbot knows; its newest is {head_revision()})"
        )
    finally:
        engine.dispose()


@pytest.mark.sqlite_only  # an SQLite file
def test_a_database_of_something_else_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
    with pytest.raises(UnrecognisedSchemaError, match=r"not a quizbot database \(DATABASE_URL\)"):
        make_engine(f"sqlite:///{path}")
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT name FROM sqlite_master").fetchall() == [("invoices",)]


@pytest.mark.sqlite_only  # an SQLite file
def test_backup_copies_what_is_still_in_the_wal(tmp_path: Path) -> None:
    path = tmp_path / "quizbot.db"
    engine = make_engine(f"sqlite:///{path}")
    store = Store(engine)
    try:
        with store.read() as conn:  # an open reader keeps the WAL from being checkpointed
            write(store, answers_unit.upsert_member, 1, 2, "ada", utcnow())
            assert (tmp_path / "quizbot.db-wal").stat().st_size > 0
            first = backup_sqlite(path)
            second = backup_sqlite(path)
            conn.execute(text("SELECT 1"))
    finally:
        engine.dispose()
    assert first != second  # two backups within a second do not overwrite each other
    with contextlib.closing(sqlite3.connect(first)) as copy:
        assert copy.execute("SELECT name FROM member").fetchall() == [("ada",)]
        assert copy.execute("PRAGMA journal_mode").fetchone() == ("delete",)


def test_processes_starting_together_create_the_schema_once(empty_database_url: str) -> None:
    """Shards started at the same moment on one new database: one creates the tables, the
    others wait for it and find them, and none stops with an error."""
    starters = 4
    engines = [make_engine(empty_database_url, create=False) for _ in range(starters)]
    barrier = threading.Barrier(starters)

    def start(engine: Engine) -> bool:
        barrier.wait()
        return upgrade_database(engine).created

    try:
        with ThreadPoolExecutor(starters) as pool:
            created = list(pool.map(start, engines))
        assert sorted(created) == [False] * (starters - 1) + [True]
        assert current_state(engines[0]).is_head
    finally:
        for engine in engines:
            engine.dispose()


@pytest.mark.sqlite_only  # SQLite's own full disk
def test_an_upgrade_the_disk_cannot_hold_changes_nothing_and_says_so(old_db: Path) -> None:
    """The disk fills up half-way through the migrations (here: the file may not grow):
    one HostError naming DATABASE_URL, and the 0.1.0 database exactly as it was."""
    before = row_counts(old_db)
    engine = make_engine(f"sqlite:///{old_db}", create=False)

    @event.listens_for(engine, "connect")
    def _no_room(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        pages = dbapi_connection.execute("PRAGMA page_count").fetchone()[0]
        dbapi_connection.execute(f"PRAGMA max_page_count = {pages}")

    try:
        with pytest.raises(UpgradeRefusedError) as refused:
            upgrade_database(engine, backup=False)
        assert current_state(engine).revision is None
    finally:
        engine.dispose()
    message = str(refused.value)
    assert "the disk is full" in message and "nothing was changed" in message
    assert "(DATABASE_URL) — free space" in message
    assert row_counts(old_db) == before
