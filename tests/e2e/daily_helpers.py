"""A daily quiz through the real scheduler, without waiting a day: the scheduler runs on the
wall clock (no test hook), so these move the bot's database instead, between two runs of the
process (test_bot_e2e's scheduler test tells the steps one by one)."""

from __future__ import annotations

import signal
from datetime import UTC, date, datetime, timedelta
from typing import Any

from fakediscord import Channel, Message

from .bot_helpers import STEP, QuizBotRunner, is_ephemeral, reply_of

DB_TIME = "%Y-%m-%d %H:%M:%S.%f"
"""How SQLAlchemy stores a naive DateTime in SQLite."""


def _db_time(value: str) -> datetime:
    return datetime.fromisoformat(value)


async def daily_quiz_posted(
    quizbot: QuizBotRunner, moderator: Any, channel: Channel, **options: Any
) -> tuple[Message, Any]:
    """`/schedule add` in `channel` (`options`: topic, difficulty...), then today's run made
    owed a minute ago: the public daily post and its schedule_run row."""
    driver = quizbot.driver
    at = (datetime.now(UTC) - timedelta(minutes=1)).strftime("%H:%M")
    added = await reply_of(
        driver.slash(
            "schedule add",
            user=moderator,
            channel=channel,
            options={"channel": channel, "time": at, "timezone": "UTC", **options},
        )
    )
    assert is_ephemeral(added), added
    await quizbot.wait_for_query("SELECT * FROM schedule")
    # As if the schedule had been made an hour ago: today's run, a minute late, is owed.
    await quizbot.kill(signal.SIGTERM)
    an_hour_ago = (datetime.now(UTC) - timedelta(hours=1)).replace(tzinfo=None)
    with quizbot.db() as conn:
        conn.execute(
            "UPDATE schedule SET created_at = ?, active_since = ?",
            (an_hour_ago.strftime(DB_TIME), an_hour_ago.strftime(DB_TIME)),
        )
        conn.commit()
    await quizbot.start()
    [run] = await quizbot.wait_for_query(
        "SELECT * FROM schedule_run WHERE status != 'claimed'", timeout=30
    )
    [post] = quizbot.query("SELECT * FROM post WHERE id = ?", int(run["post_ids"]))
    daily = await driver.wait_for_message(
        channel, lambda m: int(m["id"]) == int(post["message_id"]), timeout=STEP
    )
    return daily, run


async def daily_quiz_closed(quizbot: QuizBotRunner, daily: Message, run: Any) -> Message:
    """The next day: `run` moved back a day, so that the bot closes its post (with the
    summary) on start; the closed post."""
    await quizbot.kill(signal.SIGTERM)
    scheduled_for = _db_time(run["scheduled_for"])
    with quizbot.db() as conn:
        conn.execute(
            "UPDATE schedule_run SET local_date = ?, scheduled_for = ?, closes_at = ?, "
            "claimed_at = ?, posted_at = ? WHERE id = ?",
            (
                (date.fromisoformat(run["local_date"]) - timedelta(days=1)).isoformat(),
                (scheduled_for - timedelta(days=1)).strftime(DB_TIME),
                scheduled_for.strftime(DB_TIME),
                (_db_time(run["claimed_at"]) - timedelta(days=1)).strftime(DB_TIME),
                (_db_time(run["posted_at"]) - timedelta(days=1)).strftime(DB_TIME),
                run["id"],
            ),
        )
        conn.execute(
            "UPDATE post SET closes_at = ? WHERE id = ?",
            (scheduled_for.strftime(DB_TIME), int(run["post_ids"])),
        )
        conn.commit()
    await quizbot.start()
    # The bot marks the run closed only once the summary is on the post (its message dict,
    # edited in place).
    await quizbot.wait_for_query(
        "SELECT * FROM schedule_run WHERE id = ? AND closed_at IS NOT NULL", run["id"], timeout=30
    )
    return daily
