"""Every bound on a bank, in one place: each count and size is checked before any work
proportional to it, so a bank costs the host bounded time and memory (content/README.md lists
them for authors; what fits Discord is `rendering.render_problems`').
"""

from __future__ import annotations

from typing import Final

from bot import rendering
from bot.quiz import tasks

# A bank file over this is refused unread; 10,000 imported GIFT questions are about 6 MB.
MAX_FILE_BYTES: Final = 16_000_000
MAX_PROBLEMS_PER_FILE: Final = 100  # a file's check stops at the next, saying there are more
MAX_TASKS_PER_BANK: Final = 10_000  # one import of a large question bank
MAX_BLANKS: Final = tasks.MAX_BLANKS
# Options before a list is refused unread (labels end at Z); what fits Discord is rendering's.
MAX_OPTIONS: Final = len(tasks.OPTION_LABELS)
MAX_LABELS: Final = MAX_OPTIONS  # in a fill task's `answers` or a note's `options`
MAX_STEPS: Final = 20  # a solution's steps share one embed description
MAX_MISTAKES: Final = rendering.MAX_SELECT_OPTIONS  # about one per wrong option
MAX_TEXT: Final = rendering.EMBED_DESCRIPTION  # nothing the bot shows holds more
MAX_SHORT_TEXT: Final = rendering.EMBED_FIELD_VALUE  # the hint and each note: an embed field
MAX_TOPIC: Final = 100  # a command option's value, as members choose a topic
MAX_ECHO: Final = 40  # a value quoted back in a problem is cut to this


def too_large(size: int, limit: int) -> str:
    """A file of `size` bytes over a bank's `limit`, in one sentence."""
    return (
        f"the file is {size:,} bytes; a bank may be at most {limit:,} bytes: "
        "split it into several banks"
    )


def too_long(text: str, limit: int) -> str | None:
    """The problem with `text` if it is over `limit` as Discord counts it, else None."""
    size = rendering.discord_len(text)
    if size <= limit:
        return None
    return (
        f"the text is {size:,} characters as rendered; Discord allows {limit:,} where it is shown"
    )
