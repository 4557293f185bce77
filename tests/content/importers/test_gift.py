"""GIFT import and export, on GIFT files written for these tests (tests/content/importers/data)
and on tasks built in code; every imported bank goes through the ordinary content check."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bot.content.importers import gift
from bot.content.importers.drafts import (
    Draft,
    ImportResult,
    Note,
    Step,
    bank_yaml,
    category_topic,
)
from bot.content.loader import check_banks
from bot.quiz.tasks import Catalog, Difficulty, Kind, Solution, SolutionStep, Task
from tests.factories import choice, fill, note

DATA = Path(__file__).parent / "data"
SHIPPED = Path(__file__).resolve().parents[3] / "content"


def parse_file(name: str, topic: str | None = None) -> ImportResult:
    return gift.parse((DATA / name).read_text(encoding="utf-8"), source=name, topic=topic)


def by_id(result: ImportResult) -> dict[str, Draft]:
    return {d.id: d for d in result.drafts}


def checked(result: ImportResult, tmp_path: Path) -> Catalog:
    """The result written as a bank and loaded by the content check, which must pass."""
    path = tmp_path / "imported.yaml"
    path.write_text(bank_yaml(result), encoding="utf-8")
    catalog, problems = check_banks(path)
    assert [p.render() for p in problems] == []
    return catalog


# ---------------------------------------------------------------------------------------------
# Question kinds
# ---------------------------------------------------------------------------------------------


def test_multiple_choice_feedback_becomes_tied_notes_and_the_solution() -> None:
    draft = by_id(parse_file("kinds.gift"))["list-length"]
    assert draft.kind == "choice"
    assert draft.question == "What does len([1, 2, 3]) return?"
    assert draft.options == ["2", "3", "4", "1"]
    assert draft.answers == ["B"]
    # The same feedback on two wrong options is one note tied to both.
    assert draft.mistakes == [
        Note("It counts every element, not the last index.", ("A", "D")),
        Note("There is no hidden terminator.", ("C",)),
    ]
    # The right answer's feedback, then the general feedback.
    assert draft.explanation == "Right: three elements.\n\nlen counts the elements of a sequence."
    assert draft.difficulty == "medium"
    assert draft.hints == []  # GIFT has no hints: none is made up
    assert draft.comment is None


def test_true_false_is_a_two_option_task_with_the_wrong_answers_feedback_tied() -> None:
    drafts = by_id(parse_file("kinds.gift"))
    short_true, word_true = drafts["booleans"], drafts["truthy"]
    for draft in (short_true, word_true):
        assert (draft.options, draft.answers, draft.mistakes) == (["True", "False"], ["A"], [])
        assert draft.final_answer == "True"  # no feedback: what the bot would show anyway

    identity = drafts["identity"]  # {FALSE#wrong fb#right fb}
    assert identity.question == '"a is b" compares values.'
    assert (identity.options, identity.answers) == (["True", "False"], ["B"])
    assert identity.mistakes == [Note('No: "is" compares identity.', ("A",))]
    assert identity.explanation == 'Right: "==" compares values.'

    falsy = drafts["falsy"]  # {F####general}
    assert (falsy.answers, falsy.mistakes) == (["B"], [])
    assert falsy.explanation == "0 is the only falsy int."


def test_missing_word_is_a_fill_task_with_one_blank() -> None:
    drafts = parse_file("kinds.gift").drafts
    draft = next(d for d in drafts if d.kind == "fill")
    assert draft.code == "Python's [1] function counts the items of a list."
    assert draft.instruction == gift.FILL_INSTRUCTION  # nothing came before the blank's line
    assert (draft.options, draft.answers) == (["print", "len", "type"], ["B"])
    assert draft.final_answer == "[1] = len"
    assert gift.NEUTRAL_INSTRUCTION_COMMENT in (draft.comment or "")


def test_every_other_kind_is_left_out_with_a_report_line_naming_its_line() -> None:
    result = parse_file("kinds.gift")
    assert [line.render("kinds.gift") for line in result.report] == [
        # Lines 31 and 33, short answer and numerical, are typed tasks, and line 35 a
        # matching task (issue 28).
        "kinds.gift:37: left out: essay questions are not supported (yet)",
        "kinds.gift:39: left out: description questions are not supported (yet)",
        # Line 41, `{~%50%list ~%50%dict ~%-100%tuple}`, is a multi task (issue 28).
        "kinds.gift:43: left out: single-answer (several '=') questions are not supported (yet)",
        "kinds.gift:45: left out: the question has no right answer ('=')",
        "kinds.gift:47: left out: the question has an answer block '{' that is never closed",
        "kinds.gift:49: left out: the question has more than one answer block '{…}' (a blank "
        "line ends a question)",
    ]
    assert len(result.drafts) == 11  # nothing else dropped: 11 imported + 6 reported


BRACE_IN_ANSWER = "a '{' inside its answer block; write \\{ for a brace in an answer"
STRAY_CLOSE = "a '}' that closes no answer block; write \\} for a brace in the text"


@pytest.mark.parametrize(
    ("text", "line"),
    [
        # Was a fill task with the options "a {" and "b" and the code "Nested [1] ~c}".
        ("::n:: Nested {=a {~b} ~c}", f"q.gift:1: left out: the question has {BRACE_IN_ANSWER}"),
        # Was "description questions are not supported".
        ("A stray } in a question", f"q.gift:1: left out: the question has {STRAY_CLOSE}"),
        ("::s:: Pick {=a ~b}}", f"q.gift:1: left out: the question has {STRAY_CLOSE}"),
        ("Pick {=a ~b} then } more", f"q.gift:1: left out: the question has {STRAY_CLOSE}"),
        ("Before } {=a ~b}", f"q.gift:1: left out: the question has {STRAY_CLOSE}"),
        # The line at fault, in a question over several lines.
        (
            "// comment\n::m:: Pick {\n=a\n~b {\n~c\n}",
            "q.gift:4: left out: the question at line 2 has a '{' inside its answer block (the "
            "block opens at line 2); write \\{ for a brace in an answer",
        ),
        (
            "::m:: Pick\nline two {=a\n~b}\nthen }",
            f"q.gift:4: left out: the question at line 1 has {STRAY_CLOSE}",
        ),
        (
            # Two questions with no blank line between them: the second one's line is named.
            "::a:: One {=a ~b}\n::b:: Two {=c ~d}",
            "q.gift:2: left out: the question at line 1 has more than one answer block '{…}' (a "
            "blank line ends a question)",
        ),
        (
            "::m:: Pick\nline two {=a\n~b",
            "q.gift:2: left out: the question at line 1 has an answer block '{' that is never "
            "closed",
        ),
    ],
)
def test_an_unescaped_brace_is_reported_naming_its_line_never_read_into_a_task(
    text: str, line: str
) -> None:
    result = gift.parse(text, source="q.gift")

    assert result.drafts == []
    assert [r.render("q.gift") for r in result.report] == [line]


def test_escaped_braces_around_and_inside_the_answer_block_are_text() -> None:
    result = gift.parse("::e:: Set \\{1\\} {=\\{a\\} ~b\\}} ok \\}", source="q.gift")

    assert result.report[:-1] == []  # the last line: no $CATEGORY
    assert [(d.kind, d.code, d.options) for d in result.drafts] == [
        ("fill", "Set {1} [1] ok }", ["{a}", "b}"])
    ]


def test_category_sets_the_topic_of_the_questions_after_it() -> None:
    result = parse_file("kinds.gift")
    assert result.topic == "Python basics"  # the first category is the bank's topic
    topics = {d.id: d.topic for d in result.drafts}
    assert topics["list-length"] is None  # the bank's
    assert topics["list-length-2"] == "Data science"


def test_a_topic_given_to_the_import_wins_over_the_categories(tmp_path: Path) -> None:
    result = parse_file("kinds.gift", topic="Python")
    assert result.topic == "Python"
    assert all(d.topic is None for d in result.drafts)
    assert {t.topic for t in checked(result, tmp_path)} == {"Python"}


def test_category_paths() -> None:
    assert category_topic("$course$/top/Default for X/Loops") == "Loops"
    assert category_topic("$course$/Top/Sub") == "Sub"
    assert category_topic("$course$/top/CI//CD") == "CI/CD"  # '//' is a '/' in a name
    assert category_topic("Just a name") == "Just a name"
    assert category_topic("$course$") is None
    assert category_topic("$course$/top") is None
    assert category_topic("$course$/top/$money") == "$money"  # as Moodle XML reads it


def test_without_a_category_the_topic_is_the_files_name_and_the_report_says_so() -> None:
    result = parse_file("code.gift")
    assert (result.bank, result.topic) == ("code", "code")
    assert [line.render("code.gift") for line in result.report] == [
        "code.gift: no $CATEGORY: line, so every task's topic is 'code' (choose one)"
    ]


def test_titles_become_ids_unique_within_the_bank() -> None:
    ids = [d.id for d in parse_file("kinds.gift").drafts]
    # "List length" twice; the untitled missing-word question is named after its text.
    assert ids == [
        "list-length",
        "booleans",
        "identity",
        "truthy",
        "falsy",
        "python-s-1-function-counts-the-items-of-a-list",
        "list-length-2",
        "short",
        "numerical",
        "matching",
        "multiple-answer",
    ]
    escaped_title = parse_file("code.gift").drafts[0]
    assert escaped_title.id == "escapes-all-of-them"  # '::escapes\: all of them::'


def test_a_title_that_already_is_an_id_is_kept() -> None:
    result = gift.parse("::py.loops_2:: Is range lazy?{T}", source="t.gift")
    assert result.drafts[0].id == "py.loops_2"


# ---------------------------------------------------------------------------------------------
# Texts: formats, escapes, comments, code
# ---------------------------------------------------------------------------------------------


def test_markdown_is_kept_and_answers_take_the_questions_format() -> None:
    draft = by_id(parse_file("formats.gift"))["md"]
    assert draft.question == "Which call prints **bold** text?\nPick `one`."
    assert draft.options == ['print("a")', 'echo "a"']
    assert draft.mistakes == [Note("That is *shell*, not Python.", ("B",))]


def test_html_becomes_discord_markdown_never_tags() -> None:
    draft = by_id(parse_file("formats.gift"))["html"]
    assert draft.question == (
        "Which tag makes **bold** text?\n\n- think of *strong*\n- <b> is older"
    )  # '&lt;b&gt;' is text the author wants shown, not a tag
    # The right answer names its own format, [plain]; the wrong one is HTML text.
    assert draft.options == ["<strong>", "<i>"]
    assert draft.mistakes == [Note("**italic**, not bold", ("B",))]


def test_plain_and_moodle_text_is_shown_as_written() -> None:
    drafts = by_id(parse_file("formats.gift"))
    assert drafts["plain"].question == "Is 2\\*3\\*4 equal to 24?"
    # Moodle's auto-format (also the default): line breaks count, HTML still converts.
    assert drafts["moodle"].question == "First line\nsecond line with *italics* and 2\\*3\\*4."
    assert drafts["default"].question == (
        "A plain question with \\_\\_init\\_\\_ in it.\nIt spans two lines."
    )


def test_every_escape() -> None:
    draft = parse_file("code.gift").drafts[0]
    # \~ \= \# \{ \} \: \\ and \n, in the question (Moodle text: Markdown-escaped backslash).
    assert draft.question == (
        "Which string holds a tilde ~, an equals = and a hash #?\n"
        "And braces { } and a colon : and a backslash \\\\."
    )
    assert draft.options == ["~=#{}:\\\\", "none"]
    assert draft.explanation == "right: every special character"
    assert draft.mistakes == [Note("nothing {here}", ("B",))]


def test_a_question_about_xml_markup_is_imported_not_a_crash() -> None:
    # The default (Moodle) format goes through the HTML conversion, which raised
    # AssertionError on `<![` followed by a space.
    result = gift.parse("::cdata:: What closes what <![ opens? {=]]> ~-- >}", source="x.gift")

    assert [d.question for d in result.drafts] == ["What closes what <![ opens?"]
    assert result.drafts[0].options == ["]]>", "-- >"]


def test_unescape_keeps_unknown_backslashes() -> None:
    assert gift.unescape(r"\frac{1}{2} \d+ \n \\ \:") == "\\frac{1}{2} \\d+ \n \\ :"


def test_code_with_braces_in_a_fenced_block_is_the_fill_code() -> None:
    draft = by_id(parse_file("code.gift"))["dict"]
    assert draft.instruction == "Complete the dictionary literal."
    assert draft.code == (
        'ages = {"ann": 31, "bob": 27}\n'
        "older = {name: age for name, age in ages.items() if age [1] 30}"
    )
    assert draft.options == [">", "<", "=="]
    assert draft.mistakes == [Note("equality keeps only 30", ("C",))]


def test_code_in_an_html_pre_block_is_the_fill_code() -> None:
    draft = by_id(parse_file("code.gift"))["pre"]
    assert draft.instruction == "Complete **the** loop:\n\nThen run it."
    assert draft.code == "for i in range(3):\n    total += [1] << 1"
    assert draft.options == ["i", "3"]


def test_without_a_fence_the_code_starts_at_the_blanks_line() -> None:
    draft = by_id(parse_file("code.gift"))["no-fence"]
    assert draft.instruction == "The line with the blank is the code:"
    # '//' inside a line is text; literal indexes are spaced so the check does not read blanks.
    assert draft.code == (
        "total = values[ 0 ] [1] values[ 1 ]  // not a comment: it is inside the line"
    )
    assert gift.LITERAL_INDEX_COMMENT in (draft.comment or "")


def test_comment_lines_are_ignored_and_urls_survive() -> None:
    draft = by_id(parse_file("code.gift"))["url"]
    assert draft.question == "Which scheme does https://example.org use?"


@pytest.mark.parametrize("name", ["kinds.gift", "formats.gift", "code.gift"])
def test_every_imported_bank_passes_the_content_check(name: str, tmp_path: Path) -> None:
    result = parse_file(name)
    catalog = checked(result, tmp_path)
    assert sorted(t.id for t in catalog) == sorted(d.id for d in result.drafts)


def test_windows_line_ends_and_a_byte_order_mark() -> None:
    text = "\ufeff::a:: One?{=yes ~no}\r\n\r\n::b:: Two?{T}\r\n"
    result = gift.parse(text, source="t.gift")
    assert [(d.id, d.source_line) for d in result.drafts] == [("a", 1), ("b", 3)]


def test_looks_like() -> None:
    for name in ("kinds.gift", "formats.gift", "code.gift"):
        assert gift.looks_like((DATA / name).read_text(encoding="utf-8"))
    assert gift.looks_like("What is 1+1?{=2 ~3}")
    assert gift.looks_like("Is it?{T}")
    assert not gift.looks_like('<?xml version="1.0"?>\n<quiz><question type="truefalse">')
    assert not gift.looks_like("<html><body><script>f(){=1}</script>")
    assert not gift.looks_like("What is 1+1?\nA) 2\nB) 3\nANSWER: A\n")
    assert not gift.looks_like("def f():\n    return {1: 2}\n")


# ---------------------------------------------------------------------------------------------
# Export, and import(export(tasks)) == tasks
# ---------------------------------------------------------------------------------------------

SPECIAL = "tilde ~ equals = hash # braces { } colon : backslash \\ newline-escape \\n"


def round_trip_tasks() -> list[Task]:
    solution = Solution(
        steps=(
            SolutionStep("Read: the question", f"First paragraph {SPECIAL}.\n\nSecond paragraph."),
            SolutionStep("Check {it}", "Only one line."),
        ),
        final_answer="B -> Option B",
        quick_check="B == B [OK]",
        explanation="**Explanation:**-like text is just text.\n\n// not a comment",
    )
    everything = choice(
        "ci.q_1",
        prompt=f"Which one?\n\n// a line that looks like a comment\n$CATEGORY: not one\n{SPECIAL}",
        texts=(f"first {SPECIAL}", "[html]<b>not html</b>", "#3", "~4", "%50% off", "tab\t\nend"),
        answer="B",
        hint=f"Hint with {SPECIAL}\nand a second line",
        solution=solution,
        mistakes=(
            note(f"Tied to A and C: {SPECIAL}", "A", "C"),
            note("Second note on C\n- with a list-like line", "C"),
            note("Only D", "D"),
            note("- starts like a list item\n\nand has a blank line", "E", "F"),
            note("General: never shown (every wrong option has a note) but kept"),
        ),
        topic="CI/CD",
        difficulty=Difficulty.HARD,
    )
    general_only = choice(
        "general-only",
        prompt="What does the bot show for a wrong pick?",
        texts=("right", "wrong one", "wrong two"),
        solution=Solution(explanation="**Final answer:** looks like a label, but is text."),
        mistakes=(note("General note one"), note("General note two")),
        topic="CI/CD",
    )
    true_false = choice(
        "tf-false",
        prompt="An empty dict {} is truthy.",
        texts=("True", "False"),
        answer="B",
        solution=Solution(explanation="Empty containers are falsy."),
        mistakes=(note("It is falsy: nothing in it.", "A"),),
        topic="Python",
    )
    true_false_plain = choice(
        "tf-true", prompt="1 == 1.0", texts=("True", "False"), answer="A", topic="Python"
    )
    code = fill(
        "fill-code",
        prompt=(
            "// C++ style comment line\n"
            "int main() {\n"
            "    std::map<int, int> m = {{1, 2}};  # not a comment\n"
            "\n"
            '    printf("%d\\n", m[ 1 ] [1] 1);\n'
            "}"
        ),
        texts=("+", "*", "**", "{"),
        answers=("A",),
        instruction="Complete the C++ code:\n\nadd one to the value.",
        hint="Addition: {+}",
        solution=Solution(final_answer="[1] = +", explanation="Add = +"),
        mistakes=(note("Multiplies", "B"), note("Not C++", "C"), note("General fill note")),
        topic="Python",
    )
    return [everything, general_only, true_false, true_false_plain, code]


def reimported(tasks: list[Task], tmp_path: Path) -> Catalog:
    result = gift.parse(gift.export(tasks, bank="Round trip"), source="round-trip.gift")
    assert result.report == []
    return checked(result, tmp_path)


def shown_notes(task: Task) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    """What a member is shown for each pick, and the general notes."""
    return {label: task.notes_for(label) for label in task.labels}, task.general_notes


def assert_same(back: Task, task: Task) -> None:
    # Notes come back per option: the order of notes tied to different options may differ,
    # what each pick shows may not.
    assert shown_notes(back) == shown_notes(task)
    assert replace(back, bank=task.bank, mistakes=task.mistakes) == task


def test_import_of_export_gives_every_field_back(tmp_path: Path) -> None:
    tasks = round_trip_tasks()
    catalog = reimported(tasks, tmp_path)
    assert [t.id for t in catalog] == [t.id for t in tasks]
    for task in tasks:
        assert_same(catalog.get_or_raise(task.id), task)


def test_the_shipped_bank_round_trips_but_its_multi_blank_tasks(tmp_path: Path) -> None:
    shipped, problems = check_banks(SHIPPED)
    assert problems == []
    exported = gift.export(list(shipped), bank="Shipped")
    multi = [t.id for t in shipped if t.multi_blank and t.kind is Kind.FILL]
    assert multi  # the case below is exercised
    for task_id in multi:
        assert f"// left out: {task_id}: a fill task with" in exported
    stem_notes = [
        t.id for t in shipped if t.kind is Kind.MATCHING and any(not n.general for n in t.mistakes)
    ]
    for task_id in stem_notes:
        assert f"// left out: {task_id}: its notes on a stem's wrong answers" in exported
    result = gift.parse(exported, source="shipped.gift")
    catalog = checked(result, tmp_path)
    assert len(catalog) == len(shipped) - len(multi) - len(stem_notes)
    for task in catalog:
        assert_same(task, shipped.get_or_raise(task.id))


def test_export_writes_tied_notes_as_feedback_and_the_solution_as_general_feedback() -> None:
    task = choice(
        "mc",
        prompt="Pick {one}",
        texts=("right", "wrong", "other"),
        solution=Solution(explanation="Because: reasons"),
        mistakes=(note("Not this", "B"), note("Nor this", "C")),
        topic="Topic",
    )
    assert gift.export([task], bank="My bank") == (
        "// My bank\n"
        "// Exported by quizbot; `quizbot content import` reads it.\n"
        "\n"
        "$CATEGORY: $course$/top/Topic\n"
        "\n"
        "// hint: It is the first.\n"
        "// difficulty: easy\n"
        "::mc:: [markdown]Pick \\{one\\} {\n"
        "=right\n"
        "~wrong#Not this\n"
        "~other#Nor this\n"
        "####Because\\: reasons\n"
        "}\n"
    )


def test_export_writes_true_false_and_missing_word_forms() -> None:
    true_false = round_trip_tasks()[2]
    code = fill("f", prompt="x = {[1]: 1}", texts=("a", "b"), answers=("B",), topic="Python")
    text = gift.export([true_false, code], bank="b")
    assert "::tf-false:: [markdown]An empty dict \\{\\} is truthy. {FALSE#It is falsy" in text
    assert "::f:: [markdown]Fill the blanks.\n```python\nx \\= \\{{\n~a\n=b\n####" in text
    assert "}\\: 1\\}\n```\n" in text


def test_a_fill_tasks_language_comes_back_from_its_code_fence(tmp_path: Path) -> None:
    # It came back `python`: drafts had no place for it.
    task = replace(
        fill("rs", prompt="let x = a [1] b;", texts=("/", "%"), answers=("B",)), language="c++"
    )

    back = reimported([task], tmp_path).get_or_raise("rs")

    assert back.language == "c++"
    assert_same(back, task)


def test_a_task_gift_cannot_carry_is_a_left_out_comment_line() -> None:
    # A carriage return comes back a line break; U+E000 is the import's own placeholder.
    tasks = [choice("cr", prompt="a\rb"), choice("pua", hint="x\ue000y"), choice("ok")]

    text = gift.export(tasks, bank="b")

    assert "// left out: cr: its question holds a carriage return" in text
    assert "// left out: pua: its hint holds U+E000" in text
    assert [d.id for d in gift.parse(text, source="b.gift").drafts] == ["ok"]


def test_a_fill_task_with_several_blanks_is_a_left_out_comment_line() -> None:
    task = fill("two", prompt="[1] + [2]", texts=("a", "b"), answers=("A", "B"))
    text = gift.export([task], bank="b")
    assert "// left out: two: a fill task with 2 blanks has no GIFT form" in text
    assert gift.parse(text, source="b.gift").drafts == []


def test_the_solution_is_written_in_the_bots_layout_and_read_back_into_its_parts() -> None:
    task = choice(
        "s",
        solution=Solution(
            steps=(SolutionStep("One", "a\n\nb"),),
            final_answer="x\n\ny",
            quick_check="ok",
            explanation="done",
        ),
    )
    text = gift.export([task], bank="b")
    assert (
        "####**Step 1\\: One**\na\\n\nb\\n\n**Final answer\\:** x\\n\ny\\n\n"
        "**Quick check\\:** ok\\n\n**Explanation\\:** done\n}"
    ) in text
    draft = gift.parse(text, source="b.gift").drafts[0]
    assert draft.steps == [Step("One", "a\n\nb")]
    assert (draft.final_answer, draft.quick_check, draft.explanation) == ("x\n\ny", "ok", "done")


def test_general_feedback_written_by_a_person_is_the_explanation() -> None:
    text = "::q:: [markdown]Pick.{=a#Yes. ~b####**Note:** it is a.\\n\\n**Final answer:** a}"
    draft = gift.parse(text, source="q.gift").drafts[0]
    # Not our layout (it does not start with a label): all of it is explanation.
    assert draft.steps == [] and draft.final_answer is None
    assert draft.explanation == "Yes.\n\n**Note:** it is a.\n\n**Final answer:** a"


def test_emoji_stay_as_written_in_the_bank_yaml(tmp_path: Path) -> None:
    result = gift.parse("::party:: Which one is 🎉?{=🎉 party ~é accent}", source="e.gift")
    text = bank_yaml(result)
    assert "- 🎉 party" in text and "\\U0001F389" not in text
    assert checked(result, tmp_path).get_or_raise("party").options[0].text == "🎉 party"


def test_the_benchmarks_questions_import_cleanly(tmp_path: Path) -> None:
    from benchmarks.import_gift import generate, run_once

    # Exits if anything is left out or refused, by the import's check or by `content check`.
    phases, reread = run_once(generate(60), 60, tmp_path)
    assert len(phases) == 3 and reread.wall > 0


def test_an_answer_block_hidden_by_html_is_reported() -> None:
    result = gift.parse("::h:: [html]<p>x <!-- {=a ~b} --> y</p>", source="h.gift")
    assert result.drafts == []
    assert [line.render("h.gift") for line in result.report] == [
        "h.gift:1: left out: the question has its answer block inside HTML that hides it"
        " (a comment, a tag)"
    ]


def test_no_input_crashes_the_import() -> None:
    # Seeded random GIFT-ish text: no exception, every draft and report line points at a line
    # of the text, and the drafts always write a bank.
    import random

    rng = random.Random(10)
    pieces = [
        "::t::", "{", "}", "=", "~", "#", "####", "\\", ":", "\n", "\n\n", "// c\n", "[html]",
        "[markdown]", "<p>", "</b>", "<pre>", "```", "%50%", "->", "T", "FALSE", "$CATEGORY: a/b",
        " text ", "x[0]", "[1]", "&amp;", "\ue000", "🎉",
    ]  # fmt: skip
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 25)))
        result = gift.parse(text, source="fuzz.gift")
        bank_yaml(result)
        lines = text.count("\n") + 1
        assert all(1 <= (d.source_line or 0) <= lines for d in result.drafts)
        assert all(1 <= r.line <= lines for r in result.report if r.line is not None)


def test_a_title_id_is_kept_up_to_the_longest_id_a_bank_allows() -> None:
    """A `::title::` that is a valid id of exactly MAX_ID_LENGTH characters is the task's id, so
    a bank exported and imported again keeps its ids; one character more is slugged (an id the
    content check would refuse), as any other title is."""
    from bot.content.schema import MAX_ID_LENGTH

    longest = "a" * (MAX_ID_LENGTH - 2) + "-b"
    too_long = "a" + longest
    result = gift.parse(f"::{longest}:: One?{{T}}\n\n::{too_long}:: Two?{{F}}", source="t.gift")
    kept, slugged = (d.id for d in result.drafts)
    assert kept == longest
    assert slugged != too_long and len(slugged) <= MAX_ID_LENGTH


def test_the_last_hint_and_difficulty_comment_of_a_question_win() -> None:
    """An author who edits an exported file by adding a line below the old one gets the new
    value: of repeated `// hint:` and `// difficulty:` comments, the last one counts."""
    text = (
        "// difficulty: easy\n"
        "// hint: Old hint.\n"
        "// difficulty: hard\n"
        "// hint: New hint.\n"
        "::q:: Is range lazy?{T}"
    )
    draft = gift.parse(text, source="t.gift").drafts[0]
    assert (draft.difficulty, draft.hints) == ("hard", ["New hint."])


def test_a_wrong_answer_weighted_zero_or_less_stays_a_one_answer_choice() -> None:
    """`~%0%` and `~%-50%` are wrong answers that earn nothing (Moodle writes `%0%` in its own
    exports): the question is still multiple choice with one right answer, the weights are not
    part of the option texts. Beside an '=', a wrong answer with a positive weight is partial
    credit in a one-answer question (Moodle's reading): a single-pick multi task."""
    text = "::w:: Pick one {=right ~%0%wrong#Not this ~%-50%other}"
    result = gift.parse(text, source="t.gift", topic="Python")
    assert result.report == []
    draft = result.drafts[0]
    assert (draft.kind, draft.answers) == ("choice", ["A"])
    assert draft.options == ["right", "wrong", "other"]
    assert draft.mistakes == [Note("Not this", ("B",))]

    partial = gift.parse("::p:: Pick {=right ~%50%half ~wrong}", source="t.gift", topic="T")
    assert partial.report == []
    (draft,) = partial.drafts
    assert (draft.kind, draft.single, draft.answers) == ("multi", True, ["A"])
    assert draft.weights == [100, 50, 0]
