"""Issue 26, class 11, through real discord.py objects: a review or practice reply tells the
truth about the attempt, names its points as private, and says what the answer did to the
review card and when it comes back, as Discord timestamps of the card the answer stored."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from bot.discord_ui import picker
from bot.discord_ui.client import QuizBot
from bot.discord_ui.cogs.standings import stats_embed
from bot.quiz import engine
from bot.quiz.engine import Progress
from bot.quiz.review import CardUpdate, ReviewRating
from bot.store.stats import MemberStats
from tests.discord_ui.conftest import Driver, fill_two_task
from tests.discord_ui.fakes import ALICE, EPHEMERAL, GUILD_ID, FakeDiscordHTTP
from tests.store_calls import review_card
from tests.test_render_limits import posted_of


def stamp(text: str, style: str) -> int:
    found = re.search(rf"<t:(\d+):{style}>", text)
    assert found is not None, text
    return int(found[1])


async def test_a_right_review_after_three_public_misses_says_it_was_not_a_first_try(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    post = await driver.post("mc-split")
    for pick in ("A", "C", "D"):  # three misses: finished, and due for review at once
        await driver.click(post, rf"quiz:ans:\d+:{pick}")
    missed = fake.last_reply().text
    assert "Review card rated **Again**" not in missed  # a public post's reply is unchanged

    payload = await driver.command("review")
    await driver.click(fake.response_to(payload), r"quiz:ans:\d+:B")
    reply = fake.last_reply()
    assert reply.flags & EPHEMERAL
    first_line, card_line = reply.data["content"].split("\n")
    assert "first try" not in first_line.replace("not a first try", "")
    assert first_line == (
        "✅ Right, **B · data parallelism** it is! You earned **10** practice points (private: "
        "they count in your /stats, never on the leaderboard) on your first attempt in this "
        "review (you've answered this task before, so not a first try)."
    )
    card = review_card(bot.service.store, GUILD_ID, ALICE.id, "mc-split")
    assert card is not None
    due = int(card.due.timestamp())
    assert card_line.startswith("🔁 Review card rated **Good**")
    assert stamp(card_line, "R") == due and stamp(card_line, "f") == due


async def test_a_practice_reply_names_private_points_and_the_cards_next_due(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    payload = await driver.command("practice", topic="MLOps")
    message = fake.response_to(payload)
    footer = message["embeds"][0]["footer"]["text"]
    task_id = footer.split()[-1]
    task = bot.service.catalog.get_or_raise(task_id)
    wrong = next(o.label for o in task.options if o.label not in task.answers)
    await driver.click(message, rf"quiz:ans:\d+:{wrong}")
    missed = fake.last_reply().data["content"]
    assert "Review card" not in missed  # not finished: the card is not rated yet
    await driver.click(message, rf"quiz:ans:\d+:{task.answers[0]}")
    content = fake.last_reply().data["content"]
    assert "practice points (private: they count in your /stats, never on the leaderboard)" in (
        content
    )
    assert "on your second attempt in this practice" in content
    card = review_card(bot.service.store, GUILD_ID, ALICE.id, task_id)
    assert card is not None
    assert "Review card rated **Again** (a miss, or the solution opened first)" in content
    assert stamp(content, "f") == int(card.due.timestamp())


async def test_a_failed_review_says_it_is_due_again_at_once(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    post = await driver.post("mc-split")
    for pick in ("A", "C", "D"):
        await driver.click(post, rf"quiz:ans:\d+:{pick}")
    payload = await driver.command("review")
    review = fake.response_to(payload)
    for pick in ("A", "C", "D"):
        await driver.click(review, rf"quiz:ans:\d+:{pick}")
    content = fake.last_reply().data["content"]
    assert "That was your last attempt" in content
    card = review_card(bot.service.store, GUILD_ID, ALICE.id, "mc-split")
    assert card is not None
    assert "Review card rated **Again**" in content and "due again right away" in content
    assert stamp(content, "f") == int(card.due.timestamp())


def test_the_pickers_private_outcome_says_the_same() -> None:
    task = fill_two_task()
    due = datetime(2026, 3, 4, 9, 0, tzinfo=UTC)
    outcome = engine.grade(task, Progress(), task.answers)
    card = CardUpdate(ReviewRating.GOOD, due)
    screen = picker.outcome_screen(posted_of(task, private=True), {1: "A", 2: "C"}, outcome, card)
    assert "**30** practice points (private: they count in your /stats, never" in screen.content
    assert "rated **Good** (right at the first attempt, without the hint): it comes back " in (
        screen.content
    )
    assert f"<t:{int(due.timestamp())}:R>" in screen.content
    public = picker.outcome_screen(posted_of(task), {1: "A", 2: "C"}, outcome, card)
    assert "practice" not in public.content and "<t:" not in public.content


async def test_opening_a_practice_solution_first_says_the_card_comes_back_at_once(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    payload = await driver.command("practice", topic="MLOps")
    click = await driver.click(fake.response_to(payload), r"quiz:sol:\d+")
    await driver.click(fake.response_to(click), r"quiz:reveal:\d+")
    content = fake.last_reply().data["content"]
    task_id = fake.response_to(payload)["embeds"][0]["footer"]["text"].split()[-1]
    card = review_card(bot.service.store, GUILD_ID, ALICE.id, task_id)
    assert card is not None
    assert "Review card rated **Again**" in content and "due again right away" in content
    assert stamp(content, "f") == int(card.due.timestamp())


def test_stats_names_practice_points_apart_from_the_boards() -> None:
    """/stats said "Points" for public and practice points together: a member read practice
    points as points on the leaderboard."""
    stats = MemberStats(
        3, 3, 2, 2 / 3, points=10, practice_points=20, streak_days=1, last_active=None
    )
    fields = {f.name: f.value for f in stats_embed("ada", stats).fields}
    assert fields["Points"] == "10"
    assert fields["Practice points (private)"] == "20"
    quiet = MemberStats(1, 1, 1, 1.0, points=10, practice_points=0, streak_days=1, last_active=None)
    assert "Practice points (private)" not in {f.name for f in stats_embed("ada", quiet).fields}
