"""Walking a YAML node tree and reporting what is wrong with it, at a bounded cost.

Nodes, not `safe_load`'s dicts: every problem names its line, and a bare `yes` where text belongs
is caught. A node reached again through an alias is one problem, never walked again (a "billion
laughs" file), and a file's walk stops after `MAX_PROBLEMS_PER_FILE`.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Final, TypeVar

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from bot.content.limits import MAX_ECHO, MAX_PROBLEMS_PER_FILE, MAX_TEXT, too_long
from bot.content.problems import Problem
from bot.content.safety import Shape, text_problem
from bot.rendering import truncate

E = TypeVar("E", bound=StrEnum)
_TAG: Final = "tag:yaml.org,2002:"
STR_TAG: Final = _TAG + "str"
NULL_TAG: Final = _TAG + "null"
BOOL_TAG: Final = _TAG + "bool"


class EnoughProblems(Exception):
    """The file has more problems than are listed: its walk stops here."""


def line_of(node: Node | None) -> int | None:
    # A tree built by a representer (an import's) has no marks: no line to give.
    mark = None if node is None else node.start_mark
    return None if mark is None else mark.line + 1


def shown(value: str) -> str:
    """`value` as quoted back in a message: one line, at most `MAX_ECHO` characters."""
    return truncate(" ".join(value.split()), MAX_ECHO)


def describe(node: Node) -> str:
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    value = shown(str(node.value))
    kinds = {
        "str": "text",
        "bool": f"true/false ({value!r})",
        "int": f"a number ({value})",
        "float": f"a number ({value})",
        "null": "nothing",
        "timestamp": f"a date ({value})",
    }
    name = node.tag.removeprefix(_TAG)
    return kinds.get(name, f"a value tagged {shown(node.tag)}")


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def unknown_key_message(key: str, allowed: Mapping[str, bool]) -> str:
    # A guess only for a key of a plausible length: difflib's cost grows with it.
    plausible = len(key) <= 2 * max(map(len, allowed))
    close = difflib.get_close_matches(key, allowed, n=1) if plausible else []
    guess = f" (did you mean '{close[0]}'?)" if close else ""
    return f"unknown key '{shown(key)}'{guess}; allowed here: {', '.join(allowed)}"


class NodeChecker:
    """Checks one file's nodes, collecting every problem up to the bound."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self.problems: list[Problem] = []
        self.task_id: str | None = None  # of the problems that follow, once known
        self.lines: dict[str, int] = {}  # by field path, since the last reset
        self._walked: set[int] = set()
        self._aliased: set[int] = set()

    def report(self, node: Node | None, path: str | None, message: str) -> None:
        problem = Problem(self.file, line_of(node), self.task_id, path or None, message)
        self.problems.append(problem)
        if len(self.problems) > MAX_PROBLEMS_PER_FILE:
            raise EnoughProblems

    def _text_of(
        self, fields: Mapping[str, Node], prefix: str, key: str, *, limit: int = MAX_TEXT
    ) -> str | None:
        # A missing required key was already reported by fields().
        return self.text(fields[key], join(prefix, key), limit=limit) if key in fields else None

    def fresh(self, node: Node, path: str) -> bool:
        """Whether the walk reaches `node` for the first time; a repeat (an alias) is said once."""
        key = id(node)
        if key not in self._walked:
            self._walked.add(key)
            return True
        if key not in self._aliased:
            self._aliased.add(key)
            self.report(
                node,
                path,
                "the value on this line is used again here through a YAML alias (*name); banks "
                "allow no repeated value: write it out where it is needed",
            )
        return False

    def mapping(self, node: Node, path: str, keys: Mapping[str, bool]) -> dict[str, Node] | None:
        if not self.fresh(node, path):
            return None
        if not isinstance(node, MappingNode):
            self.report(node, path, f"expected a mapping (key: value lines), got {describe(node)}")
            return None
        return self.fields(node, path, keys)

    def fields(self, node: MappingNode, path: str, keys: Mapping[str, bool]) -> dict[str, Node]:
        """The allowed keys of a `fresh` mapping (each other key is a problem: the bound holds)."""
        found: dict[str, Node] = {}
        for key_node, value_node in node.value:
            self._add_key(key_node, value_node, path, keys, found)
        for key, required in keys.items():
            if required and key not in found:
                self.report(node, join(path, key), f"missing required key '{key}'")
        return found

    def _add_key(
        self,
        key_node: Node,
        value_node: Node,
        path: str,
        keys: Mapping[str, bool],
        found: dict[str, Node],
    ) -> None:
        if not (isinstance(key_node, ScalarNode) and key_node.tag == STR_TAG):
            self.report(key_node, path, f"keys must be text, got {describe(key_node)}")
            return
        key = key_node.value
        if key not in keys:
            self.report(key_node, join(path, shown(key)), unknown_key_message(key, keys))
            return
        key_path = join(path, key)
        if key in found:
            first = self.lines.get(key_path)
            # safe_load would silently keep the last one; say so instead.
            self.report(key_node, key_path, f"'{key}' is given twice (first on line {first})")
        else:
            found[key] = value_node
            self.lines[key_path] = line_of(key_node) or 0

    def text(
        self,
        node: Node,
        path: str,
        *,
        code: bool = False,
        limit: int = MAX_TEXT,
        shape: Shape = Shape.PROSE,
    ) -> str | None:
        if not self.fresh(node, path):
            return None
        if isinstance(node, ScalarNode) and node.tag == NULL_TAG:
            self.report(node, path, "must not be empty")
            return None
        if not (isinstance(node, ScalarNode) and node.tag == STR_TAG):
            quote = " (put it in quotes)" if isinstance(node, ScalarNode) else ""
            self.report(node, path, f"expected text, got {describe(node)}{quote}")
            return None
        # Code keeps its indentation; only the newline a block scalar adds is dropped.
        value = node.value.strip("\n").rstrip() if code else node.value.strip()
        if not value.strip():
            self.report(node, path, "must not be empty")
            return None
        problem = text_problem(value, shape) or too_long(value, limit)
        if problem:
            self.report(node, path, problem)
            return None
        return value

    def sequence(
        self, node: Node, path: str, *, at_most: int, at_least: int = 0, what: str = "item"
    ) -> list[Node] | None:
        """The items of a list, its count checked first."""
        if not self.fresh(node, path):
            return None
        if not isinstance(node, SequenceNode):
            self.report(node, path, f"expected a list, got {describe(node)}")
            return None
        count = len(node.value)
        # The content report is English, for the CLI and /bank upload alike: every noun counted
        # here takes an "s".
        if count > at_most:
            many = f"{count:,} {what}{'' if count == 1 else 's'}"
            self.report(node, path, f"{many}; at most {at_most:,} are allowed")
            return None
        for i, item in enumerate(node.value):
            self.lines[f"{path}[{i}]"] = line_of(item) or 0
        if count < at_least:
            least = f"{at_least:,} {what}{'' if at_least == 1 else 's'}"
            self.report(node, path, f"needs at least {least}")
            return None
        return list(node.value)

    def flag(self, node: Node, path: str) -> bool | None:
        """A YAML true/false; None (and a problem) for anything else."""
        if isinstance(node, ScalarNode) and node.tag == BOOL_TAG:
            return node.value.lower() in ("true", "yes", "on")
        self.report(node, path, f"expected true or false, got {describe(node)}")
        return None

    def choose(self, node: Node | None, path: str, allowed: type[E]) -> E | None:
        """The member `node` names (None, and a problem, for another text; None for no node)."""
        value = None if node is None else self.text(node, path)
        if value is None:
            return None
        if value not in {member.value for member in allowed}:
            names = ", ".join(member.value for member in allowed)
            what = allowed.__name__.lower()
            self.report(node, path, f"{what} '{shown(value)}' is not one of {names}")
            return None
        return allowed(value)
