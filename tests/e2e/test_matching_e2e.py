"""A matching task in the real bot process: a member matches five stems in the private picker
(two pages, the picks kept across them), gets the wrong pair's note with the right pairs kept,
and an incomplete submit uses no attempt; a burst of submits spends three attempts, never
more; /review brings the missed task back."""

from __future__ import annotations

import asyncio

import pytest
from fakediscord import Driver, Member, Message

from .bot_helpers import (
    STEP,
    QuizBotRunner,
    attempts,
    click,
    custom_ids,
    is_ephemeral,
    picked,
    press,
    quizbot_with,
    reply_of,
    text_of,
)
from .test_bot_e2e import World, post_quiz, started

pytestmark = pytest.mark.e2e

TASK = "capitals"
BANK = f"""\
bank: Geography
topic: Capitals
tasks:
  - id: {TASK}
    kind: matching
    difficulty: medium
    question: Match each country to its capital.
    pairs:
      - stem: France
        answer: Paris
        mistakes:
          - answers: [Lyon]
            note: Lyon is France's third city.
      - stem: Italy
        answer: Rome
      - stem: Spain
        answer: Madrid
      - stem: Japan
        answer: Tokyo
      - stem: Peru
        answer: Lima
    distractors: [Lyon]
    hint: Where the governments sit.
    solution:
      explanation: Paris, Rome, Madrid, Tokyo and Lima.
"""
# Options, alphabetical: A Lima, B Lyon, C Madrid, D Paris, E Rome, F Tokyo.
RIGHT = "DECFA"


@pytest.fixture
def world(driver: Driver) -> World:
    return World(driver)


quizbot = quizbot_with({"geo.yaml": BANK})


async def pick(
    driver: Driver, picker: Message, post_id: int, stem: int, option: str, who: Member
) -> Message:
    return await picked(driver, picker, f"quiz:pick:{post_id}:{stem}:", option, who)


async def test_a_member_matches_on_two_pages_and_gets_the_wrong_pairs_note(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", TASK)
    assert custom_ids(post) == [f"quiz:open:{post_id}", f"quiz:hint:{post_id}"]
    assert "**5.** Peru" in text_of(post)

    picker = await press(driver, post, f"quiz:open:{post_id}", world.bob)
    assert is_ephemeral(picker)
    ids = custom_ids(picker)
    assert [i for i in ids if i.startswith("quiz:pick:")] == [
        f"quiz:pick:{post_id}:{stem}:-----" for stem in (1, 2, 3, 4)
    ]
    assert f"quiz:page:{post_id}:1:-----" in ids and "Page 1 of 2" in text_of(picker)

    for stem, option in enumerate("BECF", 1):  # Lyon for France: wrong
        picker = await pick(driver, picker, post_id, stem, option, world.bob)
    picker = await press(driver, picker, f"quiz:page:{post_id}:1:", world.bob)
    assert [i for i in custom_ids(picker) if i.startswith("quiz:pick:")] == [
        f"quiz:pick:{post_id}:5:BECF-"
    ]
    picker = await pick(driver, picker, post_id, 5, "A", world.bob)
    back = await press(driver, picker, f"quiz:page:{post_id}:0:", world.bob)
    assert f"quiz:pick:{post_id}:1:BECFA" in custom_ids(back)  # the picks kept

    wrong = await press(driver, back, f"quiz:submit:{post_id}:BECFA", world.bob)
    said = text_of(wrong)
    assert "item 1 is wrong" in said and "**2** attempts left" in said
    assert "Wrong pairs" in said and "Lyon is France's third city." in said
    assert attempts(quizbot, post_id, world.bob.id) == [(1, "B,E,C,F,A")]
    # The right pairs are kept; the wrong one is cleared, and submitting so uses no attempt.
    assert f"quiz:submit:{post_id}:-ECFA" in custom_ids(wrong)
    incomplete = await press(driver, wrong, f"quiz:submit:{post_id}:-ECFA", world.bob)
    assert "no attempt was used" in text_of(incomplete)
    assert len(attempts(quizbot, post_id, world.bob.id)) == 1

    picker = await pick(driver, incomplete, post_id, 1, "D", world.bob)
    right = await press(driver, picker, f"quiz:submit:{post_id}:{RIGHT}", world.bob)
    assert "✅ Right, every pair!" in text_of(right)
    assert "**13** points" in text_of(right)  # 20 × 2/3: one miss
    # Nothing of bob's picks reached the channel: only the post is there.
    public = driver.channel_messages(world.channels["quiz"])
    assert all("third city" not in text_of(m) for m in public)


async def filled(driver: Driver, post: Message, post_id: int, picks: str, who: Member) -> Message:
    """A fresh picker of the post with `picks` made on both pages, on its second page."""
    picker = await press(driver, post, f"quiz:open:{post_id}", who)
    for stem, option in enumerate(picks[:4], 1):
        picker = await pick(driver, picker, post_id, stem, option, who)
    picker = await press(driver, picker, f"quiz:page:{post_id}:1:", who)
    return await pick(driver, picker, post_id, 5, picks[4], who)


async def test_a_burst_of_submits_spends_three_attempts_and_review_brings_it_back(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", TASK)
    # Four pickers, each filled with a different wrong set, then all submitted at once.
    sets = ["BBBBB", "CCCCC", "DDDDD", "EEEEE"]
    pickers = [await filled(driver, post, post_id, picks, world.carol) for picks in sets]
    clicks = [
        click(driver, picker, f"quiz:submit:{post_id}:{picks}", user=world.carol)
        for picker, picks in zip(pickers, sets, strict=True)
    ]
    replies = await asyncio.wait_for(asyncio.gather(*(reply_of(c) for c in clicks)), STEP * 2)
    assert len(attempts(quizbot, post_id, world.carol.id)) == 3
    last = [text_of(r) for r in replies if "last attempt" in text_of(r)]
    assert len(last) == 1
    assert "France → Paris; Italy → Rome; Spain → Madrid; Japan → Tokyo; Peru → Lima" in last[0]

    review = await reply_of(
        driver.slash("review", user=world.carol, channel=world.channels["quiz"])
    )
    assert is_ephemeral(review) and "Match each country" in text_of(review)
    opened = await press(driver, review, "quiz:open:", world.carol)
    assert is_ephemeral(opened) and "quiz:pick:" in " ".join(custom_ids(opened))
