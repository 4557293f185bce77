"""A cloze task in the reports: the close summary and /insights name a part's common wrong
pick, and a typed part's wrong text only once three members gave it (folded, as the part
compares it); the item analysis reads its picks part by part, commas in typed text included."""

from __future__ import annotations

from dataclasses import dataclass

from bot.quiz import cloze
from bot.reports.items import FirstTry, analyse
from bot.reports.summary import misconceptions_among, wrong_pickers
from tests.quiz.test_cloze import cloze_task

TASK = cloze_task("{1:SA:=Paris~Lyon#Lyon is a city.} is in {1:MC:=France#~Spain#Not Spain.}")


@dataclass(frozen=True)
class Attempt:
    user_id: int
    picks: tuple[str, ...]


def stored(*answers: str) -> tuple[str, ...]:
    """The picks as the store reads them back: joined at commas, split again."""
    return tuple(",".join(cloze.encode(answers)).split(","))


def test_the_summary_names_a_parts_common_wrong_pick_and_typed_text() -> None:
    attempts = [
        Attempt(1, stored("lyon", "B")),
        Attempt(2, stored("LYON", "B")),  # stored as graded: normalised
        Attempt(3, stored("Lyon", "A")),
        Attempt(4, stored("Nice, France", "A")),
        Attempt(5, stored("Paris", "A")),
    ]
    found = misconceptions_among(TASK, wrong_pickers(TASK, attempts), answered=5)
    lines = [m.line() for m in found]
    assert lines[0].endswith("typed *lyon* — Lyon is a city.") and lines[0].startswith("[1] ")
    assert lines[1].startswith("[2] ") and "picked B — Not Spain." in lines[1]
    assert len(lines) == 2  # "nice, france": one member, never named


def test_the_item_analysis_reads_the_parts() -> None:
    tries = [
        FirstTry(1, TASK.id, False, stored("Nice, France", "B")),
        FirstTry(2, TASK.id, True, stored("Paris", "A")),
    ]
    (item,) = analyse(tries, {TASK.id: TASK})
    choices = {(c.blank, c.label): c.right for c in item.choices}
    assert choices == {
        (1, "Nice, France"): False,
        (2, "B"): False,
        (1, "Paris"): True,
        (2, "A"): True,
    }
