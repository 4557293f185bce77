"""The typed answer's modal: its text read from a raw submit (rows or labels), whatever a forged
payload sends; a blank or overlong text refused before any attempt; the reply names the
expected spelling of a forgiven typo and never renders the member's Markdown."""

from __future__ import annotations

import pytest

from bot.discord_ui.typed import answer_modal, typed_reply, typed_text
from bot.quiz import engine
from bot.quiz.engine import Progress
from bot.quiz.errors import BlankAnswerError, InvalidAnswerError
from tests.quiz.test_short import short


def row(value: object) -> list[object]:
    return [{"type": 1, "components": [{"type": 4, "custom_id": "answer", "value": value}]}]


def test_the_text_is_read_from_a_row_or_a_label() -> None:
    assert typed_text(row("Paris")) == "Paris"
    label = [{"type": 18, "component": {"type": 4, "custom_id": "answer", "value": "Lyon"}}]
    assert typed_text(label) == "Lyon"


@pytest.mark.parametrize("components", [None, "x", [], [{"type": 1}], row(5), [[1, 2]]])
def test_a_forged_submit_is_refused_as_an_invalid_answer(components: object) -> None:
    with pytest.raises(InvalidAnswerError):
        typed_text(components)


def test_a_blank_or_overlong_text_is_refused() -> None:
    with pytest.raises(BlankAnswerError):
        typed_text(row(" \n "))
    with pytest.raises(InvalidAnswerError):
        typed_text(row("x" * 201))


async def test_the_modal_has_one_bounded_input_and_names_its_post() -> None:
    modal = answer_modal(42)
    data = modal.to_dict()
    assert data["custom_id"] == "quiz:typed:42"
    [[text_input]] = [c["components"] for c in data["components"]]
    assert text_input["max_length"] == 200 and text_input["custom_id"] == "answer"
    assert modal.is_finished()  # discord.py keeps no copy: our router answers the submit


def test_the_reply_names_the_expected_spelling_and_escapes_the_members_text() -> None:
    task = short("Paris", typos=1)
    forgiven = engine.grade(task, Progress(), ["Pairs"])
    reply = typed_reply(task, forgiven)
    assert reply.content and "Accepted as **Paris**, the expected spelling." in reply.content
    wrong = engine.grade(task, Progress(), ["**bold** <@1>"])
    content = typed_reply(task, wrong).content or ""
    assert "\\*\\*bold\\*\\*" in content
