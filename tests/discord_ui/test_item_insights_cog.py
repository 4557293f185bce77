"""/insights tasks through the real command tree, from raw interaction payloads: who may see
it, and the flagged task with the figure behind it (and the group's label beside the author's)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.discord_ui.client import QuizBot
from bot.quiz.tasks import Difficulty
from bot.store import AnswerRequest
from tests.discord_ui.conftest import COMMAND, Driver, choice_task
from tests.discord_ui.fakes import (
    ALICE,
    CHANNEL_ID,
    GUILD_ID,
    MOD,
    Call,
    FakeDiscordHTTP,
    Member,
    interaction_payload,
)
from tests.store_calls import answer, create_post

NOW = datetime(2025, 3, 12, 15, 0, tzinfo=UTC)
SUB_COMMAND, STRING, INTEGER = 1, 3, 4
REFUSED = "Only moderators can do that"


async def run(driver: Driver, fake: FakeDiscordHTTP, member: Member, **options: Any) -> Call:
    opts = [
        {"name": k, "type": INTEGER if isinstance(v, int) else STRING, "value": v}
        for k, v in options.items()
    ]
    tasks = {"name": "tasks", "type": SUB_COMMAND, "options": opts}
    data = {"id": "1", "name": "insights", "type": 1, "options": [tasks]}
    payload = interaction_payload(fake, kind=COMMAND, data=data, member=member)
    return await driver.one_reply(payload)


@pytest.fixture
def seeded(bot: QuizBot) -> QuizBot:
    """Yesterday's post of a task from bank `ml.yaml` its author calls hard: twelve members,
    all right at once."""
    bot.service.clock = lambda: NOW
    store = bot.service.store
    yesterday = NOW - timedelta(days=1)
    task = replace(choice_task(), bank="ml.yaml", difficulty=Difficulty.HARD)
    post = create_post(store, GUILD_ID, CHANNEL_ID, task, now=yesterday)
    right = task.answers[0]
    for user in range(7000, 7012):
        answer(store, AnswerRequest(post.id, GUILD_ID, user, f"m{user}", (right,)), yesterday)
    return bot


async def test_a_moderator_sees_the_flagged_task_and_its_bank_privately(
    seeded: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    reply = await run(driver, fake, MOD, flag="too-easy")
    assert reply.ephemeral
    (embed,) = reply.data["embeds"]
    assert embed["title"] == "🔎 Tasks · too easy"
    # Twelve first tries, all right: the stored rating has settled, and reads easy.
    assert (
        "(`mc-split`) · bank `ml.yaml` · author: hard · this group: easy" in (embed["description"])
    )
    assert "⚠ too easy: facility 1.00 (12/12)" in embed["description"]
    assert embed["footer"]["text"].startswith("Page 1 of 1 · 1 task\n")
    assert fake.posts() == []


async def test_no_task_with_a_flag_says_so(
    seeded: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    reply = await run(driver, fake, MOD, flag="too-hard")
    (embed,) = reply.data["embeds"]
    assert embed["description"] == "No task has answers that match yet."


@pytest.mark.parametrize("options", [{}, {"flag": "too-easy"}, {"page": 2}])
async def test_a_non_moderators_raw_payload_is_refused_privately(
    seeded: QuizBot, driver: Driver, fake: FakeDiscordHTTP, options: dict[str, Any]
) -> None:
    reply = await run(driver, fake, ALICE, **options)
    assert reply.ephemeral
    assert REFUSED in reply.text
    assert "mc-split" not in str(reply.data)


async def test_a_forged_flag_is_refused_privately(
    seeded: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    reply = await run(driver, fake, MOD, flag="broken")
    assert reply.ephemeral
    assert "flag" in reply.text and "mc-split" not in str(reply.data)
