"""The blanks `[n]` of a fill template: what is wrong with their numbering, in a bounded report.
Each kind of problem is one message, and digits too long to be a blank are never made a number.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from bot.content.limits import MAX_BLANKS
from bot.content.nodes import shown
from bot.quiz.tasks import BLANK_PATTERN

_DIGITS = len(str(MAX_BLANKS))


@dataclass(frozen=True, slots=True)
class Marks:
    """The `[n]` marks of a template."""

    counts: Counter[int]  # of each number from 0 to MAX_BLANKS
    out_of_range: tuple[str, ...]  # distinct digits above MAX_BLANKS, as they come

    @property
    def blanks(self) -> list[int]:
        return sorted(n for n in self.counts if n > 0)

    @property
    def numbered(self) -> int:
        return len(self.blanks) + len(self.out_of_range)


def read_marks(code: str) -> Marks:
    counts: Counter[int] = Counter()
    out_of_range: dict[str, None] = {}
    for digits in BLANK_PATTERN.findall(code):
        significant = digits.lstrip("0") or "0"
        if len(significant) <= _DIGITS and int(significant) <= MAX_BLANKS:
            counts[int(significant)] += 1
        else:
            out_of_range[significant] = None
    return Marks(counts, tuple(out_of_range))


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _runs(numbers: list[int]) -> list[str]:
    """[2, 3, 4, 6] -> ["[2] to [4]", "[6]"]."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and runs[-1][-1] == n - 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return [f"[{r[0]}]" if len(r) == 1 else f"[{r[0]}] to [{r[-1]}]" for r in runs]


def blank_problems(marks: Marks) -> list[str]:
    """What is wrong with the blanks' numbering: one message per kind, and per repeated blank."""
    if not marks.counts and not marks.out_of_range:
        return ["the code has no blanks; mark each with [1], [2], …"]
    problems = [
        f"blank [{n}] appears {times} times; each blank appears once"
        for n, times in sorted(marks.counts.items())
        if n > 0 and times > 1
    ]
    if 0 in marks.counts:
        problems.append("[0] is not a blank: blanks are numbered from [1] (write x[ 0 ] for code)")
    if marks.numbered > MAX_BLANKS:
        problems.append(f"the code has {marks.numbered:,} blanks; at most {MAX_BLANKS} are allowed")
    elif marks.out_of_range:
        wrong = [f"[{shown(digits)}]" for digits in marks.out_of_range]
        verb = "is" if len(wrong) == 1 else "are"
        problems.append(
            f"blank{'' if len(wrong) == 1 else 's'} {_listed(wrong)} {verb} out of range: "
            f"blanks go 1..{MAX_BLANKS}"
        )
    elif marks.blanks:
        highest = marks.blanks[-1]
        missing = [n for n in range(1, highest + 1) if n not in marks.counts]
        if missing:
            runs = _runs(missing)
            one = len(missing) == 1
            problems.append(
                f"blank{'' if one else 's'} {_listed(runs)} {'is' if one else 'are'} missing: "
                f"blanks are numbered [1] to [{highest}] without gaps"
            )
    return problems


def answer_count_problem(marks: Marks, answers: int) -> str | None:
    """The mismatch between the blanks and the answers given, once the blanks are in range."""
    blanks = marks.blanks
    if not blanks or marks.out_of_range or len(blanks) == answers:
        return None
    shown_blanks = ", ".join(f"[{n}]" for n in blanks)
    given = f"{answers} answer{' is' if answers == 1 else 's are'} given"
    return (
        f"the code has {len(blanks)} blank{'' if len(blanks) == 1 else 's'} ({shown_blanks}) but "
        f"{given}; give one option label per blank, in blank order"
    )
