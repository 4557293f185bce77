"""The loader: one broken bank per rule, each problem located by file, line, task and field."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from bot.content import ContentError, Problem, check_banks, find_bank_files, load_banks
from bot.quiz.tasks import Difficulty, Kind, MistakeNote, Option

GOOD_BANK = """\
bank: Test bank
topic: Testing
source: written for the tests
tasks:
  - id: t-choice
    kind: choice
    difficulty: easy
    question: Which colour is grass?
    options:
      - red
      - green
      - blue
    answer: B
    hint: Not red.
    solution:
      steps:
        - title: Look outside
          text: Grass is green.
      final_answer: green -> Option B
      quick_check: green [OK]
    mistakes:
      - note: Red is the colour of roses.
        options: [A]
      - Colours are hard.
  - id: t-fill
    kind: fill
    difficulty: hard
    topic: Python
    instruction: Complete the code to parse a number.
    code: |
      value = [1](text.[2]())
    options:
      - int
      - str
      - strip
    answers: [A, C]
    hint: Convert, after cleaning.
    solution:
      explanation: int converts the text once strip has removed the spaces.
    mistakes:
      - note: str does not convert anything.
        options: [B]
"""


def write(directory: Path, text: str, name: str = "bank.yaml") -> Path:
    file = directory / name
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(textwrap.dedent(text), encoding="utf-8")
    return file


def line_of(file: Path, needle: str, occurrence: int = 1) -> int:
    """The 1-based line of the n-th line containing `needle`: the expected problem line."""
    hits = [n for n, line in enumerate(file.read_text().splitlines(), 1) if needle in line]
    return hits[occurrence - 1]


def broken(tmp_path: Path, old: str, new: str, count: int = 1) -> tuple[Path, list[Problem]]:
    assert GOOD_BANK.count(old) >= count, old
    file = write(tmp_path, GOOD_BANK.replace(old, new, count))
    _, problems = check_banks(file)
    return file, problems


def only(problems: list[Problem]) -> Problem:
    assert len(problems) == 1, "\n".join(map(str, problems))
    return problems[0]


def assert_problem(
    problem: Problem, file: Path, line: int, task: str | None, field: str | None, text: str
) -> None:
    assert (problem.file, problem.line, problem.task, problem.field) == (file, line, task, field)
    assert text in problem.message
    rendered = str(problem)
    assert rendered.startswith(f"{file}:{line}: ")
    if task:
        assert f"task {task}" in rendered
    if field:
        assert f"field {field}" in rendered


# -- a clean bank ---------------------------------------------------------------------------------


def test_good_bank_loads_into_tasks(tmp_path: Path) -> None:
    catalog = load_banks(write(tmp_path, GOOD_BANK))

    choice, fill = catalog.get("t-choice"), catalog.get("t-fill")
    assert choice is not None and fill is not None
    assert choice.kind is Kind.CHOICE and choice.difficulty is Difficulty.EASY
    assert choice.topic == "Testing" and choice.bank == "Test bank"
    assert choice.options == (Option("A", "red"), Option("B", "green"), Option("C", "blue"))
    assert choice.answers == ("B",)
    assert choice.mistakes == (
        MistakeNote("Red is the colour of roses.", ("A",)),
        MistakeNote("Colours are hard."),
    )
    assert choice.solution.steps[0].title == "Look outside"
    assert fill.kind is Kind.FILL and fill.topic == "Python"
    assert fill.prompt == "value = [1](text.[2]())"
    assert fill.instruction == "Complete the code to parse a number."
    assert fill.answers == ("A", "C") and fill.language == "python"
    assert fill.solved_template() == "value = int(text.strip())"


def test_directory_is_searched_recursively_in_sorted_order(tmp_path: Path) -> None:
    write(tmp_path, GOOD_BANK.replace("t-", "b-"), "zeta/b.yml")
    write(tmp_path, GOOD_BANK.replace("t-", "a-"), "alpha/a.yaml")
    write(tmp_path, "not a bank", "alpha/notes.txt")

    assert find_bank_files(tmp_path) == [tmp_path / "alpha/a.yaml", tmp_path / "zeta/b.yml"]
    assert [t.id for t in load_banks(tmp_path)] == ["a-choice", "a-fill", "b-choice", "b-fill"]


def test_load_banks_raises_with_every_problem(tmp_path: Path) -> None:
    file = write(tmp_path, GOOD_BANK.replace("difficulty: easy", "difficulty: trivial"))

    with pytest.raises(ContentError) as caught:
        load_banks(file)

    assert [p.field for p in caught.value.problems] == ["difficulty"]
    assert "difficulty 'trivial'" in str(caught.value)


def test_problem_reads_as_file_line_task_field_message() -> None:
    problem = Problem(Path("content/mlops/x.yaml"), 42, "mlops-fill-2", "answers", "bad")
    assert str(problem) == "content/mlops/x.yaml:42: task mlops-fill-2, field answers: bad"
    assert str(Problem(Path("x.yaml"), 3, None, None, "oops")) == "x.yaml:3: oops"


# -- files and YAML -------------------------------------------------------------------------------


def test_yaml_that_does_not_parse(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "question: Which colour is grass?", "question: [unclosed")
    problem = only(problems)
    assert problem.file == file and problem.task is None
    assert problem.line == line_of(file, "options:")  # the parser notices on the next line
    assert "YAML does not parse" in problem.message


def test_a_bank_saved_as_latin_1_names_the_line_and_column(tmp_path: Path) -> None:
    file = tmp_path / "bank.yaml"
    file.write_bytes(
        "bank: Couleurs\ntopic: Art\ntasks:\n  - id: x\n    question: Chère?\n".encode("latin-1")
    )

    _, problems = check_banks(file)

    assert str(only(problems)) == (
        f"{file}:5: not UTF-8 text: byte 0xE8 at column 17 (invalid continuation byte); "
        "save the file as UTF-8"
    )


def test_bad_indentation_reports_the_parser_line(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "    hint: Not red.", "   hint: Not red.")
    assert only(problems).line == line_of(file, "hint: Not red.")


def test_empty_file(tmp_path: Path) -> None:
    file = write(tmp_path, "# nothing yet\n")
    problem = only(check_banks(file)[1])
    assert problem.file == file and "empty" in problem.message


def test_missing_path_and_folder_without_banks(tmp_path: Path) -> None:
    assert "no such file" in only(check_banks(tmp_path / "nope")[1]).message
    assert "no *.yaml" in only(check_banks(tmp_path)[1]).message


# -- keys -----------------------------------------------------------------------------------------


def test_unknown_bank_key(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "source:", "sauce:")
    assert_problem(only(problems), file, 3, None, "sauce", "unknown key 'sauce'")
    assert "did you mean 'source'" in problems[0].message


def test_unknown_task_key(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "    hint: Not red.", "    hint: Not red.\n    tip: x")
    assert_problem(only(problems), file, line_of(file, "tip: x"), "t-choice", "tip", "unknown")


def test_key_of_the_other_kind_is_unknown(tmp_path: Path) -> None:
    _, problems = broken(tmp_path, "    answer: B", "    answers: [B]")
    messages = [p.message for p in problems]
    assert any("unknown key 'answers' (did you mean 'answer'?)" in m for m in messages)
    assert any("missing required key 'answer'" in m for m in messages)


def test_unknown_nested_keys(tmp_path: Path) -> None:
    text = GOOD_BANK.replace("      quick_check: green", "      quickcheck: green").replace(
        "        options: [B]", "        option: [B]"
    )
    file = write(tmp_path, text)
    problems = check_banks(file)[1]
    solution, missing, mistake = problems  # in line order: the mapping starts a line earlier
    assert_problem(
        solution,
        file,
        line_of(file, "quickcheck"),
        "t-choice",
        "solution.quickcheck",
        "did you mean 'quick_check'",
    )
    assert_problem(
        mistake,
        file,
        line_of(file, "option: [B]"),
        "t-fill",
        "mistakes[0].option",
        "unknown key 'option'",
    )
    assert_problem(
        missing,
        file,
        line_of(file, "- note: str does not"),
        "t-fill",
        "mistakes[0].options",
        "missing required key 'options'",
    )


def test_key_given_twice(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "    hint: Not red.", "    hint: Not red.\n    hint: Red!")
    problem = only(problems)
    assert_problem(problem, file, line_of(file, "hint: Red!"), "t-choice", "hint", "twice")
    assert f"first on line {line_of(file, 'hint: Not red.')}" in problem.message


def test_missing_required_field(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "    question: Which colour is grass?\n", "")
    assert_problem(
        only(problems),
        file,
        line_of(file, "id: t-choice"),
        "t-choice",
        "question",
        "missing required key 'question'",
    )


def test_missing_id_names_the_task_by_position(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "  - id: t-fill\n    kind: fill", "  - kind: fill")
    assert_problem(
        only(problems),
        file,
        line_of(file, "kind: fill"),
        None,
        "tasks[1].id",
        "missing required key 'id'",
    )


def test_bad_id(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "id: t-fill", "id: T Fill")
    assert_problem(only(problems), file, line_of(file, "T Fill"), None, "tasks[1].id", "lowercase")


# -- types and values -----------------------------------------------------------------------------


def test_number_where_text_belongs(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "question: Which colour is grass?", "question: 42")
    assert_problem(
        only(problems),
        file,
        line_of(file, "question: 42"),
        "t-choice",
        "question",
        "expected text, got a number (42) (put it in quotes)",
    )


def test_yaml_boolean_option_is_caught(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "      - blue", "      - yes")
    assert_problem(
        only(problems),
        file,
        line_of(file, "- yes"),
        "t-choice",
        "options[2]",
        "got true/false ('yes')",
    )


def test_empty_string(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "hint: Convert, after cleaning.", 'hint: "  "')
    assert_problem(
        only(problems), file, line_of(file, 'hint: "  "'), "t-fill", "hint", "must not be empty"
    )


def test_key_without_a_value(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "hint: Convert, after cleaning.", "hint:")
    assert_problem(
        only(problems), file, line_of(file, "hint:", 2), "t-fill", "hint", "must not be empty"
    )


def test_list_expected(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "answers: [A, C]", "answers: A")
    assert_problem(
        only(problems),
        file,
        line_of(file, "answers: A"),
        "t-fill",
        "answers",
        "expected a list, got text",
    )


def test_difficulty_not_in_the_list(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "difficulty: hard", "difficulty: brutal")
    assert_problem(
        only(problems),
        file,
        line_of(file, "brutal"),
        "t-fill",
        "difficulty",
        "difficulty 'brutal' is not one of easy, medium, hard",
    )


def test_unknown_kind(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "kind: choice", "kind: essay")
    assert_problem(
        only(problems),
        file,
        line_of(file, "essay"),
        "t-choice",
        "kind",
        "kind 'essay' is not one of choice, fill",
    )


def test_repeated_option(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "      - blue", "      - red")
    assert_problem(
        only(problems),
        file,
        line_of(file, "- red", 2),
        "t-choice",
        "options[2]",
        "option C repeats option A",
    )


def test_too_few_options(tmp_path: Path) -> None:
    _, problems = broken(tmp_path, "      - green\n      - blue\n", "")
    problem = problems[0]
    assert (problem.task, problem.field) == ("t-choice", "options")
    assert "at least 2 options" in problem.message


def test_step_title_with_its_own_number(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "title: Look outside", "title: 'Step 1: Look outside'")
    assert_problem(
        only(problems),
        file,
        line_of(file, "Step 1"),
        "t-choice",
        "solution.steps[0].title",
        "drop the 'Step 1:' prefix",
    )


def test_empty_solution(tmp_path: Path) -> None:
    explanation = "      explanation: int converts the text once strip has removed the spaces."
    file, problems = broken(tmp_path, f"    solution:\n{explanation}", "    solution: {}")
    assert_problem(
        only(problems),
        file,
        line_of(file, "solution: {}"),
        "t-fill",
        "solution",
        "the solution is empty",
    )


# -- answers, blanks and notes --------------------------------------------------------------------


def test_choice_answer_not_among_the_options(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "answer: B", "answer: E")
    assert_problem(
        only(problems),
        file,
        line_of(file, "answer: E"),
        "t-choice",
        "answer",
        "answer 'E' is not among the options A–C",
    )


def test_fill_answer_not_among_the_options(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "answers: [A, C]", "answers: [A, E]")
    assert_problem(
        only(problems),
        file,
        line_of(file, "answers: [A, E]"),
        "t-fill",
        "answers[1]",
        "answer 'E' is not among the options A–C",
    )


def test_blank_numbers_with_a_gap(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "text.[2]()", "text.[3]()")
    assert_problem(
        only(problems), file, line_of(file, "code: |"), "t-fill", "code", "blank [2] is missing"
    )


def test_blank_repeated(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "text.[2]()", "text.[1]()")
    code, answers = problems
    assert_problem(
        code, file, line_of(file, "code: |"), "t-fill", "code", "blank [1] appears 2 times"
    )
    assert_problem(
        answers,
        file,
        line_of(file, "answers: [A, C]"),
        "t-fill",
        "answers",
        "the code has 1 blank ([1]) but 2 answers are given",
    )


def test_more_answers_than_blanks(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "answers: [A, C]", "answers: [A, C, B]")
    assert_problem(
        only(problems),
        file,
        line_of(file, "answers: [A, C, B]"),
        "t-fill",
        "answers",
        "the code has 2 blanks ([1], [2]) but 3 answers are given",
    )


def test_code_without_blanks(tmp_path: Path) -> None:
    _, problems = broken(tmp_path, "value = [1](text.[2]())", "value = int(text)")
    assert "no blanks" in problems[0].message and problems[0].field == "code"


def test_more_than_five_blanks(tmp_path: Path) -> None:
    code = "value = [1](text.[2]())\n      [3] [4] [5] [6]"
    text = GOOD_BANK.replace("value = [1](text.[2]())", code).replace(
        "answers: [A, C]", "answers: [A, C, A, A, A, A]"
    )
    file = write(tmp_path, text)
    assert_problem(
        only(check_banks(file)[1]),
        file,
        line_of(file, "code: |"),
        "t-fill",
        "code",
        "the code has 6 blanks; at most 5 are allowed",
    )


def test_note_tied_to_a_missing_option(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "options: [B]", "options: [B, E]")
    assert_problem(
        only(problems),
        file,
        line_of(file, "options: [B, E]"),
        "t-fill",
        "mistakes[0].options[1]",
        "tied option 'E' is not among the options A–C",
    )


def test_note_tied_to_the_correct_answer(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "options: [A]", "options: [B]")
    assert_problem(
        only(problems),
        file,
        line_of(file, "options: [B]"),
        "t-choice",
        "mistakes[0].options",
        "correct answer, so it would never be shown",
    )


def test_note_tied_to_an_answer_of_one_blank_only_is_fine(tmp_path: Path) -> None:
    # In a fill task an option right for one blank can be the mistake in another.
    _, problems = broken(tmp_path, "options: [B]", "options: [A]")
    assert problems == []


# -- across files and rendering -------------------------------------------------------------------


def test_duplicate_id_across_files_names_both_places(tmp_path: Path) -> None:
    first = write(tmp_path, GOOD_BANK, "a/first.yaml")
    second = write(tmp_path, GOOD_BANK.replace("t-choice", "other"), "b/second.yaml")

    catalog, problems = check_banks(tmp_path)

    assert_problem(
        only(problems),
        second,
        line_of(second, "id: t-fill"),
        "t-fill",
        "id",
        f"already used by the task at {first}:{line_of(first, 'id: t-fill')}",
    )
    assert [t.id for t in catalog] == ["t-choice", "t-fill", "other"]


def test_text_too_long_as_rendered(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "hint: Not red.", "hint: " + "x" * 1100)
    assert_problem(
        only(problems),
        file,
        line_of(file, "hint: xxx"),
        "t-choice",
        "hint",
        "1,100 characters as rendered; Discord allows 1,024",
    )


def test_question_too_long_for_the_embed(tmp_path: Path) -> None:
    file, problems = broken(tmp_path, "question: Which colour is grass?", "question: " + "y" * 4100)
    assert_problem(
        only(problems),
        file,
        line_of(file, "question: yyy"),
        "t-choice",
        "question",
        "Discord allows 4,096",
    )


def test_more_options_than_buttons(tmp_path: Path) -> None:
    extra = "".join(f"      - colour {n}\n" for n in range(18))
    file, problems = broken(tmp_path, "      - blue\n", "      - blue\n" + extra)
    assert_problem(
        only(problems),
        file,
        line_of(file, "    options:"),
        "t-choice",
        "options",
        "21 options, but the bot shows one button per option: at most 20",
    )


def test_multi_blank_fill_allows_a_select_menu_of_options(tmp_path: Path) -> None:
    extra = "".join(f"      - name{n}\n" for n in range(18))
    _, problems = broken(tmp_path, "      - strip\n", "      - strip\n" + extra)
    assert problems == []

    extra = "".join(f"      - name{n}\n" for n in range(23))
    file, problems = broken(tmp_path, "      - strip\n", "      - strip\n" + extra)
    assert_problem(
        only(problems),
        file,
        line_of(file, "- int") - 1,
        "t-fill",
        "options",
        "26 options, but the bot shows a select menu per blank: at most 25",
    )


def test_inherited_topic_too_long_points_at_the_bank_topic(tmp_path: Path) -> None:
    _, problems = broken(tmp_path, "topic: Testing", "topic: " + "T" * 300)
    assert {(p.task, p.field, p.line) for p in problems} == {(None, "topic", 2)}


# -- all at once ----------------------------------------------------------------------------------


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    text = (
        GOOD_BANK.replace("answer: B", "answer: Z")
        .replace("difficulty: hard", "difficulty: extreme")
        .replace("text.[2]()", "text.[3]()")
        .replace("source:", "sorce:")
    )
    first = write(tmp_path, text, "one.yaml")
    second = write(tmp_path, "bank: [broken\n", "two.yaml")

    catalog, problems = check_banks(tmp_path)

    found = {(p.file, p.task, p.field) for p in problems}
    assert found == {
        (first, None, "sorce"),
        (first, "t-choice", "answer"),
        (first, "t-fill", "difficulty"),
        (first, "t-fill", "code"),
        (second, None, None),
    }
    assert [p.line for p in problems if p.file == first] == sorted(
        p.line or 0 for p in problems if p.file == first
    )
    assert len(catalog) == 0
