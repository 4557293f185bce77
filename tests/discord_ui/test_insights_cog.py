"""/insights through the real command tree, from raw interaction payloads (the shared
`Driver`): who may see it, where it goes, and the figures it shows."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

import discord
import pytest

from bot import rendering
from bot.discord_ui.client import QuizBot
from bot.discord_ui.cogs.insights import insights_embed
from bot.reports import insights
from bot.reports.insights import HardTask, Insights, InsightsPeriod, TaskMisconceptions
from bot.reports.summary import Misconception
from bot.store import AnswerRequest, PostInfo
from bot.store import posts as posts_unit
from bot.store.insights import DayActivity, TaskActivity, WindowActivity, WrongPick
from tests.discord_ui.conftest import COMMAND, Driver, choice_task
from tests.discord_ui.fakes import (
    ALICE,
    BOB,
    CHANNEL_ID,
    GUILD_ID,
    MOD,
    Call,
    FakeDiscordHTTP,
    Member,
    interaction_payload,
)
from tests.discord_ui.test_schedule_cog import cache_guild
from tests.store_calls import answer, create_post, read, write

NOW = datetime(2025, 3, 12, 15, 0, tzinfo=UTC)  # a Wednesday
SUB_COMMAND, STRING, BOOLEAN = 1, 3, 5
REFUSED = "Only moderators can do that"
TUTORS = 555
TUTOR = Member(444, "tutor", roles=(TUTORS,))


def insights_data(**options: Any) -> dict[str, Any]:
    opts = [
        {"name": name, "type": BOOLEAN if isinstance(value, bool) else STRING, "value": value}
        for name, value in options.items()
    ]
    overview = {"name": "overview", "type": SUB_COMMAND, "options": opts}
    return {"id": "1", "name": "insights", "type": 1, "options": [overview]}


async def run(driver: Driver, fake: FakeDiscordHTTP, member: Member, **options: Any) -> Call:
    payload = interaction_payload(fake, kind=COMMAND, data=insights_data(**options), member=member)
    return await driver.one_reply(payload)


@pytest.fixture
def seeded(bot: QuizBot) -> QuizBot:
    """Yesterday's post of mc-split (right: B): alice misses with A then solves, bob misses
    with A and C (clicking A twice: the repeat is not graded, so not counted), the moderator
    is right at once."""
    bot.service.clock = lambda: NOW
    store = bot.service.store
    yesterday = NOW - timedelta(days=1)
    post = create_post(store, GUILD_ID, CHANNEL_ID, choice_task(), now=yesterday)
    for member, pick in (
        (ALICE, "A"),
        (ALICE, "B"),
        (BOB, "A"),
        (BOB, "A"),
        (BOB, "C"),
        (MOD, "B"),
    ):
        request = AnswerRequest(post.id, GUILD_ID, member.id, member.name, (pick,))
        answer(store, request, yesterday)
    return bot


def fields(call: Call) -> dict[str, str]:
    (embed,) = call.data["embeds"]
    return {f["name"]: f["value"] for f in embed["fields"]} | {"title": embed["title"]}


async def test_a_moderator_sees_the_figures_privately(
    seeded: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    reply = await run(driver, fake, MOD)
    assert reply.ephemeral
    shown = fields(reply)
    assert shown["title"] == "🔎 Insights · the last 7 days"
    assert (
        "(`mc-split`): 33% first try · 1/3 first try · 2 solved"
        in (shown["Hardest tasks (lowest first-try rate)"])
    )
    mistakes = shown["Misconceptions (a fifth or more of a task's answerers)"].splitlines()
    assert mistakes[1:] == [
        "• 67% picked A — Model parallelism splits the model itself.",
        "• 33% picked C — Flushing is about pipeline bubbles.",
    ]
    participation = shown["Participation"]
    assert "**3** members · **5** attempts · busiest Tue 11 Mar" in participation
    assert "`Tue 11 Mar` 3 members · 5 attempts" in shown["Per day"]
    assert fake.posts() == []


async def test_post_true_shows_it_to_the_channel(
    seeded: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    reply = await run(driver, fake, MOD, period="month", post=True)
    assert not reply.ephemeral
    shown = fields(reply)
    assert shown["title"] == "🔎 Insights · the last 30 days"
    assert "Per day" not in shown  # a month is the sparkline alone
    assert "**3** members" in shown["Participation"]


@pytest.mark.parametrize("options", [{}, {"post": True}, {"period": "month", "post": True}])
async def test_a_non_moderators_raw_payload_is_refused_privately(
    seeded: QuizBot, driver: Driver, fake: FakeDiscordHTTP, options: dict[str, Any]
) -> None:
    """ALICE lacks Manage Server: the client would hide the command, a raw payload does not."""
    reply = await run(driver, fake, ALICE, **options)
    assert reply.ephemeral
    assert REFUSED in reply.text
    assert not reply.data.get("embeds")
    assert fake.posts() == []


async def test_the_mod_role_counts_once_configured(
    seeded: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    cache_guild(seeded)  # the server's roles, as GUILD_CREATE delivers them
    assert REFUSED in (await run(driver, fake, TUTOR)).text
    await seeded.service.update_guild_config(GUILD_ID, mod_role_id=TUTORS)
    reply = await run(driver, fake, TUTOR)
    assert reply.ephemeral and fields(reply)["title"].startswith("🔎 Insights")


async def test_a_forged_period_is_refused_privately(
    seeded: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    reply = await run(driver, fake, MOD, period="year")
    assert reply.ephemeral
    assert "period" in reply.text and not reply.data.get("embeds")


async def test_shown_to_moderators_in_servers_only(bot: QuizBot) -> None:
    group = bot.tree.get_command("insights")
    assert isinstance(group, discord.app_commands.Group)
    assert group.default_permissions == discord.Permissions(manage_guild=True)
    assert group.guild_only
    assert sorted(c.name for c in group.commands) == ["overview", "tasks"]
    command = group.get_command("overview")
    assert isinstance(command, discord.app_commands.Command)
    period = next(p for p in command.to_dict(bot.tree)["options"] if p["name"] == "period")
    assert [c["value"] for c in period["choices"]] == ["week", "month"]


# -- the embed within Discord's limits -----------------------------------------------------

NOTE = (
    "Batch size controls how many samples are processed together; it does not split the "
    "dataset into `train` and `test` parts, which is what **split** does."
)
WEEK = [date(2025, 3, 6) + timedelta(days=n) for n in range(7)]


def report(
    misconceptions: tuple[TaskMisconceptions, ...] = (), hardest: tuple[HardTask, ...] = ()
) -> Insights:
    days = tuple(DayActivity(day, n % 3, 2 * n) for n, day in enumerate(WEEK))
    return Insights(InsightsPeriod.WEEK, WEEK[0], WEEK[-1], 4, hardest, misconceptions, days)


def mistaken(n: int, labels: str = "AC", note: str = NOTE) -> TaskMisconceptions:
    found = tuple(Misconception(label, "x", 3, 10, (note,)) for label in labels)
    return TaskMisconceptions(f"task-{n}", f"Multiple choice · Data preparation {n}", found)


def checked_fields(shown: Insights) -> list[dict[str, Any]]:
    """The embed's fields, after checking every limit and that no markup is left open."""
    embed = insights_embed(shown).to_dict()
    fields = embed["fields"]
    assert len(fields) <= rendering.EMBED_FIELDS
    assert rendering.embeds_size([embed]) <= rendering.EMBED_TOTAL
    for field in fields:
        assert rendering.discord_len(field["value"]) <= rendering.EMBED_FIELD_VALUE
        for line in field["value"].splitlines():
            assert line.count("**") % 2 == 0 and line.count("`") % 2 == 0, line
    # What Discord gets is what we built: the send path has nothing left to cut.
    assert rendering.fit_message(None, [embed])[1] == [embed]
    return fields


def test_eight_tasks_with_long_notes_all_show_over_several_fields() -> None:
    fields = checked_fields(report(tuple(mistaken(n) for n in range(8))))
    shown = "\n".join(f["value"] for f in fields if f["name"].startswith("Misconceptions"))
    for n in range(8):
        assert f"**Multiple choice · Data preparation {n}** (`task-{n}`)" in shown
    assert shown.count(NOTE) == 16  # every note in full
    assert "more task" not in shown
    assert [f["name"] for f in fields][-2:] == ["Participation", "Per day"]


def test_tasks_that_do_not_fit_are_counted() -> None:
    long_note = NOTE + " " + NOTE[:80]
    fields = checked_fields(report(tuple(mistaken(n, "ACDE", long_note) for n in range(8))))
    mistakes = [f["value"] for f in fields if f["name"].startswith("Misconceptions")]
    shown = sum(f"(`task-{n}`)" in "\n".join(mistakes) for n in range(8))
    assert 0 < shown < 8
    hidden = 8 - shown
    assert mistakes[-1].splitlines()[-1] == f"+{hidden} more task{'s' if hidden > 1 else ''}"


def test_a_task_too_long_for_a_field_shortens_its_notes_not_its_markup() -> None:
    (field,) = [
        f
        for f in checked_fields(report((mistaken(1, "ABCDEFGH"),)))
        if f["name"].startswith("Misconceptions")
    ]
    lines = field["value"].splitlines()
    assert lines[0] == "**Multiple choice · Data preparation 1** (`task-1`)"
    assert [line[:16] for line in lines[1:]] == [f"• 30% picked {c} —" for c in "ABCDEFGH"]
    assert all(line.endswith("…") for line in lines[1:])


def test_hardest_tasks_with_long_titles_all_show() -> None:
    title = "Multiple choice · " + "Distributed training " * 11
    hardest = tuple(HardTask(f"task-{n}", f"{title}{n}", 5, 2, 1) for n in range(5))
    fields = checked_fields(report(hardest=hardest))
    shown = "\n".join(f["value"] for f in fields if f["name"].startswith("Hardest"))
    assert all(f"{n + 1}. **{title}{n}** (`task-{n}`)" in shown for n in range(5))


async def test_posted_insights_keep_an_open_tasks_wrong_options_to_themselves(
    seeded: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    """mc-split is still open on its post: shown to the channel, its misconceptions would
    tell every member who has not answered yet that A and C are wrong."""
    public = fields(await run(driver, fake, MOD, post=True))
    mistakes = public["Misconceptions (a fifth or more of a task's answerers)"]
    assert "picked" not in mistakes
    assert "still open" in mistakes
    assert "mc-split" in public["Hardest tasks (lowest first-try rate)"]  # no answer in it

    private = fields(await run(driver, fake, MOD))
    assert "67% picked A" in private["Misconceptions (a fifth or more of a task's answerers)"]

    post = read(seeded.service.store, posts_unit.latest_post, GUILD_ID, CHANNEL_ID)
    assert post is not None
    write(seeded.service.store, posts_unit.close_post, post.id, NOW)
    closed = fields(await run(driver, fake, MOD, post=True))
    assert "67% picked A" in closed["Misconceptions (a fifth or more of a task's answerers)"]


def test_the_tasks_left_out_are_counted_below_those_shown() -> None:
    shown = replace(report((mistaken(1),)), withheld=2)
    (mistakes,) = [f for f in checked_fields(shown) if f["name"].startswith("Misconceptions")]
    assert "picked A" in mistakes["value"]
    assert mistakes["value"].endswith(
        "Left out while still open for answers: 2 tasks (use /insights without `post` to see them)."
    )


def test_tasks_beyond_the_misconceptions_shown_are_counted_too() -> None:
    """Ten tasks with a misconception: the report keeps the most common eight
    (MISCONCEPTIONS_SHOWN); the embed must not pass the other two over in silence."""
    posts = [
        PostInfo(
            id=n,
            guild_id=GUILD_ID,
            channel_id=CHANNEL_ID,
            message_id=None,
            task_id=f"task-{n}",
            posted_by=None,
            posted_at=NOW - timedelta(days=1),
            schedule_id=None,
            closes_at=None,
            closed_at=None,
            task_version_id=None,
            task=None,
        )
        for n in range(10)
    ]
    tasks = {n: replace(choice_task(), id=f"task-{n}") for n in range(10)}
    days = tuple(DayActivity(day, 4, 4) for day in WEEK)
    activity = WindowActivity(
        WEEK[0],
        WEEK[-1],
        tuple(TaskActivity(f"task-{n}", 4, 3, 3) for n in range(10)),
        tuple(WrongPick(n, ALICE.id, ("A",)) for n in range(10)),
        {p.id: p for p in posts},
        days,
        members=4,
    )
    built = insights.build("week", activity, tasks)
    assert len(built.misconceptions) == insights.MISCONCEPTIONS_SHOWN
    mistakes = "\n".join(
        f["value"] for f in checked_fields(built) if f["name"].startswith("Misconceptions")
    )
    assert mistakes.count("25% picked A") == insights.MISCONCEPTIONS_SHOWN
    assert mistakes.splitlines()[-1] == "+2 more tasks"
