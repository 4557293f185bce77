from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.discord_ui.client import QuizBot
from bot.quiz.tasks import Catalog, Difficulty, Solution, Task
from bot.service import QuizService
from bot.settings import Settings
from bot.store import Store, make_engine
from tests.discord_ui.fakes import (
    ALICE,
    CHANNEL_ID,
    Call,
    FakeDiscordHTTP,
    Member,
    command_data,
    find_component,
    interaction_payload,
)
from tests.factories import choice, fill, note

TOKEN = "TEST.TOKEN.do-not-log-me-123"
COMMAND, COMPONENT, AUTOCOMPLETE = 2, 3, 4
BUTTON, STRING_SELECT = 2, 3


def choice_task() -> Task:
    return choice(
        "mc-split",
        topic="MLOps",
        prompt="Which strategy copies the full model to every worker?",
        texts=("model parallelism", "data parallelism", "pipeline flushing", "tensor sharding"),
        answer="B",
        hint="Think about what gets copied, and what gets split.",
        solution=Solution(explanation="Data parallelism copies the model and splits the data."),
        mistakes=(
            note("Model parallelism splits the model itself.", "A"),
            note("Flushing is about pipeline bubbles.", "C"),
            note("Read the question twice."),
        ),
    )


def fill_one_task() -> Task:
    return fill(
        "fill-one",
        topic="MLOps",
        difficulty=Difficulty.MEDIUM,
        prompt="model = model.[1]('cuda')",
        texts=("to", "cuda_to", "move"),
        answers=("A",),
        hint="PyTorch's device-moving method is short.",
        solution=Solution(explanation="`to` moves a module to a device."),
        mistakes=(note("There is no cuda_to.", "B"),),
        instruction="Move the model to the GPU.",
    )


def fill_two_task() -> Task:
    return fill(
        "fill-two",
        topic="Python",
        prompt="parts = {d: model.[1](d) for d in [2]}",
        texts=("to_device", "devices_typo", "device_list", "cpu"),
        answers=("A", "C"),
        hint="[2] is the list the comprehension loops over.",
        solution=Solution(explanation="to_device over device_list."),
        mistakes=(
            note("cpu is a device, not a method.", "D"),
            note("devices_typo is not defined.", "B"),
        ),
        instruction="Map devices to model parts.",
    )


def fill_five_task() -> Task:
    return fill(
        "fill-five",
        topic="Python",
        prompt="[1] = [2]([3], [4], [5])",
        texts=("x", "f", "a", "b"),
        answers=("A", "B", "C", "D", "C"),
        hint="Assignment, call, three arguments.",
        solution=Solution(explanation="x = f(a, b, a)."),
        mistakes=(note("That is the function, not the target.", "B"),),
        instruction="Call f and keep the result.",
    )


@pytest.fixture
def catalog() -> Catalog:
    return Catalog.of([choice_task(), fill_one_task(), fill_two_task(), fill_five_task()])


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeDiscordHTTP:
    fake = FakeDiscordHTTP()
    fake.install(monkeypatch)
    return fake


def settings(db: Path) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None, DISCORD_TOKEN=TOKEN, DATABASE_URL=f"sqlite:///{db}"
    )


class Driver:
    """Feeds raw interaction payloads through the real ConnectionState, then waits for the
    handlers (not for the live-count timers, which tests drain explicitly)."""

    def __init__(self, bot: QuizBot, fake: FakeDiscordHTTP) -> None:
        self.bot = bot
        self.fake = fake

    async def dispatch(self, payload: dict[str, Any]) -> None:
        before = asyncio.all_tasks()
        self.bot._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
        for _ in range(100):
            pending = [
                t
                for t in asyncio.all_tasks() - before
                if t is not asyncio.current_task()
                and not t.get_name().startswith("quizbot-live-counts")
                and not t.done()
            ]
            if not pending:
                return
            await asyncio.wait(pending, timeout=5)
        raise AssertionError("handlers did not finish")

    async def one_reply(self, payload: dict[str, Any]) -> Call:
        """Dispatch `payload`; the one reply it got (none, or two, fails the test)."""
        before = len(self.fake.replies())
        await self.dispatch(payload)
        replies = self.fake.replies()
        name = payload.get("data", {}).get("name")
        assert len(replies) == before + 1, f"/{name} gave {len(replies) - before} replies"
        return replies[-1]

    async def command(
        self, name: str, *, member: Member = ALICE, channel_id: int = CHANNEL_ID,
        **kwargs: Any,
    ) -> dict[str, Any]:
        extra = {k: kwargs.pop(k) for k in ("app_permissions", "guild") if k in kwargs}
        payload = interaction_payload(
            self.fake, kind=COMMAND, data=command_data(name, **kwargs), member=member,
            channel_id=channel_id, **extra,
        )
        await self.dispatch(payload)
        return payload

    async def autocomplete(self, name: str, focused: str, **options: Any) -> list[dict[str, Any]]:
        payload = interaction_payload(
            self.fake, kind=AUTOCOMPLETE, data=command_data(name, focused=focused, **options)
        )
        await self.dispatch(payload)
        call = self.fake.callbacks()[-1]
        assert call.callback_type == 8
        return call.json["data"]["choices"]  # type: ignore[index]

    async def click(
        self, message: dict[str, Any], pattern: str, *, member: Member = ALICE
    ) -> dict[str, Any]:
        button = find_component(message, pattern)
        data = {"custom_id": button["custom_id"], "component_type": BUTTON}
        payload = interaction_payload(
            self.fake, kind=COMPONENT, data=data, member=member, message=message
        )
        await self.dispatch(payload)
        return payload

    async def select(
        self, message: dict[str, Any], pattern: str, value: str, *, member: Member = ALICE
    ) -> dict[str, Any]:
        select = find_component(message, pattern)
        data = {
            "custom_id": select["custom_id"], "component_type": STRING_SELECT, "values": [value]
        }
        payload = interaction_payload(
            self.fake, kind=COMPONENT, data=data, member=member, message=message
        )
        await self.dispatch(payload)
        return payload

    async def post(self, task_id: str, *, member: Member = ALICE) -> dict[str, Any]:
        """/quiz task:<id>; returns the posted message as Discord stores it."""
        self.bot.cooldowns.release(CHANNEL_ID)
        await self.command("quiz", member=member, task=task_id)
        return self.fake.messages[self.fake.channel_posts[-1]]


BotFactory = Callable[..., Any]


@pytest.fixture
async def make_bot(
    tmp_path: Path, fake: FakeDiscordHTTP, catalog: Catalog
) -> AsyncIterator[BotFactory]:
    """Start a QuizBot on the test database; several may be made (a restart)."""
    bots: list[QuizBot] = []
    db = tmp_path / "quiz.db"

    async def start(**kwargs: Any) -> QuizBot:
        store = Store(make_engine(f"sqlite:///{db}"))
        service = QuizService(catalog, store, batch_window=0.001)
        kwargs.setdefault("live_count_interval", 0.05)
        bot = QuizBot(settings(db), service, **kwargs)
        await bot.login(TOKEN)
        bots.append(bot)
        return bot

    yield start
    for bot in bots:
        if not bot.is_closed():
            await bot.close()


@pytest.fixture
async def bot(make_bot: BotFactory) -> QuizBot:
    return await make_bot()


@pytest.fixture
def driver(bot: QuizBot, fake: FakeDiscordHTTP) -> Driver:
    return Driver(bot, fake)
