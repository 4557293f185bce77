"""English that reached a member although the bot spoke a pseudo-locale (tests/i18n/pseudo.py).

What the bot showed (the emulator's `Driver.record_what_the_bot_says`) is cut into its visible
texts; what may stay English is taken out (bank content, mentions and timestamps, links, code,
/command names, the names of members, channels and servers); what is left is cut into words. A
pseudo-translated word carries an accented letter, so a run of two or more plain-ASCII words is
English that bypassed the catalogs, even inside a translated sentence (a placeholder filled with
English); so is a word of a text where nothing was translated (a label "Hint", "easy · 10
pts"). A run found word for word in the banks is bank content (a truncated option, a wrapped
line) and passes.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

JSON = dict[str, Any]

_EMBED_TEXTS = ("title", "description")
_COMPONENT_TEXTS = ("label", "placeholder", "content", "description", "title")
_NESTED = ("components", "items")
_NESTED_ONE = ("accessory", "component")
_TEXT_INPUT = 4  # its `value` is text the member sees prefilled
_NAMED = frozenset({"kind", "difficulty"})  # a bank's words that the bot translates
_KEPT = re.compile(
    r"<[@#:a-z/!&][^<>\s]*>"  # mentions, channels, custom emoji, timestamps, command mentions
    r"|https?://\S+"
    r"|`[^`]*`"  # code: a value the member typed, a command with its options
    r"|(?<![\w/])/[a-z][a-z-]*(?: [a-z][a-z-]*)?(?=[\s`*.,:;!?)]|$)"  # /command [sub]
)
_NUMBER = re.compile(r"[-+]?\d+(?:[.,:/]\d+)*%?")
_ESCAPED = re.compile(r"\\([*_`~|>\\])")  # discord.utils.escape_markdown's backslashes
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")
# Between two words of one run: spaces and a sentence's own punctuation, nothing else.
_GLUE = re.compile(r"[\s,;:.!?'\"()*-]*")


def visible_texts(shown: JSON) -> Iterator[str]:
    """Every text a member reads in one thing the bot showed: a message's content, embeds
    (title, description, fields, footer, author) and components (labels, placeholders, select
    options, text displays); a modal's title and inputs; autocomplete choices' names."""
    if "choices" in shown:
        yield from (str(choice.get("name") or "") for choice in shown["choices"])
        return
    if "modal" in shown:
        modal = shown["modal"]
        yield str(modal.get("title") or "")
        yield from _component_texts(modal.get("components") or [])
        return
    yield str(shown.get("content") or "")
    for embed in shown.get("embeds") or []:
        yield from (str(embed.get(key) or "") for key in _EMBED_TEXTS)
        for field in embed.get("fields") or []:
            yield from (str(field.get("name") or ""), str(field.get("value") or ""))
        yield str((embed.get("footer") or {}).get("text") or "")
        yield str((embed.get("author") or {}).get("name") or "")
    yield from _component_texts(shown.get("components") or [])


def _component_texts(components: Iterable[Any]) -> Iterator[str]:
    for component in components:
        if not isinstance(component, dict):
            continue
        yield from (str(component.get(key) or "") for key in _COMPONENT_TEXTS)
        if component.get("type") == _TEXT_INPUT:
            yield str(component.get("value") or "")
        for option in component.get("options") or []:
            yield from (str(option.get("label") or ""), str(option.get("description") or ""))
        for key in _NESTED:
            yield from _component_texts(component.get(key) or [])
        for key in _NESTED_ONE:
            if isinstance(component.get(key), dict):
                yield from _component_texts([component[key]])


def bank_strings(folder: Path) -> set[str]:
    """Every string of every bank under `folder` (questions, options, notes, hints, topics,
    ids, solutions...): content the bot shows as it is. Not a task's kind and difficulty:
    the bot names those in the reader's language."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.add(value.strip())
        elif isinstance(value, dict):
            for key, item in value.items():
                if key not in _NAMED:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for bank in sorted(folder.rglob("*.yaml")):
        walk(yaml.safe_load(bank.read_text(encoding="utf-8")))
    return {s for s in found if s}


def _words(text: str) -> str:
    return " ".join(w.lower() for w in _WORD.findall(text))


def _is_emoji(char: str) -> bool:
    return unicodedata.category(char) == "So" or char in "\ufe0f\u200d"


def is_english(word: str) -> bool:
    """Plain ASCII letters: a pseudo-translated word always carries an accented one. Not an
    acronym or a format's letters ("UTC", "HH:MM"): the pseudo-locale leaves those as they are."""
    return len(word) >= 2 and word.isascii() and not word.isupper()


@dataclass(frozen=True)
class Leak:
    """A text a member was shown, with its runs of English."""

    text: str
    runs: tuple[str, ...]

    def __str__(self) -> str:
        return f"{' | '.join(self.runs)}  <<  {self.text[:400]!r}"


class LeakFinder:
    """Finds English runs in the texts the bot showed, given what may stay English."""

    def __init__(self, kept: Iterable[str]) -> None:
        kept = sorted({k for k in kept if k.strip()}, key=len, reverse=True)
        self._kept = re.compile(
            "|".join(rf"(?<!\w){re.escape(k)}(?!\w)" for k in kept) or r"(?!x)x"
        )
        self._corpus = " " + " ".join(_words(k) for k in kept) + " "

    def runs(self, text: str) -> list[str]:
        """The runs of English words left in `text` once what may stay English is out."""
        # Bank content first (a question may hold code or a link of its own); it ends a run.
        # Mentions, links, code, commands, numbers and emoji are taken out and the words
        # around them read as one run: "Page 1 of 2" is the English run "Page of".
        cleaned = self._kept.sub(" \x00 ", _ESCAPED.sub(r"\1", text))
        cleaned = _NUMBER.sub(" ", _KEPT.sub(" ", cleaned))
        cleaned = "".join(" " if _is_emoji(c) else c for c in cleaned)
        found: list[str] = []
        run: list[str] = []
        in_runs: set[str] = set()
        last_end = 0

        def close() -> None:
            words = " " + " ".join(w.lower() for w in run)
            # A bank text cut short for Discord's limits ends in "…", maybe mid-word.
            cut = cleaned.startswith("…", last_end)
            if len(run) >= 2:
                in_runs.update(run)
                if (words if cut else words + " ") not in self._corpus:
                    found.append(" ".join(run))
            run.clear()

        for match in _WORD.finditer(cleaned):
            word = match.group()
            if not _GLUE.fullmatch(cleaned[last_end : match.start()]):
                close()
            if is_english(word):
                run.append(word)
            else:
                close()
            last_end = match.end()
        close()
        words = _WORD.findall(cleaned)
        if all(w.isascii() for w in words):  # nothing translated here: "Hint", "easy · 10 pts"
            found += [w for w in dict.fromkeys(words) if w not in in_runs and self._lone(w)]
        return found

    def _lone(self, word: str) -> bool:
        # Not a word of the banks ("MLOps", an option "list").
        return is_english(word) and len(word) >= 3 and f" {word.lower()} " not in self._corpus

    def leaks_in(self, transcript: Iterable[JSON]) -> list[Leak]:
        """Each text the bot showed with English in it, once, in the order first shown."""
        seen: set[str] = set()
        out: list[Leak] = []
        for shown in transcript:
            for text in visible_texts(shown):
                if text in seen:
                    continue
                seen.add(text)
                if runs := self.runs(text):
                    out.append(Leak(text, tuple(runs)))
        return out
