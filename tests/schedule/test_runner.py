"""The scheduler against a controllable clock, a recording poster and a real database file.

A "process" is a QuizService + Scheduler on its own engine; restarting means closing one and
opening another on the same file, while the poster (the channels' messages) carries on.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

import pytest

from bot import i18n
from bot.i18n import formats
from bot.quiz.errors import AnswerableElsewhereError, PostClosedError, StoreAction
from bot.quiz.tasks import Catalog, Task
from bot.schedule.runner import PosterError, Scheduler
from bot.service import PostedTask, QuizService
from bot.sharding import ShardPlan
from bot.store import AnswerRequest, Store, make_engine
from bot.store import posts as posts_unit
from bot.store.schedules import ScheduleInfo
from tests import store_calls
from tests.factories import Clock, choice_task, note
from tests.i18n.catalog_files import use_locale_dir
from tests.i18n.code_catalogs import write_code_pseudo
from tests.i18n.pseudo import pseudo
from tests.pg_server import PgServer
from tests.store_calls import read

GUILD = 1
CHANNEL = 10
OTHER_CHANNEL = 20
BANK = [dataclasses.replace(choice_task(), id=f"t{n}") for n in range(5)]


class Crash(BaseException):
    """The process dies here: nothing after it runs, no handler catches it."""


class StopSimulation(Exception):
    pass


@dataclass
class Message:
    id: int
    channel_id: int
    post_id: int
    content: str
    sent_at: datetime
    closed_content: str | None = None
    thread: tuple[str, str] | None = None


@dataclass
class RecordingPoster:
    """The scheduler's `Poster`, recording the channels' messages instead of sending them;
    survives "restarts" of the bot."""

    clock: Clock
    messages: list[Message] = field(default_factory=list)
    broken: dict[int, str] = field(default_factory=dict)
    crash: str | None = None
    """"before_send" or "after_send": die while posting."""
    unreadable: set[int] = field(default_factory=set)
    raise_unexpected: set[int] = field(default_factory=set)
    closing: list[int] = field(default_factory=list)
    """The post ids `close` was asked to edit, in order."""
    languages: dict[int, str] = field(default_factory=dict)
    """Each server's public language (English when not named)."""
    _next_id: int = 1000

    def _check(self, channel_id: int) -> None:
        if channel_id in self.broken:
            raise PosterError(self.broken[channel_id])
        if channel_id in self.raise_unexpected:
            raise RuntimeError("something nobody expected")

    async def post(self, posted: PostedTask, *, extra: str) -> int:
        if self.crash == "before_send":
            raise Crash
        self._check(posted.post.channel_id)
        self._next_id += 1
        self.messages.append(
            Message(self._next_id, posted.post.channel_id, posted.post.id, extra, self.clock())
        )
        if self.crash == "after_send":
            raise Crash
        return self._next_id

    async def find(self, posted: PostedTask, *, since: datetime) -> int | None:
        if posted.post.channel_id in self.unreadable:
            raise PosterError("missing Read Message History")
        self._check(posted.post.channel_id)
        found = [m.id for m in self.messages if m.post_id == posted.post.id and m.sent_at >= since]
        return found[0] if found else None

    async def open_thread(
        self, posted: PostedTask, message_id: int, *, name: str, text: str
    ) -> None:
        self._check(posted.post.channel_id)
        self.by_id(message_id).thread = (name, text)

    async def close(self, posted: PostedTask, *, content: str) -> None:
        self.closing.append(posted.post.id)
        assert posted.post.closed_at is not None, "closed in the database before the edit"
        assert posted.post.message_id is not None
        self.by_id(posted.post.message_id).closed_content = content

    async def language(self, guild_id: int) -> str:
        return self.languages.get(guild_id, "en")

    def by_id(self, message_id: int) -> Message:
        (message,) = [m for m in self.messages if m.id == message_id]
        return message

    def in_channel(self, channel_id: int = CHANNEL) -> list[Message]:
        return [m for m in self.messages if m.channel_id == channel_id]


class Process:
    """One run of the bot: its own engine, service and scheduler on the shared file."""

    def __init__(
        self,
        url: str,
        clock: Clock,
        poster: RecordingPoster,
        *,
        grace: timedelta = timedelta(hours=2),
        bank: list[Task] = BANK,
        max_sleep: float = 6 * 3600,
        shards: ShardPlan = ShardPlan.UNSHARDED,
    ) -> None:
        self.engine = make_engine(url)
        self.store = Store(self.engine)
        self.service = QuizService(Catalog.of(bank), self.store, clock=clock)
        self.clock = clock
        self.scheduler = Scheduler(
            self.service,
            poster,
            grace=grace,
            clock=clock,
            sleep=self._sleep,
            max_sleep=max_sleep,
            shards=shards,
        )
        self.schedules = self.scheduler.schedules
        self.until: datetime | None = None
        self.sleeps: list[float] = []

    async def _sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        assert self.until is not None
        if self.clock.now >= self.until:
            raise StopSimulation
        self.clock.now = min(self.clock.now + timedelta(seconds=seconds), self.until)

    async def run_until(self, moment: datetime) -> None:
        """Run the real loop, sleeping on the fake clock, until `moment` (then stop)."""
        self.until = moment
        with pytest.raises(StopSimulation):
            await self.scheduler.run_forever()

    def add(
        self,
        *,
        local_time: str = "09:00",
        timezone: str = "Europe/Berlin",
        channel_id: int = CHANNEL,
        guild_id: int = GUILD,
        **kwargs: object,
    ) -> ScheduleInfo:
        return self.schedules.add(
            guild_id=guild_id,
            channel_id=channel_id,
            local_time=local_time,
            timezone=timezone,
            created_by=5,
            now=self.clock(),
            **kwargs,  # type: ignore[arg-type]
        )

    def schedule(self, schedule_id: int) -> ScheduleInfo:
        info = self.schedules.get(schedule_id)
        assert info is not None
        return info

    async def close(self) -> None:
        await self.service.close()
        self.engine.dispose()


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path}/quizbot.db"


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2025, 3, 1, 12, 0, tzinfo=UTC))


@pytest.fixture
def poster(clock: Clock) -> RecordingPoster:
    return RecordingPoster(clock)


@pytest.fixture
async def start(
    url: str, clock: Clock, poster: RecordingPoster
) -> AsyncIterator[Callable[..., Process]]:
    opened: list[Process] = []

    def open_process(**kwargs: object) -> Process:
        """`poster=` gives the process its own channels' recorder (default: the shared one)."""
        own = kwargs.pop("poster", poster)
        process = Process(url, clock, own, **kwargs)  # type: ignore[arg-type]
        opened.append(process)
        return process

    yield open_process
    for process in opened:
        await process.close()


# -- DST: the local time on both sides, exactly once per local day --------------------------------


@pytest.mark.parametrize(
    ("zone", "local_time", "first_day", "expected_utc"),
    [
        pytest.param(
            "Europe/Berlin",
            "09:00",
            date(2025, 3, 28),
            ["03-28 08:00", "03-29 08:00", "03-30 07:00", "03-31 07:00", "04-01 07:00"],
            id="berlin-spring-0900",
        ),
        pytest.param(
            "Europe/Berlin",
            "02:30",
            date(2025, 3, 28),
            # 30 March: 02:30 does not exist; posted at 03:00 CEST (01:00 UTC).
            ["03-28 01:30", "03-29 01:30", "03-30 01:00", "03-31 00:30", "04-01 00:30"],
            id="berlin-spring-skipped-hour",
        ),
        pytest.param(
            "Europe/Berlin",
            "02:30",
            date(2025, 10, 24),
            # 26 October: 02:30 happens twice; posted once, at the first (00:30 UTC).
            ["10-24 00:30", "10-25 00:30", "10-26 00:30", "10-27 01:30", "10-28 01:30"],
            id="berlin-autumn-repeated-hour",
        ),
        pytest.param(
            "Europe/Berlin",
            "09:00",
            date(2025, 10, 24),
            ["10-24 07:00", "10-25 07:00", "10-26 08:00", "10-27 08:00", "10-28 08:00"],
            id="berlin-autumn-0900",
        ),
        pytest.param(
            "America/New_York",
            "02:30",
            date(2025, 3, 7),
            ["03-07 07:30", "03-08 07:30", "03-09 07:00", "03-10 06:30", "03-11 06:30"],
            id="new-york-spring-skipped-hour",
        ),
        pytest.param(
            "America/New_York",
            "01:30",
            date(2025, 10, 31),
            ["10-31 05:30", "11-01 05:30", "11-02 05:30", "11-03 06:30", "11-04 06:30"],
            id="new-york-autumn-repeated-hour",
        ),
    ],
)
async def test_posts_at_the_local_time_once_per_day_across_dst(
    start: Callable[..., Process],
    clock: Clock,
    poster: RecordingPoster,
    zone: str,
    local_time: str,
    first_day: date,
    expected_utc: list[str],
) -> None:
    clock.now = datetime.combine(first_day - timedelta(days=1), time(0), tzinfo=UTC) + timedelta(
        hours=12
    )
    bot = start()
    schedule = bot.add(local_time=local_time, timezone=zone)

    await bot.run_until(datetime.combine(first_day + timedelta(days=5), time(0), tzinfo=UTC))

    sent = poster.in_channel()
    assert [m.sent_at.strftime("%m-%d %H:%M") for m in sent] == expected_utc
    # Each day's post closes when the next is made, with the result on it.
    assert all(m.closed_content is not None for m in sent[:-1])
    assert sent[-1].closed_content is None
    posts = [read(bot.service.store, posts_unit.get_post, m.post_id) for m in sent]
    for post, following in zip(posts, sent[1:], strict=False):
        assert post is not None and post.closes_at is not None
        assert post.closes_at == following.sent_at
    assert bot.schedule(schedule.id).last_error is None
    # The loop only ever slept as long as it had to: no busy waiting, nothing over the cap.
    assert all(1.0 <= s <= 6 * 3600 for s in bot.sleeps)
    assert len(bot.sleeps) < 40


# -- restarts and crashes -------------------------------------------------------------------------


async def test_restart_just_before_the_time_loses_nothing(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster
) -> None:
    first = start()
    first.add()  # 09:00 Berlin = 08:00 UTC in March
    await first.run_until(datetime(2025, 3, 2, 7, 59, 30, tzinfo=UTC))
    await first.close()
    assert poster.messages == []

    clock.advance(seconds=20)  # back up at 08:59:50 local
    second = start()
    await second.run_until(datetime(2025, 3, 2, 12, tzinfo=UTC))
    assert [m.sent_at for m in poster.messages] == [datetime(2025, 3, 2, 8, tzinfo=UTC)]


async def test_restart_just_after_the_time_posts_late_once(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster
) -> None:
    first = start()
    first.add()
    await first.run_until(datetime(2025, 3, 2, 7, 59, tzinfo=UTC))
    await first.close()

    clock.now = datetime(2025, 3, 2, 8, 3, tzinfo=UTC)  # down over 09:00, back at 09:03
    second = start()
    await second.run_until(datetime(2025, 3, 2, 12, tzinfo=UTC))
    assert [m.sent_at for m in poster.messages] == [datetime(2025, 3, 2, 8, 3, tzinfo=UTC)]


async def test_restart_after_posting_does_not_post_again(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster
) -> None:
    first = start()
    first.add()
    await first.run_until(datetime(2025, 3, 2, 8, 1, tzinfo=UTC))
    await first.close()
    assert len(poster.messages) == 1

    for _ in range(3):  # restart a few times within the day
        clock.advance(minutes=5)
        again = start()
        await again.scheduler.tick()
        await again.close()
    assert len(poster.messages) == 1


async def test_crash_between_sending_and_recording_does_not_post_twice(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster
) -> None:
    first = start()
    schedule = first.add()
    clock.now = datetime(2025, 3, 2, 8, tzinfo=UTC)
    poster.crash = "after_send"
    with pytest.raises(Crash):
        await first.scheduler.tick()
    await first.close()
    (message,) = poster.messages
    assert read(first.service.store, posts_unit.get_post, message.post_id).message_id is None  # type: ignore[union-attr]

    poster.crash = None
    clock.advance(minutes=1)
    second = start()
    await second.run_until(datetime(2025, 3, 3, 7, tzinfo=UTC))

    assert poster.messages == [message]
    post = read(second.service.store, posts_unit.get_post, message.post_id)
    assert post is not None and post.message_id == message.id  # reconciled from the channel
    run = second.schedules.run(schedule.id, date(2025, 3, 2))
    assert run is not None and run.status == "posted"


async def test_crash_after_claiming_but_before_sending_posts_on_restart(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster
) -> None:
    first = start()
    first.add()
    clock.now = datetime(2025, 3, 2, 8, tzinfo=UTC)
    poster.crash = "before_send"
    with pytest.raises(Crash):
        await first.scheduler.tick()
    await first.close()
    assert poster.messages == []

    poster.crash = None
    clock.advance(minutes=2)
    second = start()
    await second.scheduler.tick()
    assert [m.sent_at for m in poster.messages] == [datetime(2025, 3, 2, 8, 2, tzinfo=UTC)]


async def test_crash_when_the_channel_cannot_be_checked_never_reposts(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster
) -> None:
    """The trade-off: unable to tell whether it went out, the day is given up, not re-sent."""
    first = start()
    schedule = first.add()
    clock.now = datetime(2025, 3, 2, 8, tzinfo=UTC)
    poster.crash = "after_send"
    with pytest.raises(Crash):
        await first.scheduler.tick()
    await first.close()

    poster.crash = None
    poster.unreadable.add(CHANNEL)
    clock.advance(minutes=1)
    second = start()
    await second.run_until(datetime(2025, 3, 2, 11, tzinfo=UTC))  # past the two-hour grace window
    assert len(poster.messages) == 1
    run = second.schedules.run(schedule.id, date(2025, 3, 2))
    assert run is not None and run.status == "failed"
    assert "could not check" in (second.schedule(schedule.id).last_result or "")

    poster.unreadable.clear()
    await second.run_until(datetime(2025, 3, 3, 9, tzinfo=UTC))
    assert [m.sent_at for m in poster.messages][1:] == [datetime(2025, 3, 3, 8, tzinfo=UTC)]


# -- the grace window -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("back_at", "posted"),
    [
        (datetime(2025, 3, 2, 9, 59, tzinfo=UTC), True),
        (datetime(2025, 3, 2, 10, 1, tzinfo=UTC), False),
    ],
    ids=["within-grace", "beyond-grace"],
)
async def test_grace_window_on_start(
    start: Callable[..., Process],
    clock: Clock,
    poster: RecordingPoster,
    back_at: datetime,
    posted: bool,
) -> None:
    first = start()
    schedule = first.add()
    await first.close()

    clock.now = back_at
    second = start()
    await second.scheduler.tick()
    run = second.schedules.run(schedule.id, date(2025, 3, 2))
    assert run is not None
    if posted:
        assert [m.sent_at for m in poster.messages] == [back_at]
        assert run.status == "posted"
    else:
        assert poster.messages == []
        assert run.status == "skipped"
        result = second.schedule(schedule.id).last_result or ""
        assert result.startswith(
            "skipped 2025-03-02: the bot was offline at 09:00 (2 h 01 min late"
        )
    # Either way the next day is posted as usual.
    await second.run_until(datetime(2025, 3, 3, 12, tzinfo=UTC))
    assert poster.messages[-1].sent_at == datetime(2025, 3, 3, 8, tzinfo=UTC)


async def test_a_new_schedule_does_not_post_a_time_already_past_today(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster
) -> None:
    clock.now = datetime(2025, 3, 2, 8, 30, tzinfo=UTC)  # 09:30 in Berlin
    bot = start()
    bot.add()
    await bot.run_until(datetime(2025, 3, 3, 7, 59, tzinfo=UTC))
    assert poster.messages == []
    await bot.run_until(datetime(2025, 3, 3, 8, 1, tzinfo=UTC))
    assert len(poster.messages) == 1


async def test_paused_days_are_not_owed_and_resume_picks_up(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster
) -> None:
    bot = start()
    schedule = bot.add()
    bot.schedules.set_paused(GUILD, schedule.id, True, clock())
    await bot.run_until(datetime(2025, 3, 2, 8, 30, tzinfo=UTC))
    assert poster.messages == []
    bot.schedules.set_paused(GUILD, schedule.id, False, clock())  # resumed 09:30: today not owed
    await bot.run_until(datetime(2025, 3, 3, 8, 30, tzinfo=UTC))
    assert [m.sent_at for m in poster.messages] == [datetime(2025, 3, 3, 8, tzinfo=UTC)]


# -- rotation, sets, threads ----------------------------------------------------------------------


async def test_rotates_through_the_whole_bank_before_repeating(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster
) -> None:
    bot = start()
    bot.add()
    await bot.run_until(datetime(2025, 3, 11, 9, tzinfo=UTC))  # ten posts: 2 to 11 March
    tasks = [
        read(bot.service.store, posts_unit.get_post, m.post_id).task_id for m in poster.messages
    ]  # type: ignore[union-attr]
    assert len(tasks) == 10
    assert sorted(tasks[:5]) == sorted(tasks[5:]) == [t.id for t in BANK]


async def test_a_daily_set_posts_each_task_with_its_own_message_and_thread(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster
) -> None:
    bot = start()
    bot.add(count=3, open_thread=True)
    await bot.run_until(datetime(2025, 3, 2, 9, tzinfo=UTC))
    sent = poster.messages
    assert [m.content for m in sent] == [
        f"📅 **Daily quiz** · Sun 02 Mar 2025 · {n}/3" for n in (1, 2, 3)
    ]
    assert len({m.post_id for m in sent}) == 3
    assert all(m.thread is not None and m.thread[1].endswith("||Data is split.||") for m in sent)


async def test_a_thread_that_cannot_be_opened_does_not_fail_the_day(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster
) -> None:
    bot = start()
    schedule = bot.add(open_thread=True)

    async def no_threads(*args: object, **kwargs: object) -> None:
        raise PosterError("missing Create Public Threads")

    poster.open_thread = no_threads  # type: ignore[method-assign]
    await bot.run_until(datetime(2025, 3, 2, 9, tzinfo=UTC))
    assert len(poster.messages) == 1
    info = bot.schedule(schedule.id)
    assert info.last_result is not None and "no discussion thread" in info.last_result
    run = bot.schedules.run(schedule.id, date(2025, 3, 2))
    assert run is not None and run.status == "posted"


# -- closing --------------------------------------------------------------------------------------


async def first_daily_post(
    start: Callable[..., Process], poster: RecordingPoster
) -> tuple[Process, Message, Task]:
    """A bot with a daily quiz that has posted its first day (2 March 2025): the bot, the
    recorded message and the task posted."""
    bot = start()
    bot.add()
    await bot.run_until(datetime(2025, 3, 2, 9, tzinfo=UTC))
    (first,) = poster.messages
    return bot, first, (await bot.service.posted(first.post_id)).task


async def test_closing_shows_the_result_and_stops_answers(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster
) -> None:
    bot, first, _task = await first_daily_post(start, poster)

    def answer(user: int, pick: str) -> None:
        request = AnswerRequest(first.post_id, GUILD, user, f"m{user}", (pick,))
        store_calls.answer(bot.store, request, clock())

    for user in (1, 2, 3):
        answer(user, "A")
    answer(4, "B")
    answer(4, "A")
    answer(5, "B")

    await bot.run_until(datetime(2025, 3, 3, 9, tzinfo=UTC))
    closed = first.closed_content or ""
    assert closed.startswith("📅 **Daily quiz** · Sun 02 Mar 2025 · closed\n**Answer:** A")
    assert "**5** answered · **4** solved · **3** on the first try" in closed
    assert "40% picked B — Model parallelism splits the model, not the data." in closed
    assert "1. <@1> (first try)" in closed

    with pytest.raises(PostClosedError):
        await bot.service.answer(first.post_id, GUILD, 6, "m6", ("A",))
    reply = await bot.service.solution(first.post_id, GUILD, 6, "m6", confirmed=False)
    assert reply.access.shown and not reply.access.forfeited_now  # free after closing


async def test_a_server_set_to_french_gets_its_daily_quiz_and_summary_in_french(
    start: Callable[..., Process],
    clock: Clock,
    poster: RecordingPoster,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Posts, threads and the close summary speak the server's language (the poster's
    `language`), with French dates and numbers; the pseudo-locale shows every text went
    through the catalogs."""
    write_code_pseudo(use_locale_dir(tmp_path / "locales", monkeypatch), "fr")
    poster.languages[GUILD] = "fr"
    bot = start()
    bot.add(open_thread=True)
    await bot.run_until(datetime(2025, 3, 2, 9, tzinfo=UTC))
    (first,) = poster.messages
    with i18n.speaking("fr"):
        day = formats.pattern_date(date(2025, 3, 2), i18n._("EEE dd MMM y"))
        half = formats.percent(0.5)
    assert "mars" in day  # Babel's French month, inside the pseudo-accented pattern
    assert first.content == pseudo("📅 **Daily quiz** · {date}").format(date=day)
    assert first.thread is not None
    assert first.thread[0].startswith(pseudo("Discuss · {title}").split("{")[0])
    assert first.thread[1].startswith(pseudo("Talk it through here.")[:-1])
    for user, pick in ((1, "A"), (2, "B")):
        request = AnswerRequest(first.post_id, GUILD, user, f"m{user}", (pick,))
        store_calls.answer(bot.store, request, clock())
    await bot.run_until(datetime(2025, 3, 3, 9, tzinfo=UTC))
    closed = (first.closed_content or "").split("\n")
    assert closed[0] == pseudo("{header} · closed").format(header=first.content)
    assert closed[1] == pseudo("**Answer:** {answer}").format(answer="A · data parallelism")
    assert half == "50\xa0%"  # French puts a space before "%"
    picked = pseudo("{percent} picked {label} — {why}").split(" — ")[0]
    assert f"• {picked.format(percent=half, label='B')} — " in closed[-1]


async def test_a_closing_summary_withholds_the_answer_while_the_task_is_open_on_another_post(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster
) -> None:
    bot, first, task = await first_daily_post(start, poster)
    elsewhere = await bot.service.create_post(GUILD, CHANNEL + 1, task, 99)
    await bot.service.run_write(
        StoreAction.WRITE, posts_unit.set_post_message, elsewhere.post.id, 555
    )
    for user, pick in ((1, "A"), (2, "B"), (3, "B")):
        await bot.service.answer(first.post_id, GUILD, user, f"m{user}", (pick,))

    await bot.run_until(datetime(2025, 3, 3, 9, tzinfo=UTC))
    closed = first.closed_content or ""
    assert "**3** answered · **1** solved · **1** on the first try" in closed
    assert "1. <@1> (first try)" in closed
    assert "not shown here yet: this task is still open on another post" in closed
    assert "**Answer:** A" not in closed and "data parallelism" not in closed
    assert "picked B" not in closed
    # Nor does the closed post's free solution tell it to someone who can still score.
    with pytest.raises(AnswerableElsewhereError):
        await bot.service.solution(first.post_id, GUILD, 6, "m6", confirmed=False)


async def test_a_post_closes_with_the_version_it_was_posted_with(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster
) -> None:
    """The banks change while the daily post is open (a reload, then a restart with the
    edit): members are graded, and the result is summarised, on the task as posted."""
    bot = start()
    bot.add()
    await bot.run_until(datetime(2025, 3, 2, 9, tzinfo=UTC))
    (first,) = poster.messages
    edit = [
        dataclasses.replace(t, answers=("B",), mistakes=(note("A is wrong now.", "A"),))
        for t in BANK
    ]
    await bot.service.use_catalog(Catalog.of(edit))
    for user, pick in ((1, "A"), (2, "B"), (3, "B")):
        await bot.service.answer(first.post_id, GUILD, user, f"m{user}", (pick,))
    await bot.close()

    again = start(bank=edit)
    await again.run_until(datetime(2025, 3, 3, 9, tzinfo=UTC))
    closed = first.closed_content or ""
    assert "**Answer:** A · data parallelism" in closed
    assert "**3** answered · **1** solved · **1** on the first try" in closed
    assert "67% picked B — Model parallelism splits the model, not the data." in closed


async def test_closing_is_retried_when_the_edit_fails(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster
) -> None:
    bot = start()
    bot.add()
    await bot.run_until(datetime(2025, 3, 3, 7, 59, tzinfo=UTC))
    bot.scheduler.max_sleep = 60.0  # as in production: overdue closings retry on the next tick
    real_close = poster.close
    failures = 0

    async def flaky_close(posted: PostedTask, *, content: str) -> None:
        nonlocal failures
        if failures < 2:
            failures += 1
            raise ConnectionError("Discord hiccup")
        await real_close(posted, content=content)

    poster.close = flaky_close  # type: ignore[method-assign]
    await bot.run_until(datetime(2025, 3, 3, 8, 5, tzinfo=UTC))
    assert poster.messages[0].closed_content is not None
    assert failures == 2


async def test_a_closing_edit_discord_keeps_failing_is_given_up_after_the_grace_window(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster
) -> None:
    bot = start(max_sleep=60.0)
    schedule = bot.add()
    await bot.run_until(datetime(2025, 3, 3, 7, 59, tzinfo=UTC))
    tries = 0

    async def outage(posted: PostedTask, *, content: str) -> None:
        nonlocal tries
        tries += 1
        raise PosterError("Discord error 503 in <#10>: Service Unavailable", transient=True)

    poster.close = outage  # type: ignore[method-assign]
    await bot.run_until(datetime(2025, 3, 3, 9, tzinfo=UTC))
    first = bot.schedules.run(schedule.id, date(2025, 3, 2))
    assert first is not None and first.closed_at is None  # still trying, within the window
    await bot.run_until(datetime(2025, 3, 3, 10, 30, tzinfo=UTC))
    given_up = bot.schedules.run(schedule.id, date(2025, 3, 2))
    assert given_up is not None and given_up.closed_at is not None
    assert 100 < tries < 140  # once a tick (a minute) for two hours, then no more


# -- failures -------------------------------------------------------------------------------------


async def test_a_failing_schedule_does_not_block_another(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster
) -> None:
    clock.now = datetime(2025, 3, 2, 7, 50, tzinfo=UTC)
    bot = start(max_sleep=60.0)
    broken = bot.add(channel_id=CHANNEL)
    working = bot.add(channel_id=OTHER_CHANNEL)
    unexpected = bot.add(channel_id=30)
    poster.broken[CHANNEL] = "I may not post in <#10>: Missing Permissions"
    poster.raise_unexpected.add(30)

    await bot.run_until(datetime(2025, 3, 2, 8, 0, 30, tzinfo=UTC))
    assert [m.channel_id for m in poster.messages] == [OTHER_CHANNEL]
    info = bot.schedule(broken.id)
    assert info.last_error == "I may not post in <#10>: Missing Permissions"
    assert info.retry_at == datetime(2025, 3, 2, 8, 1, tzinfo=UTC)  # backoff, not a tight retry
    assert "RuntimeError" in (bot.schedule(unexpected.id).last_error or "")
    assert bot.schedule(working.id).last_error is None

    # Retries back off (1, 2, 4 … minutes) rather than spin, and succeed once it is fixed.
    await bot.run_until(datetime(2025, 3, 2, 8, 10, tzinfo=UTC))
    assert bot.schedule(broken.id).failures == 4  # 08:00, 08:01, 08:03, 08:07
    del poster.broken[CHANNEL]
    await bot.run_until(datetime(2025, 3, 2, 8, 30, tzinfo=UTC))
    assert sorted(m.channel_id for m in poster.messages) == [CHANNEL, OTHER_CHANNEL]
    fixed = bot.schedule(broken.id)
    assert fixed.last_error is None and fixed.failures == 0
    sent = [m.sent_at for m in poster.in_channel(CHANNEL)]
    assert sent == [datetime(2025, 3, 2, 8, 15, tzinfo=UTC)]


async def test_failures_beyond_grace_give_up_until_the_next_day(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster
) -> None:
    clock.now = datetime(2025, 3, 2, 7, 50, tzinfo=UTC)
    bot = start(max_sleep=60.0)
    schedule = bot.add()
    poster.broken[CHANNEL] = "channel <#10> is gone"
    await bot.run_until(datetime(2025, 3, 2, 11, tzinfo=UTC))
    run = bot.schedules.run(schedule.id, date(2025, 3, 2))
    assert run is not None and run.status == "failed"  # nothing went out, nothing re-sent
    info = bot.schedule(schedule.id)
    assert info.last_error == "channel <#10> is gone"
    assert info.last_result == (
        "failed 2025-03-02: nothing posted (could not check post 1: channel <#10> is gone)"
    )
    assert poster.messages == []

    del poster.broken[CHANNEL]
    bot.scheduler.max_sleep = 6 * 3600
    await bot.run_until(datetime(2025, 3, 3, 9, tzinfo=UTC))
    assert [m.sent_at for m in poster.messages] == [datetime(2025, 3, 3, 8, tzinfo=UTC)]
    # Members never saw the failed day's task, so it is the one that goes out next.
    (missed,) = run.post_ids
    sent = read(bot.service.store, posts_unit.get_post, poster.messages[0].post_id)
    assert (
        sent is not None
        and sent.task_id == read(bot.service.store, posts_unit.get_post, missed).task_id
    )  # type: ignore[union-attr]


async def test_no_matching_task_is_an_error_not_a_crash(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster
) -> None:
    bot = start()
    schedule = bot.add(topic="Astrology")
    await bot.run_until(datetime(2025, 3, 2, 8, 30, tzinfo=UTC))
    assert poster.messages == []
    assert bot.schedule(schedule.id).last_error == "There is no Astrology task in the loaded banks"


async def test_the_loop_survives_any_exception(
    start: Callable[..., Process],
    clock: Clock,
    poster: RecordingPoster,
    caplog: pytest.LogCaptureFixture,
) -> None:
    bot = start(max_sleep=60.0)
    bot.add()
    real = bot.schedules.runnable
    calls = 0

    def flaky() -> list[ScheduleInfo]:
        nonlocal calls
        calls += 1
        if calls <= 3:
            raise OSError("database is locked")
        return real()

    bot.schedules.runnable = flaky  # type: ignore[method-assign]
    clock.now = datetime(2025, 3, 2, 7, 59, tzinfo=UTC)
    with caplog.at_level(logging.ERROR, logger="bot.schedule.runner"):
        await bot.run_until(datetime(2025, 3, 2, 8, 10, tzinfo=UTC))
    assert "scheduler tick failed" in caplog.text
    assert len(poster.messages) == 1


async def test_wake_interrupts_the_sleep(start: Callable[..., Process], clock: Clock) -> None:
    bot = start()
    woke = asyncio.Event()
    ticks = 0
    real_tick = bot.scheduler.tick

    async def counting_tick() -> datetime:
        nonlocal ticks
        ticks += 1
        if ticks == 2:
            woke.set()
        return await real_tick()

    asleep = asyncio.Event()

    async def long_sleep(seconds: float) -> None:
        asleep.set()
        await asyncio.sleep(3600)

    bot.scheduler.tick = counting_tick  # type: ignore[method-assign]
    bot.scheduler._sleep = long_sleep
    bot.scheduler.start()
    # Asleep after its first tick (which reads the database in a thread: no fixed wait), so
    # the wake below interrupts the sleep, not a tick. The timeouts only bound a hang.
    await asyncio.wait_for(asleep.wait(), timeout=30)
    assert ticks == 1
    bot.scheduler.wake()
    await asyncio.wait_for(woke.wait(), timeout=30)
    await bot.scheduler.stop()


# -- several processes (sharding) -----------------------------------------------------------------

SHARD_1_GUILD = 1 << 22
"""On shard 1 of 2 by Discord's formula; GUILD (1) is on shard 0."""
SHARD_0, SHARD_1 = ShardPlan.parse(2, "0"), ShardPlan.parse(2, "1")


async def test_two_schedulers_that_claim_the_same_shard_by_mistake_post_once(
    start: Callable[..., Process], clock: Clock
) -> None:
    """Both processes run shard 0 and tick the same slot at the same moment: the database's
    claim, not the ownership check, is what keeps the day to one post."""
    posters = [RecordingPoster(clock), RecordingPoster(clock)]
    first, second = (start(shards=SHARD_0, poster=p) for p in posters)
    schedule = first.add()
    # Both reach the claim before either has claimed: each read of the day finds nothing.
    arrived = threading.Barrier(2, timeout=10)
    claimed: list[object] = []
    for process in (first, second):
        real = process.schedules.claim

        def racing(*args: object, _real: Callable[..., object] = real, **kwargs: object) -> object:
            arrived.wait()
            run = _real(*args, **kwargs)
            claimed.append(run)
            return run

        process.schedules.claim = racing  # type: ignore[method-assign]

    clock.now = datetime(2025, 3, 2, 8, tzinfo=UTC)  # 09:00 in Berlin
    await asyncio.gather(first.scheduler.tick(), second.scheduler.tick())
    for _ in range(3):  # and both keep ticking through the day
        clock.advance(minutes=20)
        await asyncio.gather(first.scheduler.tick(), second.scheduler.tick())

    assert len(claimed) == 2 and sum(run is not None for run in claimed) == 1
    sent = posters[0].messages + posters[1].messages
    assert [m.sent_at for m in sent] == [datetime(2025, 3, 2, 8, tzinfo=UTC)]
    run = first.schedules.run(schedule.id, date(2025, 3, 2))
    assert run is not None and run.status == "posted"


async def test_a_scheduler_for_shard_1_never_posts_a_shard_0_guilds_quiz(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster
) -> None:
    shard_1 = start(shards=SHARD_1)
    theirs = shard_1.add(guild_id=GUILD, channel_id=CHANNEL)
    ours = shard_1.add(guild_id=SHARD_1_GUILD, channel_id=OTHER_CHANNEL)

    await shard_1.run_until(datetime(2025, 3, 5, 12, tzinfo=UTC))

    assert poster.in_channel(CHANNEL) == []
    assert len(poster.in_channel(OTHER_CHANNEL)) == 4  # 2 to 5 March
    # Not even a skipped day: the owner is free to post it when it comes.
    assert shard_1.schedules.run(theirs.id, date(2025, 3, 2)) is None
    assert shard_1.schedule(theirs.id).last_result is None
    assert shard_1.schedule(ours.id).last_result == "posted 2025-03-05: 1 task"


@pytest.mark.parametrize(
    ("back_at", "posted"),
    [
        (datetime(2025, 3, 2, 9, 30, tzinfo=UTC), True),
        (datetime(2025, 3, 2, 10, 1, tzinfo=UTC), False),
    ],
    ids=["within-grace", "beyond-grace"],
)
async def test_a_shard_process_that_was_down_posts_its_servers_quiz_when_back_within_grace(
    start: Callable[..., Process],
    clock: Clock,
    poster: RecordingPoster,
    back_at: datetime,
    posted: bool,
) -> None:
    shard_0 = start(shards=SHARD_0)
    shard_1 = start(shards=SHARD_1)
    down = shard_0.add(guild_id=GUILD, channel_id=CHANNEL)
    shard_1.add(guild_id=SHARD_1_GUILD, channel_id=OTHER_CHANNEL)
    await shard_0.run_until(datetime(2025, 3, 2, 7, tzinfo=UTC))
    await shard_0.close()  # shard 0's process dies an hour before its server's 09:00

    await shard_1.run_until(back_at)  # the other shard carries on, and leaves it alone
    assert [m.sent_at for m in poster.in_channel(OTHER_CHANNEL)] == [
        datetime(2025, 3, 2, 8, tzinfo=UTC)
    ]
    assert poster.in_channel(CHANNEL) == []

    back = start(shards=SHARD_0)
    await back.scheduler.tick()
    run = back.schedules.run(down.id, date(2025, 3, 2))
    assert run is not None
    if posted:
        assert [m.sent_at for m in poster.in_channel(CHANNEL)] == [back_at]
        assert run.status == "posted"
    else:
        assert poster.in_channel(CHANNEL) == []
        assert run.status == "skipped"
    await back.run_until(datetime(2025, 3, 3, 12, tzinfo=UTC))
    assert poster.in_channel(CHANNEL)[-1].sent_at == datetime(2025, 3, 3, 8, tzinfo=UTC)
    assert len(poster.in_channel(OTHER_CHANNEL)) == 1  # shard 1's days are shard 1's to post


async def test_each_shard_closes_only_its_own_servers_posts(
    start: Callable[..., Process], clock: Clock
) -> None:
    posters = {0: RecordingPoster(clock), 1: RecordingPoster(clock)}
    shard_0 = start(shards=SHARD_0, poster=posters[0])
    shard_1 = start(shards=SHARD_1, poster=posters[1])
    shard_0.add(guild_id=GUILD, channel_id=CHANNEL)
    shard_1.add(guild_id=SHARD_1_GUILD, channel_id=OTHER_CHANNEL)
    for day in (2, 3):
        clock.now = datetime(2025, 3, day, 8, 0, 5, tzinfo=UTC)
        await asyncio.gather(shard_0.scheduler.tick(), shard_1.scheduler.tick())

    for shard, channel in ((0, CHANNEL), (1, OTHER_CHANNEL)):
        sent = posters[shard].messages
        assert [m.channel_id for m in sent] == [channel, channel]
        # 2 March's post, closed by its own shard, and only by it.
        assert posters[shard].closing == [sent[0].post_id]
        assert sent[0].closed_content is not None
        assert sent[1].closed_content is None


# -- the database server goes away (PostgreSQL) ---------------------------------------------------


@pytest.fixture
def pg_url(pg_server: PgServer) -> Iterator[str]:
    url = pg_server.new_database()
    yield url
    # The server is up again whatever the test did (the other tests share it).
    if pg_server.pg_ctl("status", check=False).returncode != 0:
        pg_server.start()
    pg_server.drop_database(url)


@pytest.mark.postgresql
async def test_the_scheduler_retries_inside_its_grace_window_while_postgres_is_down(
    pg_server: PgServer,
    pg_url: str,
    clock: Clock,
    poster: RecordingPoster,
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock.now = datetime(2025, 3, 2, 7, 50, tzinfo=UTC)
    bot = Process(pg_url, clock, poster, max_sleep=60.0)
    try:
        schedule = bot.add()  # 09:00 Berlin = 08:00 UTC; grace 2 h
        await bot.run_until(datetime(2025, 3, 2, 8, 1, tzinfo=UTC))
        assert [m.sent_at for m in poster.messages] == [datetime(2025, 3, 2, 8, tzinfo=UTC)]

        # The next morning the server is down when the quiz is due (and yesterday's closes).
        clock.now = datetime(2025, 3, 3, 7, 55, tzinfo=UTC)
        await asyncio.to_thread(pg_server.stop, "fast")
        with caplog.at_level(logging.WARNING):
            await bot.run_until(datetime(2025, 3, 3, 8, 20, tzinfo=UTC))
            assert len(poster.messages) == 1  # nothing sent while nothing can be claimed
            assert poster.closing == []
            failed_ticks = len(bot.sleeps)

            await asyncio.to_thread(pg_server.start)
            await bot.run_until(datetime(2025, 3, 3, 8, 40, tzinfo=UTC))
    finally:
        await bot.close()

    # Back within the grace window: posted exactly once, at the first tick after the restart,
    # and yesterday's post closed.
    sent = [m.sent_at for m in poster.messages]
    assert sent == [datetime(2025, 3, 2, 8, tzinfo=UTC), datetime(2025, 3, 3, 8, 20, tzinfo=UTC)]
    assert poster.messages[0].closed_content is not None
    verify = Process(pg_url, clock, poster)
    try:
        run = verify.schedules.run(schedule.id, date(2025, 3, 3))
        assert run is not None and run.status == "posted"
        assert verify.schedule(schedule.id).last_error is None
    finally:
        await verify.close()
    # The loop kept trying every minute (its max_sleep) while the server was down, no faster.
    assert failed_ticks >= 20
    # The host was told the database is unreachable, in log lines without a traceback, and
    # the scheduler itself logged no error of its own.
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"
    faults = [r.getMessage() for r in caplog.records if r.name == "bot.store.store"]
    assert any("cannot be reached" in m for m in faults), faults
    assert [r for r in caplog.records if r.name == "bot.schedule.runner"] == []


@dataclass
class HeldPoster(RecordingPoster):
    """A poster whose first send waits until `release` (a slow Discord, a rate limit)."""

    sending: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)

    async def post(self, posted: PostedTask, *, extra: str) -> int:
        if not self.sending.is_set():
            self.sending.set()
            await self.release.wait()
        return await super().post(posted, extra=extra)


@pytest.mark.postgresql
async def test_a_second_process_on_the_same_shard_leaves_a_day_alone_while_it_goes_out(
    pg_url: str, clock: Clock
) -> None:
    """Process A has claimed the day and is sending it; process B (the same shard by mistake)
    ticks meanwhile, sees the claimed day and finds nothing in the channel yet. It must not
    send the post as well."""
    poster = HeldPoster(clock)
    first = Process(pg_url, clock, poster, shards=SHARD_0)
    second = Process(pg_url, clock, poster, shards=SHARD_0)
    try:
        schedule = first.add()
        clock.now = datetime(2025, 3, 2, 8, tzinfo=UTC)  # 09:00 in Berlin
        sending = asyncio.create_task(first.scheduler.tick())
        await asyncio.wait_for(poster.sending.wait(), timeout=10)
        await second.scheduler.tick()
        poster.release.set()
        await sending
        clock.advance(minutes=1)
        await asyncio.gather(first.scheduler.tick(), second.scheduler.tick())

        assert [m.post_id for m in poster.in_channel(CHANNEL)] == [1]
        run = first.schedules.run(schedule.id, date(2025, 3, 2))
        assert run is not None and run.status == "posted"
    finally:
        await first.close()
        await second.close()


@pytest.mark.postgresql
async def test_a_day_held_by_a_process_that_died_is_resumed_once_its_connection_is_gone(
    pg_url: str, clock: Clock
) -> None:
    """A process killed mid-send holds the day as long as its connection lives, and lets go
    with it: whoever ticks next then finds the post in the channel, or sends it."""
    poster = HeldPoster(clock)
    dying = Process(pg_url, clock, poster, shards=SHARD_0)
    other = Process(pg_url, clock, poster, shards=SHARD_0)
    schedule = dying.add()
    clock.now = datetime(2025, 3, 2, 8, tzinfo=UTC)
    sending = asyncio.create_task(dying.scheduler.tick())
    await asyncio.wait_for(poster.sending.wait(), timeout=10)
    # The process dies here: nothing of it runs any more, its own clean-up included ...
    dying.schedules.deliveries.give_back = lambda *_: None  # type: ignore[method-assign]
    sending.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await sending
    try:
        clock.advance(minutes=1)
        await other.scheduler.tick()
        assert poster.in_channel(CHANNEL) == []  # held while its connection lives
        dying.schedules.deliveries.close()  # ... and its connection, with its hold, is gone
        clock.advance(minutes=1)
        await other.scheduler.tick()
        assert [m.post_id for m in poster.in_channel(CHANNEL)] == [1]
        run = other.schedules.run(schedule.id, date(2025, 3, 2))
        assert run is not None and run.status == "posted"
    finally:
        await dying.close()
        await other.close()


@pytest.mark.parametrize("stop", ["remove", "pause"])
async def test_a_stopped_schedules_interrupted_day_still_closes_with_its_result(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster, stop: str
) -> None:
    # 1 of 2 posts went out, then the process died before recording it; the moderator stops
    # the schedule before the bot is back. The post that is out must still close on time.
    first = start()
    schedule = first.add(count=2)
    clock.now = datetime(2025, 3, 2, 8, tzinfo=UTC)
    poster.crash = "after_send"
    with pytest.raises(Crash):
        await first.scheduler.tick()
    if stop == "remove":
        first.schedules.remove(GUILD, schedule.id, clock())
    else:
        first.schedules.set_paused(GUILD, schedule.id, True, clock())
    await first.close()
    (message,) = poster.messages

    poster.crash = None
    clock.advance(minutes=1)
    second = start()
    await second.run_until(datetime(2025, 3, 3, 9, tzinfo=UTC))

    assert poster.messages == [message]  # nothing more sent for a stopped schedule
    post = read(second.service.store, posts_unit.get_post, message.post_id)
    assert post is not None and post.closed_at is not None
    assert message.closed_content is not None and "closed" in message.closed_content


async def test_a_day_lost_to_errors_is_not_blamed_on_the_bot_being_offline(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster
) -> None:
    # The bot was up all along, but no task matched (the bank changed under the schedule):
    # the day is given up after the grace window, and /schedule list must not say the bot
    # was offline, which would send the moderator looking in the wrong place.
    bot = start()
    schedule = bot.add(topic="no such topic")
    await bot.run_until(datetime(2025, 3, 2, 12, tzinfo=UTC))

    assert poster.messages == []
    run = bot.schedules.run(schedule.id, date(2025, 3, 2))
    assert run is not None and run.status == "skipped"
    info = bot.schedule(schedule.id)
    assert "offline" not in (info.last_result or "")
    assert info.last_result is not None and "not posted within the grace window" in (
        info.last_result
    )
    assert info.last_error is not None and info.last_error in info.last_result


async def test_with_no_grace_a_running_bot_still_posts_when_it_wakes_a_moment_late(
    start: Callable[..., Process], clock: Clock, poster: RecordingPoster
) -> None:
    # SCHEDULE_GRACE_MINUTES=0 (allowed: "no late posts after an outage"). A sleep never ends
    # on the exact instant: the loop reads the clock a few milliseconds after 09:00. That is
    # the bot being on time, not a day missed while it was down.
    bot = start(grace=timedelta(0))
    schedule = bot.add()
    plain_sleep = bot._sleep

    async def overshooting_sleep(seconds: float) -> None:
        await plain_sleep(seconds)
        clock.advance(milliseconds=30)

    bot.scheduler._sleep = overshooting_sleep
    await bot.run_until(datetime(2025, 3, 3, 12, tzinfo=UTC))

    assert len(poster.in_channel()) == 2  # 2 and 3 March
    run = bot.schedules.run(schedule.id, date(2025, 3, 2))
    assert run is not None and run.status == "posted"
