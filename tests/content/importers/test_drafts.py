"""The bank an import writes (`drafts.bank_yaml`): what the content check then reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.content.importers import moodle_xml
from bot.content.importers.drafts import Draft, ImportResult, bank_yaml
from bot.content.loader import check_text


@pytest.mark.parametrize("space", ["\u00a0", "\u2003", "\u3000"])
def test_a_line_of_unicode_spaces_keeps_its_indentation(space: str) -> None:
    # Python's str.strip calls these blank; YAML does not, and an unindented one ends the
    # block the text is in, so the bank did not parse.
    question = f"Which is right?\n{space}\nPick one."
    draft = Draft("q1", "choice", ["yes", "no"], ["A"], question=question, final_answer="yes")
    draft.hints = ["Think."]
    text = bank_yaml(ImportResult([draft], [], bank="B", topic="T"))

    parsed, problems = check_text(Path("b.yaml"), text)

    assert [str(p) for p in problems] == []
    assert parsed[0].task.prompt == question


def test_moodle_markdown_with_a_no_break_space_line_imports_as_a_bank_that_checks() -> None:
    xml = """<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="multichoice">
    <name><text>Q1</text></name>
    <questiontext format="markdown"><text>Which is right?
&#160;
Pick one.</text></questiontext>
    <single>true</single>
    <answer fraction="100"><text>yes</text></answer>
    <answer fraction="0"><text>no</text></answer>
  </question>
</quiz>
"""
    result = moodle_xml.parse(xml, source="course.xml")

    _, problems = check_text(Path("course.yaml"), bank_yaml(result))

    assert [str(p) for p in problems] == []
