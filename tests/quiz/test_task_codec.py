"""The canonical task form a post's version is stored in: exact round trips, one text per task,
and a hash that changes with anything a member could notice."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest

from bot.content import load_banks
from bot.quiz.task_codec import (
    FORMAT,
    TaskCodecError,
    canonical_json,
    decode_task,
    encode_task,
    task_from_dict,
    task_hash,
    task_to_dict,
)
from bot.quiz.tasks import Difficulty, Kind, MistakeNote, Option, Solution, SolutionStep, Task
from tests.factories import choice, choice_task, fill_task, note

CONTENT = Path(__file__).resolve().parents[2] / "content"


def full_task() -> Task:
    """Every field set, none at its default, with text JSON would escape."""
    return Task(
        id="full-1",
        topic="Pythön",
        kind=Kind.FILL,
        difficulty=Difficulty.MEDIUM,
        prompt='d = {"k": [1]}\n\tprint(d["k"] [2] 2)  # "quoted" \\ backslash',
        options=(Option("A", "x"), Option("B", "//"), Option("C", "✓ ünïcode")),
        answers=("A", "B"),
        hints=("Ein Hinweis: 😀", "Zwei.", "Drei."),
        solution=Solution(
            steps=(SolutionStep("First", "Do x."), SolutionStep("Then", "Divide.")),
            final_answer="[1] = x, [2] = //",
            quick_check="Run it.",
            explanation="Because.",
        ),
        mistakes=(note("'/' gives a float.", "C"), note("Both wrong.", "A", "C"), note("Read.")),
        instruction="Complete the code.",
        language="python3",
        bank="Bänk one",
    )


@pytest.mark.parametrize(
    "task",
    [
        full_task(),
        choice_task(),
        fill_task(),
        choice("bare", solution=Solution()),
        choice("no-hint", hints=()),
    ],
    ids=["every-field", "choice", "fill", "bare", "no-hint"],
)
def test_a_task_round_trips_exactly(task: Task) -> None:
    assert task_from_dict(task_to_dict(task)) == task
    content, key = encode_task(task)
    assert decode_task(content) == task
    assert key == task_hash(task)


def test_every_shipped_task_round_trips() -> None:
    catalog = load_banks(CONTENT)
    assert len(catalog) >= 10
    for task in catalog:
        assert decode_task(canonical_json(task)) == task, task.id


def test_the_dict_is_plain_json_with_the_format_number() -> None:
    data = task_to_dict(full_task())
    assert data["format"] == FORMAT
    assert json.loads(json.dumps(data)) == data  # only JSON types: nothing lost on the way


def test_the_canonical_text_is_sorted_compact_and_unescaped() -> None:
    text = canonical_json(full_task())
    assert text == json.dumps(
        json.loads(text), sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    assert "ünïcode" in text and "😀" in text
    assert list(json.loads(text)) == sorted(json.loads(text))


def test_equal_tasks_give_the_same_text_and_hash() -> None:
    a, b = full_task(), full_task()
    assert a is not b
    assert canonical_json(a) == canonical_json(b)
    assert task_hash(a) == task_hash(b)
    assert task_hash(a) == hashlib.sha256(canonical_json(a).encode()).hexdigest()
    assert len(task_hash(a)) == 64


def test_the_format_is_stable() -> None:
    """Stored versions are named by this hash: a change to the codec's output renames every
    task (new versions for unchanged tasks). If it is meant, bump FORMAT and update this."""
    task = choice("golden", texts=("yes", "no"), mistakes=(note("No.", "B"),))
    assert canonical_json(task) == (
        '{"answers":["A"],"bank":"","difficulty":"easy","format":1,"hint":"It is the first.",'
        '"id":"golden","instruction":null,"kind":"choice","language":"python",'
        '"mistakes":[{"options":["B"],"text":"No."}],'
        '"options":[{"label":"A","text":"yes"},{"label":"B","text":"no"}],'
        '"prompt":"Which one?","solution":{"explanation":null,"final_answer":"A",'
        '"quick_check":null,"steps":[]},"topic":"Testing"}'
    )


def test_a_one_hint_task_keeps_its_version_from_before_the_ladder() -> None:
    """One hint is stored as `hint`, as before ladders, so an unchanged task keeps its hash;
    none or several are `hints`, and each reads back as it was."""
    one = task_to_dict(choice(hints=("Only.",)))
    assert one["hint"] == "Only." and "hints" not in one
    assert task_to_dict(choice(hints=()))["hints"] == []
    assert task_to_dict(choice(hints=("1", "2")))["hints"] == ["1", "2"]
    assert task_from_dict(one).hints == ("Only.",)


EDITS = {
    "answer": lambda t: replace(t, answers=("B", "B")),
    "option text": lambda t: replace(t, options=(Option("A", "y"), *t.options[1:])),
    "option order": lambda t: replace(t, options=tuple(reversed(t.options))),
    "note text": lambda t: replace(t, mistakes=(MistakeNote("Other."), *t.mistakes[1:])),
    "note options": lambda t: replace(t, mistakes=(note("'/' gives a float.", "B"),)),
    "hint": lambda t: replace(t, hints=("Another hint.", *t.hints[1:])),
    "hint order": lambda t: replace(t, hints=tuple(reversed(t.hints))),
    "hint dropped": lambda t: replace(t, hints=t.hints[:-1]),
    "no hint": lambda t: replace(t, hints=()),
    "prompt": lambda t: replace(t, prompt=t.prompt + " "),
    "solution": lambda t: replace(t, solution=replace(t.solution, quick_check=None)),
    "difficulty": lambda t: replace(t, difficulty=Difficulty.HARD),
    "bank": lambda t: replace(t, bank="Another bank"),
}


@pytest.mark.parametrize("edit", EDITS.values(), ids=EDITS.keys())
def test_any_edit_is_a_new_version(edit: object) -> None:
    task = full_task()
    edited = edit(task)  # type: ignore[operator]
    assert edited != task
    assert task_hash(edited) != task_hash(task)
    assert decode_task(canonical_json(edited)) == edited


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        (json.dumps(task_to_dict(choice_task()) | {"format": 99}), "unknown task version format"),
        (json.dumps(task_to_dict(choice_task()) | {"extra": 1}), "unknown keys"),
        (json.dumps(task_to_dict(choice_task()) | {"kind": "essay"}), "not a task version"),
        (json.dumps({"format": FORMAT, "id": "x"}), "not a task version"),
    ],
    ids=["not-json", "not-object", "newer-format", "unknown-key", "bad-kind", "missing-keys"],
)
def test_what_is_not_a_version_is_refused(content: str, message: str) -> None:
    with pytest.raises(TaskCodecError, match=message):
        decode_task(content)


def test_a_refused_version_names_what_is_wrong_with_it() -> None:
    """The host's log line for a stored version that cannot be read names the format, the
    keys or the field at fault."""
    base = task_to_dict(choice_task())
    cases = [
        (base | {"format": 99}, "unknown task version format 99"),
        (base | {"zeta": 1, "alpha": 2}, "unknown keys in a task version: alpha, zeta"),
        (base | {"kind": "essay"}, "not a task version: ValueError: 'essay' is not a valid Kind"),
    ]
    for data, message in cases:
        with pytest.raises(TaskCodecError) as refused:
            decode_task(json.dumps(data))
        assert str(refused.value) == message
    with pytest.raises(TaskCodecError) as not_object:
        decode_task("[1, 2]")
    assert str(not_object.value) == "a task version is not a JSON object"
