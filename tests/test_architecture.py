"""The rules and storage must not depend on Discord: they are tested, and reused, without it."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PURE = [
    "bot/quiz",
    "bot/store",
    "bot/content",
    "bot/schedule",
    "bot/rendering.py",
    "bot/service.py",
]
FORBIDDEN = ("discord",)


def modules_under(rel: str) -> list[Path]:
    path = ROOT / rel
    return [path] if path.suffix == ".py" else sorted(path.rglob("*.py"))


def imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("rel", PURE)
def test_rules_and_storage_do_not_import_discord(rel: str) -> None:
    files = modules_under(rel)
    assert files, f"{rel} holds no modules"
    offenders = [str(f.relative_to(ROOT)) for f in files if imported_roots(f) & set(FORBIDDEN)]
    assert offenders == []


def test_quiz_engine_imports_neither_discord_nor_sql_at_runtime() -> None:
    code = (
        "import sys, bot.quiz.engine, bot.quiz.tasks, bot.store, bot.service;"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] == 'discord');"
        "print(','.join(bad))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""
    engine_roots = imported_roots(ROOT / "bot/quiz/engine.py") | imported_roots(
        ROOT / "bot/quiz/tasks.py"
    )
    assert not engine_roots & {"sqlmodel", "sqlalchemy", "discord", "yaml"}
