"""Item analysis, pure: which tasks work, from each member's first try on each task (issue 31).

The rule for what counts: a member's first attempt on a task in the period, on a public post
(a channel's); /practice and /review posts are private and never count (the store's read,
`store/items.py`, leaves them out). Every figure carries its count. Thresholds: `Thresholds`.
A task's Elo difficulty is the stored one (`store/ratings.py`, moved by the same first tries).
What /insights tasks shows is in the reader's language; the flags' figures stay English
strings too (`Figure`), which `quizbot export items` writes.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from bot import rendering
from bot.i18n import ENGLISH, N_, _, formats, ngettext, speaking
from bot.quiz import ratings
from bot.quiz.engine import cloze_answers
from bot.quiz.errors import InvalidAnswerError, N_plural
from bot.quiz.ratings import Rating
from bot.quiz.tasks import Difficulty, Kind, Task

if TYPE_CHECKING:
    from bot.store.items import ItemRead

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Every threshold of the flags, in one place; hosts override them (`with_overrides`)."""

    too_easy: float = 0.9  # facility above this
    too_hard: float = 0.2  # facility below this
    separates: float = 0.2  # discrimination below this: does not separate (unless the flag is
    # "wrong key"); a wrong option with this much or more separates like a key
    min_members: int = 20  # members behind a discrimination (Moodle-like reliability floor)
    min_tasks: int = 5  # tasks a member must have tried to count towards one
    min_answers: int = 10  # first tries before facility and option flags are raised
    beyond_chance: float = 3.0  # standard errors before "wrong key" is raised: a
    # discrimination below -this/√members, or the top third preferring a wrong option to the
    # key by this many (chance alone rarely goes that far)
    min_each: int = 5  # right and wrong first tries each, before a negative discrimination
    # says "wrong key": with two wrong answers among a hundred, its sign is chance.

    def with_overrides(self, values: Mapping[str, str]) -> Thresholds:
        """These thresholds with `values` ("too_easy" -> "0.95") applied; ValueError names a
        bad key or value."""
        kinds = {f.name: type(getattr(self, f.name)) for f in fields(self)}
        changed: dict[str, Any] = {}
        for key, text in values.items():
            if key not in kinds:
                raise ValueError(f"unknown threshold {key!r} (known: {', '.join(kinds)})")
            try:
                changed[key] = kinds[key](text)
            except ValueError:
                raise ValueError(f"threshold {key} must be a number, not {text!r}") from None
        return replace(self, **changed)


DEFAULTS = Thresholds()


class Flag(StrEnum):
    """In the order moderators should look at them: a wrong key costs members points."""

    WRONG_KEY = "wrong-key"
    TOO_HARD = "too-hard"
    TOO_EASY = "too-easy"
    NO_SEPARATION = "no-separation"
    UNUSED_DISTRACTOR = "unused-distractor"

    @property
    def label(self) -> str:
        """In English: `_(flag.label)` where a moderator reads it."""
        return _FLAG_LABELS[self]


# TRANSLATORS: the flags of /insights tasks: what may be wrong with a task ("a distractor" is
# a wrong option).
_FLAG_LABELS = {
    Flag.WRONG_KEY: N_("possible wrong key"),
    Flag.TOO_HARD: N_("too hard"),
    Flag.TOO_EASY: N_("too easy"),
    Flag.NO_SEPARATION: N_("does not separate"),
    Flag.UNUSED_DISTRACTOR: N_("a distractor nobody picks"),
}


class Signed(float):
    """A figure shown with its sign, to two decimals: +0.35."""


class Figure(str):
    """The figure behind a flag: the English text (what `quizbot export items` writes, and
    what compares equal), and `shown()`, the same in the current locale. `values` fill the
    template: an int as a count, a float to two decimals, a `Signed` with its sign, a str as
    it is; `n` picks a plural template's form."""

    template: str | tuple[str, str]
    values: dict[str, object]

    def __new__(cls, template: str | tuple[str, str], **values: object) -> Figure:
        with speaking(ENGLISH):
            figure = super().__new__(cls, _fill(template, values))
        figure.template = template
        figure.values = values
        return figure

    def shown(self) -> str:
        return _fill(self.template, self.values)


def _fill(template: str | tuple[str, str], values: dict[str, object]) -> str:
    if isinstance(template, tuple):
        n = values.get("n")
        text = ngettext(template[0], template[1], n if isinstance(n, int) else 0)
    else:
        text = _(template)
    return text.format(**{name: _figure(value) for name, value in values.items()})


def _figure(value: object) -> str:
    match value:
        case str():
            return value
        case int():
            return formats.number(value)
        case Signed():
            return ("+" if value >= 0 else "-") + formats.decimal(abs(value), 2)
        case float():
            return formats.decimal(value, 2)
    return str(value)


@dataclass(frozen=True, slots=True)
class FirstTry:
    """A member's first attempt on a task in the period (the store's row)."""

    user_id: int
    task_id: str
    correct: bool
    picks: tuple[str, ...]  # one per blank; a multi task's picked labels


@dataclass(frozen=True, slots=True)
class Interval:
    low: float
    high: float


def wilson(successes: int, n: int, z: float = Z95) -> Interval:
    """The Wilson score interval of a proportion: unlike p ± z·se it stays within [0, 1] and
    is honest at small n and at 0 or 1."""
    if n <= 0:
        return Interval(0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At 0 or n the bound is exactly 0 or 1; floating point would leave 0.9999999999999999.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return Interval(low, high)


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """The correlation of two equal-length series; None when either does not vary."""
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 0 or syy <= 0:
        return None
    return sxy / math.sqrt(sxx * syy)


@dataclass(frozen=True, slots=True)
class Choice:
    """How often one option (or typed answer) was picked on the first try: overall and by the
    top and bottom third of the members (ranked by their first tries on the other tasks)."""

    blank: int
    label: str
    right: bool
    picked: int
    top: int
    bottom: int
    discrimination: float | None = None
    """The item–rest correlation of picking it: a wrong option's should be negative."""


@dataclass(frozen=True, slots=True)
class ItemStats:
    task_id: str
    answered: int  # members with a first try
    first_try: int  # of them, right on it
    interval: Interval  # Wilson 95% of the facility
    discrimination: float | None  # item–rest correlation, -1..1; Moodle shows it × 100
    discriminated: int  # members behind it (tried ≥ min_tasks tasks, this one among them)
    third: int  # members in each of the top and bottom thirds (0: no thirds)
    choices: tuple[Choice, ...]
    flags: tuple[tuple[Flag, Figure], ...]  # each flag with the figure behind it
    task: Task | None = field(default=None, compare=False)
    rating: Rating | None = None  # the task's stored Elo difficulty (all time)

    @property
    def group_label(self) -> Difficulty | None:
        """What this group's answers make of the task (`ratings.group_label`)."""
        return ratings.group_label(self.rating) if self.rating is not None else None

    @property
    def facility(self) -> float | None:
        return self.first_try / self.answered if self.answered else None

    @property
    def bank(self) -> str:
        return self.task.bank if self.task is not None else ""

    @property
    def topic(self) -> str:
        return self.task.topic if self.task is not None else ""

    def discrimination_text(self, thresholds: Thresholds = DEFAULTS) -> str:
        if self.discrimination is not None:
            return Figure(
                N_plural("{discrimination} ({n} member)", "{discrimination} ({n} members)"),
                discrimination=Signed(self.discrimination),
                n=self.discriminated,
            ).shown()
        if self.discriminated < thresholds.min_members:
            return _("not enough answers yet")
        # TRANSLATORS: the discrimination of a task every member got equally right (or wrong).
        return _("everyone scored alike")


def analyse(
    tries: Iterable[FirstTry],
    tasks: Mapping[str, Task] | None = None,
    thresholds: Thresholds = DEFAULTS,
    rated: Mapping[str, Rating] | None = None,
) -> list[ItemStats]:
    """One `ItemStats` per task tried, sorted by `order`; `tries` in the order they were made.
    `tasks`: the task each id was last posted as (for its options, right answers and bank); a
    task missing there gets figures from the picks alone and no option flags. `rated`: the
    tasks' stored ratings."""
    tasks = tasks or {}
    rated = rated or {}
    by_member: dict[int, dict[str, FirstTry]] = defaultdict(dict)
    for t in tries:
        if t.task_id not in by_member[t.user_id]:  # the first one given is the first try
            by_member[t.user_id][t.task_id] = t
    by_task: dict[str, list[FirstTry]] = defaultdict(list)
    for member in by_member.values():
        for t in member.values():
            by_task[t.task_id].append(t)
    right = {u: sum(t.correct for t in m.values()) for u, m in by_member.items()}
    tried = {u: len(m) for u, m in by_member.items()}
    stats = [
        replace(
            _item(task_id, answers, right, tried, tasks.get(task_id), thresholds),
            rating=rated.get(task_id),
        )
        for task_id, answers in by_task.items()
    ]
    return sorted(stats, key=order)


def item_stats(read: ItemRead, thresholds: Thresholds = DEFAULTS) -> list[ItemStats]:
    """The analysis of the store's read (`store/items.py`): each task as last posted."""
    tries = (FirstTry(a.user_id, a.task_id, a.correct, a.picks) for a in read.attempts)
    tasks = {task_id: p.task for task_id, p in read.latest.items() if p.task is not None}
    return analyse(tries, tasks, thresholds, read.ratings)


def order(item: ItemStats) -> tuple[int, int, str]:
    """Flagged first, by the first flag's rank; then the most answered; then the id."""
    rank = min((list(Flag).index(f) for f, _ in item.flags), default=len(Flag))
    return rank, -item.answered, item.task_id


def _item(
    task_id: str,
    answers: list[FirstTry],
    right: Mapping[int, int],
    tried: Mapping[int, int],
    task: Task | None,
    th: Thresholds,
) -> ItemStats:
    n = len(answers)
    ok = sum(a.correct for a in answers)
    # Item–rest: the member's share right on the other tasks they tried (a share, not a sum,
    # so trying more tasks does not look like knowing more; the same as Moodle's rest total
    # when everyone met the same tasks).
    counted = [a for a in answers if tried[a.user_id] >= max(th.min_tasks, 2)]
    rest = {a.user_id: (right[a.user_id] - a.correct) / (tried[a.user_id] - 1) for a in counted}
    disc = None
    if len(counted) >= th.min_members:
        disc = pearson([float(a.correct) for a in counted], [rest[a.user_id] for a in counted])
    ranked = sorted(counted, key=lambda a: (-rest[a.user_id], a.user_id))
    third = len(ranked) // 3
    top = ranked[:third]
    bottom = ranked[len(ranked) - third :] if third else []
    choices = _choices(answers, top, bottom, task)
    if disc is not None:
        rests = [rest[a.user_id] for a in counted]
        picked = [set(_keys(a, task)) for a in counted]

        def spread(c: Choice) -> float | None:
            return pearson([float((c.blank, c.label) in p) for p in picked], rests)

        choices = tuple(replace(c, discrimination=spread(c)) for c in choices)
    item = ItemStats(task_id, n, ok, wilson(ok, n), disc, len(counted), third, choices, (), task)
    return replace(item, flags=_flags(item, task, th))


def _keys(a: FirstTry, task: Task | None) -> list[tuple[int, str]]:
    if task is not None and task.kind is Kind.MULTI:
        return [(1, label) for label in a.picks]
    if task is not None and task.kind is Kind.CLOZE:  # a part's option, or its text typed
        return list(enumerate(cloze_answers(task, a.picks) or (), 1))
    return [(blank, label) for blank, label in enumerate(a.picks, 1)]


def _choices(
    answers: Sequence[FirstTry],
    top: Sequence[FirstTry],
    bottom: Sequence[FirstTry],
    task: Task | None,
) -> tuple[Choice, ...]:
    counts: dict[tuple[int, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    if task is not None and not task.multi_blank:
        # Every option shows, the ones nobody picked too: that is an unused distractor. (A
        # multi-blank fill shares its options among blanks, so only picked ones show there.)
        for label in task.labels:
            counts[(1, label)]
    for group, column in ((answers, 0), (top, 1), (bottom, 2)):
        for a in group:
            for key in _keys(a, task):
                counts[key][column] += 1
    return tuple(
        Choice(blank, label, _right(task, blank, label), *counts[(blank, label)])
        for blank, label in sorted(counts)
    )


def _right(task: Task | None, blank: int, label: str) -> bool:
    if task is None:
        return False
    if task.kind is Kind.MULTI:
        return label in task.answers
    if task.kind is Kind.CLOZE:
        return _part_right(task, blank, label)
    return blank <= task.blanks and task.answers[blank - 1] == label


def _part_right(task: Task, blank: int, answer: str) -> bool:
    """A cloze part's answer at full credit (one no longer valid after an edit is not)."""
    if not 1 <= blank <= len(task.parts):
        return False
    try:
        return task.parts[blank - 1].credit(answer) == 1
    except (InvalidAnswerError, ValueError):
        return False


def _flags(
    item: ItemStats, task: Task | None, th: Thresholds
) -> tuple[tuple[Flag, Figure], ...]:
    found: list[tuple[Flag, Figure]] = []
    facility = Figure(
        N_("facility {facility} ({first_try}/{answered})"),
        facility=float(item.facility or 0),
        first_try=item.first_try,
        answered=item.answered,
    )
    d = item.discrimination
    beaten = _beaten_key(item, th.beyond_chance, th.separates) if task is not None else None
    wrong = item.answered - item.first_try
    negative = d is not None and d * math.sqrt(item.discriminated) <= -th.beyond_chance
    if d is not None and negative and min(item.first_try, wrong) >= th.min_each:
        found.append((Flag.WRONG_KEY, _spread(d, item.discriminated)))
    elif item.discriminated >= th.min_members and beaten is not None:
        found.append((Flag.WRONG_KEY, beaten))
    if item.answered >= th.min_answers and item.facility is not None:
        if item.facility < th.too_hard:
            found.append((Flag.TOO_HARD, facility))
        elif item.facility > th.too_easy:
            found.append((Flag.TOO_EASY, facility))
    if d is not None and d < th.separates and not any(f is Flag.WRONG_KEY for f, _ in found):
        found.append((Flag.NO_SEPARATION, _spread(d, item.discriminated)))
    if item.answered >= th.min_answers and task is not None:
        unused = [c.label for c in item.choices if not c.right and not c.picked]
        if unused:
            figure = Figure(
                # TRANSLATORS: {options} are the option letters nobody picked: "C, D".
                N_("{options}: 0/{answered} picked"),
                options=", ".join(unused),
                answered=item.answered,
            )
            found.append((Flag.UNUSED_DISTRACTOR, figure))
    return tuple(found)


def _spread(discrimination: float, members: int) -> Figure:
    return Figure(
        N_plural(
            "discrimination {discrimination} ({n} member)",
            "discrimination {discrimination} ({n} members)",
        ),
        discrimination=Signed(discrimination),
        n=members,
    )


def _beaten_key(item: ItemStats, gap: float, separates: float) -> Figure | None:
    """A wrong option that separates as a key would (its own discrimination ≥ `separates`)
    and that the top third picked clearly more often than a right one (by `gap` standard
    errors). A misconception on a hard task may beat the key too, but does not separate."""
    for blank in sorted({c.blank for c in item.choices}):
        here = [c for c in item.choices if c.blank == blank]
        keys = [c for c in here if c.right]
        if not keys:
            continue
        key = min(keys, key=lambda c: c.top)
        for wrong in sorted((c for c in here if not c.right), key=lambda c: -c.top):
            d = wrong.discrimination
            if d is not None and d >= separates and _gap(wrong.top, key.top, item.third) >= gap:
                return Figure(
                    # TRANSLATORS: {wrong} and {key} are option letters; {third} is how many
                    # members the top third holds.
                    N_(
                        "top third picked {wrong} {wrong_top}/{third}, the key {key} "
                        "{key_top}/{third}; {wrong} discrimination {discrimination}"
                    ),
                    wrong=wrong.label,
                    wrong_top=wrong.top,
                    key=key.label,
                    key_top=key.top,
                    third=item.third,
                    discrimination=Signed(d),
                )
    return None


def _gap(top: int, bottom: int, size: int) -> float:
    """The two-proportion z statistic of top/size against bottom/size (pooled)."""
    pooled = (top + bottom) / (2 * size)
    se = math.sqrt(pooled * (1 - pooled) * 2 / size)
    return (top - bottom) / size / se if se > 0 else 0.0


PER_PAGE = 8
"""Tasks per /insights tasks page: each takes three or four lines."""


def difficulty_text(author: Difficulty, rating: Rating | None) -> str:
    """The author's label, and the group's once the task's rating has settled
    (`ratings.group_label`): "author: easy · this group: hard". Points follow the author's."""
    group = ratings.group_label(rating) if rating is not None else None
    # The difficulties' msgids are the commands' choices' own ("easy").
    if group is None:
        # TRANSLATORS: the difficulty the task's author gave it.
        return _("author: {author}").format(author=_(author.value))
    # TRANSLATORS: the author's difficulty, then the one this group's answers show.
    return _("author: {author} · this group: {group}").format(
        author=_(author.value), group=_(group.value)
    )


@dataclass(frozen=True, slots=True)
class ItemsPage:
    entries: tuple[str, ...]
    page: int  # 1-based, within 1..pages
    pages: int
    total: int  # tasks matching the topic and flag


def page_of(
    items: Sequence[ItemStats],
    page: int = 1,
    *,
    topic: str | None = None,
    flag: Flag | None = None,
    per_page: int = PER_PAGE,
) -> ItemsPage:
    """The tasks of `topic` with `flag` (each kept in `order`), `page` of them; a page past
    the last shows the last."""
    kept = [
        i
        for i in items
        if (topic is None or i.topic.casefold() == topic.casefold())
        and (flag is None or any(f is flag for f, _ in i.flags))
    ]
    pages = max(1, -(-len(kept) // per_page))
    page = min(max(page, 1), pages)
    shown = kept[(page - 1) * per_page : page * per_page]
    return ItemsPage(tuple(entry(i) for i in shown), page, pages, len(kept))


def entry(item: ItemStats) -> str:
    """A task's lines: what it is and where it lives (the bank to fix), its figures with
    their counts, then each flag with the figure behind it."""
    task = item.task
    title = rendering.task_title(task) if task is not None else item.task_id
    where = [_("bank `{bank}`").format(bank=item.bank)] if item.bank else []
    if task is not None:
        where.append(difficulty_text(task.difficulty, item.rating))
    head = " · ".join([f"**{title}** (`{item.task_id}`)", *where])
    # TRANSLATORS: a task's figures in /insights tasks: the share right on the first try, its
    # 95% interval, and how well it separates strong members from weak ones.
    figures = ngettext(
        "first try {rate} of {n} member (95%: {low}–{high}) · discrimination {discrimination}",
        "first try {rate} of {n} members (95%: {low}–{high}) · discrimination {discrimination}",
        item.answered,
    ).format(
        rate=formats.percent(item.facility or 0.0),
        n=formats.number(item.answered),
        low=formats.percent(item.interval.low),
        high=formats.percent(item.interval.high),
        discrimination=item.discrimination_text(),
    )
    flags = [f"⚠ {_(flag.label)}: {figure.shown()}" for flag, figure in item.flags]
    return "\n".join([head, figures, *flags])
