"""A task's canonical, versioned form: what a post stores so it keeps the task it was made
from. `task_hash` (sha256 of `canonical_json`) names a version: posts of an unchanged task share
one, and any edit makes a new one. `FORMAT` is in every version, so a later shape can still read
the earlier ones. The store keeps the JSON (bot/store/posts.py); this decides its shape.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, Final

from bot.quiz.tasks import Difficulty, Kind, MistakeNote, Option, Solution, SolutionStep, Task

FORMAT: Final = 1
"""The shape of `task_to_dict`; a change to it (a new Task field) is a new format number."""

_KEYS: Final = frozenset(
    {"format", "id", "topic", "kind", "difficulty", "prompt", "options", "answers", "hint",
     "solution", "mistakes", "instruction", "language", "bank"}
)


class TaskCodecError(ValueError):
    """Stored content that is not a task version this code can read."""


def options_data(task: Task) -> list[dict[str, str]]:
    """A task's options as plain data (shared with the `content list --json` export)."""
    return [{"label": o.label, "text": o.text} for o in task.options]


def solution_data(solution: Solution) -> dict[str, Any]:
    """A worked solution as plain data (shared with the `content list --json` export)."""
    return {
        "steps": [{"title": s.title, "text": s.text} for s in solution.steps],
        "final_answer": solution.final_answer,
        "quick_check": solution.quick_check,
        "explanation": solution.explanation,
    }


def task_to_dict(task: Task) -> dict[str, Any]:
    """Every field of `task`, as JSON-ready plain data (lists, dicts, strings, None)."""
    solution = task.solution
    return {
        "format": FORMAT,
        "id": task.id,
        "topic": task.topic,
        "kind": task.kind.value,
        "difficulty": task.difficulty.value,
        "prompt": task.prompt,
        "options": options_data(task),
        "answers": list(task.answers),
        "hint": task.hint,
        "solution": solution_data(solution),
        "mistakes": [{"text": n.text, "options": list(n.options)} for n in task.mistakes],
        "instruction": task.instruction,
        "language": task.language,
        "bank": task.bank,
    }


def task_from_dict(data: Mapping[str, Any]) -> Task:
    """The Task `task_to_dict` made `data` from; TaskCodecError if `data` is not one."""
    if data.get("format") != FORMAT:
        raise TaskCodecError(f"unknown task version format {data.get('format')!r}")
    if unknown := set(data) - _KEYS:
        raise TaskCodecError(f"unknown keys in a task version: {', '.join(sorted(unknown))}")
    try:
        solution = data["solution"]
        return Task(
            id=data["id"],
            topic=data["topic"],
            kind=Kind(data["kind"]),
            difficulty=Difficulty(data["difficulty"]),
            prompt=data["prompt"],
            options=tuple(Option(o["label"], o["text"]) for o in data["options"]),
            answers=tuple(data["answers"]),
            hint=data["hint"],
            solution=Solution(
                steps=tuple(SolutionStep(s["title"], s["text"]) for s in solution["steps"]),
                final_answer=solution["final_answer"],
                quick_check=solution["quick_check"],
                explanation=solution["explanation"],
            ),
            mistakes=tuple(MistakeNote(n["text"], tuple(n["options"])) for n in data["mistakes"]),
            instruction=data["instruction"],
            language=data["language"],
            bank=data["bank"],
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise TaskCodecError(f"not a task version: {type(exc).__name__}: {exc}") from exc


def canonical_json(task: Task) -> str:
    """`task_to_dict` as JSON: sorted keys, no spaces, so equal tasks give equal text."""
    return json.dumps(
        task_to_dict(task), sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )


def encode_task(task: Task) -> tuple[str, str]:
    """(canonical JSON, its hex sha256): what the store keeps for one version."""
    content = canonical_json(task)
    return content, hashlib.sha256(content.encode("utf-8")).hexdigest()


def task_hash(task: Task) -> str:
    """The version's name: the hash of `canonical_json(task)` (64 hex digits)."""
    return encode_task(task)[1]


def decode_task(content: str) -> Task:
    """The Task of a stored version's JSON; TaskCodecError if it is not one."""
    try:
        data = json.loads(content)
    except ValueError as exc:
        raise TaskCodecError(f"a task version is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise TaskCodecError("a task version is not a JSON object")
    return task_from_dict(data)
