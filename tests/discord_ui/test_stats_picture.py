"""The /stats picture: its size, and known figures where they should be (pixel colours of the
grid cells of known active days, the bars' lengths), from a member's answers in a real store."""

from __future__ import annotations

import io
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from PIL import Image

from bot.discord_ui import stats_picture as sp
from bot.progress import MemberProgress, TopicProgress, topic_progress
from bot.quiz.engine import Outcome, Progress, grade
from bot.quiz.tasks import Task
from bot.store import AnswerRequest, PostInfo, Store, make_engine
from tests.factories import choice

GUILD, CHANNEL, USER = 1, 10, 7
TODAY = date(2024, 5, 8)  # a Wednesday
NOW = datetime(2024, 5, 8, 18, tzinfo=UTC)
FIRST_MONDAY = date(2024, 2, 19)
MLOPS = choice("t-mlops", topic="MLOps")
PYTHON = choice("t-python", topic="Python")
RIGHT, WRONG = ("A",), ("B",)
UTC_ZONE = ZoneInfo("UTC")


def grader(post: PostInfo, request: AnswerRequest, progress: Progress) -> Outcome:
    assert post.task is not None
    return grade(post.task, progress, request.picks)


@pytest.fixture
def store() -> Iterator[Store]:
    store = Store(make_engine("sqlite://"))
    yield store
    store.engine.dispose()


def answers(store: Store, task: Task, day: date, *picks: tuple[str, ...]) -> None:
    at = datetime.combine(day, datetime.min.time(), tzinfo=UTC) + timedelta(hours=9)
    post = store.create_post(GUILD, CHANNEL, task, 99, closes_at=None, now=at)
    for pick in picks:
        store.answer(AnswerRequest(post.id, GUILD, USER, "user", pick), grader, at)


def progress_of(store: Store, due: dict[str, int] | None = None) -> MemberProgress:
    """What the service hands the picture, read from the store as the service does."""
    activity = store.member_activity(GUILD, USER, UTC_ZONE, FIRST_MONDAY, NOW)
    topics = topic_progress(activity.tried, lambda post: post.task.topic, due or {})  # type: ignore[union-attr]
    return MemberProgress(FIRST_MONDAY, TODAY, activity.attempts_per_day, topics)


def picture(progress: MemberProgress) -> Image.Image:
    image = Image.open(io.BytesIO(sp.render(progress)))
    assert image.format == "PNG"
    return image.convert("RGBA")


def colour_at(image: Image.Image, box: tuple[int, int, int, int] | None) -> tuple[int, ...]:
    assert box is not None
    x0, y0, x1, y1 = box
    r, g, b, a = image.getpixel(((x0 + x1) // 2, (y0 + y1) // 2))  # type: ignore[misc]
    assert a == 255
    return r, g, b


def test_size_and_transparent_corners(store: Store) -> None:
    answers(store, MLOPS, TODAY, RIGHT)
    progress = progress_of(store)
    image = picture(progress)
    assert image.size == (sp.WIDTH * sp.SCALE, sp.height(progress)) == (1040, 812)
    assert image.getpixel((0, 0))[3] == 0  # outside the rounded card
    assert image.getpixel((image.width // 2, 6))[:3] in (sp.CARD, sp.OUTLINE)
    # More topics than it shows: one line more, then no taller.
    many = MemberProgress(
        FIRST_MONDAY, TODAY, progress.attempts_per_day,
        tuple(TopicProgress(f"t{i}", 1, 0) for i in range(9)),
    )
    assert picture(many).height == sp.height(many) > image.height


def test_grid_cells_of_known_days_have_the_shade_for_their_count(store: Store) -> None:
    known = {
        FIRST_MONDAY: 1,  # top left
        date(2024, 3, 3): 2,  # a Sunday: bottom row
        date(2024, 4, 10): 3,
        date(2024, 5, 1): 6,
        TODAY: 10,
    }
    for day, count in known.items():
        for _ in range(count // 2):
            answers(store, MLOPS, day, WRONG, RIGHT)
        if count % 2:
            answers(store, PYTHON, day, RIGHT)
    answers(store, MLOPS, FIRST_MONDAY - timedelta(days=1), RIGHT)  # before the grid
    image = picture(progress_of(store))

    assert sp.cell_box(progress_of(store), FIRST_MONDAY) == (112, 156, 160, 204)
    for day, count in known.items():
        level = {1: 1, 2: 1, 3: 2, 6: 3, 10: 4}[count]
        assert colour_at(image, sp.cell_box(progress_of(store), day)) == sp.SHADES[level], day
    progress = progress_of(store)
    for empty in (FIRST_MONDAY + timedelta(days=1), date(2024, 4, 11), TODAY - timedelta(days=1)):
        assert colour_at(image, sp.cell_box(progress, empty)) == sp.SHADES[0]
    # Thursday to Sunday of this week have not happened: no cell, the card shows through.
    tomorrow = TODAY + timedelta(days=1)
    assert sp.cell_box(progress, tomorrow) is None
    x0, y0, x1, y1 = sp.cell_box(progress, TODAY)  # type: ignore[misc]
    below = (x0, y0 + (y1 - y0) + sp.GAP * sp.SCALE, x1, y1 + (y1 - y0) + sp.GAP * sp.SCALE)
    assert colour_at(image, below) == sp.CARD
    # Today is ringed.
    assert image.getpixel((x0 - 3, (y0 + y1) // 2))[:3] == sp.TODAY_RING


def run_lengths(image: Image.Image, box: tuple[int, int, int, int]) -> dict[tuple[int, ...], int]:
    x0, y0, x1, y1 = box
    middle = (y0 + y1) // 2
    counts: dict[tuple[int, ...], int] = {}
    for x in range(x0, x1):
        colour = image.getpixel((x, middle))[:3]  # type: ignore[index]
        counts[colour] = counts.get(colour, 0) + 1
    return counts


def test_bars_fill_by_the_first_try_ratio_then_the_due_reviews(store: Store) -> None:
    for _ in range(3):
        answers(store, MLOPS, TODAY, RIGHT)  # first try
    answers(store, MLOPS, TODAY, WRONG, RIGHT)
    answers(store, PYTHON, TODAY, WRONG)
    answers(store, PYTHON, TODAY, WRONG)
    progress = progress_of(store, due={"MLOps": 1})
    assert progress.topics == (TopicProgress("MLOps", 4, 3, 1), TopicProgress("Python", 2, 0, 0))
    image = picture(progress)
    width = sp.BAR_W * sp.SCALE

    mlops = run_lengths(image, sp.bar_box(0))
    assert mlops[sp.FIRST_TRY] == pytest.approx(width * 3 / 4, abs=2)
    assert mlops[sp.DUE] == pytest.approx(width * 1 / 4, abs=2)
    assert sp.TRACK not in mlops

    python = run_lengths(image, sp.bar_box(1))
    assert python == {sp.TRACK: width}


def test_bar_fractions_never_overflow() -> None:
    assert sp.bar_fractions(TopicProgress("a", 4, 1, 1)) == (0.25, 0.25)
    assert sp.bar_fractions(TopicProgress("a", 4, 3, 5)) == (0.6, 0.4)
    assert sp.bar_fractions(TopicProgress("a", 0, 0, 2)) == (0.0, 1.0)
    assert sp.bar_fractions(TopicProgress("a", 0, 0, 0)) == (0.0, 0.0)


def test_shades_and_their_legend() -> None:
    assert [sp.shade(n) for n in (0, 1, 2, 3, 5, 6, 9, 10, 99)] == [0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert [sp.shade_label(level) for level in range(5)] == ["0", "1-2", "3-5", "6-9", "10+"]
    # Lighter with every step, so the order shows without telling greens apart.
    lightness = [0.3 * r + 0.59 * g + 0.11 * b for r, g, b in sp.SHADES]
    assert lightness == sorted(lightness)


def test_month_labels_sit_over_the_week_of_the_first() -> None:
    assert sp.month_labels(date(2024, 3, 4)) == [(0, "Mar"), (4, "Apr"), (8, "May")]
    # The 1st in the second column (Friday 1 March): a label over the first would collide.
    assert sp.month_labels(FIRST_MONDAY) == [(1, "Mar"), (6, "Apr"), (10, "May")]


def test_alt_text_has_the_figures(store: Store) -> None:
    answers(store, MLOPS, TODAY, WRONG, RIGHT)
    answers(store, MLOPS, TODAY - timedelta(days=2), RIGHT)
    text = sp.describe(progress_of(store, due={"MLOps": 2}))
    assert "3 answers on 2 days" in text
    assert "MLOps: 1 of 2 on the first try, 2 due for review." in text
