"""What the import-linter contracts (pyproject.toml, `[tool.importlinter]`; run by .ci/run as
`lint-imports`) cannot see, checked here:

- an import by name at run time (`importlib.import_module`, `__import__`): the contracts read
  import statements only, so `importlib.import_module("sqlalchemy")` in bot/quiz would pass
  them. Only one form is allowed: a child of the calling module's own package
  (`f"{__name__}.{…}"`, the content importers' lazy load), whose own imports the contracts do
  check. Any other target is written as an import statement, so the contracts see it.
- `bot/quiz/` imports nothing but the standard library, and FSRS in `bot/quiz/review.py` (the
  rules of spaced review, a pure library): a contract forbids the libraries the bot uses, this
  refuses any other too.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "bot"

STDLIB = frozenset(sys.stdlib_module_names) | {"__future__"}
LOADERS = frozenset({"import_module", "__import__"})


def where(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def imported_roots(tree: ast.AST) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def _own_child(target: ast.expr) -> bool:
    """`f"{__name__}.<…>"`: a module under the caller's own package."""
    return (
        isinstance(target, ast.JoinedStr)
        and len(target.values) >= 2
        and isinstance(first := target.values[0], ast.FormattedValue)
        and isinstance(first.value, ast.Name)
        and first.value.id == "__name__"
        and isinstance(dot := target.values[1], ast.Constant)
        and str(dot.value).startswith(".")
    )


def dynamic_imports(source: str) -> list[str]:
    """Each run-time import by name in `source` whose target is not the caller's own child,
    as `line: code`. A loader named without a call (passed on, or renamed) counts too: what it
    will load cannot be read."""
    tree = ast.parse(source)
    names = set(LOADERS)  # the builtin, and `from importlib import import_module [as x]`
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "importlib":
            names.update(a.asname or a.name for a in node.names if a.name in LOADERS)
    allowed: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and _own_child(node.args[0]):
            allowed.add(id(node.func))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Name | ast.Attribute) or id(node) in allowed:
            continue
        if (node.id in names) if isinstance(node, ast.Name) else (node.attr in LOADERS):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_imports_by_a_name_the_contracts_cannot_read() -> None:
    found = {
        where(path): hits
        for path in sorted(PACKAGE.rglob("*.py"))
        if (hits := dynamic_imports(path.read_text()))
    }
    assert found == {}


@pytest.mark.parametrize(
    "source",
    [
        'import importlib\nimportlib.import_module("sqlalchemy")',
        'import importlib\nimportlib.import_module(f"bot.{name}")',
        'from importlib import import_module as load\nload("discord")',
        '__import__("discord")',
        "import importlib\nloader = importlib.import_module",
        'import importlib\nimportlib.import_module(f"{__name__}x.y")',
    ],
)
def test_an_import_by_name_is_found(source: str) -> None:
    assert dynamic_imports(source) != []


def test_loading_a_child_of_ones_own_package_is_allowed() -> None:
    assert dynamic_imports('import importlib\nimportlib.import_module(f"{__name__}.{x}")') == []


ALLOWED_IN_RULES = {"bot/quiz/review.py": {"fsrs"}}


def test_the_rules_are_plain_python() -> None:
    rules = sorted((PACKAGE / "quiz").rglob("*.py"))
    assert rules
    outside = {
        where(path): sorted(extra)
        for path in rules
        if (
            extra := imported_roots(ast.parse(path.read_text()))
            - STDLIB
            - {"bot"}
            - ALLOWED_IN_RULES.get(where(path), set())
        )
    }
    assert outside == {}
