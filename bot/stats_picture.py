"""The /stats picture: a member's progress as a PNG, drawn with Pillow from plain data.

A 12-week activity grid (weeks as columns, Monday on top, shaded by answers a day) and a row per
topic (a bar of first-try solves out of tried, the counts, a badge with the reviews due). The
embed keeps every figure as text; `describe` is the alt text. Its own dark card reads the same
on Discord's dark and light themes; drawn at `SCALE`x, no text under 13 units, so it stays
crisp when scaled down. DejaVu Sans is shipped because topic names come in any language; a
character it lacks is drawn as "?" (`legible`), never an empty box. Pure: the cog runs `render`
in a thread.
"""

from __future__ import annotations

import io
import threading
import unicodedata
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache, lru_cache
from importlib import resources
from typing import Final

from PIL import Image, ImageChops, ImageDraw, ImageFont

from bot.clock import week_start
from bot.i18n import _, formats, ngettext
from bot.progress import MemberProgress, TopicProgress
from bot.rendering import plain_text, truncate

FILENAME = "stats.png"
SCALE = 2  # pixels per layout unit

WIDTH = 520
PAD = 20
WEEKS = 12
CELL = 24
GAP = 5
PITCH = CELL + GAP
GRID_X = PAD + 36
GRID_Y = 78
SHOWN_TOPICS = 6
BAR_X = 170
BAR_H = 14
ROW_H = 30
BADGE_W = 82  # room for "999k due" (`compact` keeps every count that short)
BADGE_H = 20
FIGURES_W = 82  # room for "9999/9999" in full, more as `compact`
FIGURES_RIGHT = WIDTH - PAD - BADGE_W - 8
BAR_W = FIGURES_RIGHT - FIGURES_W - 10 - BAR_X
SUMMARY_X = GRID_X + WEEKS * PITCH - GAP + 26
SUMMARY_W = WIDTH - PAD - SUMMARY_X
TOPICS_Y = GRID_Y + 7 * PITCH - GAP + 52
ROWS_Y = TOPICS_Y + 34  # the first topic row's top
DESCRIPTION_LIMIT: Final = 1024  # an attachment's alt text; over it Discord refuses the message

Colour = tuple[int, int, int]
Font = ImageFont.FreeTypeFont


def _rgb(hex_colour: str) -> Colour:
    value = int(hex_colour.removeprefix("#"), 16)
    return (value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF


CARD = _rgb("#1b1e25")
OUTLINE = _rgb("#474c57")
TEXT = _rgb("#f2f3f5")
MUTED = _rgb("#aab0ba")
TODAY_RING = _rgb("#f2f3f5")
TRACK = _rgb("#2c313a")
FIRST_TRY = _rgb("#3fb950")
DUE = _rgb("#f0b232")
# `shade` 0 (no answers) to 4: greens rising in lightness, so the order shows without colour.
SHADES = tuple(_rgb(c) for c in ("#2c313a", "#0f5a2e", "#1a8a3f", "#2fbf50", "#6ff08a"))
SHADE_FLOORS = (0, 1, 3, 6, 10)  # the fewest answers in a day for each shade


def shade(answers: int) -> int:
    return sum(1 for floor in SHADE_FLOORS[1:] if answers >= floor)


def shade_label(level: int) -> str:
    """The legend's words for a shade: "0", "1–2", …, "10+"."""
    low = SHADE_FLOORS[level]
    if level == len(SHADE_FLOORS) - 1:
        return f"{low}+"
    high = SHADE_FLOORS[level + 1] - 1
    return str(low) if low == high else f"{low}–{high}"


def compact(count: int) -> str:
    """`count` in at most four characters ("1.2k", "123k"), rounded down: 19,999 of 20,000
    never reads as all of them."""
    if count < 1000:
        return str(count)
    units = ((10**3, "k"), (10**6, "M"), (10**9, "B"))
    unit, suffix = next((u, s) for u, s in units if count < u * 1000 or s == "B")
    tenths = count * 10 // unit
    if tenths < 100:
        whole, tenth = divmod(tenths, 10)
        return f"{whole}.{tenth}{suffix}" if tenth else f"{whole}{suffix}"
    return f"{tenths // 10}{suffix}"


# Geometry in PNG pixels, so tests can look where a figure should be.
Box = tuple[int, int, int, int]


def grid_start(progress: MemberProgress) -> date:
    return week_start(progress.today) - timedelta(weeks=WEEKS - 1)


def cell_box(progress: MemberProgress, day: date) -> Box | None:
    """A day's cell (right and bottom excluded); None for a day the grid does not show."""
    offset = (day - grid_start(progress)).days
    if offset < 0 or day > progress.today:
        return None
    column, row = divmod(offset, 7)
    x, y = GRID_X + column * PITCH, GRID_Y + row * PITCH
    return _px((x, y, x + CELL, y + CELL))


def bar_box(index: int) -> Box:
    """The `index`th topic's bar track (the whole of "tried")."""
    y = ROWS_Y + index * ROW_H + (ROW_H - BAR_H) // 2
    return _px((BAR_X, y, BAR_X + BAR_W, y + BAR_H))


def row_box(index: int) -> Box:
    """The `index`th topic's whole row, name to due badge."""
    y = ROWS_Y + index * ROW_H
    return _px((PAD, y, WIDTH - PAD, y + ROW_H))


def height(progress: MemberProgress) -> int:
    rows = max(1, min(len(progress.topics), SHOWN_TOPICS))
    extra = 22 if len(progress.topics) > SHOWN_TOPICS else 0
    return (ROWS_Y + rows * ROW_H + extra + PAD - 6) * SCALE


def _px(box: tuple[int, int, int, int]) -> Box:
    x0, y0, x1, y1 = box
    return x0 * SCALE, y0 * SCALE, x1 * SCALE, y1 * SCALE


REGULAR = "DejaVuSans.ttf"
BOLD = "DejaVuSans-Bold.ttf"
PLACEHOLDER = "?"  # for a character the font lacks (its own empty box reads as a bug)


@cache
def _font_data(face: str) -> bytes:
    # importlib.resources: found wherever the package is installed.
    return (resources.files("bot") / "assets" / "fonts" / face).read_bytes()


def _font(face: str, size: float) -> Font:
    return ImageFont.truetype(io.BytesIO(_font_data(face)), round(size))


def length(text: str, font: Font) -> float:
    return font.getlength(text) / SCALE


INVISIBLE = frozenset({"Mn", "Me", "Cf", "Cc"})  # marks, joiners, controls: dropped, not "?"

_probe_lock = threading.Lock()


@cache
def _probe(face: str) -> tuple[Font, tuple[tuple[int, int], bytes]]:
    """A small font of `face` for coverage checks, and its missing-glyph mask. Basic layout:
    the shaper would draw a dotted circle under a lone combining mark."""
    font = ImageFont.truetype(
        io.BytesIO(_font_data(face)), 16, layout_engine=ImageFont.Layout.BASIC
    )
    missing = font.getmask("\U0010ffff")
    return font, (missing.size, bytes(missing))


@lru_cache(maxsize=4096)
def covers(face: str, char: str) -> bool:
    """Whether `face` has a glyph for `char`: its mask is not the missing-glyph box."""
    # One probe font per face, shared by the threads: FreeType faces are not thread-safe.
    with _probe_lock:
        font, missing = _probe(face)
        mask = font.getmask(char)
        return (mask.size, bytes(mask)) != missing


def legible(text: str, face: str = REGULAR) -> str:
    """`text` as `face` can draw it, on one line: a character it lacks as `PLACEHOLDER`, or
    dropped if invisible anyway."""
    # Composed first, so "e" + a combining accent is the "é" the font has.
    text = " ".join(unicodedata.normalize("NFC", text).split())
    if text.isascii() and text.isprintable():
        return text
    out = []
    for char in text:
        if covers(face, char):
            out.append(char)
        elif unicodedata.category(char) not in INVISIBLE:
            out.append(PLACEHOLDER)
    return "".join(out)


@dataclass(frozen=True, slots=True)
class _Fonts:
    title: Font
    body: Font
    small: Font
    figure: Font
    badge: Font

    @classmethod
    def load(cls) -> _Fonts:
        # Per picture (under a millisecond): FreeType faces are not shared between threads.
        return cls(
            title=_font(BOLD, 18 * SCALE),
            body=_font(REGULAR, 15 * SCALE),
            small=_font(REGULAR, 13 * SCALE),
            figure=_font(BOLD, 22 * SCALE),
            badge=_font(BOLD, 13 * SCALE),
        )


INKS: tuple[tuple[Colour, Colour], ...] = ((TEXT, CARD), (MUTED, CARD), (CARD, DUE))
RAMP = 16  # palette entries per ink for its anti-aliased edges
FILLS = (CARD, OUTLINE, TRACK, FIRST_TRY, DUE, TODAY_RING, *SHADES)
Ink = tuple[Colour, Colour]


def _palette() -> tuple[dict[Colour, int], dict[Ink, int], list[int]]:
    """(fill -> index, ink -> its ramp's index, the flat palette); 0 is transparent."""
    entries: list[Colour] = [(0, 0, 0)]
    fills: dict[Colour, int] = {}
    for colour in FILLS:
        if colour not in fills:
            fills[colour] = len(entries)
            entries.append(colour)
    ramps: dict[Ink, int] = {}
    for ink in INKS:
        colour, ground = ink
        ramps[ink] = len(entries)
        for step in range(1, RAMP + 1):
            red, green, blue = (
                round(c + (t - c) * step / RAMP) for c, t in zip(ground, colour, strict=True)
            )
            entries.append((red, green, blue))
    return fills, ramps, [v for entry in entries for v in entry]


_FILL_INDEX, _RAMP_INDEX, _PALETTE = _palette()
assert max(_FILL_INDEX.values()) < min(_RAMP_INDEX.values())  # `_Canvas.png` relies on it
assert len(_PALETTE) <= 3 * 256
_RAMP_LUT = {
    ink: [base + (v * RAMP - 1) // 256 if v else 0 for v in range(256)]
    for ink, base in _RAMP_INDEX.items()
}
"""Coverage (0-255) -> palette index of the ink's ramp step; 0 where no text."""


class _Canvas:
    """ImageDraw in layout units, drawing palette indices (a palette PNG encodes several times
    faster than RGBA). Text is drawn as one coverage mask per ink, laid over at the end through
    the ink's ramp, so its edges stay anti-aliased."""

    def __init__(self, size: tuple[int, int]) -> None:
        self.image = Image.new("L", size, 0)
        self.draw = ImageDraw.Draw(self.image)
        self.masks: dict[Ink, tuple[Image.Image, ImageDraw.ImageDraw]] = {}

    def box(
        self,
        box: tuple[float, float, float, float],
        fill: Colour | None,
        radius: float = 0,
        outline: Colour | None = None,
        width: float = 0,
    ) -> None:
        x0, y0, x1, y1 = (round(v * SCALE) for v in box)
        self.draw.rounded_rectangle(
            (x0, y0, x1 - 1, y1 - 1),
            radius=round(radius * SCALE),
            fill=None if fill is None else _FILL_INDEX[fill],
            outline=None if outline is None else _FILL_INDEX[outline],
            width=round(width * SCALE),
        )

    def text(
        self,
        xy: tuple[float, float],
        text: str,
        font: Font,
        fill: Colour,
        anchor: str = "la",
        ground: Colour = CARD,
    ) -> None:
        ink = fill, ground
        if ink not in self.masks:
            mask = Image.new("L", self.image.size, 0)
            self.masks[ink] = mask, ImageDraw.Draw(mask)
        draw = self.masks[ink][1]
        draw.text((xy[0] * SCALE, xy[1] * SCALE), text, font=font, fill=255, anchor=anchor)

    def png(self) -> bytes:
        image = self.image
        for ink, (mask, _draw) in self.masks.items():
            # Every ramp index is above every fill's: where a mask covers, the larger index
            # (its ramp step) wins; elsewhere its 0 loses.
            image = ImageChops.lighter(image, mask.point(_RAMP_LUT[ink]))
        image.putpalette(_PALETTE)
        out = io.BytesIO()
        image.save(out, "PNG", transparency=0, compress_level=1)
        return out.getvalue()


def render(progress: MemberProgress) -> bytes:
    canvas = _Canvas((WIDTH * SCALE, height(progress)))
    fonts = _Fonts.load()
    canvas.box((0, 0, WIDTH, height(progress) / SCALE), CARD, radius=16, outline=OUTLINE, width=1)
    # TRANSLATORS: the /stats picture's title over its activity grid.
    title = ngettext("Last {n} week", "Last {n} weeks", WEEKS).format(n=formats.number(WEEKS))
    canvas.text((PAD, PAD), title, fonts.title, TEXT)
    _grid(canvas, fonts, progress)
    _legend(canvas, fonts)
    _summary(canvas, fonts, progress)
    _topics(canvas, fonts, progress)
    return canvas.png()


def _grid(canvas: _Canvas, fonts: _Fonts, progress: MemberProgress) -> None:
    start = grid_start(progress)
    counts = _counts_by_day(progress)
    for row in (0, 2, 4, 6):  # Monday, Wednesday, Friday, Sunday
        label = legible(formats.short_weekday(start + timedelta(days=row)))
        canvas.text((PAD, GRID_Y + row * PITCH + CELL / 2), label, fonts.small, MUTED, "lm")
    for column, month in month_labels(start):
        month = legible(month)
        canvas.text((GRID_X + column * PITCH, GRID_Y - 8), month, fonts.small, MUTED, "ls")
    for column in range(WEEKS):
        monday = start + timedelta(weeks=column)
        for row in range(7):
            day = monday + timedelta(days=row)
            if day > progress.today:
                break
            x, y = GRID_X + column * PITCH, GRID_Y + row * PITCH
            level = shade(counts.get(day, 0))
            canvas.box((x, y, x + CELL, y + CELL), SHADES[level], radius=4)
            if day == progress.today:
                ring = (x - 2.5, y - 2.5, x + CELL + 2.5, y + CELL + 2.5)
                canvas.box(ring, None, radius=6, outline=TODAY_RING, width=1.5)


def month_labels(start: date) -> list[tuple[int, str]]:
    """(column, month) over each week holding a month's 1st, and over the first week if the
    next label is far enough not to collide; months as the current locale abbreviates them."""
    labels = []
    for column in range(WEEKS):
        monday = start + timedelta(weeks=column)
        first = next((d for d in range(7) if (monday + timedelta(days=d)).day == 1), None)
        if first is not None:
            labels.append((column, formats.short_month(monday + timedelta(days=first))))
    if not labels or labels[0][0] >= 2:
        labels.insert(0, (0, formats.short_month(start)))
    return labels


def _legend(canvas: _Canvas, fonts: _Fonts) -> None:
    y = GRID_Y + 7 * PITCH - GAP + 14
    # TRANSLATORS: the /stats picture's legend of the activity grid's shades ("0", "1–2", ...).
    caption = _("Answers a day")
    canvas.text((PAD, y + 7), caption, fonts.small, MUTED, "lm")
    x = PAD + length(caption, fonts.small) + 12
    for level, colour in enumerate(SHADES):
        canvas.box((x, y, x + 14, y + 14), colour, radius=3)
        label = shade_label(level)
        canvas.text((x + 19, y + 7), label, fonts.small, MUTED, "lm")
        x += 19 + length(label, fonts.small) + 14


def _summary(canvas: _Canvas, fonts: _Fonts, progress: MemberProgress) -> None:
    shown = _counts_by_day(progress)
    monday = week_start(progress.today)
    this_week = sum(shown.get(monday + timedelta(days=d), 0) for d in range(7))
    answers, days = sum(shown.values()), len(shown)
    figures = (
        # TRANSLATORS: the /stats picture's figures: a big number with these words under it.
        (answers, ngettext("answer", "answers", answers)),
        (days, ngettext("active day", "active days", days)),
        (this_week, _("this week")),
    )
    for i, (value, label) in enumerate(figures):
        y = GRID_Y + 4 + i * 66
        text = _fitted_count(str(value), compact(value), fonts.figure, SUMMARY_W)
        canvas.text((SUMMARY_X, y), text, fonts.figure, TEXT)
        # Two lines of words fit under a figure, above the next one: room for a long language.
        for n, line in enumerate(wrapped(label, fonts.small, SUMMARY_W, lines=2)):
            canvas.text((SUMMARY_X, y + 30 + n * 16), line, fonts.small, MUTED)


def _topics(canvas: _Canvas, fonts: _Fonts, progress: MemberProgress) -> None:
    y = TOPICS_Y
    key_x: float = WIDTH - PAD
    # TRANSLATORS: the /stats picture's key to its colours, right of its heading "First try,
    # by topic" on one line (about 480 pixels for the three): yellow badges, green bars.
    for label, colour in ((_("due for review"), DUE), (_("first try"), FIRST_TRY)):
        key_x -= length(label, fonts.small)
        canvas.text((key_x, y + 11), label, fonts.small, MUTED, "lm")
        key_x -= 19
        canvas.box((key_x, y + 4, key_x + 14, y + 18), colour, radius=3)
        key_x -= 14
    # TRANSLATORS: the /stats picture's heading over a bar per topic, its key to the right.
    heading = _fit(_("First try, by topic"), fonts.title, key_x - PAD - 12)
    canvas.text((PAD, y), heading, fonts.title, TEXT)
    if not progress.topics:
        empty = _("No tasks tried yet.")
        canvas.text((PAD, ROWS_Y + ROW_H / 2), empty, fonts.body, MUTED, "lm")
        return
    for index, topic in enumerate(progress.topics[:SHOWN_TOPICS]):
        middle = ROWS_Y + index * ROW_H + ROW_H / 2
        name = _fit(legible(plain_text(topic.topic)), fonts.body, BAR_X - PAD - 12)
        canvas.text((PAD, middle), name, fonts.body, TEXT, "lm")
        _bar(canvas, topic, middle - BAR_H / 2)
        figures = bar_figures(topic, fonts.body)
        canvas.text((FIGURES_RIGHT, middle), figures, fonts.body, TEXT, "rm")
        if topic.due:
            _due_badge(canvas, topic.due, fonts.badge, middle)
    hidden = len(progress.topics) - SHOWN_TOPICS
    if hidden > 0:
        more = ngettext("+ {n} more topic", "+ {n} more topics", hidden).format(
            n=formats.number(hidden)
        )
        canvas.text((PAD, ROWS_Y + SHOWN_TOPICS * ROW_H + 8), more, fonts.small, MUTED, "lm")


def _bar(canvas: _Canvas, topic: TopicProgress, top: float) -> None:
    first = first_try_fraction(topic)
    bottom = top + BAR_H
    canvas.box((BAR_X, top, BAR_X + BAR_W, bottom), TRACK, radius=BAR_H / 2)
    if first > 0:
        end = BAR_X + max(BAR_H, BAR_W * first)
        canvas.box((BAR_X, top, end, bottom), FIRST_TRY, radius=BAR_H / 2)


def _due_badge(canvas: _Canvas, due: int, font: Font, middle: float) -> None:
    # Not a segment of the bar: one vanished for a topic solved in full, and ate into the
    # green where more were due than tried.
    pad = 6
    # TRANSLATORS: a badge on the /stats picture: reviews due in a topic (about 8 characters).
    label = ngettext("{n} due", "{n} due", due)
    full, short = label.format(n=formats.number(due)), label.format(n=compact(due))
    room = BADGE_W - 2 * pad
    # A language whose word does not fit shows the number alone: the key says what it counts.
    text = _fitted_count(full, short, font, room) if length(short, font) <= room else compact(due)
    right = WIDTH - PAD
    left = right - length(text, font) - 2 * pad
    canvas.box((left, middle - BADGE_H / 2, right, middle + BADGE_H / 2), DUE, BADGE_H / 2)
    canvas.text(((left + right) / 2, middle), text, font, CARD, "mm", ground=DUE)


def first_try_fraction(topic: TopicProgress) -> float:
    """How much of a topic's bar is green: solved on the first try, of tried."""
    if topic.tried <= 0:
        return 0.0
    return min(max(topic.first_try / topic.tried, 0.0), 1.0)


def bar_figures(topic: TopicProgress, font: Font) -> str:
    """The "first/tried" beside a topic's bar, compacted where it would not fit."""
    full = f"{topic.first_try}/{topic.tried}"
    short = f"{compact(topic.first_try)}/{compact(topic.tried)}"
    return _fitted_count(full, short, font, FIGURES_W)


def _fitted_count(full: str, short: str, font: Font, width: float) -> str:
    """`full` if it fits `width`, else `short` (compacted), cut if even that does not."""
    if length(full, font) <= width:
        return full
    return _fit(short, font, width)


def wrapped(text: str, font: Font, width: float, lines: int) -> list[str]:
    """`text` in at most `lines` lines of `width`, broken between words; the last line cut
    with an ellipsis if the words do not fit."""
    out: list[str] = []
    words = text.split()
    while words and len(out) < lines - 1:
        line = words.pop(0)
        while words and length(f"{line} {words[0]}", font) <= width:
            line += " " + words.pop(0)
        out.append(_fit(line, font, width))
    if words:
        out.append(_fit(" ".join(words), font, width))
    return out


def _fit(text: str, font: Font, width: float) -> str:
    """`text`, cut with an ellipsis to fit `width`."""
    if length(text, font) <= width:
        return text
    low, high = 0, len(text)  # the longest prefix that fits is in [low, high)
    while high - low > 1:
        middle = (low + high) // 2
        if length(text[:middle].rstrip() + "…", font) <= width:
            low = middle
        else:
            high = middle
    return text[:low].rstrip() + "…"


def _counts_by_day(progress: MemberProgress) -> dict[date, int]:
    """The days the grid shows that had answers, and how many."""
    start = grid_start(progress)
    days = (progress.first_day + timedelta(days=i) for i in range(len(progress.attempts_per_day)))
    return {
        day: n
        for day, n in zip(days, progress.attempts_per_day, strict=True)
        if n and start <= day <= progress.today
    }


def describe(progress: MemberProgress) -> str:
    """The picture in words, for its alt text (the real topic names: no missing glyphs)."""
    shown = _counts_by_day(progress)
    answers, days = sum(shown.values()), len(shown)
    # TRANSLATORS: the /stats picture's alt text; {answers} is "160 answers", {on_days} "on 80
    # days": "... 12 weeks: 160 answers on 80 days."
    parts = [
        _("Activity over the last {weeks} weeks: {answers} {on_days}.").format(
            weeks=formats.number(WEEKS),
            answers=ngettext("{n} answer", "{n} answers", answers).format(
                n=formats.number(answers)
            ),
            on_days=ngettext("on {n} day", "on {n} days", days).format(n=formats.number(days)),
        )
    ]
    for topic in progress.topics[:SHOWN_TOPICS]:
        figures = {
            "topic": plain_text(topic.topic),
            "first_try": formats.number(topic.first_try),
            "tried": formats.number(topic.tried),
            "due": formats.number(topic.due),
        }
        if topic.due:
            line = _("{topic}: {first_try} of {tried} on the first try, {due} due for review.")
        else:
            line = _("{topic}: {first_try} of {tried} on the first try.")
        parts.append(line.format(**figures))
    return truncate(" ".join(parts), DESCRIPTION_LIMIT)
