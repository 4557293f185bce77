"""The /stats picture: its size, and known figures where they should be (pixel colours of the
grid cells of known active days, the bars' lengths), from a member's answers in a real store."""

from __future__ import annotations

import io
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from babel.messages.extract import extract_from_file
from PIL import Image

from bot import i18n
from bot import stats_picture as sp
from bot.i18n import SHIPPED_LOCALES, formats, ngettext, speaking
from bot.i18n.catalogs import COMMENT_TAGS, KEYWORDS
from bot.progress import MemberProgress, TopicProgress, topic_progress
from bot.quiz.tasks import Task
from bot.rendering import discord_len
from bot.store import AnswerRequest, Store, make_engine, stats
from tests.factories import choice
from tests.i18n.catalog_files import use_locale_dir
from tests.i18n.code_catalogs import write_code_pseudo
from tests.i18n.pseudo import pseudo
from tests.store_calls import answer, create_post, read

GUILD, CHANNEL, USER = 1, 10, 7
TODAY = date(2024, 5, 8)  # a Wednesday
NOW = datetime(2024, 5, 8, 18, tzinfo=UTC)
FIRST_MONDAY = date(2024, 2, 19)
MLOPS = choice("t-mlops", topic="MLOps")
PYTHON = choice("t-python", topic="Python")
RIGHT, WRONG = ("A",), ("B",)
UTC_ZONE = ZoneInfo("UTC")


@pytest.fixture
def store() -> Iterator[Store]:
    store = Store(make_engine("sqlite://"))
    yield store
    store.engine.dispose()


def answers(store: Store, task: Task, day: date, *picks: tuple[str, ...]) -> None:
    at = datetime.combine(day, datetime.min.time(), tzinfo=UTC) + timedelta(hours=9)
    post = create_post(store, GUILD, CHANNEL, task, now=at, posted_by=99)
    for pick in picks:
        answer(store, AnswerRequest(post.id, GUILD, USER, "user", pick), at)


def progress_of(store: Store, due: dict[str, int] | None = None) -> MemberProgress:
    """What the service hands the picture, read from the store as the service does."""
    activity = read(store, stats.member_activity, GUILD, USER, UTC_ZONE, FIRST_MONDAY, NOW)
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
        FIRST_MONDAY,
        TODAY,
        progress.attempts_per_day,
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


def test_bars_fill_by_the_first_try_ratio(store: Store) -> None:
    for _ in range(3):
        answers(store, MLOPS, TODAY, RIGHT)  # first try
    answers(store, MLOPS, TODAY, WRONG, RIGHT)
    answers(store, PYTHON, TODAY, WRONG)
    answers(store, PYTHON, TODAY, ("C",))  # B again would be a repeat: its misses count once
    progress = progress_of(store, due={"MLOps": 1})
    assert progress.topics == (TopicProgress("MLOps", 4, 3, 1), TopicProgress("Python", 2, 0, 0))
    image = picture(progress)
    width = sp.BAR_W * sp.SCALE

    mlops = run_lengths(image, sp.bar_box(0))
    assert mlops[sp.FIRST_TRY] == pytest.approx(width * 3 / 4, abs=2)
    assert mlops[sp.TRACK] == pytest.approx(width * 1 / 4, abs=2)
    assert due_pixels(image, 0) > 0  # its badge

    python = run_lengths(image, sp.bar_box(1))
    assert python == {sp.TRACK: width}
    assert due_pixels(image, 1) == 0


def due_pixels(image: Image.Image, row: int) -> int:
    """How many pixels of a topic's row are the due badge's orange."""
    return colours(image.crop(sp.row_box(row))).get(sp.DUE, 0)


def colours(image: Image.Image) -> dict[tuple[int, ...], int]:
    """Colour -> how many pixels of `image` have it."""
    return {c[:3]: n for n, c in image.getcolors(image.width * image.height) or ()}


def synthetic(*topics: TopicProgress, per_day: int = 2) -> MemberProgress:
    days = (TODAY - FIRST_MONDAY).days + 1
    return MemberProgress(FIRST_MONDAY, TODAY, (per_day,) * days, topics)


def test_due_reviews_show_however_full_the_bar_and_never_change_it() -> None:
    progress = synthetic(
        TopicProgress("Mastered", 20, 20, 8),  # the bar was full: no room left for orange
        TopicProgress("More due than tried", 2, 2, 3),  # the orange ate into the green
        TopicProgress("Due only", 0, 0, 5),
        TopicProgress("Nothing due", 5, 5, 0),
    )
    image = picture(progress)
    width = sp.BAR_W * sp.SCALE
    for row in (0, 1):
        assert run_lengths(image, sp.bar_box(row)) == {sp.FIRST_TRY: width}, row
        assert due_pixels(image, row) > 200, row  # a badge, not a sliver
    assert run_lengths(image, sp.bar_box(2)) == {sp.TRACK: width}
    assert due_pixels(image, 2) > 200
    assert due_pixels(image, 3) == 0
    assert sp.first_try_fraction(TopicProgress("a", 4, 1, 9)) == 0.25
    assert sp.first_try_fraction(TopicProgress("a", 0, 0, 2)) == 0.0


FILL_COLOURS = {sp.CARD, sp.TRACK, sp.FIRST_TRY, sp.DUE, sp.OUTLINE}


def test_large_counts_fit_beside_the_bar_without_touching_it() -> None:
    progress = synthetic(
        TopicProgress("Python", 123456, 99999, 12345),
        TopicProgress("MLOps", 1200, 900, 150),
        TopicProgress("Even", 9999, 9999, 9999),
        per_day=123456,
    )
    image = picture(progress)
    for row in range(3):
        bx0, _, bx1, _ = sp.bar_box(row)
        _, y0, x1, y1 = sp.row_box(row)
        badge = [
            x
            for x in range(bx1, x1)
            for y in range(y0, y1)
            if image.getpixel((x, y))[:3] == sp.DUE  # type: ignore[index]
        ]
        assert badge, row
        text = [
            x
            for x in range(bx0 - 8, min(badge) - 4)
            for y in range(y0, y1)
            if image.getpixel((x, y))[:3] not in FILL_COLOURS  # type: ignore[index]
        ]
        assert text, row  # the figures are there...
        assert min(text) > bx1 + 4, row  # ...clear of the bar, and left of the badge
    # Nothing spills into the card's right padding (the summary figures, the badges).
    margin = image.crop(
        ((sp.WIDTH - sp.PAD) * sp.SCALE + 1, 40, (sp.WIDTH - 4) * sp.SCALE, image.height - 40)
    )
    assert set(colours(margin)) == {sp.CARD}

    body = sp._Fonts.load().body
    assert sp.bar_figures(progress.topics[0], body) == "99k/123k"
    assert sp.bar_figures(progress.topics[1], body) == "900/1200"
    assert sp.bar_figures(progress.topics[2], body) == "9999/9999"


def test_compact_counts_round_down_in_four_characters() -> None:
    cases = {
        999: "999",
        1000: "1k",
        1999: "1.9k",
        12345: "12k",
        99999: "99k",
        123456: "123k",
        999_999: "999k",
        1_000_000: "1M",
        1_250_000: "1.2M",
        2_000_000_000: "2B",
    }
    assert {n: sp.compact(n) for n in cases} == cases


def name_pixels(image: Image.Image, row: int) -> bytes:
    x0, y0, _, y1 = sp.row_box(row)
    return image.crop((x0, y0, (sp.BAR_X - 12) * sp.SCALE, y1)).tobytes()


def test_letters_beyond_ascii_are_drawn_and_missing_ones_as_a_placeholder() -> None:
    missing = "\U0010ffff"  # in no font: drawn as the font's empty box, if at all
    progress = synthetic(
        TopicProgress("Réseaux", 1, 1),
        TopicProgress(f"R{missing}seaux", 1, 1),
        TopicProgress("R?seaux", 1, 1),
        TopicProgress("Алгоритмы", 1, 1),
        TopicProgress(missing * 9, 1, 1),
        TopicProgress("機械学習 🐍", 1, 1),
    )
    image = picture(progress)
    # "é" and Cyrillic have glyphs of their own, not the box a missing one gets...
    assert name_pixels(image, 0) != name_pixels(image, 1)
    assert name_pixels(image, 3) != name_pixels(image, 4)
    # ...and a character the font lacks shows as "?", not as a box.
    assert name_pixels(image, 1) == name_pixels(image, 2)
    assert sp.legible("機械学習 🐍") == "???? ?"
    assert sp.legible("Ça va — ß ñ ü, Ελληνικά") == "Ça va — ß ñ ü, Ελληνικά"
    assert sp.legible("e\u0301te\n❤\ufe0f") == "éte ❤\ufe0f"  # composed, one line
    # The alt text keeps the real names: a screen reader has every character.
    assert "機械学習 🐍: 1 of 1 on the first try." in sp.describe(progress)


def test_alt_text_stays_within_discords_limit() -> None:
    topic = (
        "Machine Learning Operations: deployment, monitoring, continuous training and the "
        "feature stores of production pipelines, with their rollbacks (part {})"
    )
    progress = synthetic(*(TopicProgress(topic.format(i), 1200, 800, 120) for i in range(6)))
    text = sp.describe(progress)
    assert discord_len(text) <= sp.DESCRIPTION_LIMIT == 1024
    assert text.startswith("Activity over the last 12 weeks: 160 answers on 80 days.")
    assert text.endswith("…")


def test_shades_and_their_legend() -> None:
    assert [sp.shade(n) for n in (0, 1, 2, 3, 5, 6, 9, 10, 99)] == [0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert [sp.shade_label(level) for level in range(5)] == ["0", "1–2", "3–5", "6–9", "10+"]
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


# -- in every shipped language ---------------------------------------------------------------------


def picture_messages() -> list[str | tuple[str, str]]:
    """The messages the picture and its alt text show, as the code holds them."""
    found = extract_from_file("python", sp.__file__, keywords=KEYWORDS, comment_tags=COMMENT_TAGS)
    return [m if isinstance(m, str) else (m[0], m[1]) for _line, m, _c, _x in found]


def shown_texts(locale: str) -> list[str]:
    """Every label of the picture as `locale` shows it: each catalog message in each of its
    plural forms, and Babel's weekdays and months."""
    texts = []
    with speaking(locale):
        for message in picture_messages():
            if isinstance(message, str):
                texts.append(i18n._(message))
            else:
                texts += [ngettext(*message, n) for n in (0, 1, 2, 5, 1_000_000)]
        days = [FIRST_MONDAY + timedelta(days=n) for n in range(7)]
        texts += [formats.short_weekday(d) for d in days]
        texts += [formats.short_month(date(2024, month, 1)) for month in range(1, 13)]
    return texts


def test_picture_messages_are_found() -> None:
    assert "Answers a day" in picture_messages()
    assert ("{n} due", "{n} due") in picture_messages()


@pytest.mark.parametrize("locale", SHIPPED_LOCALES)
def test_the_pictures_font_covers_every_shipped_locale(locale: str) -> None:
    """Every character of the picture's labels in each shipped catalog has a glyph in both
    faces of the bundled DejaVu Sans: none comes out as "?"."""
    missing = {
        (face, char)
        for text in shown_texts(locale)
        for char in set(text)
        for face in (sp.REGULAR, sp.BOLD)
        if not char.isspace() and not sp.covers(face, char)
    }
    assert missing == set()
    assert not sp.covers(sp.REGULAR, "機")  # the check can fail


@pytest.mark.parametrize("locale", SHIPPED_LOCALES)
def test_the_pictures_words_fit_in_every_shipped_locale(locale: str) -> None:
    """The heading and its key share a line uncut, and each word under a figure fits its
    column (`wrapped` gives it two lines)."""
    fonts = sp._Fonts.load()
    with speaking(locale):
        keys = [i18n._("due for review"), i18n._("first try")]
        heading = i18n._("First try, by topic")
        under = [ngettext("answer", "answers", n) for n in (1, 5)]
        under += [ngettext("active day", "active days", n) for n in (1, 5)]
        under.append(i18n._("this week"))
        caption = i18n._("Answers a day")
    key_width = sum(sp.length(key, fonts.small) + 33 for key in keys)
    assert sp.length(heading, fonts.title) + 12 + key_width <= sp.WIDTH - 2 * sp.PAD
    for label in under:
        assert "…" not in "".join(sp.wrapped(label, fonts.small, sp.SUMMARY_W, lines=2)), label
    legend = sum(19 + sp.length(sp.shade_label(n), fonts.small) + 14 for n in range(5))
    assert sp.PAD + sp.length(caption, fonts.small) + 12 + legend <= sp.WIDTH - sp.PAD


def test_the_picture_speaks_the_members_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its labels and alt text go through the catalogs (the pseudo-locale shows it), with
    the locale's numbers; French counts 0 as singular, German as plural."""
    write_code_pseudo(use_locale_dir(tmp_path / "locales", monkeypatch), "de")
    write_code_pseudo(tmp_path / "locales", "fr")
    progress = synthetic(TopicProgress("Statistik", 1200, 800, 3), per_day=0)
    with speaking("de"):
        text = sp.describe(progress)
        png = sp.render(progress)
    activity = pseudo("Activity over the last {weeks} weeks: {answers} {on_days}.")
    none = {"answers": pseudo("{n} answers"), "on_days": pseudo("on {n} days")}
    assert text.startswith(activity.format(weeks=12, **{k: v.format(n=0) for k, v in none.items()}))
    topic = pseudo("{topic}: {first_try} of {tried} on the first try, {due} due for review.")
    # German groups thousands with ".".
    assert topic.format(topic="Statistik", first_try=800, tried="1.200", due=3) in text
    assert Image.open(io.BytesIO(png)).size == (sp.WIDTH * sp.SCALE, sp.height(progress))
    with speaking("fr"):
        assert pseudo("{n} answer").format(n=0) in sp.describe(progress)


def test_a_word_too_long_for_its_column_wraps_then_cuts() -> None:
    font = sp._Fonts.load().small
    assert sp.wrapped("this week", font, sp.SUMMARY_W, lines=2) == ["this week"]
    assert sp.wrapped("cette semaine", font, sp.SUMMARY_W, lines=2) == ["cette", "semaine"]
    cut = sp.wrapped("Wiederholungsaufgaben diese Woche", font, sp.SUMMARY_W, lines=2)
    assert len(cut) == 2 and cut[0].endswith("…") and cut[1].endswith("…")
