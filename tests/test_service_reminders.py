"""The service's side of reminders: what `/reminders on` plans, the one-time closed-DMs notice
that /review shows, and the reviews due per topic that /stats draws."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.quiz.errors import StoreAction
from bot.quiz.reminders import DMS_CLOSED_NOTICE
from bot.quiz.tasks import Catalog
from bot.service import QuizService
from bot.store import Store, make_engine, reminders
from bot.store.answers import save_cards
from bot.store.review_cards import StoredCard
from tests.factories import choice

GUILD, USER = 1, 7
NOW = datetime(2025, 6, 2, 12, 0, tzinfo=UTC)
"""A Monday; 14:00 in Berlin."""
MLOPS = [choice("m1", topic="MLOps"), choice("m2", topic="MLOps")]
PYTHON = choice("p1", topic="Python")


@pytest.fixture
async def service() -> AsyncIterator[QuizService]:
    store = Store(make_engine("sqlite://"))
    service = QuizService(
        Catalog.of([*MLOPS, PYTHON]), store, clock=lambda: NOW, default_zone=ZoneInfo("UTC")
    )
    yield service
    await service.close()
    store.engine.dispose()


def cards(service: QuizService, **due: datetime) -> None:
    stored = [StoredCard(GUILD, USER, t, 2, None, 2.0, 5.0, at, None) for t, at in due.items()]
    with service.store.write() as conn:
        save_cards(conn, stored)


async def test_the_closed_dms_notice_is_given_once(service: QuizService) -> None:
    assert await service.take_reminder_notice(GUILD, USER) is None
    await service.turn_reminders_on(GUILD, USER, hour=7)
    await service.run_write(StoreAction.WRITE, reminders.dms_closed, GUILD, USER, NOW)
    notice = await service.take_reminder_notice(GUILD, USER)
    assert notice == DMS_CLOSED_NOTICE and "/reminders on" in notice
    assert await service.take_reminder_notice(GUILD, USER) is None


async def test_on_plans_in_the_members_zone_else_the_servers(service: QuizService) -> None:
    plan = await service.turn_reminders_on(GUILD, USER)
    assert (plan.hour, plan.zone.key, plan.own_zone) == (18, "UTC", False)
    assert (plan.next.at, plan.next.current) == (NOW.replace(hour=18), False)

    await service.update_guild_config(GUILD, timezone="Asia/Tokyo")
    plan = await service.turn_reminders_on(GUILD, USER, hour=7)
    assert (plan.zone.key, plan.own_zone) == ("Asia/Tokyo", False)
    assert plan.next.at == datetime(2025, 6, 2, 22, 0, tzinfo=UTC)  # 07:00 in Tokyo

    plan = await service.turn_reminders_on(GUILD, USER, hour=14, timezone="Europe/Berlin")
    assert (plan.zone.key, plan.own_zone, plan.next.current) == ("Europe/Berlin", True, True)
    assert plan.next.until == datetime(2025, 6, 2, 13, 0, tzinfo=UTC)


async def test_reviews_due_are_counted_per_topic_of_the_servers_tasks(
    service: QuizService,
) -> None:
    past, later = NOW - timedelta(hours=1), NOW + timedelta(days=1)
    cards(service, m1=past, m2=past, p1=later, gone=past)  # "gone": no longer in the banks
    assert await service.reviews_due_by_topic(GUILD, USER) == {"MLOps": 2}
    assert await service.reviews_due_by_topic(GUILD, USER + 1) == {}
