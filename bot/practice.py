"""`quizbot practice`: the tutor in a terminal, on the bot's own store and engine, so a content
author sees what a member would see. It records to a database of its own, never the bot's."""

from __future__ import annotations

import getpass
import os
import textwrap
from collections.abc import Callable
from enum import StrEnum
from typing import TextIO

from bot import rendering
from bot.clock import utcnow
from bot.quiz import cloze
from bot.quiz.engine import Outcome, Status
from bot.quiz.errors import InvalidAnswerError, NoHintError, StoreAction
from bot.quiz.numeric import NOT_A_NUMBER, NotANumberError
from bot.quiz.tasks import MAX_ATTEMPTS, OPTION_LABELS, Kind, Task
from bot.quiz.typed import MAX_TYPED
from bot.store import AnswerRequest, SolutionSeen, Store, answers, posts

PRACTICE_GUILD = 0
PRACTICE_CHANNEL = 0
COMMAND_PREFIX = ":"
"""Commands start with it, so every letter stays an answer: a task can have 26 options."""


class Command(StrEnum):
    HINT = "hint"
    SOLUTION = "solution"
    NEXT = "next"
    QUIT = "quit"


COMMANDS = " ".join(COMMAND_PREFIX + command for command in Command)
HELP = (
    "Answer with option letters (one per blank, e.g. B or A C). "
    f"Commands: {COMMANDS} (or their first letter, e.g. :h)"
)
YES = frozenset({"y", "yes"})


def parse_command(line: str) -> Command | str | None:
    """The command a line gives; None when it is an answer (no prefix); the line itself when
    it has the prefix but names no command (":x", ":")."""
    text = line.strip()
    if not text.startswith(COMMAND_PREFIX):
        return None
    word = text[len(COMMAND_PREFIX) :].strip().casefold()
    found = [command for command in Command if word and command.startswith(word)]
    return found[0] if len(found) == 1 else text


def parse_picks(line: str) -> tuple[str, ...] | None:
    """Option letters, in order ("A C C", "acc", "a, c, c"); None when anything else is in
    the line. ASCII only: "ß".upper() is "SS", which nobody typed."""
    letters = "".join(line.replace(",", " ").split())
    if not letters or not all(c.isascii() and c.upper() in OPTION_LABELS for c in letters):
        return None
    return tuple(letters.upper())


PART_SEPARATOR = "|"


def parse_parts(task: Task, line: str) -> tuple[str, ...] | None:
    """A cloze task's answers, one per part, split at `|` ("Paris | 3.14 | b"); a choice
    part's letter in either case. None when the count is not the task's."""
    parts = tuple(p.strip() for p in line.split(PART_SEPARATOR))
    if len(parts) != len(task.parts):
        return None
    return tuple(p.upper() if part.choice else p for part, p in zip(task.parts, parts, strict=True))


class PracticeSession:
    def __init__(
        self,
        store: Store,
        tasks: list[Task],
        read: Callable[[str], str | None],
        out: TextIO,
        user_id: int | None = None,
        name: str | None = None,
    ) -> None:
        """`read(prompt)` shows the prompt and returns the next line, None at the end of input."""
        self.store = store
        self.tasks = tasks
        self.read = read
        self.out = out
        self.user_id = user_id if user_id is not None else os.getuid()
        self.name = name or getpass.getuser()
        self.total = 0

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def run(self, where: str | None = None) -> int:
        """`where`: the database it records to, said first so nobody wonders."""
        if where:
            self.say(f"Recording your progress to {where} (--db to choose another).")
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
        """Play one task; False when the member quits (or the input ends)."""
        with self.store.write(StoreAction.POST) as conn:
            post = posts.create_post(
                conn,
                PRACTICE_GUILD,
                PRACTICE_CHANNEL,
                task,
                self.user_id,
                schedule_id=None,
                closes_at=None,
                now=utcnow(),
            )
        self.show(task)
        while True:
            with self.store.read() as conn:
                progress = answers.read_progress(conn, post.id, self.user_id)
            if progress.finished:
                return True
            line = self.read(prompt(task))
            if line is None:
                return False
            match parse_command(line):
                case None:
                    self.answer(task, post.id, line)
                case Command.QUIT:
                    return False
                case Command.NEXT:
                    return True
                case Command.HINT:
                    self.hint(task, post.id)
                case Command.SOLUTION:
                    self.solution(task, post.id)
                case unknown:
                    self.say(f"{unknown!r} is not a command. {HELP}.")

    def hint(self, task: Task, post_id: int) -> None:
        """The next hint of the task's ladder and the ones seen before (`engine.see_hint`)."""
        try:
            with self.store.write(StoreAction.REVEAL) as conn:
                seen = answers.reveal_hint(
                    conn, post_id, PRACTICE_GUILD, self.user_id, self.name, utcnow()
                )
        except NoHintError as exc:
            self.say(str(exc))
            return
        for number in range(1, seen.access.shown + 1):
            self.say(f"{rendering.hint_title(task, number)}: {rendering.hint_text(task, number)}")

    def solution(self, task: Task, post_id: int) -> None:
        """Show the solution as `engine.open_solution` decides, on the progress the store
        reads when asked: free when it costs nothing, else only once the member confirms the
        forfeit."""
        seen = self.reveal(post_id, confirmed=False)
        if not seen.access.shown:
            if not self.confirm_forfeit():
                self.say("Not shown: the task goes on.")
                return
            seen = self.reveal(post_id, confirmed=True)
        if seen.access.forfeited_now:
            self.say("Solution shown: this task scores 0.")
        self.show_solution(task)

    def reveal(self, post_id: int, *, confirmed: bool) -> SolutionSeen:
        with self.store.write(StoreAction.REVEAL) as conn:
            return answers.reveal_solution(
                conn,
                post_id,
                PRACTICE_GUILD,
                self.user_id,
                self.name,
                utcnow(),
                confirmed=confirmed,
            )

    def confirm_forfeit(self) -> bool:
        """The solution ends the task with no points: asked once more, so a slip costs none."""
        self.say("Seeing the solution now ends this task with 0 points.")
        reply = self.read("Show the solution? [y/N] ")
        return reply is not None and reply.strip().casefold() in YES

    def answer(self, task: Task, post_id: int, line: str) -> None:
        if task.kind is Kind.CLOZE:
            picks = parse_parts(task, line)
        else:
            picks = (line,) if task.typed else parse_picks(line)
        if picks is None:  # the engine checks the count and the labels
            self.ask_again(task)
            return
        request = AnswerRequest(post_id, PRACTICE_GUILD, self.user_id, self.name, picks)
        (result,) = self.store.commit_group([request], utcnow(), ()).answered
        if isinstance(result, NotANumberError):
            self.say(NOT_A_NUMBER)
            return
        if isinstance(result, InvalidAnswerError):
            self.ask_again(task)
            return
        if isinstance(result, Exception):
            raise result
        self.report(task, result.outcome)

    def ask_again(self, task: Task) -> None:
        if task.typed:  # blank or too long: nothing was stored
            self.say(f"Type your answer (up to {MAX_TYPED} characters), or a command: {COMMANDS}.")
            return
        if task.kind is Kind.CLOZE:  # a part blank, too long, or of the wrong count
            self.say(
                f"Answer all {len(task.parts)} parts on one line, in order, separated by "
                f"'{PART_SEPARATOR}' (a choice part's letter), or a command: {COMMANDS}."
            )
            return
        # A multi task's count of right options is the author's to show (`show_count`).
        count = "one or more" if task.kind is Kind.MULTI and not task.single else str(task.blanks)
        self.say(
            f"Give {count} letter(s) from {', '.join(task.labels)}, or a command: {COMMANDS}."
        )

    def report(self, task: Task, outcome: Outcome) -> None:
        if outcome.status is Status.CORRECT:
            self.total += outcome.points
            self.say(f"Correct! +{outcome.points} point(s).{zero_points_reason(outcome)}")
            if outcome.expected:  # a typo forgiven
                self.say(f"Accepted as {outcome.expected}, the expected spelling.")
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
        if task.kind is Kind.CLOZE and outcome.credit is not None:
            parts = ", ".join(f"[{b}]" for b in outcome.wrong_blanks)
            where = f" (part {parts} wrong: {round(outcome.credit * 100)}% of the answer)"
        elif task.multi_blank:
            where = f" (blank {', '.join(f'[{b}]' for b in outcome.wrong_blanks)} wrong)"
        if outcome.credit and (task.typed or task.single):
            where = f" (that answer earns {round(outcome.credit * 100)}% of the credit)"
        elif task.kind is Kind.MATCHING and outcome.credit is not None:
            items = ", ".join(str(b) for b in outcome.wrong_blanks)
            where = f" (item {items} wrong: {round(outcome.credit * 100)}% of the answer)"
        elif outcome.credit is not None and task.kind is Kind.MULTI and not task.single:
            wrong = len(outcome.wrong_picks)
            share = round(outcome.credit * 100)
            where = f" ({len(outcome.picks) - wrong} right, {wrong} wrong: {share}% of the answer)"
        self.say(f"Not quite{where}.")
        for note in outcome.notes:
            self.say(f"  - {note}")
        if outcome.status is Status.FAILED:
            if outcome.points:  # a multi task's last attempt earns its credit's share
                self.total += outcome.points
                self.say(f"+{outcome.points} point(s) for the right part.")
            self.say("That was your last attempt. Here is the worked solution:")
            self.show_solution(task)
        elif task.hints:
            self.say(
                f"{outcome.attempts_left} attempt(s) left. Try again, or "
                f"{COMMAND_PREFIX}{Command.HINT} for a hint."
            )
        else:
            self.say(f"{outcome.attempts_left} attempt(s) left. Try again.")

    def show(self, task: Task) -> None:
        if task.kind is Kind.FILL:
            self.say(task.instruction or "Fill in the blanks.")
            self.say(textwrap.indent(task.prompt, "    "))
        elif task.kind is Kind.CLOZE:
            self.say(cloze.fill(task.prompt, lambda n: f"[{n}]"))
            for n, part in enumerate(task.parts, 1):
                if not part.choice:
                    self.say(f"  [{n}] type it")
                    continue
                listed = zip(part.labels, part.answers, strict=True)
                self.say(f"  [{n}] " + ", ".join(f"{lb}. {a.text}" for lb, a in listed))
            self.say(f"Answer every part on one line, separated by '{PART_SEPARATOR}'.")
        else:
            self.say(task.prompt)
        if task.kind is Kind.MULTI:
            self.say(rendering.multi_instruction(task))
        for number, stem in enumerate(task.stems, 1):
            self.say(f"  {number}. {stem}")
        if task.kind is Kind.MATCHING:
            self.say("Answers (give one letter per item, in order, e.g. CAB):")
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


def zero_points_reason(outcome: Outcome) -> str:
    """Why a right answer scored nothing, as a sentence to follow "+0 point(s).": "" otherwise."""
    if outcome.points:
        return ""
    progress = outcome.progress
    if progress.finished_elsewhere:
        return " A task scores once: you finished this one in an earlier session."
    if progress.scores_none:
        return f" Earlier sessions used all {MAX_ATTEMPTS} scoring attempts on this task."
    return " The misses and hints on this task left no points."


def prompt(task: Task) -> str:
    """What the terminal shows before each line: the letters this task takes and the commands,
    so neither is guessed."""
    if task.typed:
        return f"your answer or {COMMANDS} > "
    if task.kind is Kind.CLOZE:
        return f"[1] {PART_SEPARATOR} [2] ... or {COMMANDS} > "
    labels = task.labels
    letters = labels[0] if len(labels) == 1 else f"{labels[0]}-{labels[-1]}"
    return f"[{letters}] or {COMMANDS} > "
