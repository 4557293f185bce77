"""A cloze task in the real bot process. A member picks the choice parts in the private picker,
then "Type the answers" opens the modal of the typed parts, and the real MODAL_SUBMIT grades every
part at once: the wrong part's note comes back privately, the right parts are kept (the typed
ones filled in again), a blank part uses no attempt, and no typed text reaches the channel. A
task of typed parts only opens the modal from the post; a burst of submits spends three
attempts, never more; /review brings it back; a daily quiz's close names the wrong answer three
members typed in a part."""

from __future__ import annotations

import asyncio

import pytest
from fakediscord import Driver, InteractionRecord

from . import test_bot_e2e as base
from .bot_helpers import (
    STEP,
    QuizBotRunner,
    attempts,
    custom_ids,
    find_custom_id,
    is_ephemeral,
    opened,
    picked,
    press,
    quizbot_with,
    reply_of,
    text_of,
)
from .test_bot_e2e import World, post_quiz, started
from .test_close_typed import closed_a_day_later, daily_posted

pytestmark = pytest.mark.e2e

world = base.world  # the main e2e module's study group

MIXED = "owl"
TYPED = "capitals"
BANK = f"""\
bank: Verse
topic: Verse
tasks:
  - id: {MIXED}
    kind: cloze
    difficulty: medium
    question: >-
      The {{1:SA:Dog#Wrong, silly!~=Owl}} and the {{1:MC:Bow-wow#A dog, not a cat.~=Pussy-cat}}
      went to sea in a {{1:MC:=boat~plane}} for {{2:NM:=366:1#Right}} days.
    hint: Edward Lear wrote it.
    solution:
      explanation: The Owl and the Pussy-cat went to sea in a beautiful pea-green boat.
  - id: {TYPED}
    kind: cloze
    difficulty: easy
    question: Paris is in {{1:SA:=France~Lyon#Lyon is a city.}}, Rome in {{1:SA:=Italy}}.
    solution:
      explanation: France and Italy.
"""


quizbot = quizbot_with({"verse.yaml": BANK})


def inputs(record: InteractionRecord) -> dict[str, str | None]:
    """The modal's text inputs, by custom_id, with the text filled in (None: empty)."""
    rows = record.response_data["components"]
    found = [c for row in rows for c in row.get("components") or [row.get("component") or {}]]
    return {c["custom_id"]: c.get("value") for c in found if c.get("type") == 4}


async def test_a_member_picks_types_and_keeps_the_right_parts(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", MIXED)
    assert custom_ids(post) == [f"quiz:cloze:{post_id}", f"quiz:hint:{post_id}"]
    assert "**[2]** A. Bow-wow · B. Pussy-cat" in text_of(post)

    picker = await press(driver, post, f"quiz:cloze:{post_id}", world.bob)
    assert is_ephemeral(picker)
    assert [i for i in custom_ids(picker) if i.startswith("quiz:cpick:")] == [
        f"quiz:cpick:{post_id}:2:_--_",
        f"quiz:cpick:{post_id}:3:_--_",
    ]
    # Typing before the choice parts are picked: said on the picker, no modal, no attempt.
    early = await press(driver, picker, f"quiz:csubmit:{post_id}:_--_", world.bob)
    assert "Pick an option for parts [2] and [3] first" in text_of(early)
    picker = await picked(driver, early, f"quiz:cpick:{post_id}:2:", "A", world.bob)
    picker = await picked(driver, picker, f"quiz:cpick:{post_id}:3:", "A", world.bob)
    assert "**[2]** *Bow-wow*" in text_of(picker)

    modal = await opened(
        driver, picker, f"quiz:csubmit:{post_id}:_AA_", world.bob, modal="quiz:clozed:"
    )
    assert modal.response_data["custom_id"] == f"quiz:clozed:{post_id}:_AA_"
    assert set(inputs(modal)) == {"part1", "part4"}
    blank = await reply_of(driver.submit_modal(modal, {"part1": "  ", "part4": "366"}))
    assert is_ephemeral(blank) and "no attempt was used" in text_of(blank)
    assert attempts(quizbot, post_id, world.bob.id) == []

    wrong = await reply_of(driver.submit_modal(modal, {"part1": " owl ", "part4": "366"}))
    said = text_of(wrong)
    assert is_ephemeral(wrong)
    assert "part [2] is wrong; the rest are right and kept (80% of the credit)" in said  # 4 of 5
    assert "A dog, not a cat." in said and "**2** attempts left" in said
    assert attempts(quizbot, post_id, world.bob.id) == [(1, "owl,A,A,366")]

    # The right parts are kept: the choice in the custom_id, the typed ones filled in again.
    retry = await picked(driver, wrong, f"quiz:cpick:{post_id}:2:+-A+", "B", world.bob)
    again = await opened(
        driver, retry, f"quiz:csubmit:{post_id}:+BA+", world.bob, modal="quiz:clozed:"
    )
    assert inputs(again) == {"part1": "Owl", "part4": "366"}
    right = await reply_of(driver.submit_modal(again, {}))
    assert "✅ Right, every part!" in text_of(right)
    assert "**13** points" in text_of(right)  # 20 × 2/3: one miss
    public = driver.channel_messages(world.channels["quiz"])
    assert all("366" not in text_of(m) and "not a cat" not in text_of(m) for m in public)


async def test_typed_parts_only_a_burst_spends_three_attempts_and_review_brings_it_back(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", TYPED)
    assert custom_ids(post) == [f"quiz:csubmit:{post_id}:__"]  # Answer opens the modal at once
    modal = await opened(
        driver, post, f"quiz:csubmit:{post_id}:__", world.carol, modal="quiz:clozed:"
    )
    guesses = ["Nice", "Lille", "Lyon", "Nantes", "Brest", "Toulouse"]
    submits = [driver.submit_modal(modal, {"part1": g, "part2": "Italy"}) for g in guesses]
    replies = await asyncio.wait_for(asyncio.gather(*(reply_of(s) for s in submits)), STEP * 2)
    assert all(is_ephemeral(r) for r in replies)
    assert len(attempts(quizbot, post_id, world.carol.id)) == 3
    assert sum("last attempt" in text_of(r) for r in replies) == 1

    review = await reply_of(
        driver.slash("review", user=world.carol, channel=world.channels["quiz"])
    )
    assert is_ephemeral(review) and "Paris is in" in text_of(review)
    again = await opened(
        driver, review, find_custom_id(review, "quiz:csubmit:"), world.carol, modal="quiz:clozed:"
    )
    outcome = await reply_of(driver.submit_modal(again, {"part1": "france", "part2": "ITALY"}))
    assert is_ephemeral(outcome) and "Right" in text_of(outcome)


async def test_the_close_summary_names_a_part_three_members_typed_wrong(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    daily, run, post_id = await daily_posted(world, quizbot)
    assert quizbot.query("SELECT task_id FROM post WHERE id = ?", post_id)[0][0] == TYPED
    said = {world.alice: "lyon", world.bob: " Lyon", world.carol: "LYON", world.dave: "Nice"}
    for who, text in said.items():
        modal = await opened(driver, daily, f"quiz:csubmit:{post_id}:__", who, modal="quiz:clozed:")
        reply = await reply_of(driver.submit_modal(modal, {"part1": text, "part2": "Italy"}))
        assert is_ephemeral(reply) and len(attempts(quizbot, post_id, who.id)) == 1

    summary = await closed_a_day_later(quizbot, daily, run)
    assert "**4** answered · **0** solved" in summary
    assert "[1] 75% typed *lyon* — Lyon is a city." in summary
    assert "nice" not in summary.casefold()  # one member: never named
