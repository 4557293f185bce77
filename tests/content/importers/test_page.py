"""Practice pages: the seed page reproduces the shipped bank; pages written for these tests cover
the variations the format allows (sections in another order, 2 or 4 steps, notes naming two
options or none, guessed answers) and the lines it does not understand."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from bot.content import check_banks, load_banks
from bot.content.importers import page
from bot.content.importers.drafts import Draft, ImportResult, bank_yaml
from bot.quiz.tasks import Catalog, Kind, MistakeNote

DATA = Path(__file__).parent / "data"
SEED_PAGE = DATA / "page-seed-parallelism.txt"
"""The seed page (shared/seeds/000_375ab9f4420925d6.txt) as it was transcribed into the bank."""
CONTENT = Path(__file__).resolve().parents[3] / "content"
SHIPPED = CONTENT / "mlops" / "data-vs-model-parallelism.yaml"
REORDERED = DATA / "page-reordered.txt"
ODD = DATA / "page-odd.txt"

FILLS = [f"mlops-parallelism-fill-{n}" for n in range(1, 6)]
CHOICES = [f"mlops-parallelism-mc-{n}" for n in range(1, 6)]

# What the shipped bank holds that the page does not say, so an import cannot reproduce it:
AUTHORED_HINTS = FILLS
"""The page shows "💡 Hint" without text for every fill task; the bank's hints were written by a
person. The import gives those tasks no hint: it makes none up."""
MULTI_BLANK_ANSWERS = ["mlops-parallelism-fill-4", "mlops-parallelism-fill-5"]
"""Which option fills which blank is for a person to confirm; the import only guesses."""
CLOSED_CODE = ["mlops-parallelism-fill-4", "mlops-parallelism-fill-5"]
"""The bank added the `}` the page's code lacks; the import keeps the page's code as it is."""
CHOICE_NOTE_TIES = CHOICES
"""The page's notes on the choice questions name no option (their options are sentences); the
bank ties them by a person's reading of the options ("Confusing data parallelism with model
parallelism" -> A, D). The import ties a note only to options it names, so these stay general."""


def parse_file(path: Path, topic: str | None = None) -> ImportResult:
    return page.parse(path.read_text(encoding="utf-8"), source=path.name, topic=topic)


def line_of(path: Path, text: str, occurrence: int = 1) -> int:
    """The number of the `occurrence`-th line of `path` that starts with `text`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = [n for n, line in enumerate(lines, start=1) if line.strip().startswith(text)]
    return found[occurrence - 1]


def report(result: ImportResult) -> list[tuple[int | None, str]]:
    return [(r.line, r.message) for r in result.report]


def confirmed_and_checked(result: ImportResult, tmp_path: Path) -> Catalog:
    """The bank the import writes, after a person confirmed the guessed answers (deleted the
    `confirmed: false` lines): it must pass the content check like a hand-written bank."""
    text = bank_yaml(result)
    confirmed = "".join(
        line for line in text.splitlines(True) if line.strip() != "confirmed: false"
    )
    file = tmp_path / "imported.yaml"
    file.write_text(confirmed, encoding="utf-8")
    catalog, problems = check_banks(file)
    assert problems == [], "\n".join(map(str, problems))
    return catalog


def drafts_by_id(result: ImportResult) -> dict[str, Draft]:
    return {d.id: d for d in result.drafts}


# ---- the seed page reproduces the shipped bank ------------------------------------------------


@pytest.fixture(scope="module")
def seed() -> ImportResult:
    return parse_file(SEED_PAGE)


def test_seed_import_is_the_shipped_bank_but_for_the_listed_differences(
    seed: ImportResult, tmp_path: Path
) -> None:
    imported = confirmed_and_checked(seed, tmp_path)
    shipped = load_banks(SHIPPED)
    # Ids, kinds and order: the ids are derived from the page (topic + the title's key word,
    # numbered per kind), not from the bank.
    assert list(imported.tasks) == list(shipped.tasks) == FILLS + CHOICES
    for task in imported:
        expected = shipped.tasks[task.id]
        if task.id in AUTHORED_HINTS:
            expected = replace(expected, hints=())
        if task.id in MULTI_BLANK_ANSWERS:
            expected = replace(expected, answers=task.answers)
        if task.id in CLOSED_CODE:
            assert expected.prompt.endswith("}") and not task.prompt.endswith("}")
            expected = replace(expected, prompt=expected.prompt.removesuffix("}"))
        if task.id in CHOICE_NOTE_TIES:
            expected = replace(expected, mistakes=_general(expected.mistakes))
        # Everything else is equal: bank, topic, kind, difficulty, question or instruction and
        # code, options, answers, hint, steps, final answer, quick check, explanation, notes
        # and the options each fill note is tied to.
        assert task == expected, task.id


def _general(notes: tuple[MistakeNote, ...]) -> tuple[MistakeNote, ...]:
    return tuple(MistakeNote(n.text) for n in notes)


def test_seed_bank_head(seed: ImportResult) -> None:
    assert seed.bank == "Data parallelism vs model parallelism in MLOps"
    assert seed.topic == "MLOps"
    assert seed.source == "Data parallelism vs model parallelism in MLOps - Interactive Practice"


def test_seed_fill_notes_are_tied_to_the_wrong_options_they_name(seed: ImportResult) -> None:
    drafts = drafts_by_id(seed)

    def tied(task_id: str) -> list[tuple[str, ...]]:
        return [n.options for n in drafts[task_id].mistakes]

    # "Using batch instead of split": batch is named and wrong, split is named and right.
    assert tied("mlops-parallelism-fill-1") == [("A",)]
    assert tied("mlops-parallelism-fill-2") == [("B",)]  # 'all'
    assert tied("mlops-parallelism-fill-3") == [("B", "C")]  # model or optimizer
    assert tied("mlops-parallelism-fill-4") == [("D",)]  # 'cpu'
    assert tied("mlops-parallelism-fill-5") == [()]  # '/' is no option ('//' is)


def test_seed_one_blank_answers_are_adopted_multi_blank_ones_only_proposed(
    seed: ImportResult,
) -> None:
    drafts = drafts_by_id(seed)
    confirmed = {d.id for d in seed.drafts if d.confirmed}
    assert confirmed == set(FILLS[:3] + CHOICES)
    assert [drafts[i].answers for i in FILLS[:3]] == [["B"], ["D"], ["A"]]
    # The guesses follow the documented rule (code-like options named, in order named, the
    # last repeated): to_device, device_list / //, device_list, device_list.
    assert drafts["mlops-parallelism-fill-4"].answers == ["A", "C"]
    assert drafts["mlops-parallelism-fill-5"].answers == ["A", "C", "C"]


def test_seed_report_names_every_placeholder_guess_and_unbalanced_code(
    seed: ImportResult,
) -> None:
    explanation_4 = line_of(SEED_PAGE, "The method to_device moves")
    explanation_5 = line_of(SEED_PAGE, "Using integer division //")
    code_4 = line_of(SEED_PAGE, "model_parts = {")
    code_5 = line_of(SEED_PAGE, "batch_sizes = {")
    guessed = "a person must confirm which option fills which blank"
    unbalanced = "the code has '{' once more than '}'; kept as on the page"
    assert report(seed) == [
        (code_4, unbalanced),
        (explanation_4, f"guessed: answers ['A', 'C'] (several blanks); {guessed}"),
        (code_5, unbalanced),
        (explanation_5, f"guessed: answers ['A', 'C', 'C'] (several blanks); {guessed}"),
    ]


def test_seed_yaml_marks_guesses_and_placeholders_for_a_person(seed: ImportResult) -> None:
    text = bank_yaml(seed)
    tasks = {t["id"]: t for t in yaml.safe_load(text)["tasks"]}
    assert [i for i, t in tasks.items() if t.get("confirmed") is False] == MULTI_BLANK_ANSWERS
    assert "placeholder" not in text  # a page without a hint gives a task without one
    assert [i for i, t in tasks.items() if "hint" not in t] == AUTHORED_HINTS
    assert text.count("# confirmed: false: the importer guessed") == 2
    assert text.count("# The mistake notes name no option, so they are general") == 5


def test_seed_choice_tasks_keep_steps_and_ok_markers(seed: ImportResult) -> None:
    first = drafts_by_id(seed)["mlops-parallelism-mc-1"]
    assert [s.title for s in first.steps] == [
        "Understand data parallelism",
        "Understand model parallelism",
    ]
    assert first.final_answer is not None and first.final_answer.endswith("-> Option A")
    assert first.quick_check == "Data vs Model split [OK]"
    assert first.hints == ["Data parallelism splits data; model parallelism splits model [OK]"]


# ---- a page with its sections in another order -----------------------------------------------


@pytest.fixture(scope="module")
def reordered() -> ImportResult:
    return parse_file(REORDERED)


def test_reordered_page_imports_every_task_in_page_order(
    reordered: ImportResult, tmp_path: Path
) -> None:
    catalog = confirmed_and_checked(reordered, tmp_path)
    assert [(t.id, t.kind, t.difficulty.value) for t in catalog] == [
        ("pytorch-mixed-mc-1", Kind.CHOICE, "medium"),
        ("pytorch-mixed-mc-2", Kind.CHOICE, "easy"),
        ("pytorch-mixed-fill-1", Kind.FILL, "easy"),
        ("pytorch-mixed-fill-2", Kind.FILL, "medium"),
        ("pytorch-mixed-fill-3", Kind.FILL, "hard"),
    ]
    assert reordered.bank == "Mixed precision training in PyTorch"
    # The most used topic tag is the bank's; a task tagged otherwise keeps its own.
    assert reordered.topic == "PyTorch"
    assert {t.id: t.topic for t in catalog}["pytorch-mixed-fill-1"] == "CUDA"


def test_four_steps_and_a_quick_check_before_the_final_answer(reordered: ImportResult) -> None:
    task = drafts_by_id(reordered)["pytorch-mixed-mc-1"]
    assert [s.title for s in task.steps] == [
        "Recall the float16 range",
        "Look at the gradients",
        "See what scaling does",
        "Undo the scaling",
    ]
    # A paragraph broken over two lines keeps its line break, without the page's indent.
    assert task.steps[2].text == (
        "Multiplying the loss scales every gradient up by the same factor, out of the underflow"
        "\nrange."
    )
    assert task.quick_check == "Scale up, step, scale down [OK]"
    assert task.final_answer == (
        "To keep small float16 gradients from underflowing to zero. -> Option B"
    )
    assert task.answers == ["B"]


def test_mistakes_and_hint_before_the_options(reordered: ImportResult) -> None:
    task = drafts_by_id(reordered)["pytorch-mixed-mc-2"]
    assert task.options[2] == 'with torch.autocast(device_type="cuda"):'
    assert task.answers == ["C"]
    assert len(task.steps) == 2
    assert task.hints == ["It is a context manager that chooses the precision per operation [OK]"]
    # A choice note that names an option's whole text is tied to it.
    assert [(n.text, n.options) for n in task.mistakes] == [
        ("Using model.half() converts every weight, not just the forward pass", ("B",)),
        ("Confusing the scaler with autocast", ()),
    ]


def test_notes_name_two_options_one_or_none(reordered: ImportResult) -> None:
    drafts = drafts_by_id(reordered)
    assert [n.options for n in drafts["pytorch-mixed-mc-1"].mistakes] == [
        ("A", "C"),  # "Picking option A or C"
        (),  # names no option
        (),  # names only option B, the right answer: it would never be shown
    ]
    # "Using autocast or GradClipper instead of the scaler class": two wrong options named.
    assert drafts["pytorch-mixed-fill-1"].mistakes[0].options == ("A", "C")
    # "… before the backward pass": backward is (the guess for) a blank's answer.
    assert drafts["pytorch-mixed-fill-3"].mistakes[0].options == ()


def test_fill_sections_in_any_order(reordered: ImportResult) -> None:
    task = drafts_by_id(reordered)["pytorch-mixed-fill-1"]
    # Hint and Common Mistakes before the options: the explanation still closes the mistakes.
    assert task.hints == ["The class is named after what it does to the gradients."]
    assert task.explanation == (
        "GradScaler scales the loss so that small gradients survive in float16."
    )
    assert task.options == ["autocast", "GradScaler", "GradClipper", "half"]
    assert (task.answers, task.confirmed, task.comment) == (["B"], True, None)


def test_one_blank_whose_explanation_names_two_options_is_a_guess(
    reordered: ImportResult,
) -> None:
    task = drafts_by_id(reordered)["pytorch-mixed-fill-2"]
    # "Call step, which …; call unscale_ first only when you clip them."
    assert (task.answers, task.confirmed) == (["A"], False)
    line = line_of(REORDERED, "Call step, which unscales")
    assert (line, "guessed: answers ['A'] (several options named); a person must confirm "
            "which option fills which blank") in report(reordered)  # fmt: skip
    assert task.hints == []
    assert task.comment is not None and "placeholder" not in task.comment


def test_code_keeps_its_indentation_and_blank_lines(reordered: ImportResult) -> None:
    task = drafts_by_id(reordered)["pytorch-mixed-fill-3"]
    assert task.code == (
        "for inputs, targets in loader:\n"
        '    with torch.autocast(device_type="cuda"):\n'
        "        loss = criterion(model(inputs), targets)\n"
        "\n"
        "    scaler.[1](loss).[2]()\n"
    )
    assert task.hints == ["scale first, then the usual call that computes gradients."]
    assert [s.title for s in task.steps] == ["Scale the loss", "Backpropagate"]
    assert task.explanation == (
        "scale multiplies the loss, then backward computes the scaled gradients."
    )
    assert (task.answers, task.confirmed) == (["A", "B"], False)


def test_reordered_page_reports_only_guesses(reordered: ImportResult) -> None:
    assert [line for line, _ in report(reordered)] == [
        line_of(REORDERED, "Call step, which unscales"),
        line_of(REORDERED, "scale multiplies the loss"),
    ]


# ---- what the importer does not understand ---------------------------------------------------


def test_odd_page_reports_every_problem_with_its_line(tmp_path: Path) -> None:
    result = parse_file(ODD)
    assert report(result) == [
        (3, "not understood, skipped: 'Sign in to save your progress'"),
        (line_of(ODD, "numbers.[1]("), "the code has '(' once more than ')'; kept as on the page"),
        (line_of(ODD, "Xreverse"), "not understood, skipped: 'Xreverse'"),
        (
            line_of(ODD, "2fill in blank"),
            "left out: the fill task has an explanation that names no option, so its answer "
            "is unknown",
        ),
        (line_of(ODD, "1. Which call returns"), "no difficulty (easy, medium or hard): medium"),
        (line_of(ODD, "2. Step 2"), "a step without a title or text: left out of the solution"),
        (
            line_of(ODD, "3. Final Answer"),
            "the final answer's words are not option B's text; check it",
        ),
        (line_of(ODD, "This line is not"), "not understood, skipped: 'This line is not a bullet'"),
        (
            line_of(ODD, "2. Which is faster"),
            "left out: no '-> Option X' gives the question's answer",
        ),
    ]
    catalog = confirmed_and_checked(result, tmp_path)
    assert list(catalog.tasks) == ["python-sorting-fill-1", "python-sorting-mc-1"]
    fill, choice = catalog
    assert fill.prompt == "numbers.[1](" and fill.answers == ("A",)
    assert [o.text for o in fill.options] == ["sort", "sorted"]  # 'Xreverse' is no option
    assert fill.notes_for("B") == ("Using sorted returns a new list and leaves numbers unchanged.",)
    assert choice.difficulty.value == "medium" and choice.answers == ("B",)
    assert [s.title for s in choice.solution.steps] == ["Compare the two"]
    assert choice.notes_for("A") == ("Picking list.sort() because it sorts",)


def test_a_page_without_topic_tags_takes_the_title_and_says_so() -> None:
    text = "\n".join(
        [
            "Some quiz - Interactive Practice",
            "1. Pick one?",
            "easy",
            "A. yes",
            "B. no",
            "Solution",
            "1. Final Answer:",
            "   yes -> Option A",
            "Hint: the first.",
        ]
    )
    result = page.parse(text, source="x.txt")
    assert result.topic == "Some quiz"
    assert report(result) == [
        (None, "the page names no topic: using the title 'Some quiz'; pass --topic")
    ]
    assert [d.id for d in result.drafts] == ["some-quiz-mc-1"]
    assert page.parse(text, source="x.txt", topic="Basics").report == []


def test_topic_argument_overrides_the_tags_and_the_id_prefix(seed: ImportResult) -> None:
    result = parse_file(REORDERED, topic="Deep learning")
    assert result.topic == "Deep learning"
    assert {d.topic for d in result.drafts} == {None}
    assert result.drafts[0].id == "deep-learning-mixed-mc-1"


def test_empty_and_unrelated_text_import_nothing() -> None:
    assert page.parse("", source="x.txt").drafts == []
    result = page.parse("Just a title\n\nsome prose\n", source="x.txt")
    assert result.drafts == []
    assert report(result) == [
        (None, "the page names no topic: using the title 'Just a title'; pass --topic"),
        (None, "no tasks found: no 'Nfill in blank' or numbered question lines"),
        (3, "not understood, skipped: 'some prose'"),
    ]


MARKER_VARIANTS = """\
Variants - Interactive Practice

1fill in blank

easy

Complete the code to print a greeting.

Python

[1]("hello")

Drag options to blanks, or click blank then click option'

A. print

B. input

Attempts: 3 left

Please log in to keep your attempts

Hint: It writes to the screen.

Common Mistakes

• Using input waits for the keyboard instead.

print writes its argument to the screen.

1. Which keyword defines a function?

hard

A. def

B. fun

Solution

Step 1: Recall the syntax

   Functions start with def.

Final Answer: def -> Option A

Explanation: Python has no fun keyword.
"""


def test_marker_variants_bullets_in_fill_notes_and_an_explanation_section() -> None:
    result = page.parse(MARKER_VARIANTS, source="variants.txt")
    fill, choice = result.drafts
    # "A. print" is read as the option "print"; bullets are notes, the paragraph after them
    # the explanation; an inline "Hint:" is the hint.
    assert fill.options == ["print", "input"]
    assert [(n.text, n.options) for n in fill.mistakes] == [
        ("Using input waits for the keyboard instead.", ("B",))
    ]
    assert (fill.explanation, fill.answers, fill.confirmed) == (
        "print writes its argument to the screen.",
        ["A"],
        True,
    )
    assert fill.hints == ["It writes to the screen."]
    # Unnumbered solution items with their text on the same line; an Explanation section.
    assert [(s.title, s.text) for s in choice.steps] == [
        ("Recall the syntax", "Functions start with def.")
    ]
    assert choice.final_answer == "def -> Option A" and choice.answers == ["A"]
    assert choice.explanation == "Python has no fun keyword."
    lines = MARKER_VARIANTS.splitlines()
    assert report(result) == [
        (
            lines.index("Please log in to keep your attempts") + 1,
            "not understood, skipped: 'Please log in to keep your attempts'",
        ),
    ]
    assert choice.hints == []  # the page shows none: none is made up


# ---- detection --------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [SEED_PAGE, REORDERED, ODD], ids=lambda p: p.name)
def test_looks_like_our_pages(path: Path) -> None:
    assert page.looks_like(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "text",
    [
        "::Q1:: What is 2+2? {=4 ~3 ~5}\n",  # GIFT
        "What is 2+2?\nA. 3\nB. 4\nANSWER: B\n",  # Aiken
        '<?xml version="1.0"?>\n<quiz><question type="multichoice"/></quiz>\n',  # Moodle XML
        "Notes\n\n1. First point\n2. Second point\n",
    ],
    ids=["gift", "aiken", "moodle-xml", "prose"],
)
def test_looks_like_rejects_other_formats(text: str) -> None:
    assert not page.looks_like(text)


def test_every_task_type_survives_the_yaml(reordered: ImportResult) -> None:
    """The drafts and the bank the loader reads from their YAML say the same."""
    tasks = yaml.safe_load(bank_yaml(reordered))["tasks"]
    for draft, task in zip(reordered.drafts, tasks, strict=True):
        assert task["id"] == draft.id
        assert task["options"] == draft.options
        assert task.get("answers", [task.get("answer")]) == draft.answers


def test_a_question_over_two_lines_is_its_own_task_not_read_into_the_one_before(
    seed: ImportResult,
) -> None:
    # Its lines were "not understood", and its solution, hint and notes were read into the
    # question before it ("a second 'solution' section … read as one"): two questions garbled.
    lines = SEED_PAGE.read_text(encoding="utf-8").split("\n")
    at = next(n for n, line in enumerate(lines) if line.startswith("2. Which of the following"))
    lines.insert(at + 1, "Pick the one that fits best.")

    result = page.parse("\n".join(lines), source=SEED_PAGE.name)

    assert [d.id for d in result.drafts] == [d.id for d in seed.drafts]
    question = result.drafts[6].question or ""
    assert question.startswith("Which of the following") and question.endswith("fits best.")
    assert [d.steps for d in result.drafts] == [d.steps for d in seed.drafts]
    assert [m for _, m in report(result)] == [m for _, m in report(seed)]
