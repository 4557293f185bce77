"""What /mydata show and the end of /mydata delete say, from the store's values."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.discord_ui.cogs.mydata import NOTHING_KEPT, deleted_text, summary_text
from bot.rendering import MESSAGE_CONTENT
from bot.store.member_data import MemberData, Span

AT = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
LATER = datetime(2026, 4, 2, 18, 0, tzinfo=UTC)
EMPTY = MemberData(
    name=None,
    first_seen=None,
    attempts=Span(),
    correct=0,
    finished=0,
    solved=0,
    points=0,
    hints=0,
    solutions=0,
    review_cards=0,
    next_review=None,
    reminder=None,
    practice_sessions=Span(),
    review_sessions=Span(),
    posts=0,
)


def test_everything_kept_is_listed_with_its_dates() -> None:
    data = MemberData(
        name="ali_ce*",
        first_seen=AT,
        attempts=Span(12, AT, LATER),
        correct=8,
        finished=5,
        solved=4,
        points=23,
        hints=2,
        solutions=1,
        review_cards=7,
        next_review=LATER,
        reminder=(18, None),
        practice_sessions=Span(1, AT, AT),
        review_sessions=Span(3, AT, LATER),
        posts=2,
    )
    text = summary_text(data)
    assert r"**ali\_ce\***" in text  # a name is shown as written, not as markdown
    assert f"first seen <t:{int(AT.timestamp())}:D>" in text
    assert f"12 answers (8 right), from <t:{int(AT.timestamp())}:D> to <t:" in text
    assert "5 tasks (4 solved), 23 points on the leaderboard" in text
    assert "Hints opened on 2 tasks, solutions on 1 task" in text
    assert f"Review cards: 7, next due <t:{int(LATER.timestamp())}:R>" in text
    assert "Review reminder: on, at 18:00 (the server’s zone)" in text
    assert f"Practice sessions: 1, on <t:{int(AT.timestamp())}:D>" in text
    assert "Review sessions: 3, from" in text
    assert "Posted with /quiz: 2 tasks" in text
    assert len(text) < MESSAGE_CONTENT


def test_nothing_kept_says_so() -> None:
    assert summary_text(EMPTY) == NOTHING_KEPT
    assert deleted_text({}) == f"Nothing to delete: {NOTHING_KEPT}"


def test_the_deletion_names_what_went_in_members_words() -> None:
    text = deleted_text(
        {"attempt": 1, "score": 2, "member_total": 1, "member": 1, "post.posted_by": 1}
    )
    assert "(1 answer, 2 finished tasks, 1 post made with /quiz, now without your id)" in text
    assert "Your points have left the leaderboard." in text
