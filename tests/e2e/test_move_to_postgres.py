"""A group moves from SQLite to PostgreSQL the way the README says: stop the bot, `quizbot db
copy`, start it on PostgreSQL. Members then answer the posts made before the move, and nothing
they had is lost."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from fakediscord import DiscordEmulator, Driver

from tests.cli_run import run_quizbot_cli
from tests.e2e.bot_helpers import QuizBotRunner, is_ephemeral, reply_of, text_of
from tests.e2e.test_bot_e2e import MC1, World, answer, post_quiz, started
from tests.pg_server import PgServer

pytestmark = [pytest.mark.e2e, pytest.mark.postgresql]


@pytest.fixture
def world(driver: Driver) -> World:
    return World(driver)


async def leaderboard_text(driver: Driver, world: World) -> str:
    board = await reply_of(
        driver.slash("leaderboard", user=world.dave, channel=world.channels["quiz"])
    )
    assert not is_ephemeral(board)
    return text_of(board)


async def test_a_group_moved_to_postgresql_keeps_its_points_and_old_posts(
    emulator: DiscordEmulator,
    driver: Driver,
    world: World,
    tmp_path: Path,
    pg_server: PgServer,
) -> None:
    on_sqlite = QuizBotRunner(emulator, tmp_path / "sqlite")
    (tmp_path / "sqlite").mkdir()
    target = pg_server.new_database(empty=True)
    on_postgres = QuizBotRunner(emulator, tmp_path / "pg", database_url=target)
    (tmp_path / "pg").mkdir()
    try:
        await started(on_sqlite, world)
        post, post_id = await post_quiz(driver, on_sqlite, world, "quiz", MC1)
        assert "✅ Right" in await answer(driver, post, post_id, "A", world.alice)
        assert "**2** attempts left" in await answer(driver, post, post_id, "B", world.bob)
        before = await leaderboard_text(driver, world)
        assert "alice\u2069 · **10** pts · 1 solved" in before
        await on_sqlite.stop()

        copy = await asyncio.to_thread(
            run_quizbot_cli,
            "db",
            "copy",
            on_sqlite.database_url,
            target,
            env=os.environ,
            timeout=120,
        )
        assert copy.returncode == 0, copy.stderr
        assert "attempt: 2 rows" in copy.stdout
        assert copy.stdout.rstrip().splitlines()[-1].startswith("verified: ")

        await on_postgres.start()
        # The old post's buttons work on PostgreSQL: bob's third attempt is still his to use,
        # alice has finished it.
        assert "**1** attempt left" in await answer(driver, post, post_id, "C", world.bob)
        again = await answer(driver, post, post_id, "A", world.alice)
        assert "already" in again and "✅ Right" not in again
        right = await answer(driver, post, post_id, "A", world.bob)
        assert "✅ Right" in right
        after = await leaderboard_text(driver, world)
        assert "alice\u2069 · **10** pts · 1 solved" in after
        assert "bob\u2069 · " in after and after.index("alice") < after.index("bob")
        rows = on_postgres.query("SELECT count(*) AS n FROM attempt")
        assert rows[0]["n"] == 4
    finally:
        await on_sqlite.stop()
        await on_postgres.stop()
        pg_server.drop_database(target)
    assert on_sqlite.error_lines() == [] and on_postgres.error_lines() == []
