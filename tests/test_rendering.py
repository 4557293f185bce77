"""Rendering: the exact strings the Discord layer shows, and their limits."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bot import rendering
from bot.i18n import speaking
from bot.quiz.tasks import MistakeNote, Option, Solution, SolutionStep
from tests.factories import choice, fill, multi, note, options
from tests.i18n.catalog_files import use_locale_dir
from tests.i18n.code_catalogs import write_code_pseudo
from tests.i18n.pseudo import pseudo

CHOICE = choice(
    "c-1",
    topic="MLOps",
    prompt="Which one splits the model?",
    texts=("Data parallelism", "Model parallelism"),
    answer="B",
    hint="Not the data.",
    solution=Solution(
        steps=(SolutionStep("Read the names", "Model parallelism splits the model."),),
        final_answer="Model parallelism -> Option B",
        quick_check="Model split [OK]",
    ),
    mistakes=(note("Confusing the two", "A"), note("General")),
)

FILL = fill(
    "f-1",
    topic="MLOps",
    prompt="parts = {d: model.[1](d) for d in [2]}",
    texts=("to_device", "devices", "device_list", "cpu"),
    answers=("A", "C"),
    hint="Move, then loop.",
    solution=Solution(explanation="to_device moves parts to each device in device_list."),
    instruction="Complete the comprehension.",
)


# -- truncate -------------------------------------------------------------------------------------


def test_truncate_keeps_text_that_fits() -> None:
    assert rendering.truncate("abc", 3) == "abc"


def test_truncate_cuts_to_exactly_the_limit_with_an_ellipsis() -> None:
    cut = rendering.truncate("abcdefghij", 5)
    assert cut == "abcd…" and len(cut) == 5


def test_truncate_counts_emoji_as_discord_does() -> None:
    # 💡 is two UTF-16 code units: four of them are 8 units, over a limit of 6.
    cut = rendering.truncate("💡💡💡💡", 6)
    assert cut == "💡💡…" and rendering.discord_len(cut) == 5


def test_truncate_rejects_a_useless_limit() -> None:
    with pytest.raises(ValueError):
        rendering.truncate("abc", 0)


# -- labels ---------------------------------------------------------------------------------------


def test_button_label_is_letter_and_text() -> None:
    assert rendering.option_button_label(Option("B", "split")) == "B · split"


def test_button_label_is_cut_at_the_limit() -> None:
    label = rendering.option_button_label(Option("C", "x" * 200))
    assert len(label) == rendering.BUTTON_LABEL == 80
    assert label.startswith("C · xxx") and label.endswith("…")


def test_button_label_that_just_fits_is_not_cut() -> None:
    text = "y" * (80 - len("A · "))
    assert rendering.option_button_label(Option("A", text)) == f"A · {text}"


def test_select_label_has_the_larger_limit() -> None:
    label = rendering.option_select_label(Option("D", "z" * 200))
    assert len(label) == rendering.SELECT_OPTION_LABEL == 100 and label.endswith("…")


def test_labels_are_one_line() -> None:
    assert rendering.option_button_label(Option("A", "two\n  lines")) == "A · two lines"


# -- task text ------------------------------------------------------------------------------------


def test_titles_name_kind_and_topic() -> None:
    assert rendering.task_title(CHOICE) == "Multiple choice · MLOps"
    assert rendering.task_title(FILL) == "Fill in the blank · MLOps"


def test_choice_description_is_question_then_every_option() -> None:
    assert rendering.task_description(CHOICE) == (
        "Which one splits the model?\n\n**A.** Data parallelism\n**B.** Model parallelism"
    )


def test_fill_description_is_instruction_code_block_and_options() -> None:
    assert rendering.task_description(FILL) == (
        "Complete the comprehension.\n"
        "```python\nparts = {d: model.[1](d) for d in [2]}\n```\n\n"
        "**A.** `to_device`\n**B.** `devices`\n**C.** `device_list`\n**D.** `cpu`"
    )


def test_option_with_a_backtick_stays_inline_code() -> None:
    task = replace(FILL, options=options("a`b", "c"))
    assert "**A.** `` a`b ``" in rendering.task_description(task)


def test_filled_code_fills_picks_and_keeps_other_blanks() -> None:
    assert rendering.filled_code(FILL, {2: "C"}) == (
        "```python\nparts = {d: model.[1](d) for d in device_list}\n```"
    )
    assert rendering.filled_code(FILL, {}) == f"```python\n{FILL.prompt}\n```"


def test_filled_code_is_only_for_fill_tasks() -> None:
    with pytest.raises(ValueError):
        rendering.filled_code(CHOICE, {1: "A"})


def test_solution_lists_numbered_steps_final_answer_and_quick_check() -> None:
    assert rendering.solution_text(CHOICE) == (
        "**Step 1: Read the names**\nModel parallelism splits the model.\n\n"
        "**Final answer:** Model parallelism -> Option B\n\n"
        "**Quick check:** Model split [OK]"
    )


def test_fill_solution_shows_solved_code_and_falls_back_to_the_answers() -> None:
    assert rendering.solution_text(FILL) == (
        "```python\nparts = {d: model.to_device(d) for d in device_list}\n```\n\n"
        "**Final answer:** [1] = to_device, [2] = device_list\n\n"
        "to_device moves parts to each device in device_list."
    )


def test_hint_and_notes() -> None:
    assert rendering.hint_text(CHOICE, 1) == "Not the data."
    assert rendering.hint_title(CHOICE, 1) == "Hint"
    ladder = replace(CHOICE, hints=("One.", "Two.", "Three."))
    second = (rendering.hint_title(ladder, 2), rendering.hint_text(ladder, 2))
    assert second == ("Hint 2 of 3", "Two.")
    assert rendering.notes_text(["one", "two"]) == "• one\n• two"


# -- limits ---------------------------------------------------------------------------------------


def test_clean_tasks_have_no_render_problems() -> None:
    assert rendering.render_problems(CHOICE) == []
    assert rendering.render_problems(FILL) == []


def test_description_over_the_embed_limit() -> None:
    task = replace(CHOICE, prompt="q" * 4096)
    assert [field for field, _ in rendering.render_problems(task)] == ["question"]
    task = replace(FILL, prompt="x = [1] + [2]  # " + "c" * 4096)
    # The worked solution repeats the (solved) code, so it is too long as well.
    assert {field for field, _ in rendering.render_problems(task)} == {"code", "solution"}


def test_hint_notes_and_solution_limits() -> None:
    task = replace(
        CHOICE,
        hints=("h" * 1025,),
        mistakes=(MistakeNote("n" * 600, ("A",)), MistakeNote("m" * 600)),
        solution=Solution(explanation="s" * 4100),
    )
    fields = [field for field, _ in rendering.render_problems(task)]
    assert fields == ["hint", "mistakes", "solution"]
    ladder = replace(CHOICE, hints=("fits", "h" * 1025))
    assert [field for field, _ in rendering.render_problems(ladder)] == ["hints[1]"]


def test_long_title_is_a_topic_problem() -> None:
    task = replace(CHOICE, topic="T" * 250)
    assert {field for field, _ in rendering.render_problems(task)} == {"topic"}


def test_button_tasks_take_at_most_twenty_options() -> None:
    many = options(*(f"o{n}" for n in range(21)))
    assert rendering.render_problems(replace(CHOICE, options=many[:20])) == []
    assert rendering.render_problems(replace(CHOICE, options=many)) == [
        ("options", "21 options, but the bot shows one button per option: at most 20")
    ]
    single = replace(FILL, prompt="x = [1]", answers=("A",), options=many)
    assert [f for f, _ in rendering.render_problems(single)] == ["options"]


def test_select_tasks_take_at_most_twenty_five_options() -> None:
    many = options(*(f"o{n}" for n in range(26)))
    assert rendering.render_problems(replace(FILL, options=many[:25])) == []
    assert [f for f, _ in rendering.render_problems(replace(FILL, options=many))] == ["options"]


# -- cutting to fit -------------------------------------------------------------------------------


def test_a_cut_inside_a_code_block_closes_it() -> None:
    text = "Look:\n```python\n" + "x = 1\n" * 100 + "```\nThe end."
    cut = rendering.fit_text(text, 60)
    assert rendering.discord_len(cut) <= 60
    assert cut.startswith("Look:\n```python\nx = 1") and cut.endswith("…\n```")
    assert cut.count("```") == 2


def test_a_cut_outside_code_blocks_is_a_plain_cut() -> None:
    text = "```a```" + "b" * 50
    assert rendering.fit_text(text, 20) == rendering.truncate(text, 20)
    assert rendering.fit_text("fits", 4) == "fits"


def test_a_quoted_pick_is_one_short_line() -> None:
    assert rendering.quoted("B · two\nlines") == "B · two lines"
    long = rendering.quoted("B · " + "💡" * 100)
    assert rendering.discord_len(long) <= rendering.QUOTED_PICK and long.endswith("…")


def embed(**parts: object) -> dict[str, object]:
    return {"type": "rich", **parts}


def test_fit_message_leaves_what_fits_alone() -> None:
    embeds = [embed(title="T", description="D", fields=[{"name": "n", "value": "v"}])]
    assert rendering.fit_message("hello", embeds) == ("hello", embeds)
    assert rendering.fit_message(None, []) == (None, [])


def test_fit_message_keeps_the_start_of_the_content() -> None:
    content, _ = rendering.fit_message("✅ Right! " + "💡" * 2000)
    assert content is not None and content.startswith("✅ Right! 💡")
    assert rendering.discord_len(content) == rendering.MESSAGE_CONTENT and content.endswith("…")


def test_fit_message_cuts_each_text_to_its_own_limit_and_leaves_its_input() -> None:
    given = embed(
        title="t" * 300,
        description="d" * 5000,
        fields=[{"name": "n" * 300, "value": "v" * 2000, "inline": False}],
        footer={"text": "f" * 3000},
    )
    _, (fitted,) = rendering.fit_message(None, [given])
    assert len(fitted["title"]) == 256 and fitted["title"].endswith("…")
    assert [(len(f["name"]), len(f["value"]), f["inline"]) for f in fitted["fields"]] == [
        (256, 1024, False)
    ]
    assert len(fitted["footer"]["text"]) == 2048
    # Each at its limit, they make 7,680: the description, first to give way, takes the cut.
    assert len(fitted["description"]) == 6000 - 256 - 256 - 1024 - 2048
    assert fitted["description"].endswith("…")
    assert rendering.embeds_size([fitted]) == rendering.EMBED_TOTAL
    assert len(given["title"]) == 300  # a copy was cut, not the caller's embed


def test_over_six_thousand_the_last_embeds_description_goes_first() -> None:
    notes = embed(fields=[{"name": "Why not?", "value": "n" * 1024}])
    solution = embed(title="Solution", description="s" * 4096)
    code = embed(title="Your answer", description="c" * 4096)
    _, (kept_notes, kept_code, cut_solution) = rendering.fit_message(None, [notes, code, solution])
    assert kept_notes == notes and kept_code == code
    assert cut_solution["description"].endswith("…")
    assert rendering.embeds_size([kept_notes, kept_code, cut_solution]) == rendering.EMBED_TOTAL


def test_even_the_fullest_message_is_brought_within_every_limit() -> None:
    field = {"name": "💡" * 200, "value": "v" * 1024}
    full = [embed(title="t" * 256, description="d" * 4096, fields=[field] * 25)] * 10
    _, fitted = rendering.fit_message(None, full)
    assert rendering.embeds_size(fitted) <= rendering.EMBED_TOTAL
    for e in fitted:
        assert all(f["name"] and f["value"] for f in e["fields"])  # Discord refuses empty ones


# -- in the reader's language -------------------------------------------------------------------


def test_a_task_renders_through_the_catalogs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Titles, instructions and the solution's headings are catalog messages (the
    pseudo-locale shows it); the bank's own text stays as written."""
    write_code_pseudo(use_locale_dir(tmp_path, monkeypatch), "de")
    with speaking("de"):
        assert rendering.task_title(CHOICE) == f"{pseudo('Multiple choice')} · MLOps"
        assert rendering.solution_title(CHOICE) == pseudo("Solution · {title}").format(
            title=rendering.task_title(CHOICE)
        )
        solution = rendering.solution_text(CHOICE)
        assert rendering.hint_title(CHOICE, 1) == pseudo("Hint")
        assert rendering.blank_placeholder(2) == pseudo("Blank [{blank}]").format(blank=2)
        picks = rendering.multi_instruction(multi(show_count=True))
    assert solution.startswith(
        pseudo("**Step {n}: {title}**").format(n=1, title="Read the names")
        + "\nModel parallelism splits the model."
    )
    assert pseudo("**Final answer:** {answer}").format(answer="Model parallelism -> Option B") in (
        solution
    )
    assert picks == pseudo("Pick the {n} right answers.").format(n=2)


def test_a_task_in_german() -> None:
    with speaking("de"):
        assert rendering.solution_title(CHOICE) == "Lösung · Multiple Choice · MLOps"
        assert rendering.multi_instruction(multi(show_count=True)) == (
            "Wähle die 2 richtigen Antworten."
        )
        assert rendering.hint_title(replace(CHOICE, hints=("a", "b", "c")), 2) == "Tipp 2 von 3"


def test_the_content_check_measures_every_shipped_locale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A topic that fills the title in English is too long where the kind's name is longer:
    here the pseudo-locale's German, two brackets longer."""
    write_code_pseudo(use_locale_dir(tmp_path, monkeypatch), "de")
    title = rendering.task_title(replace(CHOICE, topic=""))
    task = replace(CHOICE, topic="t" * (rendering.EMBED_TITLE - len(title)))
    assert len(rendering.task_title(task)) == rendering.EMBED_TITLE  # fits in English
    assert (
        "topic",
        "the task title is 258 characters as rendered; Discord allows 256 (in Deutsch)",
    ) in (rendering.render_problems(task))
