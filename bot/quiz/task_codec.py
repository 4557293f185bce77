"""A task's canonical, versioned form: what a post stores so it keeps the task it was made
from. `task_hash` (sha256 of `canonical_json`) names a version: posts of an unchanged task share
one, and any edit makes a new one. `FORMAT` is in every version, so a later shape can still read
the earlier ones. The store keeps the JSON (bot/store/posts.py); this decides its shape.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Final

from bot.quiz.cloze import ClozePart, PartAnswer, PartKind
from bot.quiz.numeric import NumAnswer, NumericAnswers, Unit
from bot.quiz.tasks import Difficulty, Kind, MistakeNote, Option, Solution, SolutionStep, Task
from bot.quiz.typed import Accepted, ShortAnswers, TypedMistake

FORMAT: Final = 1
"""The shape of `task_to_dict`; a change to it (a new Task field) is a new format number."""

_KEYS: Final = frozenset(
    {"format", "id", "topic", "kind", "difficulty", "prompt", "options", "answers", "hint",
     "solution", "mistakes", "instruction", "language", "bank", "weights", "show_count",
     "hints", "short", "numeric", "stems", "parts", "bank_language", "single"}
)
"""`weights` and `show_count` are a multi task's only, so a choice or fill task's version (and
its hash) is what it was before multi tasks; `bank_language` is there only when the bank has one,
so a task of a bank without it keeps its hash; `single` only when set, for the same reason."""


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


def hint_data(task: Task) -> dict[str, Any]:
    """One hint as `hint`, as every version had it before the ladder, so a one-hint task's
    version (and its hash) stays what it was; none or several as `hints`."""
    if len(task.hints) == 1:
        return {"hint": task.hints[0]}
    return {"hints": list(task.hints)}


def short_data(spec: ShortAnswers) -> dict[str, Any]:
    """A short task's grading as plain data (only short tasks have the `short` key)."""
    return {
        "accepted": [{"text": a.text, "credit": str(a.credit)} for a in spec.accepted],
        "case_sensitive": spec.case_sensitive,
        "typos": spec.typos,
        "mistakes": [{"answers": list(m.answers), "note": m.note} for m in spec.mistakes],
    }


def _short_of(data: Mapping[str, Any]) -> ShortAnswers:
    return ShortAnswers(
        accepted=tuple(Accepted(a["text"], Fraction(a["credit"])) for a in data["accepted"]),
        case_sensitive=bool(data["case_sensitive"]),
        typos=int(data["typos"]),
        mistakes=tuple(TypedMistake(tuple(m["answers"]), m["note"]) for m in data["mistakes"]),
    )


def numeric_data(spec: NumericAnswers) -> dict[str, Any]:
    """A numerical task's grading as plain data, exact (fractions as text)."""
    return {
        "answers": [
            {"low": str(a.low), "high": str(a.high), "credit": str(a.credit), "spec": a.spec}
            for a in spec.answers
        ],
        "units": [{"name": u.name, "multiplier": str(u.multiplier)} for u in spec.units],
        "unit_penalty": str(spec.unit_penalty),
        "mistakes": [{"answers": list(m.answers), "note": m.note} for m in spec.mistakes],
    }


def _numeric_of(data: Mapping[str, Any]) -> NumericAnswers:
    return NumericAnswers(
        answers=tuple(
            NumAnswer(Fraction(a["low"]), Fraction(a["high"]), Fraction(a["credit"]), a["spec"])
            for a in data["answers"]
        ),
        units=tuple(Unit(u["name"], Fraction(u["multiplier"])) for u in data["units"]),
        unit_penalty=Fraction(data["unit_penalty"]),
        mistakes=tuple(TypedMistake(tuple(m["answers"]), m["note"]) for m in data["mistakes"]),
    )


def parts_data(parts: tuple[ClozePart, ...]) -> list[dict[str, Any]]:
    """A cloze task's parts as plain data, exact (only cloze tasks have the `parts` key)."""
    return [
        {
            "kind": p.kind.value,
            "weight": p.weight,
            "style": p.style,
            "case_sensitive": p.case_sensitive,
            "answers": [
                {"text": a.text, "credit": str(a.credit), "feedback": a.feedback}
                for a in p.answers
            ],
        }
        for p in parts
    ]


def _parts_of(data: list[Mapping[str, Any]]) -> tuple[ClozePart, ...]:
    return tuple(
        ClozePart(
            kind=PartKind(p["kind"]),
            answers=tuple(
                PartAnswer(a["text"], Fraction(a["credit"]), a["feedback"]) for a in p["answers"]
            ),
            weight=int(p["weight"]),
            style=p["style"],
            case_sensitive=bool(p["case_sensitive"]),
        )
        for p in data
    )


def task_to_dict(task: Task) -> dict[str, Any]:
    """Every field of `task`, as JSON-ready plain data (lists, dicts, strings, None)."""
    solution = task.solution
    multi = (
        {"weights": [str(w) for w in task.weights], "show_count": task.show_count}
        if task.kind is Kind.MULTI
        else {}
    )
    if task.single:
        multi["single"] = True
    short: dict[str, Any] = {"short": short_data(task.short)} if task.short is not None else {}
    if task.numeric is not None:
        short = {"numeric": numeric_data(task.numeric)}
    if task.kind is Kind.MATCHING:
        short = {"stems": list(task.stems)}
    if task.kind is Kind.CLOZE:
        short = {"parts": parts_data(task.parts)}
    language = {"bank_language": task.bank_language} if task.bank_language is not None else {}
    return {
        **multi,
        **short,
        **language,
        "format": FORMAT,
        "id": task.id,
        "topic": task.topic,
        "kind": task.kind.value,
        "difficulty": task.difficulty.value,
        "prompt": task.prompt,
        "options": options_data(task),
        "answers": list(task.answers),
        **hint_data(task),
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
            hints=(data["hint"],) if "hint" in data else tuple(data["hints"]),
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
            bank_language=data.get("bank_language"),
            weights=tuple(Fraction(w) for w in data.get("weights", ())),
            show_count=bool(data.get("show_count", False)),
            single=bool(data.get("single", False)),
            short=_short_of(data["short"]) if "short" in data else None,
            numeric=_numeric_of(data["numeric"]) if "numeric" in data else None,
            stems=tuple(data.get("stems", ())),
            parts=_parts_of(data.get("parts", [])),
        )
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
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
