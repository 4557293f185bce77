"""Every bound on a bank, in one place: how big a file, a list, a text or a report may get.

A bank comes from whoever writes content, and checking it must cost the host a bounded amount
of time and memory whatever the file holds. So each count and size is checked against its
bound *before* any work proportional to it (reading, walking, building one message per item),
and what is over a bound is one problem, not one per item. The bounds come from the model
(`MAX_BLANKS`, the option labels A–Z) and from what Discord can show (`bot/rendering.py`); the
exact Discord checks of a built task stay in `rendering.render_problems`, these only make sure
nothing larger ever gets that far. content/README.md lists them for authors.
"""

from __future__ import annotations

from typing import Final

from bot import rendering
from bot.quiz import tasks

MAX_FILE_BYTES: Final = 16_000_000
"""A bank file over this is refused before it is read or parsed. The seed bank is 13 kB; an
import of 10,000 GIFT questions writes about 6 MB, which must still check. (Banks uploaded in
Discord have their own, smaller bounds, checked before the file is even downloaded.)"""

MAX_PROBLEMS_PER_FILE: Final = 100
"""Problems listed per file; the check of a file stops at the next one, saying there are more."""

MAX_TASKS_PER_BANK: Final = 10_000
"""Tasks in one file: what one import of a large question bank writes; a larger bank is split
into several files."""

MAX_BLANKS: Final = tasks.MAX_BLANKS
"""Blanks [1]..[MAX_BLANKS] in a fill template; any other number is out of range."""

MAX_OPTIONS: Final = len(tasks.OPTION_LABELS)
"""Options a list may hold before it is refused unread: the labels run out after Z.
How many the bot can show (20 buttons, or 25 in a select menu per blank) is decided from the
built task by `rendering.render_problems`."""

MAX_LABELS: Final = MAX_OPTIONS
"""Labels in a fill task's `answers` or a note's `options`; the exact count (one per blank, each
among the options) is checked once the list is within this bound."""

MAX_STEPS: Final = 20
"""Steps of a worked solution (all of them share one embed of `EMBED_DESCRIPTION` characters)."""

MAX_MISTAKES: Final = rendering.MAX_SELECT_OPTIONS
"""Mistake notes of a task: about one per wrong option (all of them share one embed field)."""

MAX_TEXT: Final = rendering.EMBED_DESCRIPTION
"""Any text: nothing the bot shows can hold more than an embed description."""

MAX_SHORT_TEXT: Final = rendering.EMBED_FIELD_VALUE
"""The hint and each mistake note: each is shown as an embed field value."""

MAX_TOPIC: Final = 100
"""A topic: members choose it as the value of a command option (/quiz topic, /practice), which
Discord caps at 100 characters; a longer topic could never be chosen."""

MAX_ECHO: Final = 40
"""A value quoted back in a problem (a key, a label, a number) is cut to this many characters."""


def too_long(text: str, limit: int) -> str | None:
    """The problem with `text` if it is over `limit` as Discord counts it, else None."""
    size = rendering.discord_len(text)
    if size <= limit:
        return None
    return (
        f"the text is {size:,} characters as rendered; Discord allows {limit:,} where it is shown"
    )
