"""`quizbot practice`: the tutor in a terminal, under exactly the engine's rules.

Answers are recorded through the same Store the bot uses, as a local "practice" server, so a
content author sees the notes, hints and solutions a member would see, and the attempt limit
is the database's.
"""

from __future__ import annotations

import getpass
import os
import textwrap
from collections.abc import Callable
from typing import TextIO

from bot.clock import utcnow
from bot.quiz import engine
from bot.quiz.engine import Outcome, Progress, Status
from bot.quiz.errors import InvalidAnswerError
from bot.quiz.tasks import MAX_ATTEMPTS, Kind, Task
from bot.store import AnswerRequest, PostInfo, Store

PRACTICE_GUILD = 0
PRACTICE_CHANNEL = 0
HELP = (
    "letters answer (one per blank, e.g. 'B' or 'A C'), h = hint, s = solution, n = next, q = quit"
)



class PracticeSession:
    def __init__(
        self,
        store: Store,
        tasks: list[Task],
        read: Callable[[], str | None],
        out: TextIO,
        user_id: int | None = None,
        name: str | None = None,
    ) -> None:
        self.store = store
        self.tasks = tasks
        self.read = read
        self.out = out
        self.user_id = user_id if user_id is not None else os.getuid()
        self.name = name or getpass.getuser()
        self.total = 0

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def run(self) -> int:
        self.say(f"Practice: {len(self.tasks)} task(s), {MAX_ATTEMPTS} attempts each. {HELP}.")
        for number, task in enumerate(self.tasks, 1):
            self.say()
            self.say(f"[{number}/{len(self.tasks)}] {task.topic} · {task.kind} · {task.difficulty}")
            if not self.play(task):
                break
        self.say()
        self.say(f"Done. You earned {self.total} point(s).")
        return 0

    def play(self, task: Task) -> bool:
        """Play one task; False when the member quits."""
        post = self.store.create_post(
            PRACTICE_GUILD, PRACTICE_CHANNEL, task, self.user_id, now=utcnow()
        )
        self.show(task)
        while True:
            progress = self.store.progress(post.id, self.user_id)
            if progress.finished:
                return True
            line = self.read()
            if line is None or line.strip().lower() in {"q", "quit"}:
                return False
            command = line.strip().lower()
            if command in {"n", "next"}:
                return True
            if command in {"h", "hint"}:
                self.store.reveal_hint(post.id, PRACTICE_GUILD, self.user_id, self.name, utcnow())
                self.say(f"Hint: {task.hint}")
            elif command in {"s", "solution"}:
                self.store.reveal_solution(
                    post.id, PRACTICE_GUILD, self.user_id, self.name, utcnow()
                )
                if not progress.finished:
                    self.say("Solution shown: this task scores 0.")
                self.show_solution(task)
            else:
                self.answer(task, post.id, line)

    def answer(self, task: Task, post_id: int, line: str) -> None:
        picks = tuple(c for c in line.upper() if c.isalpha())
        request = AnswerRequest(post_id, PRACTICE_GUILD, self.user_id, self.name, picks)

        def grade(post: PostInfo, req: AnswerRequest, progress: Progress) -> Outcome:
            return engine.grade(post.task or task, progress, req.picks)

        try:
            outcome = self.store.answer(request, grade, utcnow()).outcome
        except InvalidAnswerError:
            self.say(f"Give {task.blanks} letter(s) from {', '.join(task.labels)}. ({HELP})")
            return
        self.report(task, outcome)

    def report(self, task: Task, outcome: Outcome) -> None:
        if outcome.status is Status.CORRECT:
            self.total += outcome.points
            self.say(f"Correct! +{outcome.points} point(s).")
            self.show_solution(task)
            return
        if outcome.status is Status.REPEATED:  # nothing was stored
            self.say(
                "You already tried that, so it didn't use an attempt: "
                f"{outcome.attempts_left} attempt(s) left."
            )
            for note in outcome.notes:
                self.say(f"  - {note}")
            return
        where = ""
        if task.multi_blank:
            where = f" (blank {', '.join(f'[{b}]' for b in outcome.wrong_blanks)} wrong)"
        self.say(f"Not quite{where}.")
        for note in outcome.notes:
            self.say(f"  - {note}")
        if outcome.status is Status.FAILED:
            self.say("That was your last attempt. Here is the worked solution:")
            self.show_solution(task)
        else:
            self.say(f"{outcome.attempts_left} attempt(s) left. Try again, or 'h' for a hint.")

    def show(self, task: Task) -> None:
        if task.kind is Kind.FILL:
            self.say(task.instruction or "Fill in the blanks.")
            self.say(textwrap.indent(task.prompt, "    "))
        else:
            self.say(task.prompt)
        for option in task.options:
            self.say(f"  {option.label}. {option.text}")

    def show_solution(self, task: Task) -> None:
        for number, step in enumerate(task.solution.steps, 1):
            self.say(f"  {number}. {step.title}: {step.text}")
        if task.kind is Kind.FILL:
            self.say(textwrap.indent(task.solved_template(), "    "))
        self.say(f"  Answer: {task.final_answer()}")
        if task.solution.quick_check:
            self.say(f"  Quick check: {task.solution.quick_check}")
        if task.solution.explanation:
            self.say(f"  {task.solution.explanation}")
