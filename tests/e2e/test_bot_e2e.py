"""The real quizbot process end to end: commands, answers, the picker, hints, standings, restarts.

Each test runs `quizbot sync` and `quizbot run` as subprocesses (`python -m bot`, cwd = the
repo) against fakediscord, on a SQLite file of its own, and checks what members see in
Discord and what the bot stored.
"""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
import pytest_asyncio
from fakediscord import Channel, DiscordEmulator, Driver, Guild, Member, Message
from fakediscord import permissions as perm

from tests.pg_server import PgServer

from .bot_helpers import (
    ANSWERS,
    COMMANDS,
    STEP,
    QuizBotRunner,
    click,
    custom_ids,
    find_custom_id,
    is_ephemeral,
    raw_command,
    reply_of,
    select,
    text_of,
    wrong_option,
)

pytestmark = pytest.mark.e2e

MC1 = "mlops-parallelism-mc-1"
MC2 = "mlops-parallelism-mc-2"
FILL4 = "mlops-parallelism-fill-4"
FILL5 = "mlops-parallelism-fill-5"
MC1_RIGHT_TEXT = (
    "Data parallelism splits the data across workers, while model parallelism splits the model "
    "across workers."
)
MC1_HINT = "Data parallelism splits data; model parallelism splits model [OK]"
IS_COMPONENTS_V2 = 1 << 15


class World:
    """A study group: the owner (all permissions), six members without Manage Server, and
    one channel per post (/quiz has a per-channel cooldown, 30 s by default)."""

    def __init__(self, driver: Driver) -> None:
        self.guild: Guild = driver.create_guild("Study Group")
        self.owner: Member = self.guild.members[self.guild.owner_id]
        self.channels: dict[str, Channel] = {
            name: driver.create_text_channel(self.guild, name) for name in ("quiz", "fill", "daily")
        }
        add = driver.add_member
        self.alice, self.bob, self.carol = (add(self.guild, n) for n in ("alice", "bob", "carol"))
        self.dave, self.erin, self.frank = (add(self.guild, n) for n in ("dave", "erin", "frank"))


@pytest.fixture
def world(driver: Driver) -> World:
    return World(driver)


@pytest.fixture
def quizbot_backend() -> str:
    """The bot's database engine; a test parametrizes it to run on PostgreSQL too."""
    return "sqlite"


@pytest_asyncio.fixture
async def quizbot(
    emulator: DiscordEmulator, tmp_path: Path, quizbot_backend: str, request: pytest.FixtureRequest
) -> AsyncIterator[QuizBotRunner]:
    server: PgServer | None = None
    url = None
    if quizbot_backend == "postgresql":
        server = request.getfixturevalue("pg_server")
        url = server.new_database()
    runner = QuizBotRunner(emulator, tmp_path, database_url=url)
    try:
        yield runner
    finally:
        await runner.stop()
        if server is not None and url is not None:
            server.drop_database(url)
    # Anything the bot logged as an error is a bug, even if the member got a polite reply.
    assert runner.error_lines() == [], runner.logs()[-6000:]


async def started(quizbot: QuizBotRunner, world: World) -> QuizBotRunner:
    await quizbot.sync(world.guild)
    await quizbot.start()
    return quizbot


async def post_quiz(
    driver: Driver, quizbot: QuizBotRunner, world: World, channel: str, task: str
) -> tuple[Message, int]:
    """`/quiz task:<task>` by alice in `channel`: the public post and its post id."""
    ch = world.channels[channel]
    confirm = await reply_of(
        driver.slash("quiz", user=world.alice, channel=ch, options={"task": task})
    )
    assert is_ephemeral(confirm), confirm
    assert "Posted" in confirm["content"], confirm
    post = await driver.wait_for_message(ch, lambda m: bool(m.get("embeds")), timeout=STEP)
    assert post["author"]["id"] == str(driver.bot_user.id)
    assert post["id"] in confirm["content"]  # the jump link names the post
    return post, quizbot.post_id_of(post)


async def answer(driver: Driver, post: Message, post_id: int, option: str, who: Member) -> str:
    reply = await reply_of(click(driver, post, f"quiz:ans:{post_id}:{option}", user=who))
    assert is_ephemeral(reply), reply
    return text_of(reply)


# ---- quizbot sync ---------------------------------------------------------------------------


async def test_sync_registers_every_command_in_the_guild(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    out = await quizbot.sync(world.guild)

    assert f"Synced {len(COMMANDS)} commands to server {world.guild.id}" in out
    stored = {c["name"]: c for c in driver.commands(world.guild)}
    assert set(stored) == COMMANDS
    assert driver.commands() == []  # --guild: nothing global
    quiz_options = {o["name"]: o for o in stored["quiz"]["options"]}
    assert set(quiz_options) == {"topic", "difficulty", "task"}
    assert quiz_options["task"].get("autocomplete") is True
    # Moderator groups are hidden from members without Manage Server by default.
    for group, subs in {
        "schedule": {"add", "list", "remove", "pause", "resume"},
        "config": {"show", "timezone", "modrole", "posting", "cooldown", "language"},
        "bank": {"upload", "list", "download", "remove"},
        "insights": {"overview", "tasks"},
    }.items():
        assert int(stored[group]["default_member_permissions"]) == perm.MANAGE_GUILD
        assert {o["name"] for o in stored[group]["options"]} == subs


# ---- a choice task: post, answers, finishing, standings ---------------------------------------


@pytest.mark.parametrize(
    "quizbot_backend",
    ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)],
)
async def test_quiz_post_answers_and_standings(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", MC1)

    [embed] = post["embeds"]
    assert embed["title"] == "Multiple choice · MLOps"
    assert "main difference between data parallelism and model parallelism" in embed["description"]
    assert custom_ids(post) == [f"quiz:ans:{post_id}:{o}" for o in "ABCD"] + [
        f"quiz:hint:{post_id}"
    ]
    assert not is_ephemeral(post)

    # Right on the first try: private, with the points and the worked solution.
    right = await answer(driver, post, post_id, "A", world.alice)
    assert "✅ Right" in right and "**10** points on your first try" in right
    assert "Final answer" in right
    assert driver.ephemeral_messages(world.bob) == []  # nobody else sees it

    # Wrong: the note on that mistake, never the answer.
    wrong = await answer(driver, post, post_id, "B", world.bob)
    assert "Not quite" in wrong and "**2** attempts left" in wrong
    assert "Confusing which is split: data or model" in wrong
    for leak in (MC1_RIGHT_TEXT, "Option A", "Final answer", "Solution"):
        assert leak not in wrong

    # The same wrong answer again (a double click, a retry): not graded, no attempt used,
    # the note again.
    repeat = await answer(driver, post, post_id, "B", world.bob)
    assert "You already tried" in repeat and "didn't use an attempt" in repeat
    assert "**2** attempts left" in repeat
    assert "Confusing which is split: data or model" in repeat
    for leak in (MC1_RIGHT_TEXT, "Option A", "Final answer", "Solution"):
        assert leak not in repeat

    # Three misses: the third brings the solution.
    first = await answer(driver, post, post_id, "B", world.carol)
    second = await answer(driver, post, post_id, "C", world.carol)
    third = await answer(driver, post, post_id, "D", world.carol)
    assert "**2** attempts left" in first and "Final answer" not in first
    assert "**1** attempt left" in second and "Final answer" not in second
    assert "last attempt" in third and "Option A" in third and "Final answer" in third

    # Right on the second try (the repeat used none): two thirds of the points, rounded.
    again = await answer(driver, post, post_id, "A", world.bob)
    assert "**7** points" in again and "first try" not in again

    # After finishing, any click says so (and grades nothing).
    done = await answer(driver, post, post_id, "B", world.alice)
    assert "already finished" in done and "first try for **10** points" in done
    failed = await answer(driver, post, post_id, "A", world.carol)
    assert "already finished" in failed and "all 3 attempts are used" in failed

    rows = quizbot.query(
        "SELECT user_id, attempt_no, picks, correct FROM attempt WHERE post_id = ? "
        "ORDER BY user_id, attempt_no",
        post_id,
    )
    got = {(r["user_id"], r["attempt_no"], r["picks"], bool(r["correct"])) for r in rows}
    assert got == {
        (world.alice.id, 1, "A", True),
        (world.bob.id, 1, "B", False),
        (world.bob.id, 2, "A", True),
        (world.carol.id, 1, "B", False),
        (world.carol.id, 2, "C", False),
        (world.carol.id, 3, "D", False),
    }
    scores = {
        r["user_id"]: r["points"]
        for r in quizbot.query("SELECT user_id, points FROM score WHERE post_id = ?", post_id)
    }
    assert scores == {world.alice.id: 10, world.bob.id: 7, world.carol.id: 0}

    # The post's live counts follow (members, not attempts).
    # (The live message dict is edited in place; the last redraw may already be there.)
    await driver.world.changed.wait_for(
        lambda: post["embeds"][0]["footer"]["text"].startswith("3 answered · 2 solved"),
        STEP,
        "the post's counts to show 3 answered, 2 solved",
    )

    # Standings: the public leaderboard and private stats.
    board = await reply_of(
        driver.slash("leaderboard", user=world.dave, channel=world.channels["quiz"])
    )
    assert not is_ephemeral(board)
    board_text = text_of(board)
    assert "alice\u2069 · **10** pts · 1 solved" in board_text
    assert "bob\u2069 · **7** pts · 1 solved" in board_text
    assert board_text.index("alice") < board_text.index("bob")
    assert "carol" not in board_text  # no points, not ranked
    all_time = await reply_of(
        driver.slash(
            "leaderboard",
            user=world.alice,
            channel=world.channels["quiz"],
            options={"period": "all"},
        )
    )
    assert "alice\u2069 · **10** pts · 1 solved ← you" in text_of(all_time)

    stats = await reply_of(
        driver.slash(
            "stats", user=world.alice, channel=world.channels["quiz"], options={"member": world.bob}
        )
    )
    assert is_ephemeral(stats)
    fields = {f["name"]: f["value"] for f in stats["embeds"][0]["fields"]}
    assert "bob" in stats["embeds"][0]["title"]
    assert fields["Points"] == "7" and fields["Solved"] == "1 of 1 tried"
    topics = await reply_of(driver.slash("topics", user=world.erin, channel=world.channels["quiz"]))
    assert is_ephemeral(topics) and "MLOps" in text_of(topics) and "10 tasks" in text_of(topics)
    mine = await reply_of(driver.slash("stats", user=world.alice, channel=world.channels["quiz"]))
    mine_fields = {f["name"]: f["value"] for f in mine["embeds"][0]["fields"]}
    assert mine_fields["Points"] == "10" and mine_fields["First try"].startswith("1 ")


# ---- hints and solutions ---------------------------------------------------------------------


async def test_hint_and_solution_with_forfeit_confirmation(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", MC1)
    channel = world.channels["quiz"]

    # /hint without a task: the channel's latest post. It halves the points.
    hint = await reply_of(driver.slash("hint", user=world.dave, channel=channel))
    assert is_ephemeral(hint)
    assert MC1_HINT in text_of(hint) and "halved" in text_of(hint)
    assert "**5** points" in await answer(driver, post, post_id, "A", world.dave)

    # The 💡 button does the same.
    button = await reply_of(click(driver, post, f"quiz:hint:{post_id}", user=world.erin))
    assert is_ephemeral(button) and MC1_HINT in text_of(button)

    # /solution before finishing asks first: seeing it forfeits the attempts.
    prompt = await reply_of(
        driver.slash("solution", user=world.frank, channel=channel, options={"task": str(post_id)})
    )
    assert is_ephemeral(prompt)
    assert "You haven't finished" in prompt["content"]
    assert "Final answer" not in text_of(prompt)
    assert custom_ids(prompt) == [f"quiz:reveal:{post_id}"]
    confirmed = await reply_of(click(driver, prompt, f"quiz:reveal:{post_id}", user=world.frank))
    assert confirmed["id"] == prompt["id"]  # the prompt itself turns into the solution
    assert "no points" in confirmed["content"] and "Final answer" in text_of(confirmed)
    assert custom_ids(confirmed) == []
    after = await answer(driver, post, post_id, "A", world.frank)
    assert "already finished" in after and "opened the solution" in after

    # A member who already finished gets it straight away.
    direct = await reply_of(driver.slash("solution", user=world.dave, channel=channel))
    assert "Final answer" in text_of(direct) and custom_ids(direct) == []

    reveals = {
        (r["user_id"], r["kind"])
        for r in quizbot.query("SELECT user_id, kind FROM reveal WHERE post_id = ?", post_id)
    }
    assert reveals >= {
        (world.dave.id, "hint"),
        (world.erin.id, "hint"),
        (world.frank.id, "solution"),
    }
    [frank] = quizbot.query(
        "SELECT points, forfeited FROM score WHERE post_id = ? AND user_id = ?",
        post_id,
        world.frank.id,
    )
    assert frank["points"] == 0 and frank["forfeited"]


# ---- the private picker for fill tasks with several blanks ---------------------------------


async def open_picker(driver: Driver, post: Message, post_id: int, who: Member) -> Message:
    picker = await reply_of(click(driver, post, f"quiz:open:{post_id}", user=who))
    assert is_ephemeral(picker), picker
    return picker


async def pick(
    driver: Driver, picker: Message, post_id: int, blank: int, option: str, who: Member
) -> Message:
    custom_id = find_custom_id(picker, f"quiz:pick:{post_id}:{blank}:")
    updated = await reply_of(select(driver, picker, custom_id, [option], user=who))
    assert updated["id"] == picker["id"]  # the picker redraws itself
    return updated


async def submit(driver: Driver, picker: Message, post_id: int, who: Member) -> Message:
    custom_id = find_custom_id(picker, f"quiz:submit:{post_id}:")
    return await reply_of(click(driver, picker, custom_id, user=who))


@pytest.mark.parametrize("task", [FILL4, FILL5])
async def test_fill_picker_reports_the_wrong_blank_then_grades_right(
    driver: Driver, world: World, quizbot: QuizBotRunner, task: str
) -> None:
    await started(quizbot, world)
    post, post_id = await post_quiz(driver, quizbot, world, "fill", task)
    assert custom_ids(post) == [f"quiz:open:{post_id}", f"quiz:hint:{post_id}"]
    answers = ANSWERS[task]
    blanks = len(answers)
    empty = "-" * blanks

    picker = await open_picker(driver, post, post_id, world.alice)
    assert f"quiz:submit:{post_id}:{empty}" in custom_ids(picker)
    # Five selects and a button need one row more than a classic message has.
    assert bool(picker["flags"] & IS_COMPONENTS_V2) == (blanks > 4)
    for blank in range(1, blanks + 1):
        assert f"quiz:pick:{post_id}:{blank}:{empty}" in custom_ids(picker)

    # Submitting with blanks left empty uses no attempt.
    picker = await submit(driver, picker, post_id, world.alice)
    assert "first" in text_of(picker) and "no attempt was used" in text_of(picker)
    assert quizbot.query("SELECT * FROM attempt WHERE post_id = ?", post_id) == []

    # All right but the last blank.
    wrong_last = "B" if answers[-1] != "B" else "D"
    picks = [*answers[:-1], wrong_last]
    for blank, option in enumerate(picks, 1):
        picker = await pick(driver, picker, post_id, blank, option, world.alice)
    assert f"quiz:submit:{post_id}:{''.join(picks)}" in custom_ids(picker)
    picker = await submit(driver, picker, post_id, world.alice)
    shown = text_of(picker)
    assert f"[{blanks}] is wrong" in shown and "**2** attempts left" in shown
    assert "Wrong blanks" in shown
    assert "Final answer" not in shown and "Solution" not in shown
    # The right blanks are kept; the wrong one is cleared for the next try.
    kept = "".join(answers[:-1]) + "-"
    assert f"quiz:submit:{post_id}:{kept}" in custom_ids(picker)

    picker = await pick(driver, picker, post_id, blanks, answers[-1], world.alice)
    picker = await submit(driver, picker, post_id, world.alice)
    assert "✅ Right, every blank!" in text_of(picker)
    assert "**20** points" in text_of(picker)  # hard: 30 × 2/3 for one wrong try
    assert not [c for c in custom_ids(picker) if c.startswith("quiz:")]

    rows = quizbot.query(
        "SELECT attempt_no, picks, correct FROM attempt WHERE post_id = ? AND user_id = ? "
        "ORDER BY attempt_no",
        post_id,
        world.alice.id,
    )
    assert [(r["attempt_no"], r["picks"], bool(r["correct"])) for r in rows] == [
        (1, ",".join(picks), False),
        (2, ",".join(answers), True),
    ]
    # Opening the picker again after finishing says so instead.
    again = await open_picker(driver, post, post_id, world.alice)
    assert "already finished" in text_of(again)


# ---- a restart in the middle ------------------------------------------------------------------


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["sigkill", "sigterm"])
async def test_buttons_posted_before_a_restart_still_answer(
    driver: Driver, world: World, quizbot: QuizBotRunner, sig: int
) -> None:
    await started(quizbot, world)
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", MC2)
    fill, fill_id = await post_quiz(driver, quizbot, world, "fill", FILL4)
    assert "✅ Right" in await answer(driver, post, post_id, "D", world.alice)
    assert "Not quite" in await answer(driver, post, post_id, "A", world.bob)
    # Carol is half-way through a picker the old process drew.
    picker = await open_picker(driver, fill, fill_id, world.carol)
    picker = await pick(driver, picker, fill_id, 1, "A", world.carol)

    first = quizbot.current
    await quizbot.restart(sig)
    assert driver.identify_count == 2 and first.returncode is not None
    if sig == signal.SIGTERM:
        assert first.returncode == 0  # a clean shutdown
        assert "closed" in first.log_tail(5)

    done = await answer(driver, post, post_id, "A", world.alice)
    assert "already finished" in done and "**10** points" in done
    # Bob's wrong try survived the restart: right now is his second try.
    assert "**7** points" in await answer(driver, post, post_id, "D", world.bob)
    fresh = await answer(driver, post, post_id, "D", world.dave)
    assert "✅ Right" in fresh and "first try" in fresh
    # The old ephemeral picker carries its state in its custom_ids.
    picker = await pick(driver, picker, fill_id, 2, "C", world.carol)
    picker = await submit(driver, picker, fill_id, world.carol)
    assert "✅ Right, every blank!" in text_of(picker)
    # The hint button too.
    hint = await reply_of(click(driver, fill, f"quiz:hint:{fill_id}", user=world.erin))
    assert "Hint" in text_of(hint)

    counts = {
        r["user_id"]: r["n"]
        for r in quizbot.query(
            "SELECT user_id, COUNT(*) AS n FROM attempt WHERE post_id = ? GROUP BY user_id",
            post_id,
        )
    }
    assert counts == {world.alice.id: 1, world.bob.id: 2, world.dave.id: 1}


# ---- moderator commands ----------------------------------------------------------------------


def raw_schedule_add(driver: Driver, world: World, who: Member, channel: Channel) -> dict:
    """/schedule add as a hand-made payload: Discord's client would hide the command from a
    member without Manage Server (default_member_permissions), but a crafted interaction
    still reaches the bot; `member.permissions` tells it what Discord computed."""
    from fakediscord import payloads

    member_perms = driver.world.member_permissions(channel, who.id)
    assert not member_perms & (perm.MANAGE_GUILD | perm.ADMINISTRATOR)
    options = [
        {
            "type": 1,
            "name": "add",
            "options": [
                {"type": 7, "name": "channel", "value": str(channel.id)},
                {"type": 3, "name": "time", "value": "09:00"},
            ],
        }
    ]
    channels = {str(channel.id): payloads.channel(channel, driver.world, permissions=member_perms)}
    return raw_command(driver, world, who, channel, "schedule", options, {"channels": channels})


async def test_non_moderator_is_refused_schedule_add_even_by_raw_payload(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    channel = world.channels["daily"]

    record = driver.send_raw_interaction(raw_schedule_add(driver, world, world.alice, channel))
    reply = await reply_of(record)
    assert is_ephemeral(reply)
    assert "Only moderators" in reply["content"]
    assert quizbot.query("SELECT * FROM schedule") == []

    # The same command from the owner (Manage Server) is stored: the refusal was the check.
    ok = await reply_of(
        driver.slash(
            "schedule add",
            user=world.owner,
            channel=channel,
            options={"channel": channel, "time": "09:00"},
        )
    )
    assert "Scheduled **#1**" in ok["content"], ok
    assert len(quizbot.query("SELECT * FROM schedule")) == 1


# ---- the daily scheduler ---------------------------------------------------------------------

DB_TIME = "%Y-%m-%d %H:%M:%S.%f"
"""How SQLAlchemy stores a naive DateTime in SQLite."""


def db_time(value: str) -> datetime:
    return datetime.fromisoformat(value)


async def test_scheduled_post_goes_out_on_time_and_closes_with_the_summary(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    """The scheduler runs on the wall clock (no test hook), so the test moves the database
    instead: a schedule whose time passed a minute ago is owed now (within the grace window),
    and a run moved back a day is due to close, which also makes today's run post."""
    await started(quizbot, world)
    channel = world.channels["daily"]
    at = (datetime.now(UTC) - timedelta(minutes=1)).strftime("%H:%M")
    added = await reply_of(
        driver.slash(
            "schedule add",
            user=world.owner,
            channel=channel,
            options={
                "channel": channel,
                "time": at,
                "timezone": "UTC",
                "difficulty": "easy",
                "topic": "MLOps",  # whose easy tasks all have option buttons, A to D
            },
        )
    )
    assert is_ephemeral(added) and "Scheduled **#1**" in added["content"], added
    # Added after today's time: nothing is owed before tomorrow.
    assert quizbot.query("SELECT * FROM schedule_run") == []

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

    daily = await driver.wait_for_message(
        channel, lambda m: "Daily quiz" in (m.get("content") or ""), timeout=30
    )
    [run] = await quizbot.wait_for_query(
        "SELECT * FROM schedule_run WHERE status != 'claimed'", timeout=STEP
    )
    assert run["status"] == "posted" and run["closes_at"] is not None
    [post] = quizbot.query("SELECT * FROM post WHERE id = ?", int(run["post_ids"]))
    assert post["message_id"] == int(daily["id"]) and post["posted_by"] is None
    post_id, task = int(post["id"]), post["task_id"]
    right, wrong = ANSWERS[task][0], wrong_option(task)
    assert f"quiz:ans:{post_id}:{right}" in custom_ids(daily)
    assert "Closes" in [f["name"] for f in daily["embeds"][0]["fields"]]

    assert "✅ Right" in await answer(driver, daily, post_id, right, world.alice)
    assert "Not quite" in await answer(driver, daily, post_id, wrong, world.bob)
    assert "✅ Right" in await answer(driver, daily, post_id, right, world.bob)
    assert "Not quite" in await answer(driver, daily, post_id, wrong, world.carol)
    for option in [wrong, *(o for o in "ABCD" if o not in (right, wrong))]:
        await answer(driver, daily, post_id, option, world.dave)

    # The next day: move this run back a day, so that it closes now and today's run is owed.
    await quizbot.kill(signal.SIGTERM)
    scheduled_for = db_time(run["scheduled_for"])
    with quizbot.db() as conn:
        conn.execute(
            "UPDATE schedule_run SET local_date = ?, scheduled_for = ?, closes_at = ?, "
            "claimed_at = ?, posted_at = ? WHERE id = ?",
            (
                (date.fromisoformat(run["local_date"]) - timedelta(days=1)).isoformat(),
                (scheduled_for - timedelta(days=1)).strftime(DB_TIME),
                scheduled_for.strftime(DB_TIME),
                (db_time(run["claimed_at"]) - timedelta(days=1)).strftime(DB_TIME),
                (db_time(run["posted_at"]) - timedelta(days=1)).strftime(DB_TIME),
                run["id"],
            ),
        )
        conn.execute(
            "UPDATE post SET closes_at = ? WHERE id = ?", (scheduled_for.strftime(DB_TIME), post_id)
        )
        conn.commit()
    await quizbot.start()

    closed = await driver.world.changed.wait_for(
        lambda: daily if "closed" in (daily.get("content") or "") else None,
        30,
        "the daily post to be closed with its summary",
    )
    summary = closed["content"]
    assert summary.startswith("📅 **Daily quiz**") and "· closed" in summary
    assert f"**Answer:** {right} · " in summary
    assert "**4** answered · **2** solved · **1** on the first try" in summary
    assert (
        f"**Top answerers:** 1. <@{world.alice.id}> (first try) 2. <@{world.bob.id}> (2 tries)"
        in (summary)
    )
    assert "**Common mistakes:**" in summary and f"75% picked {wrong}" in summary
    assert closed["embeds"][0]["footer"]["text"].startswith("4 answered · 2 solved · closed")
    # The buttons stay, and now say the quiz has closed.
    late = await answer(driver, daily, post_id, right, world.erin)
    assert "closed" in late and "✅" not in late

    # And the next day's quiz went out as a new post.
    today = await driver.wait_for_message(
        channel, lambda m: "Daily quiz" in (m.get("content") or ""), after=daily, timeout=30
    )
    assert today["id"] != daily["id"]
    runs = await quizbot.wait_for_query(
        "SELECT status, closed_at FROM schedule_run ORDER BY local_date",
        until=lambda rows: len(rows) == 2 and rows[1]["status"] != "claimed",
    )
    assert [r["status"] for r in runs] == ["posted", "posted"]
    assert runs[0]["closed_at"] is not None and runs[1]["closed_at"] is None
    assert len(quizbot.query("SELECT * FROM attempt WHERE post_id = ?", post_id)) == 7
