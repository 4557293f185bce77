"""Issue 26, class 8, through real discord.py objects: a bank's Markdown reads as text in the
post's buttons, the picker's selects and every autocomplete choice name, and as Markdown that
renders to the same text in the replies that quote it."""

from __future__ import annotations

import pytest

from bot import rendering
from bot.quiz.tasks import Catalog, Solution, Task
from tests.discord_ui.conftest import Driver
from tests.discord_ui.fakes import FakeDiscordHTTP, walk
from tests.factories import choice, fill

TOPIC = r"**Py**thon \*nix"
SHOWN_TOPIC = "Python *nix"


def markdown_task() -> Task:
    return choice(
        "md-choice",
        topic=TOPIC,
        texts=(r"a\*b", r"back\\slash", "`x_y` and _it_", "[docs](https://x.org/a_b)"),
        answer="C",
        solution=Solution(explanation="It is C."),
    )


def code_task() -> Task:
    return fill(
        "md-fill",
        topic=TOPIC,
        prompt="class A:\n    def [1](self): [2]",
        texts=("__init__", "*args", "a`b"),
        answers=("A", "B"),
        instruction="Complete it.",
    )


@pytest.fixture
def catalog() -> Catalog:
    return Catalog.of([markdown_task(), code_task()])


def labels(message: dict[str, object]) -> list[str]:
    return [c["label"] for c in walk(message["components"]) if "label" in c]  # type: ignore[arg-type]


async def test_buttons_show_the_text_and_the_reply_quotes_it_as_markdown(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    post = await driver.post("md-choice")
    assert labels(post)[:4] == ["A · a*b", "B · back\\slash", "C · x_y and it", "D · docs"]
    await driver.click(post, r"quiz:ans:\d+:B")
    first = fake.last_reply().data["content"].split("\n")[0]
    assert rendering.plain_text(first).startswith("Not quite: B · back\\slash isn't it.")


async def test_a_fill_tasks_selects_show_its_code_tokens_as_written(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    post = await driver.post("md-fill")
    await driver.click(post, r"quiz:open:\d+")
    picker = fake.last_reply().data
    options = [o["label"] for c in walk(picker["components"]) for o in c.get("options") or []]
    assert options[:3] == ["A · __init__", "B · *args", "C · a`b"]


async def test_autocomplete_names_show_the_topic_as_read_and_keep_its_value(
    driver: Driver,
) -> None:
    topics = await driver.autocomplete("quiz", "topic", topic="py")
    assert topics == [{"name": SHOWN_TOPIC, "value": TOPIC}]
    # What the member reads is what they type: "python" finds "**Py**thon".
    assert await driver.autocomplete("quiz", "topic", topic="python *n") == topics
    tasks = await driver.autocomplete("quiz", "task", task="md-choice")
    assert [c["name"] for c in tasks] == [f"md-choice · easy · Multiple choice · {SHOWN_TOPIC}"]
    await driver.post("md-choice")
    posts = await driver.autocomplete("hint", "task", task="")
    assert posts[0]["name"].endswith(f"md-choice · Multiple choice · {SHOWN_TOPIC}")
