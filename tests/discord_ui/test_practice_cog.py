"""/practice and /review through real discord.py objects: every response is private, nothing
is sent to the channel, Next moves on, and clicks by others or after the idle limit are
refused."""

from __future__ import annotations

import re
from datetime import timedelta

from bot.clock import utcnow
from bot.discord_ui.client import QuizBot
from bot.quiz.errors import StoreAction
from bot.store import answers, reminders
from bot.store.answers import save_cards
from bot.store.review_cards import StoredCard
from tests.discord_ui.conftest import Driver
from tests.discord_ui.fakes import (
    ALICE,
    BOB,
    CHANNEL_ID,
    EPHEMERAL,
    GUILD_ID,
    FakeDiscordHTTP,
    find_component,
    walk,
)
from tests.store_calls import write


def custom_ids(message: dict[str, object]) -> list[str]:
    components = walk(message.get("components") or [])  # type: ignore[arg-type]
    return [c["custom_id"] for c in components if "custom_id" in c]


async def test_practice_is_private_and_next_moves_on(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    payload = await driver.command("practice", topic="MLOps")
    reply = fake.last_reply()
    assert reply.flags & EPHEMERAL
    assert "Private practice" in reply.text
    message = fake.response_to(payload)
    ids = custom_ids(message)
    assert any(i.startswith("quiz:next:") for i in ids)
    first_task = message["embeds"][0]["footer"]["text"]
    assert "no leaderboard points" in first_task

    # Answer it: the same outcome texts as a post, privately.
    answer = next(i for i in ids if i.startswith("quiz:ans:"))
    await driver.click(message, answer.replace(":", r"\:"))
    assert fake.last_reply().flags & EPHEMERAL

    await driver.click(message, r"quiz:next:\d+:\d+")
    step = fake.last_reply()
    assert step.flags & EPHEMERAL
    assert "Practice task 2" in step.text
    # Two MLOps tasks: the third Next ends the session with its summary.
    second = fake.messages[fake.interaction_message[max(fake.interaction_message)]]
    await driver.click(second, r"quiz:next:\d+:\d+")
    assert "Practice session over" in fake.last_reply().text
    assert fake.channel_posts == [] and fake.posts() == []  # nothing ever reached the channel
    assert fake.edits() == []


async def test_others_and_idle_clicks_are_refused(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    payload = await driver.command("practice", topic="MLOps")
    message = fake.response_to(payload)
    answer = next(i for i in custom_ids(message) if i.startswith("quiz:ans:"))
    await driver.click(message, answer.replace(":", r"\:"), member=BOB)
    refusal = fake.last_reply()
    assert refusal.flags & EPHEMERAL
    assert "another member's private practice" in refusal.text

    later = utcnow() + timedelta(minutes=31)
    bot.service.clock = lambda: later
    await driver.click(message, answer.replace(":", r"\:"))
    expired = fake.last_reply()
    assert expired.flags & EPHEMERAL
    assert expired.text == (
        "This practice session ended after 30 minutes without activity. /practice starts a new one."
    )
    await driver.click(message, r"quiz:next:\d+:\d+")
    assert "ended after 30 minutes" in fake.last_reply().text
    assert fake.channel_posts == []


async def test_review_with_nothing_due_says_so(driver: Driver, fake: FakeDiscordHTTP) -> None:
    await driver.command("review")
    reply = fake.last_reply()
    assert reply.flags & EPHEMERAL
    assert reply.text.startswith("No reviews are due right now.")
    assert fake.channel_posts == []


async def test_review_tells_once_that_closed_dms_turned_reminders_off(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    store = bot.service.store
    write(
        store,
        reminders.turn_on,
        GUILD_ID,
        ALICE.id,
        hour=7,
        timezone=None,
        default_hour=18,
        action=StoreAction.CHANGE,
    )
    write(store, reminders.dms_closed, GUILD_ID, ALICE.id, utcnow())
    await driver.command("review")
    first = fake.last_reply()
    assert first.flags & EPHEMERAL
    assert first.text.startswith("🔕 Your daily review reminders were turned off")
    assert "No reviews are due right now." in first.text
    await driver.command("review")
    assert fake.last_reply().text.startswith("No reviews are due right now.")


async def test_a_practice_task_has_a_solution_button_that_asks_first(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    payload = await driver.command("practice", topic="MLOps")
    message = fake.response_to(payload)
    post_id = int(next(i for i in custom_ids(message) if i.startswith("quiz:sol:")).split(":")[2])
    click = await driver.click(message, r"quiz:sol:\d+")
    prompt = fake.last_reply()
    assert prompt.flags & EPHEMERAL
    assert "haven't finished" in prompt.text
    assert not (await bot.service.run_read(answers.read_progress, post_id, ALICE.id)).finished

    await driver.click(fake.response_to(click), r"quiz:reveal:\d+")
    assert (await bot.service.run_read(answers.read_progress, post_id, ALICE.id)).forfeited
    assert fake.channel_posts == []


async def test_hint_and_solution_typed_in_a_session_mean_its_task_not_the_public_post(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    public = await driver.post("mc-split", member=BOB)
    public_id = int(find_component(public, r"quiz:hint:\d+")["custom_id"].split(":")[2])
    payload = await driver.command("practice", topic="MLOps")
    private_id = int(
        next(i for i in custom_ids(fake.response_to(payload)) if i.startswith("quiz:hint:")).split(
            ":"
        )[2]
    )
    assert private_id != public_id

    await driver.command("hint")
    assert fake.last_reply().flags & EPHEMERAL
    assert (await bot.service.run_read(answers.read_progress, private_id, ALICE.id)).hint_seen
    assert not (
        await bot.service.run_read(answers.read_progress, public_id, ALICE.id)
    ).hint_seen  # no points lost
    await driver.command("solution")
    assert "haven't finished" in fake.last_reply().text
    assert fake.last_reply().custom_ids() == [f"quiz:reveal:{private_id}"]

    # Once the session has ended by idling, the channel's latest post is the default again.
    later = utcnow() + timedelta(minutes=31)
    bot.service.clock = lambda: later
    await driver.command("hint")
    assert (await bot.service.run_read(answers.read_progress, public_id, ALICE.id)).hint_seen


async def test_a_second_next_on_the_same_task_skips_nothing(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    payload = await driver.command("practice", topic="MLOps")
    first = fake.response_to(payload)
    await driver.click(first, r"quiz:next:\d+:\d+")
    assert "Practice task 2" in fake.last_reply().text
    await driver.click(first, r"quiz:next:\d+:\d+")  # the first message's Next again
    refused = fake.last_reply()
    assert refused.flags & EPHEMERAL
    assert refused.text.startswith("This session has moved on from that task")
    session_id = int(find_component(first, r"quiz:next:\d+:\d+")["custom_id"].split(":")[2])
    summary = await bot.service.sessions.next(session_id, GUILD_ID, 0, ALICE.id)
    assert summary.summary is not None and summary.summary.served == 2  # none was skipped


async def test_practice_with_every_task_withheld_links_the_posts_to_answer_first(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    for task in ("mc-split", "fill-one"):  # the MLOps bank, both open and unanswered
        await driver.post(task, member=BOB)
    await driver.command("practice", topic="MLOps")
    reply = fake.last_reply()
    assert reply.flags & EPHEMERAL
    assert reply.text.startswith("Every matching task is open on a public post here")
    links = re.findall(r"https://discord\.com/channels/(\d+)/(\d+)/(\d+)", reply.text)
    assert len(links) == 2 and all(int(g) == GUILD_ID for g, _, _ in links)
    assert {int(m) for _, _, m in links} <= set(fake.messages)  # real messages of the posts
    assert len(fake.channel_posts) == 2  # the two posts: nothing private reached the channel


async def test_every_task_withheld_by_posts_without_a_message_reads_without_links(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    # Both MLOps tasks open on public posts whose message is not (yet) known: the post is
    # stored before its message is sent, and a crash in between leaves it without one.
    for task in ("mc-split", "fill-one"):
        await bot.service.create_post(
            GUILD_ID, CHANNEL_ID, bot.service.catalog.get_or_raise(task), BOB.id
        )
    await driver.command("practice", topic="MLOps")
    reply = fake.last_reply()
    assert reply.flags & EPHEMERAL
    assert reply.text == (
        "Every matching task is open on a public post here that you haven't finished. "
        "Answer those first: practising a task in private would give its answer away."
    )
    assert "Start with" not in reply.text and "discord.com/channels" not in reply.text
    assert fake.channel_posts == []


async def test_review_says_when_due_reviews_wait_for_open_public_posts(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    # A review of mc-split due (from a private miss, say): it waits while mc-split is open on
    # a public post where Alice can still score. (One she had finished on another public post
    # would score nothing there, so it would not wait.)
    due = utcnow() - timedelta(hours=1)
    with bot.service.store.write() as conn:
        save_cards(conn, [StoredCard(GUILD_ID, ALICE.id, "mc-split", 2, None, 2.3, 5.0, due, due)])
    await driver.post("mc-split", member=BOB)  # not answered yet
    await driver.command("review")
    reply = fake.last_reply()
    assert reply.flags & EPHEMERAL
    assert reply.text.startswith("**1** review due, but for tasks open on a public post here")


async def test_review_serves_the_due_tasks_privately_with_their_count(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    post = await driver.post("mc-split", member=BOB)
    for pick in ("A", "C", "D"):  # three misses: finished, and due for review at once
        await driver.click(post, rf"quiz:ans:\d+:{pick}", member=BOB)
    fake.clear()
    payload = await driver.command("review", member=BOB)
    first = fake.last_reply()
    assert first.flags & EPHEMERAL
    assert first.text.startswith(
        "🔁 **1** review due. Here's the most overdue one: only you see it, and it scores no "
        "leaderboard points."
    )
    assert fake.channel_posts and fake.posts() == []  # only the earlier public post
    await driver.click(fake.response_to(payload), r"quiz:next:\d+:\d+", member=BOB)
    end = fake.last_reply()
    assert end.flags & EPHEMERAL
    assert end.text.startswith("Review session over: 0 of **1** task finished")
    assert "**1** review still due: /review when you're ready." in end.text


async def test_a_session_pickers_selects_are_refused_to_others_and_after_the_idle_limit(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    payload = await driver.command("practice", topic="Python")  # multi-blank tasks only
    task_message = fake.response_to(payload)
    picker = fake.response_to(await driver.click(task_message, r"quiz:open:\d+"))
    shown = dict(picker)
    # A forged select of Alice's picker by Bob: refused, and her picker is left as it was.
    await driver.select(picker, r"quiz:pick:\d+:1:[-A-Z]+", "A", member=BOB)
    refusal = fake.last_reply()
    assert refusal.flags & EPHEMERAL
    assert "another member's private practice" in refusal.text
    assert picker == shown
    await driver.click(picker, r"quiz:submit:\d+:[-A-Z]+", member=BOB)
    assert "another member's private practice" in fake.last_reply().text

    later = utcnow() + timedelta(minutes=31)
    bot.service.clock = lambda: later
    expired = (
        "This practice session ended after 30 minutes without activity. /practice starts a new one."
    )
    await driver.select(picker, r"quiz:pick:\d+:1:[-A-Z]+", "A")
    assert fake.last_reply().text == expired
    await driver.click(picker, r"quiz:submit:\d+:[-A-Z]+")  # nothing picked yet
    assert fake.last_reply().text == expired
    assert fake.channel_posts == []


async def test_the_end_of_a_review_says_when_due_reviews_wait_for_open_public_posts(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    post = await driver.post("fill-one", member=BOB)
    post_id = int(find_component(post, r"quiz:hint:\d+")["custom_id"].split(":")[2])
    await bot.service.solution(post_id, GUILD_ID, ALICE.id, "alice", confirmed=True)  # due now
    # mc-split due too (from a private miss, say), and open on a public post where Alice can
    # still score: held back. (Forfeited on another public post, it would score nothing there.)
    due = utcnow() - timedelta(hours=1)
    with bot.service.store.write() as conn:
        save_cards(conn, [StoredCard(GUILD_ID, ALICE.id, "mc-split", 2, None, 2.3, 5.0, due, due)])
    await driver.post("mc-split", member=BOB)  # not answered yet: held back
    payload = await driver.command("review")
    assert fake.last_reply().text.startswith("🔁 **1** review due.")
    review = fake.response_to(payload)
    await driver.click(review, r"quiz:ans:\d+:A")  # fill-one, right: not due any more
    await driver.click(review, r"quiz:next:\d+:\d+")
    end = fake.last_reply()
    assert end.flags & EPHEMERAL
    assert end.text.startswith("Review session over: 1 of **1** task finished")
    assert "**1** review due, but for tasks open on a public post here" in end.text
    assert "No reviews are waiting" not in end.text
