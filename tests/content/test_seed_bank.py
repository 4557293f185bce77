"""The shipped content loads clean and fits Discord; the seed bank is faithful to its source."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest

from bot import rendering
from bot.content import check_banks, load_banks
from bot.content.commands import list_command
from bot.quiz.tasks import Catalog, Kind, Task

CONTENT = Path(__file__).resolve().parents[2] / "content"
SEED = CONTENT / "mlops" / "data-vs-model-parallelism.yaml"
FILL_ANSWERS = {
    "mlops-parallelism-fill-1": ["split"],
    "mlops-parallelism-fill-2": ["gpu0"],
    "mlops-parallelism-fill-3": ["torch.distributed"],
    "mlops-parallelism-fill-4": ["to_device", "device_list"],
    "mlops-parallelism-fill-5": ["//", "device_list", "device_list"],
}
CHOICE_ANSWERS = {
    "mlops-parallelism-mc-1": "A",
    "mlops-parallelism-mc-2": "D",
    "mlops-parallelism-mc-3": "B",
    "mlops-parallelism-mc-4": "A",
    "mlops-parallelism-mc-5": "C",
}


@pytest.fixture(scope="module")
def shipped() -> Catalog:
    return load_banks(CONTENT)


@pytest.fixture(scope="module")
def seed() -> Catalog:
    return load_banks(SEED)


def test_shipped_content_loads_clean() -> None:
    catalog, problems = check_banks(CONTENT)
    assert problems == [], "\n".join(map(str, problems))
    assert len(catalog) >= 10


def test_seed_has_five_fill_and_five_choice_tasks(seed: Catalog) -> None:
    kinds = [t.kind for t in seed]
    assert len(seed) == 10
    assert kinds == [Kind.FILL] * 5 + [Kind.CHOICE] * 5
    assert {t.topic for t in seed} == {"MLOps"}


def test_seed_fill_answers(seed: Catalog) -> None:
    for task_id, texts in FILL_ANSWERS.items():
        task = seed.tasks[task_id]
        assert [task.answer_text(n) for n in range(1, task.blanks + 1)] == texts, task_id


def test_seed_choice_answers_match_the_final_answers(seed: Catalog) -> None:
    for task_id, label in CHOICE_ANSWERS.items():
        task = seed.tasks[task_id]
        assert task.answers == (label,)
        final = task.solution.final_answer or ""
        assert final == f"{task.answer_text()} -> Option {label}", task_id


def test_seed_difficulties(seed: Catalog) -> None:
    assert [t.difficulty.value for t in seed] == [
        "easy", "medium", "hard", "hard", "hard",
        "easy", "easy", "medium", "medium", "hard",
    ]  # fmt: skip


def test_fill_explanations_are_solutions_not_mistake_notes(seed: Catalog) -> None:
    for task in (t for t in seed if t.kind is Kind.FILL):
        notes = [n.text for n in task.mistakes]
        assert len(notes) == 1, task.id
        assert task.solution.explanation and task.solution.explanation not in notes
        # The explanation names the right answer; a mistake note never should alone.
        assert task.answer_text() in task.solution.explanation, task.id


def test_batch_note_is_tied_to_the_batch_option(seed: Catalog) -> None:
    task = seed.tasks["mlops-parallelism-fill-1"]
    assert task.option("A").text == "batch"
    assert task.notes_for("A") == ("Using batch instead of split causes incorrect data division.",)
    assert task.general_notes == ()


def test_other_fill_notes_are_tied_as_the_source_describes(seed: Catalog) -> None:
    def tied(task_id: str) -> set[str]:
        task = seed.tasks[task_id]
        return {task.option(label).text for note in task.mistakes for label in note.options}

    assert tied("mlops-parallelism-fill-2") == {"all"}
    assert tied("mlops-parallelism-fill-3") == {"model", "optimizer"}
    assert tied("mlops-parallelism-fill-4") == {"cpu"}
    assert tied("mlops-parallelism-fill-5") == set()


def test_choice_notes_tied_to_the_options_they_describe(seed: Catalog) -> None:
    q2, q4, q5 = (seed.tasks[f"mlops-parallelism-mc-{n}"] for n in (2, 4, 5))
    assert "Assuming data is duplicated on one worker" in q2.notes_for("A")
    assert q4.notes_for("B") == ("Blaming data splitting in model parallelism",)
    assert q4.notes_for("C") == ("Confusing full model runs with model splitting",)
    assert q4.notes_for("D") == ("Mixing up data and model parallelism issues",)
    assert q5.notes_for("A") == ("Trying data parallelism with too large model",)
    assert q5.notes_for("D") == ("Reducing batch size instead of splitting model",)
    assert all(len(t.mistakes) == 3 for t in seed if t.kind is Kind.CHOICE)


def test_choice_tasks_keep_the_sources_ok_markers(seed: Catalog) -> None:
    for task in (t for t in seed if t.kind is Kind.CHOICE):
        assert task.hints[0].endswith("[OK]"), task.id
        assert (task.solution.quick_check or "").endswith("[OK]"), task.id
        assert len(task.solution.steps) == 2
        # The bot numbers steps itself; a transcribed "Step 1:" would show twice.
        assert not any(s.title.startswith("Step") for s in task.solution.steps), task.id
    steps = seed.tasks["mlops-parallelism-mc-1"].solution.steps
    assert [s.title for s in steps] == [
        "Understand data parallelism",
        "Understand model parallelism",
    ]


def test_fill_templates_are_closed(seed: Catalog) -> None:
    for task_id in ("mlops-parallelism-fill-4", "mlops-parallelism-fill-5"):
        template = seed.tasks[task_id].solved_template()
        assert template.count("{") == template.count("}") == 1, template


def test_authored_hints_are_marked() -> None:
    text = SEED.read_text(encoding="utf-8")
    assert text.count("# hint authored: the source page shows no hint text") == 5


def test_fill_hints_do_not_give_the_answer_away(seed: Catalog) -> None:
    for task_id, texts in FILL_ANSWERS.items():
        (hint,) = seed.tasks[task_id].hints
        assert not any(text in hint for text in texts if text != "//"), task_id


def test_json_export_shape() -> None:
    out = StringIO()
    assert list_command(SEED, as_json=True, out=out) == 0
    records = json.loads(out.getvalue())
    assert len(records) == 10
    first = records[0]
    assert {
        "id",
        "bank",
        "topic",
        "kind",
        "difficulty",
        "prompt",
        "options",
        "answers",
        "hint",
    } <= first.keys()
    assert first["id"] == "mlops-parallelism-fill-1" and first["kind"] == "fill"
    assert first["prompt"] == "distributed_data = dataset.[1](num_devices)"
    assert first["options"][1] == {"label": "B", "text": "split"}
    assert first["answers"] == ["B"]
    assert first["bank"] == "Data parallelism vs model parallelism in MLOps"
    assert records[4]["answers"] == ["A", "C", "C"]
    assert records[5]["kind"] == "choice" and records[5]["answers"] == ["A"]
    assert records[5]["prompt"].startswith("What is the main difference")


def _rendered(task: Task) -> list[tuple[str, str, int]]:
    """Every string the bot renders for `task`, with its limit."""
    strings = [
        ("title", rendering.task_title(task), rendering.EMBED_TITLE),
        ("solution title", rendering.solution_title(task), rendering.EMBED_TITLE),
        ("description", rendering.task_description(task), rendering.EMBED_DESCRIPTION),
        *(
            ("hint", rendering.hint_text(task, n), rendering.EMBED_FIELD_VALUE)
            for n in range(1, len(task.hints) + 1)
        ),
        ("notes", rendering.notes_text(n.text for n in task.mistakes), rendering.EMBED_FIELD_VALUE),
        ("solution", rendering.solution_text(task), rendering.EMBED_DESCRIPTION),
    ]
    for option in task.options:
        strings.append(("button", rendering.option_button_label(option), rendering.BUTTON_LABEL))
        strings.append(
            ("select", rendering.option_select_label(option), rendering.SELECT_OPTION_LABEL)
        )
    if task.kind is Kind.FILL:
        picks = dict.fromkeys(range(1, task.blanks + 1), task.options[0].label)
        strings.append(("filled", rendering.filled_code(task, picks), rendering.EMBED_DESCRIPTION))
    return strings


def test_every_shipped_string_fits_discord(shipped: Catalog) -> None:
    for task in shipped:
        assert rendering.render_problems(task) == [], task.id
        for what, text, limit in _rendered(task):
            assert 0 < rendering.discord_len(text) <= limit, (task.id, what)
        title_and_body = rendering.task_title(task) + rendering.task_description(task)
        assert rendering.discord_len(title_and_body) <= rendering.EMBED_TOTAL
        limit = rendering.MAX_BUTTON_OPTIONS
        if task.kind is Kind.FILL and task.blanks > 1:
            limit = rendering.MAX_SELECT_OPTIONS
        assert len(task.options) <= limit, task.id
