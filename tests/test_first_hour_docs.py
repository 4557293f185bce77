"""What a newcomer starts from: the single-process compose.yaml, the health checks, the Docker build
context, .env.example, and the README's and docs' links and quick-start blocks."""

from __future__ import annotations

import fnmatch
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.settings import MissingTokenError, Settings

ROOT = Path(__file__).resolve().parent.parent
HEALTH = ["CMD", "quizbot", "health"]
DOCS = [ROOT / "README.md", ROOT / "BENCHMARKS.md", *sorted((ROOT / "docs").glob("*.md"))]


def load_yaml(name: str) -> dict[str, Any]:
    data = yaml.safe_load((ROOT / name).read_text())
    assert isinstance(data, dict)
    return data


def test_compose_runs_one_process_on_sqlite_kept_on_a_named_volume() -> None:
    compose = load_yaml("compose.yaml")
    (name,) = compose["services"]
    service = compose["services"][name]
    env = {str(k): str(v) for k, v in service.get("environment", {}).items()}
    # No DATABASE_URL and no shards: the image's own SQLite file on /data, one process.
    assert not {"DATABASE_URL", "SHARD_COUNT", "SHARD_IDS"} & env.keys()
    assert "DATABASE_URL=sqlite:////data/quizbot.db" in (ROOT / "Dockerfile").read_text()
    volume, _, target = next(v for v in service["volumes"] if v.endswith(":/data")).partition(":")
    assert target == "/data"
    assert volume in compose["volumes"], "a named volume, so the data outlives the container"
    # The token comes from the environment or .env when compose runs, never from the file.
    assert env["DISCORD_TOKEN"].startswith("${DISCORD_TOKEN:?")
    assert service["healthcheck"]["test"] == HEALTH
    assert service["build"] == "."


def test_every_long_running_service_of_the_scale_out_setup_has_a_health_check() -> None:
    services = load_yaml("compose.postgres.yaml")["services"]
    assert "pg_isready" in " ".join(services["postgres"]["healthcheck"]["test"])
    bots = [name for name, s in services.items() if s.get("command") is None and "build" in s]
    assert sorted(bots) == ["shard-0", "shard-1"]
    for name in bots:
        assert services[name]["healthcheck"]["test"] == HEALTH, name
    # The one-shot migration is waited for by its exit status, not a health check.
    for name in bots:
        assert services[name]["depends_on"]["migrate"]["condition"] == (
            "service_completed_successfully"
        )


def test_the_image_checks_its_own_health() -> None:
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    (check,) = [line for line in lines if line.startswith("HEALTHCHECK ")]
    assert check.endswith('CMD ["quizbot", "health"]')


def _ignored(path: str, patterns: list[str]) -> bool:
    """Docker's rule, enough for these patterns: the last matching line wins, `!` re-includes."""
    ignored = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        bare = pattern.lstrip("!")
        parts = path.split("/")
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        if any(
            fnmatch.fnmatch(p, bare) or (bare.startswith("**/") and fnmatch.fnmatch(p, bare[3:]))
            for p in prefixes
        ):
            ignored = not negate
    return ignored


def test_the_build_context_has_what_the_image_copies_and_no_secret_or_database() -> None:
    patterns = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    copied = [
        source
        for line in (ROOT / "Dockerfile").read_text().splitlines()
        if line.startswith("COPY ")
        for source in shlex.split(line)[1:-1]
    ]
    assert copied, "the Dockerfile copies files"
    for source in copied:
        assert not _ignored(source.rstrip("/"), patterns), source
    assert not _ignored("content/mlops/data-vs-model-parallelism.yaml", patterns)
    for kept_out in (
        ".env",
        ".git",
        ".venv",
        "data/quizbot.db",
        "quizbot.db",
        "x/quizbot.db-wal",
        "bot/__pycache__/cli.cpython-311.pyc",
        ".pytest_cache",
        "mutants",
    ):
        assert _ignored(kept_out, patterns), kept_out


def _names_in(text: str) -> set[str]:
    return set(re.findall(r"^#?\s*([A-Z][A-Z_]+)=", text, flags=re.MULTILINE))


def test_env_example_lists_every_setting_and_changes_no_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    example = (ROOT / ".env.example").read_text()
    aliases = {str(field.validation_alias) for field in Settings.model_fields.values()}
    assert _names_in(example) == aliases
    # A newcomer's `cp .env.example .env`, token not yet filled in: every value is the default,
    # and the bot says the token is missing (not a settings error).
    for alias in aliases:
        monkeypatch.delenv(alias, raising=False)
    monkeypatch.chdir(ROOT)
    copied = Settings(_env_file=ROOT / ".env.example")  # type: ignore[call-arg]
    defaults = Settings(_env_file=None)  # type: ignore[call-arg]
    assert copied.model_dump(exclude={"discord_token"}) == defaults.model_dump(
        exclude={"discord_token"}
    )
    with pytest.raises(MissingTokenError):
        copied.token()


def _quickstart(name: str) -> str:
    readme = (ROOT / "README.md").read_text()
    found = re.search(rf"<!-- quickstart:{name} -->\s*```bash\n(.+?)\n```", readme)
    assert found, f"README.md has the quickstart:{name} block"
    return found.group(1)


def test_the_readme_quick_start_sets_up_and_runs_with_the_token_from_env() -> None:
    assert _quickstart("env") == "cp .env.example .env"
    run = _quickstart("run")
    assert run.endswith(".venv/bin/quizbot run")
    assert "DISCORD_TOKEN" not in run, "a token on the command line would override .env"
    assert (ROOT / ".env.example").read_text().count("\nDISCORD_TOKEN=\n") == 1


def test_ci_runs_the_readme_test_command() -> None:
    readme_pytest = _quickstart("test").split("&&")[-1].strip()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert readme_pytest in [line.strip() for line in ci]


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _outside_code(text: str) -> str:
    """The text without its fenced code blocks (whose `#` lines are no headings)."""
    kept, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced:
            kept.append(line)
    return "\n".join(kept)


def _anchors(path: Path) -> set[str]:
    text = _outside_code(path.read_text())
    return {_slug(m) for m in re.findall(r"^#+ (.+)$", text, flags=re.MULTILINE)}


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_between_the_docs_leads_somewhere(doc: Path) -> None:
    text = _outside_code(doc.read_text())
    for target in re.findall(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # https://, mailto:
        file, _, anchor = target.partition("#")
        linked = (doc.parent / file).resolve() if file else doc
        assert linked.exists(), f"{doc.name}: {target}"
        if anchor and linked.suffix == ".md":
            assert anchor in _anchors(linked), f"{doc.name}: {target}"


def test_the_readme_shows_the_four_pictures_of_what_members_see() -> None:
    readme = (ROOT / "README.md").read_text()
    pictures = re.findall(r"!\[[^\]]+\]\((docs/images/[\w-]+\.png)\)", readme)
    assert sorted(pictures) == [
        "docs/images/feedback.png",
        "docs/images/picker.png",
        "docs/images/stats.png",
        "docs/images/task-post.png",
    ]
