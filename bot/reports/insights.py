"""What /insights tells moderators about a period, pure: the hardest tasks (lowest first-try
rate among tasks with MIN_ANSWERERS answerers), the group's misconceptions (the close summary's
rule over the period) and participation per day, over a rolling window of local days. Posted to
a channel, a task still open on a public post keeps its misconceptions out (`withheld`). The
texts are in the current locale (the caller's: the moderator's, or the server's when posted).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from typing import TYPE_CHECKING

from bot import rendering
from bot.i18n import _, formats, ngettext
from bot.quiz.tasks import Task
from bot.reports.items import difficulty_text
from bot.reports.summary import Misconception, Pickers, misconceptions_among, wrong_pickers

if TYPE_CHECKING:
    from bot.store.insights import DayActivity, TaskActivity, WindowActivity, WrongPick

MIN_ANSWERERS = 3
"""A task needs this many answerers in the period to count among the hardest."""
HARDEST_SHOWN = 5
MISCONCEPTIONS_SHOWN = 8
SPARKS = "▁▂▃▄▅▆▇█"
MARKERS = ("**", "__", "~~", "`")
"""Inline Markdown that needs a closing twin; a cut between the two would leave it open."""


class InsightsPeriod(StrEnum):
    WEEK = "week"
    MONTH = "month"

    @property
    def days(self) -> int:
        return 7 if self is InsightsPeriod.WEEK else 30

    @property
    def label(self) -> str:
        return ngettext("the last {n} day", "the last {n} days", self.days).format(
            n=formats.number(self.days)
        )


def window(period: InsightsPeriod | str, today: date) -> tuple[date, date]:
    """The first and last local day of the period (both included), ending `today`."""
    days = InsightsPeriod(period).days
    return today - timedelta(days=days - 1), today


@dataclass(frozen=True, slots=True)
class HardTask:
    task_id: str
    title: str
    answered: int
    solved: int
    first_try: int
    difficulty: str = ""
    """"author: easy · this group: hard" (`items.difficulty_text`); empty without the task."""

    @property
    def rate(self) -> Fraction:
        return Fraction(self.first_try, self.answered)

    def line(self) -> str:
        percent = int(100 * self.rate + Fraction(1, 2))
        values = {
            "title": self.title,
            "id": self.task_id,
            "rate": formats.percent(Decimal(percent) / 100),
            "first_try": formats.number(self.first_try),
            "answered": formats.number(self.answered),
            "solved": formats.number(self.solved),
        }
        # TRANSLATORS: one of /insights' hardest tasks; "solved" counts its members who solved it.
        text = _(
            "**{title}** (`{id}`): {rate} first try · {first_try}/{answered} first try · "
            "{solved} solved"
        ).format(**values)
        return text + (f" · {self.difficulty}" if self.difficulty else "")


@dataclass(frozen=True, slots=True)
class TaskMisconceptions:
    task_id: str
    title: str
    found: tuple[Misconception, ...]

    def entry(self, limit: int = rendering.EMBED_FIELD_VALUE) -> str:
        """The task's title line and one bullet per misconception, within `limit`: when the
        notes are too long, the longest are shortened (with "…") so that every bullet shows."""
        head = f"**{self.title}** (`{self.task_id}`)"
        bullets = [f"• {m.line()}" for m in self.found]
        room = limit - rendering.discord_len(head) - len(bullets)  # a newline per bullet
        return shorten("\n".join([head, *_shared(bullets, room)]), limit)


@dataclass(frozen=True, slots=True)
class Insights:
    period: InsightsPeriod
    first_day: date
    last_day: date
    members: int
    hardest: tuple[HardTask, ...]
    misconceptions: tuple[TaskMisconceptions, ...]
    days: tuple[DayActivity, ...]
    withheld: int = 0
    """Tasks whose misconceptions were left out: still open, and the report is public."""
    unshown: int = 0
    """Tasks with misconceptions beyond the `MISCONCEPTIONS_SHOWN` most common, not in
    `misconceptions`: the report counts them rather than pass them over."""

    @property
    def attempts(self) -> int:
        return sum(d.attempts for d in self.days)

    def hardest_entries(self, limit: int = rendering.EMBED_FIELD_VALUE) -> list[str]:
        """One numbered line per task, each within `limit` (for the embed to pack whole)."""
        return [shorten(f"{n}. {t.line()}", limit) for n, t in enumerate(self.hardest, 1)]

    def hardest_text(self) -> str:
        if not self.hardest:
            return ngettext(
                "No task had {n} or more members answering in this period.",
                "No task had {n} or more members answering in this period.",
                MIN_ANSWERERS,
            ).format(n=formats.number(MIN_ANSWERERS))
        return "\n".join(self.hardest_entries())

    def misconception_entries(self, limit: int = rendering.EMBED_FIELD_VALUE) -> list[str]:
        """One block per task (`TaskMisconceptions.entry`), each within `limit`."""
        return [task.entry(limit) for task in self.misconceptions]

    def withheld_text(self) -> str | None:
        if not self.withheld:
            return None
        return ngettext(
            "Left out while still open for answers: {n} task (use /insights without `post` to "
            "see it).",
            "Left out while still open for answers: {n} tasks (use /insights without `post` to "
            "see them).",
            self.withheld,
        ).format(n=formats.number(self.withheld))

    def misconceptions_text(self) -> str:
        if not self.misconceptions:
            return self.withheld_text() or _(
                "No wrong option was picked by {percent} or more of a task's answerers."
            ).format(percent=formats.percent(0.2))
        return "\n".join(self.misconception_entries())

    def participation_text(self) -> str:
        """A sparkline of members per day, the totals and the busiest day."""
        if not self.attempts:
            return _("Nobody answered in this period.")
        busiest = max(self.days, key=lambda d: (d.members, d.attempts, d.day))
        spark = _("`{sparkline}` members per day, {first} → {last}").format(
            sparkline=sparkline([d.members for d in self.days]),
            first=_day(self.first_day),
            last=_day(self.last_day),
        )
        # TRANSLATORS: the period's totals, then its busiest day: {members} reads "**5**
        # members", {day_members} "2 members", {attempts} "**42** attempts".
        totals = _("{members} · {attempts} · busiest {day} ({day_members}, {day_attempts})").format(
            members=_members(self.members, bold=True),
            attempts=_attempts(self.attempts, bold=True),
            day=_day(busiest.day),
            day_members=_members(busiest.members),
            day_attempts=_attempts(busiest.attempts),
        )
        return f"{spark}\n{totals}"

    def day_table(self) -> str:
        """One line per day (the week's view): date, members, attempts."""
        return "\n".join(
            f"`{_day(d.day)}` {_members(d.members)} · {_attempts(d.attempts)}" for d in self.days
        )


def _members(n: int, *, bold: bool = False) -> str:
    if bold:
        text = ngettext("**{n}** member", "**{n}** members", n)
    else:
        text = ngettext("{n} member", "{n} members", n)
    return text.format(n=formats.number(n))


def _attempts(n: int, *, bold: bool = False) -> str:
    if bold:
        text = ngettext("**{n}** attempt", "**{n}** attempts", n)
    else:
        text = ngettext("{n} attempt", "{n} attempts", n)
    return text.format(n=formats.number(n))


def _day(day: date) -> str:
    # TRANSLATORS: a CLDR date pattern for a day in /insights ("Thu 02 May"): reorder the
    # fields and add punctuation as your language writes dates; the letters must stay Latin.
    return formats.pattern_date(day, _("EEE dd MMM"))


def shorten(text: str, limit: int) -> str:
    """`rendering.truncate`, except that a cut inside bold, underline, strikethrough or a code
    span moves back to before its opening marker: left open, the marker would pair with one
    in the next line and mark up the wrong text (or show as raw asterisks)."""
    cut = rendering.truncate(text, limit)
    if cut == text:
        return cut
    kept = cut.removesuffix(rendering.ELLIPSIS)
    while (opening := _unclosed(kept)) is not None:
        kept = kept[:opening].rstrip()
    return kept + rendering.ELLIPSIS


def _unclosed(text: str) -> int | None:
    """Where the last marker without a closing twin starts, if any."""
    for marker in MARKERS:
        if text.count(marker) % 2:
            return text.rfind(marker)
    return None


def _shared(lines: Sequence[str], room: int) -> list[str]:
    """`lines` shortened to take `room` characters together: lines shorter than an equal
    share stay whole and leave what they do not use to the longer ones."""
    sizes = [rendering.discord_len(line) for line in lines]
    if sum(sizes) <= room:
        return list(lines)
    keep = [0] * len(lines)
    left = room
    for done, i in enumerate(sorted(range(len(lines)), key=sizes.__getitem__)):
        keep[i] = max(1, min(sizes[i], left // (len(lines) - done)))
        left -= keep[i]
    return [
        line if keep[i] >= sizes[i] else shorten(line, keep[i]) for i, line in enumerate(lines)
    ]


def sparkline(values: Sequence[int]) -> str:
    """One block per value, scaled to the largest; a zero is the lowest block."""
    top = max(values, default=0)
    if top <= 0:
        return SPARKS[0] * len(values)
    steps = len(SPARKS) - 1
    return "".join(SPARKS[(v * steps + top - 1) // top] for v in values)


def hardest(
    tasks: Sequence[TaskActivity],
    titles: Mapping[str, str],
    shown: int = HARDEST_SHOWN,
    difficulties: Mapping[str, str] | None = None,
) -> tuple[HardTask, ...]:
    eligible = [t for t in tasks if t.answered >= MIN_ANSWERERS]
    eligible.sort(key=lambda t: (Fraction(t.first_try, t.answered), -t.answered, t.task_id))
    labels = difficulties or {}
    return tuple(
        HardTask(
            t.task_id,
            titles.get(t.task_id, t.task_id),
            t.answered,
            t.solved,
            t.first_try,
            labels.get(t.task_id, ""),
        )
        for t in eligible[:shown]
    )


def build(
    period: InsightsPeriod | str,
    activity: WindowActivity,
    tasks: Mapping[int, Task],
    shown: int = MISCONCEPTIONS_SHOWN,
    withheld: frozenset[str] = frozenset(),
) -> Insights:
    """The insights of a window. `tasks` maps each post id to the task it was posted with
    (`PostInfo.graded_task`); a post without one (its task is gone) adds no misconceptions.
    `withheld`: task ids whose misconceptions are left out (open, and the report public)."""
    latest: dict[str, Task] = {}
    for post in sorted(activity.posts.values(), key=lambda p: (p.posted_at, p.id)):
        if post.id in tasks:
            latest[post.task_id] = tasks[post.id]
    titles = {task_id: rendering.task_title(task) for task_id, task in latest.items()}
    difficulties = {
        task_id: difficulty_text(task.difficulty, activity.ratings.get(task_id))
        for task_id, task in latest.items()
    }
    answered = {t.task_id: t.answered for t in activity.tasks}

    by_post: dict[int, list[WrongPick]] = {}
    for pick in activity.wrong_picks:
        by_post.setdefault(pick.post_id, []).append(pick)
    pickers: dict[str, Pickers] = {}
    for post_id, picks in by_post.items():
        picked = activity.posts.get(post_id)
        if picked is None or post_id not in tasks:
            continue
        merged = pickers.setdefault(picked.task_id, {})
        for key, users in wrong_pickers(tasks[post_id], picks).items():
            merged.setdefault(key, set()).update(users)
    found = [
        TaskMisconceptions(task_id, titles[task_id], ms)
        for task_id, task_pickers in pickers.items()
        if (ms := misconceptions_among(latest[task_id], task_pickers, answered.get(task_id, 0)))
    ]
    kept = [t for t in found if t.task_id not in withheld]
    kept.sort(key=lambda t: (-max(m.percent for m in t.found), t.task_id))
    return Insights(
        period=InsightsPeriod(period),
        first_day=activity.first_day,
        last_day=activity.last_day,
        members=activity.members,
        hardest=hardest(activity.tasks, titles, difficulties=difficulties),
        misconceptions=tuple(kept[:shown]),
        days=activity.days,
        withheld=len(found) - len(kept),
        unshown=max(len(kept) - shown, 0),
    )
