"""The layers' contract: each third-party library that defines a layer is imported only there.

- SQL (`sqlalchemy`, `sqlmodel`, `sqlite3`, `alembic`) only under `bot/store/`: storage is one
  module's business, so a second engine is a change there.
- `discord` only under `bot/discord_ui/` (and the CLI entry, which starts it): the rules, the
  content, the store and the scheduler are tested, and reused, without Discord.
- `bot/quiz/` imports no third-party library at all: the rules are plain Python.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "bot"

SQL = frozenset({"sqlalchemy", "sqlmodel", "sqlite3", "alembic"})
DISCORD = frozenset({"discord"})
ALLOWED: dict[frozenset[str], tuple[str, ...]] = {
    SQL: ("bot/store/",),
    DISCORD: ("bot/discord_ui/", "bot/cli.py"),
}
STDLIB = frozenset(sys.stdlib_module_names) | {"__future__"}


def imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def where(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("layer", [SQL, DISCORD], ids=["sql", "discord"])
def test_a_layers_library_is_imported_only_in_that_layer(layer: frozenset[str]) -> None:
    offenders = [
        where(path)
        for path in modules()
        if imported_roots(path) & layer and not where(path).startswith(ALLOWED[layer])
    ]
    assert offenders == []


def test_the_rules_are_plain_python() -> None:
    rules = sorted((PACKAGE / "quiz").rglob("*.py"))
    assert rules
    outside = {
        where(path): sorted(imported_roots(path) - STDLIB - {"bot"})
        for path in rules
        if imported_roots(path) - STDLIB - {"bot"}
    }
    assert outside == {}
    reaching_out = [
        where(path)
        for path in rules
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom)
        and (node.module or "").startswith("bot.")
        and not (node.module or "").startswith(("bot.quiz", "bot.clock"))
    ]
    assert reaching_out == []


def test_importing_the_service_loads_no_discord() -> None:
    code = (
        "import sys, bot.quiz.engine, bot.store, bot.service, bot.schedule.runner;"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] == 'discord');"
        "print(','.join(bad))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""
