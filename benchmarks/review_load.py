"""The review load on one bot: members in `/review` sessions, in the answer load's loops.

Before the bot starts, every member gets a due review card for each single-button task of the
bot's content (`seed_cards`: the card a miss a day ago leaves, `bot.quiz.review.review`
with an AGAIN rating, saved with `bot.store.answers.save_cards` by the bot's own store,
in `benchmarks/bot_process.py prepare-db --review-cards`). Then a member's sitting is:

    /review                      a real application command: a new session, its first task
    per task: wrong, wrong, right   the task's answer buttons (`quiz:ans:<post>:<opt>`) on the
                                 ephemeral task message: three graded attempts; the finish
                                 rates the card AGAIN, which makes it due again at once
    Next                         `quiz:next:<session>:<post>`: the next due task, or after the last
                                 one the session's end and summary (`next: end`)

and then `/review` again. With 8 tasks a sitting is 33 interactions (1 /review, 24 answers,
7 Next with a task, 1 Next ending the session); the cards stay due, so nobody runs out.
Members start at staggered points of their sitting (`prime`, not measured), so the mix is the
same from the first measured click. Latency, as for answers, runs from dispatching
INTERACTION_CREATE to the callback; it is also reported per kind of interaction.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fakediscord import Channel, Driver, InteractionRecord, Member, Message

from benchmarks.load_phases import ClickLoad, classify

REVIEW, ANSWER, NEXT, NEXT_END = "/review", "answer", "next", "next: end"
KINDS = (REVIEW, ANSWER, NEXT, NEXT_END)


@dataclass(frozen=True)
class ReviewTask:
    """A task the harness reviews: its answer buttons, wrong, wrong, right."""

    task_id: str
    clicks: tuple[str, str, str]


def review_tasks(content_dir: Path) -> list[ReviewTask]:
    """The single-button tasks of a content directory (choice and one-blank fill tasks), with
    two wrong options and the right one. Loaded with this checkout's loader."""
    from bot.content.loader import load_banks

    found = []
    for task in load_banks(content_dir).tasks.values():
        if task.multi_blank or len(task.answers) != 1 or len(task.labels) < 3:
            continue
        right = task.answers[0]
        wrong = [label for label in task.labels if label != right][:2]
        found.append(ReviewTask(task.id, (wrong[0], wrong[1], right)))
    return sorted(found, key=lambda t: t.task_id)


def write_seed_file(path: Path, users: list[int], tasks: list[ReviewTask]) -> Path:
    """What `bot_process.py prepare-db --review-cards` reads: each user gets a card per task."""
    missed = datetime.now(UTC) - timedelta(days=1)
    path.write_text(
        json.dumps(
            {
                "users": users,
                "tasks": [t.task_id for t in tasks],
                "missed_at": missed.isoformat(),
            }
        )
    )
    return path


@dataclass
class ReviewMember:
    member: Member
    message: Message | None = None
    """The ephemeral task message the member clicks on; None: the next action is /review."""
    task: ReviewTask | None = None
    attempt: int = 0
    served: int = 0
    """Tasks of the current session so far."""
    busy: bool = False


def _buttons(message: Message) -> list[str]:
    return [
        c.get("custom_id") or ""
        for row in message.get("components") or []
        for c in row.get("components") or []
    ]


def _task_id(message: Message) -> str:
    """The task id at the end of the task embed's footer (`#<post> <task id>`)."""
    embeds = message.get("embeds") or []
    footer = ((embeds[0].get("footer") or {}).get("text") or "") if embeds else ""
    return footer.rsplit(" ", 1)[-1]


class ReviewLoad(ClickLoad):
    def __init__(
        self, driver: Driver, channel: Channel, tasks: list[ReviewTask], members: list[Member]
    ) -> None:
        self.d = driver
        self.channel = channel
        self.tasks = {t.task_id: t for t in tasks}
        self.per_session = len(tasks)
        self.members = [ReviewMember(m) for m in members]
        self.wrapped = 0
        """/review answers of "nothing due" (a member ran out of due cards)."""

    @property
    def cycle(self) -> int:
        """Interactions in one sitting: /review, then three answers and Next per task."""
        return 1 + 4 * self.per_session

    def begin(self, state: ReviewMember) -> tuple[str, InteractionRecord]:
        user = state.member
        if state.message is None or state.task is None:
            return REVIEW, self.d.slash("review", user=user, channel=self.channel)
        buttons = _buttons(state.message)
        if state.attempt < 3:
            option = state.task.clicks[state.attempt]
            state.attempt += 1
            custom_id = next(b for b in buttons if b.startswith("quiz:ans:") and
                             b.endswith(f":{option}"))
            return ANSWER, self.d.click_button(state.message, custom_id, user=user)
        custom_id = next(b for b in buttons if b.startswith("quiz:next:"))
        kind = NEXT_END if state.served >= self.per_session else NEXT
        return kind, self.d.click_button(state.message, custom_id, user=user)

    async def settle(
        self, state: ReviewMember, kind: str, ix: InteractionRecord, body: dict[str, Any]
    ) -> str:
        if kind == ANSWER:
            return classify(body)
        message = ix.original_message
        if body.get("type") == 5:  # deferred: the task comes as the follow-up
            message = (await ix.wait_followups(1, timeout=10))[0]
        content = (message or {}).get("content") or ""
        task = self.tasks.get(_task_id(message)) if message is not None else None
        if message is None or task is None or not _buttons(message):
            state.message = state.task = None
            if content.startswith("No reviews are due"):
                self.wrapped += 1
                return f"{kind}: nothing due"
            if "session over" in content:
                return f"{kind}: session over"
            return f"{kind}: other: {content[:60]}"
        state.message, state.task, state.attempt = message, task, 0
        state.served = 1 if kind == REVIEW else state.served + 1
        return f"{kind}: task"

    def lost(self, state: ReviewMember, kind: str) -> None:
        if kind != ANSWER:  # no new message to click on: start a new sitting
            state.message = state.task = None

    async def prime(self) -> None:
        """Member i does (i × 7) mod `cycle` interactions first, unmeasured: the members are
        spread over their sittings from the first measured click. Before a later round, each
        member starts a new sitting first: the emulator keeps only a member's latest private
        messages, and the other bots' rounds sent them more since."""
        for state in self.members:
            state.message = state.task = None

        async def run(index: int, state: ReviewMember) -> None:
            for _ in range(index * 7 % self.cycle):
                await self._one(state)

        await asyncio.gather(*(run(i, s) for i, s in enumerate(self.members)))
