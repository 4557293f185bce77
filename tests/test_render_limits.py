"""Whatever passes `content check` renders every message within Discord's limits (issue 9).

Hypothesis writes bank YAML with adversarial texts (very long, as many options as allowed,
emoji and other characters outside the BMP that Discord counts twice, Markdown, backticks,
newlines) and runs the real check on it. For every task that passes, every message the bot
can send from it is built through the real builders and the same `outgoing` every send path
uses, serialised by discord.py exactly as it goes on the wire, and checked against Discord's
limits, counted in UTF-16 code units as Discord counts them. The emulated Discord's own
request validation runs on each message as well. In every shipped locale (German is longer
than English), and in the pseudo-locale, which lengthens every message.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import discord
import pytest
import yaml
from discord.http import handle_message_parameters
from fakediscord.errors import ApiError
from fakediscord.validation import INTERACTION_FLAGS, message_fields
from hypothesis import HealthCheck, Phase, event, example, given, settings, target
from hypothesis import strategies as st

from bot import rendering
from bot.content.loader import check_banks
from bot.discord_ui import picker, replies
from bot.discord_ui.clicks import outgoing
from bot.discord_ui.cogs.quiz import posted_choice_name, task_choice_name
from bot.discord_ui.post_view import confirm_view, task_embed
from bot.discord_ui.posting import post_message
from bot.i18n import ngettext
from bot.quiz import engine
from bot.quiz.engine import HintAccess, Progress, SolutionAccess, Status
from bot.quiz.review import CardUpdate, ReviewRating
from bot.quiz.tasks import MAX_ATTEMPTS, MAX_HINTS, OPTION_LABELS, Task
from bot.reports import summary
from bot.service import PostedTask
from bot.store import HintSeen, PostCounts, PostInfo, SolutionSeen
from tests.factories import fill
from tests.i18n.code_catalogs import LOCALES_AND_PSEUDO, speaking_in

# -- Discord's limits, checked on the wire payload ---------------------------------------------

BUTTON = 2
SELECTS = frozenset({3, 5, 6, 7, 8})
COMPONENTS_V2 = 1 << 15


def size(text: str | None) -> int:
    return len((text or "").encode("utf-16-le")) // 2


def embed_texts(embed: dict[str, Any]) -> list[tuple[str, str, int, int]]:
    """(what, text, limit, shortest) of every text in an embed."""
    found = [
        ("title", embed.get("title") or "", 256, 0),
        ("description", embed.get("description") or "", 4096, 0),
    ]
    for j, f in enumerate(embed.get("fields") or []):
        found += [(f"field {j} name", f["name"], 256, 1), (f"field {j} value", f["value"], 1024, 1)]
    found.append(("footer", (embed.get("footer") or {}).get("text") or "", 2048, 0))
    found.append(("author", (embed.get("author") or {}).get("name") or "", 256, 0))
    return found


def text_displays(payload: dict[str, Any]) -> str:
    return "".join(c["content"] for c in walk(payload.get("components") or []) if c["type"] == 10)


def problems_of(payload: dict[str, Any]) -> list[str]:
    """Everything in a create/edit message body that Discord would refuse as too long (or
    too many), in UTF-16 code units."""
    found: list[str] = []

    def within(what: str, text: str | None, limit: int, shortest: int = 0) -> None:
        if not shortest <= size(text) <= limit:
            found.append(f"{what}: {size(text)} not in {shortest}..{limit}")

    within("content", payload.get("content"), 2000)
    embeds = payload.get("embeds") or []
    if len(embeds) > 10:
        found.append(f"{len(embeds)} embeds")
    for i, embed in enumerate(embeds):
        if len(embed.get("fields") or []) > 25:
            found.append(f"embed {i}: more than 25 fields")
        for what, text, limit, shortest in embed_texts(embed):
            within(f"embed {i} {what}", text, limit, shortest)
    total = sum(size(text) for embed in embeds for _, text, _, _ in embed_texts(embed))
    if total > 6000:
        found.append(f"embeds: {total} characters together, over 6000")
    components = list(walk(payload.get("components") or []))
    if int(payload.get("flags") or 0) & COMPONENTS_V2:
        within("text displays", text_displays(payload), 4000)
        if len(components) > 40:
            found.append(f"{len(components)} components")
    elif len(payload.get("components") or []) > 5:
        found.append("more than 5 action rows")
    for c in components:
        if "custom_id" in c:
            within("custom_id", c["custom_id"], 100, 1)
        if c["type"] == BUTTON:
            within("button label", c.get("label"), 80)
        if c["type"] in SELECTS:
            within("placeholder", c.get("placeholder"), 150)
            if not 1 <= len(c.get("options") or []) <= 25:
                found.append(f"{len(c.get('options') or [])} select options")
            for o in c.get("options") or []:
                within("option label", o["label"], 100, 1)
                within("option value", o["value"], 100, 1)
                within("option description", o.get("description"), 100)
    return found


def fullness(payload: dict[str, Any]) -> dict[str, float]:
    """How close a message comes to each kind of limit (1.0: exactly at it). Hypothesis
    steers toward full messages: those are the ones that had to be cut to fit."""
    texts = [t for embed in payload.get("embeds") or [] for t in embed_texts(embed)]
    most = {"content": size(payload.get("content")) / 2000}
    most["embeds together"] = sum(size(text) for _, text, _, _ in texts) / 6000
    for what, text, limit, _ in texts:
        kind = what.split()[-1]  # title, description, name, value, …
        most[kind] = max(most.get(kind, 0.0), size(text) / limit)
    most["text displays"] = size(text_displays(payload)) / 4000
    return most


def walk(components: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for c in components:
        yield c
        yield from walk(c.get("components") or [])
        if "accessory" in c:
            yield c["accessory"]


WIRE_KEYS = ("content", "embed", "embeds", "view", "allowed_mentions")


def wire(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The JSON body discord.py sends for these send/edit arguments."""
    return handle_message_parameters(**{k: v for k, v in kwargs.items() if k in WIRE_KEYS}).payload


@dataclass
class Messages:
    """Every message rendered from one task, as wire payloads, and the other strings with a
    limit of their own (thread name, autocomplete choice names)."""

    payloads: dict[str, dict[str, Any]]
    names: dict[str, tuple[str, int]]

    def fullness(self) -> dict[str, float]:
        """The fullest message for each kind of limit."""
        most: dict[str, float] = {}
        for body in self.payloads.values():
            for what, value in fullness(body).items():
                most[what] = max(most.get(what, 0.0), value)
        return most

    def problems(self) -> list[str]:
        found = [f"{what}: {p}" for what, body in self.payloads.items() for p in problems_of(body)]
        for what, body in self.payloads.items():
            try:  # the emulated Discord's validation of a create-message body, as well
                message_fields(body, files=0, editing=False, flags_allowed=INTERACTION_FLAGS)
            except ApiError as exc:
                found.append(f"{what}: the emulator refuses it: {exc}")
        found += [
            f"{what}: {size(text)} > {limit}"
            for what, (text, limit) in self.names.items()
            if not 1 <= size(text) <= limit
        ]
        return found


# -- every message the bot renders from a task -------------------------------------------------

NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
BIG_ID = 2**63 - 1
"""The longest ids the custom_ids may carry."""


def posted_of(task: Task, *, closed: bool = False, private: bool = False) -> PostedTask:
    post = PostInfo(
        id=BIG_ID,
        guild_id=BIG_ID,
        channel_id=BIG_ID,
        message_id=BIG_ID,
        task_id=task.id,
        posted_by=BIG_ID,
        posted_at=NOW,
        schedule_id=BIG_ID,
        closes_at=NOW + timedelta(days=1),
        closed_at=NOW + timedelta(days=1) if closed else None,
        session_id=BIG_ID if private else None,
    )
    return PostedTask(post, task, closed=closed)


CARDS = (
    None,
    CardUpdate(None, NOW + timedelta(days=400)),
    CardUpdate(ReviewRating.AGAIN, NOW),
    CardUpdate(ReviewRating.GOOD, NOW + timedelta(days=36500)),
)
"""What an answer may have done to the review card: nothing, left as it was, rated."""


STARTS = (
    Progress(),
    Progress(hints_seen=1),
    Progress(wrong_tries=1),
    Progress(wrong_tries=MAX_ATTEMPTS - 1, hints_seen=1),
    Progress(solved=True, points=30),
    Progress(forfeited=True),
)
"""Where a member may stand when they answer: fresh, after a hint, a miss, before their last
attempt, finished."""


def answer_picks(task: Task) -> Iterator[tuple[str, ...]]:
    """The right answer, then each option in every blank (for most blanks, most notes)."""
    yield task.answers
    for option in task.options:
        yield (option.label,) * task.blanks


@dataclass(frozen=True)
class Attempt:
    user_id: int
    attempt_no: int
    picks: tuple[str, ...]
    correct: bool
    created_at: datetime


def crowded_attempts(task: Task) -> list[Attempt]:
    """Five members who each miss three times with different wrong options in every blank
    (every wrong option a misconception: the longest result), and three who solve it."""
    wrong = [o.label for o in task.options if o.label not in task.answers] or [task.labels[0]]
    attempts = []
    for member in range(5):
        for n in range(MAX_ATTEMPTS):
            label = wrong[(member * MAX_ATTEMPTS + n) % len(wrong)]
            picks = (label,) * task.blanks
            attempts.append(
                Attempt(member, n + 1, picks, picks == task.answers, NOW + timedelta(minutes=n))
            )
    attempts += [
        Attempt(BIG_ID - n, 1, task.answers, True, NOW + timedelta(hours=1, minutes=n))
        for n in range(3)
    ]
    return attempts


CLOSE_HEAD = "📅 **Daily quiz** · Wed 30 Sep 2026 · 5/5 · closed"
"""The scheduler's longest header above a close summary."""


def render_everything(task: Task) -> Messages:
    posted, closed = posted_of(task), posted_of(task, closed=True)
    payloads: dict[str, dict[str, Any]] = {}

    def add(what: str, kwargs: dict[str, Any]) -> None:
        payloads[what] = wire(kwargs)

    add("post", post_message(posted, extra="📅 **Daily quiz** · Wed 30 Sep 2026 · 5/5"))
    counts = PostCounts(answered=10**6, solved=10**6, first_try=10**6)
    add("post redrawn", outgoing(embed=task_embed(posted, counts)))
    for n, attempts in enumerate([[], crowded_attempts(task)]):
        result = summary.summarise(task, attempts)
        kwargs = outgoing(content=result.text(head=CLOSE_HEAD), embed=task_embed(closed))
        add(f"closed post {n}", kwargs)
    add("thread message", outgoing(content=summary.discussion_text(task)))

    private = posted_of(task, private=True)
    for start in STARTS:
        for picks in answer_picks(task):
            outcome = engine.grade(task, start, picks)
            what = f"{start} {picks} {outcome.status}"
            short = replies.recorded_text(outcome, picks)
            add(f"short reply {what}", outgoing(content=short))
            short = replies.recorded_text(outcome, picks, "review")
            add(f"short private reply {what}", outgoing(content=short))
            if task.multi_blank:
                screen = picker.outcome_screen(posted, dict(enumerate(picks, 1)), outcome)
                add(f"picker {what}", picker_message(task, screen))
                for card in CARDS:
                    screen = picker.outcome_screen(
                        private, dict(enumerate(picks, 1)), outcome, card
                    )
                    add(f"private picker {what} {card}", picker_message(task, screen))
            else:
                chosen = rendering.picked_text(task, picks)
                reply = replies.answer_reply(task, outcome, chosen)
                add(f"answer {what}", outgoing(reply))
                for card in CARDS:
                    reply = replies.answer_reply(
                        task, outcome, chosen, session="review", card=card
                    )
                    add(f"private answer {what} {card}", outgoing(reply))
    if task.multi_blank:
        longest = max(task.options, key=lambda o: rendering.discord_len(o.text))
        every = dict.fromkeys(range(1, task.blanks + 1), longest.label)
        for picks in ({}, {1: longest.label}, every):
            add(f"picker open {picks}", picker_message(task, picker.open_screen(posted, picks)))

    for post in (posted, closed):
        for free in (False, True) if task.hints else ():
            seen = Progress(hints_seen=0 if free else len(task.hints))
            access = HintAccess(seen, len(task.hints), charged=not free, free=free)
            hint = HintSeen(post.post, access)  # every hint of the ladder at once
            add(f"hint {post.closed} {free}", outgoing(replies.hint_reply(post, hint)))
        for access in (
            SolutionAccess(shown=True, progress=Progress(forfeited=True), forfeited_now=True),
            SolutionAccess(shown=True, progress=Progress()),
            SolutionAccess(shown=True, progress=Progress(solved=True)),
        ):
            reply = replies.solution_reply(post, SolutionSeen(post.post, access))
            add(f"solution {post.closed} {access}", outgoing(reply))
    prompt = replies.Reply(replies.solution_prompt(posted))
    add("solution prompt", outgoing(prompt, view=confirm_view(posted.post.id)))

    names = {
        "thread name": (summary.discussion_name(task), 100),
        "task choice": (task_choice_name(task), 100),
        "posted choice": (posted_choice_name(posted), 100),
        "topic choice": (rendering.plain_label(task.topic, 100), 100),
    }
    return Messages(payloads, names)


def picker_message(task: Task, screen: picker.Screen) -> dict[str, Any]:
    return outgoing(**picker.message_kwargs(screen, layout=picker.uses_layout(task)))


def check_bank(document: dict[str, Any]) -> list[Task]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bank.yaml"
        path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
        catalog, _ = check_banks(path)
    return list(catalog)


# -- generated banks -----------------------------------------------------------------------------

PIECES = (
    "a", "Zz", "word ", " ", "\n", "\n\n", "**", "*", "_", "~~", "||", "> ", "# ", "- ", "`",
    "```", "<@1>", "@everyone", "💡", "𝔘", "🧑‍💻", "é", "中", "\u0301", "[", "]", ":", "{",
)  # fmt: skip
CODE_PIECES = ("x", " = ", "f(", ")", "\n", "    ", "# ", "💡", "𝔘", "é", "'s'", ".", "\t")


def texts(pieces: tuple[str, ...], longest: int) -> st.SearchStrategy[str]:
    """Texts of up to `longest` characters (at least 1): a short random unit repeated, so
    long texts are cheap; short, medium and close-to-the-limit lengths are all likely."""
    longest = max(1, longest)
    unit = st.lists(st.sampled_from(pieces), min_size=1, max_size=6).map("".join)
    return st.builds(lambda u, n: (u * (n // len(u) + 1))[:n], unit, budgets(longest))


def budgets(limit: int) -> st.SearchStrategy[int]:
    """A size up to `limit` (at least 1): small, anything, or close to it."""
    limit = max(1, limit)
    return st.one_of(
        st.integers(1, max(1, limit // 10)),
        st.integers(1, limit),
        st.integers(max(1, limit * 19 // 20), limit),
    )


def shares(draw: st.DrawFn, room: int, parts: tuple[str, ...]) -> dict[str, int]:
    """`room` shared by `parts`: evenly, or nearly all of it to one of them."""
    big = draw(st.sampled_from([None, *parts]))
    if big is None:
        return dict.fromkeys(parts, room // len(parts))
    small = {part: draw(st.integers(1, room // 20)) for part in parts if part != big}
    return {**small, big: room - sum(small.values())}


def counts(most: int) -> st.SearchStrategy[int]:
    """How many options: two, as many as allowed, or anything between."""
    return st.one_of(st.just(2), st.just(most), st.integers(2, most))


def text(longest: int) -> st.SearchStrategy[str]:
    # The check strips texts; a leading letter keeps every one non-empty.
    return texts(PIECES, longest - 1).map(lambda t: "Q" + t)


@st.composite
def solutions(draw: st.DrawFn) -> dict[str, Any]:
    room = draw(budgets(rendering.EMBED_DESCRIPTION - 300))
    keys = draw(
        st.lists(
            st.sampled_from(["steps", "final_answer", "quick_check", "explanation"]),
            min_size=1,
            unique=True,
        )
    )
    share = room // len(keys)
    solution: dict[str, Any] = {}
    for key in keys:
        if key == "steps":
            count = draw(st.integers(1, 3))
            solution["steps"] = [
                {"title": draw(text(min(200, share // count))), "text": draw(text(share // count))}
                for _ in range(count)
            ]
        else:
            solution[key] = draw(text(share))
    return solution


@st.composite
def mistakes(draw: st.DrawFn, labels: list[str], answers: list[str]) -> list[Any]:
    wrong = [label for label in labels if label not in answers]
    count = draw(st.integers(0, 6))
    share = draw(budgets(rendering.EMBED_FIELD_VALUE)) // max(count, 1) - 3
    notes: list[Any] = []
    for _ in range(count):
        note = draw(text(share))
        if wrong and draw(st.booleans()):
            tied = draw(st.lists(st.sampled_from(wrong), min_size=1, max_size=3, unique=True))
            notes.append({"note": note, "options": tied})
        else:
            notes.append(note)
    return notes


@st.composite
def hint_keys(draw: st.DrawFn) -> dict[str, Any]:
    """No hint, one, or a ladder: each hint an embed field of its own, shown all at once."""
    count = draw(st.integers(0, MAX_HINTS))
    size = rendering.EMBED_FIELD_VALUE - 1
    hints = [f"{n}{draw(text(draw(budgets(size))))}" for n in range(count)]  # distinct
    if not hints:
        return {}
    return {"hint": hints[0]} if count == 1 else {"hints": hints}


def option_texts(draw: st.DrawFn, count: int, room: int) -> list[str]:
    # Numbered, so they are distinct; `room` is shared by all of them.
    return [f"{n}{draw(texts(PIECES, room // count - 12))}" for n in range(count)]


@st.composite
def choice_tasks(draw: st.DrawFn, n: int) -> dict[str, Any]:
    count = draw(counts(rendering.MAX_BUTTON_OPTIONS))
    labels = list(OPTION_LABELS[:count])
    answer = draw(st.sampled_from(labels))
    # The post holds the question and every option.
    room = shares(draw, rendering.EMBED_DESCRIPTION, ("question", "options"))
    task = {
        "id": f"c{n}",
        "kind": "choice",
        "difficulty": draw(st.sampled_from(["easy", "medium", "hard"])),
        "question": draw(text(room["question"])),
        "options": option_texts(draw, count, room["options"]),
        "answer": answer,
        **draw(hint_keys()),
        "solution": draw(solutions()),
        "mistakes": draw(mistakes(labels, [answer])),
    }
    if draw(st.booleans()):
        task["topic"] = draw(text(240))
    return task


@st.composite
def fill_tasks(draw: st.DrawFn, n: int) -> dict[str, Any]:
    blanks = draw(st.integers(1, 5))
    most = rendering.MAX_BUTTON_OPTIONS if blanks == 1 else rendering.MAX_SELECT_OPTIONS
    count = draw(counts(most))
    labels = list(OPTION_LABELS[:count])
    answers = draw(st.lists(st.sampled_from(labels), min_size=blanks, max_size=blanks))
    # The post holds instruction, code and options; the picker the code with long picks.
    room = shares(draw, rendering.EMBED_DESCRIPTION, ("instruction", "code", "options"))
    code = room["code"] // (blanks + 1)
    parts = [draw(texts(CODE_PIECES, code)) for _ in range(blanks + 1)]
    template = "Q" + "".join(f"{part}[{b}]" for b, part in enumerate(parts[:-1], 1)) + parts[-1]
    return {
        "id": f"f{n}",
        "kind": "fill",
        "difficulty": draw(st.sampled_from(["easy", "medium", "hard"])),
        "instruction": draw(text(room["instruction"])),
        "code": template,
        "language": draw(st.sampled_from(["python", "py", "c++"])),
        "options": option_texts(draw, count, room["options"] // blanks),
        "answers": answers,
        "hint": draw(text(draw(budgets(rendering.EMBED_FIELD_VALUE)))),
        "solution": draw(solutions()),
        "mistakes": draw(mistakes(labels, answers)),
    }


@st.composite
def banks(draw: st.DrawFn) -> dict[str, Any]:
    """A bank with a task of each kind; its topic fits the longest title of most of them
    ("Solution · Fill in the blank · …"), the choice task may give its own."""
    return {
        "bank": draw(text(300)),
        "topic": draw(text(225)),
        "tasks": [draw(choice_tasks(0)), draw(fill_tasks(1))],
    }


TWO_LONG_OPTIONS = {
    "bank": "Issue 9",
    "topic": "MLOps",
    "tasks": [
        {
            "id": "two-long-options",
            "kind": "choice",
            "difficulty": "easy",
            "question": "Which one?",
            "options": ["A" + "a" * 1999, "B" + "b" * 1999],
            "answer": "A",
            "hint": "The first.",
            "solution": {"explanation": "The first one."},
            "mistakes": [{"note": "n" * 1000, "options": ["B"]}],
        }
    ],
}
"""The issue's bank: it passes the check, and a reply naming the option used to be over the
2,000 characters of message content."""


@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    # No shrinking: the failure lists every message over every limit, which says what is
    # wrong, while shrinking texts of thousands of characters takes minutes.
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target],
)
@pytest.mark.parametrize("locale", LOCALES_AND_PSEUDO)
@given(bank=banks())
@example(bank=TWO_LONG_OPTIONS)
def test_whatever_passes_the_check_renders_within_discords_limits(
    locale: str, bank: dict[str, Any]
) -> None:
    tasks = check_bank(bank)  # as `content check` runs it: in English
    most: dict[str, float] = {}
    for task in tasks:
        event("multi-blank" if task.multi_blank else f"{task.kind} task")
        with speaking_in(locale):
            messages = render_everything(task)
        assert messages.problems() == []
        for what, value in messages.fullness().items():
            most[what] = max(most.get(what, 0.0), value)
    for what, value in most.items():
        target(value, label=what)


# -- the cases it is about, spelled out ----------------------------------------------------------


def test_the_issues_bank_passes_and_every_reply_fits() -> None:
    (task,) = check_bank(TWO_LONG_OPTIONS)
    messages = render_everything(task)
    assert messages.problems() == []
    wrong = messages.payloads[f"answer {Progress()} ('B',) {Status.WRONG}"]
    # The outcome line is whole: the pick is quoted shortened, the attempts left follow it.
    assert wrong["content"].startswith("Not quite: **B · Bbbb")
    assert "isn't it. You have **2** attempts left." in wrong["content"]


def test_a_crowded_close_summary_keeps_counts_and_top_and_counts_what_it_leaves_out() -> None:
    many = [
        summary.Misconception(f"{n}", "x" * 500, 1, 1, ("note " * 100,)) for n in range(20)
    ]
    result = summary.CloseSummary(
        answer="A · " + "a" * 3000,
        answered=7,
        solved=3,
        first_try=1,
        top=tuple(summary.TopAnswerer(n, 1, NOW) for n in range(3)),
        misconceptions=tuple(many),
    )
    text = result.text(head=CLOSE_HEAD)
    assert size(text) <= rendering.MESSAGE_CONTENT
    lines = text.splitlines()
    assert lines[0] == CLOSE_HEAD
    assert lines[1].startswith("**Answer:** A · aaa") and lines[1].endswith("…")
    assert size(lines[1]) == summary.ANSWER_ROOM
    assert lines[2] == "**7** answered · **3** solved · **1** on the first try"
    assert lines[3] == (
        "**Top answerers:** 1. <@0> (first try) 2. <@1> (first try) 3. <@2> (first try)"
    )
    assert lines[4] == "**Common mistakes:**"
    assert lines[5] == f"• {many[0].line()}"  # the most common first, whole
    assert lines[-1] == f"• …and {20 - len(lines[5:-1])} more"


def test_a_summary_that_fits_is_unchanged() -> None:
    result = summary.CloseSummary("B · split", 2, 1, 1, (), ())
    assert result.text() == (
        "**Answer:** B · split\n**2** answered · **1** solved · **1** on the first try"
    )
    assert result.text(head="Head") == f"Head\n{result.text()}"


def test_the_checker_counts_as_discord_does_and_sees_the_v2_picker() -> None:
    assert problems_of({"content": "💡" * 1001}) == ["content: 2002 not in 0..2000"]
    five = fill(
        prompt="[1] [2] [3] [4] [5]", texts=("a", "b"), answers=("A", "B", "A", "B", "A")
    )
    screen = picker.open_screen(posted_of(five), {})
    body = wire(picker_message(five, screen))
    assert body["flags"] & COMPONENTS_V2 and text_displays(body)
    body["components"][0]["content"] = "x" * 4001
    assert problems_of(body) == ["text displays: 4001 not in 0..4000"]
    title = wire(outgoing(embed=discord.Embed(title="t" * 300)))["embeds"][0]["title"]
    assert size(title) == 256  # what the checker sees is what `outgoing` made of it


@pytest.mark.parametrize("locale", LOCALES_AND_PSEUDO)
def test_a_crowded_close_summary_fits_in_every_locale(locale: str) -> None:
    many = [
        summary.Misconception(f"{n}", "x" * 500, 1, 1, ("note " * 100,)) for n in range(20)
    ]
    result = summary.CloseSummary(
        answer="A · " + "a" * 3000,
        answered=10**6,
        solved=10**6,
        first_try=10**6,
        top=tuple(summary.TopAnswerer(BIG_ID - n, 2, NOW) for n in range(3)),
        misconceptions=tuple(many),
    )
    with speaking_in(locale):
        text = result.text(head=CLOSE_HEAD)
        lines = text.splitlines()
        ranked = result.text().splitlines()[2]
        left_out = ngettext("• …and {n} more", "• …and {n} more", 20 - len(lines[5:-1]))
    assert size(text) <= rendering.MESSAGE_CONTENT
    assert size(lines[1]) == summary.ANSWER_ROOM
    assert lines[3] == ranked  # the counts and the top answerers always show, whole
    assert lines[-1] == left_out.format(n=20 - len(lines[5:-1]))  # how many left out
