"""Counted nouns in what the bot says: "1 task", "2 tasks", "1,200 attempts"."""

from __future__ import annotations


def plural(count: int, noun: str, *, bold: bool = False) -> str:
    """`count` and `noun`, with an "s" unless the count is one (every noun we count takes
    one); `bold` marks the number up for Discord."""
    number = f"{count:,}"
    if bold:
        number = f"**{number}**"
    return f"{number} {noun}{'' if count == 1 else 's'}"
