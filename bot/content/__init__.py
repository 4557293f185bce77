"""Task banks: the YAML format, its validation, and the `quizbot content` commands."""

from bot.content.loader import check_banks, find_bank_files, load_banks
from bot.content.problems import ContentError, Problem

__all__ = ["ContentError", "Problem", "check_banks", "find_bank_files", "load_banks"]
