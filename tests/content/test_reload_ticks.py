"""The watch's tick walks the banks only for a host that needs it: one with a bank linked from
outside the watched folder, whose change brings no event from the folder. Everyone else's
changes come as events, so a tick is one stat of the folder and no more."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.content import reload as reload_module
from bot.content.loader import Fingerprint
from bot.content.reload import ContentReloader

from .test_reload import bank
from .test_reload_edges import armed_watch, reloaders, until

__all__ = ["reloaders"]  # the fixture, shared with test_reload_edges

TICKS = 10
POLL_S = 0.05  # the watch's tick in these tests (test_reload_edges.watch)


def count_walks(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every fingerprint walk the watch makes from now on."""
    walks: list[Path] = []
    real = reload_module.fingerprint_of

    def counted(path: Path) -> Fingerprint | None:
        walks.append(path)
        return real(path)

    monkeypatch.setattr(reload_module, "fingerprint_of", counted)
    return walks


async def walks_over_ticks(
    content: Path,
    reloaders: list[ContentReloader],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> int:
    """How many walks the watch makes over `TICKS` ticks once armed (its arming walks once)."""
    walks = count_walks(monkeypatch)
    await armed_watch(reloaders, content, caplog)
    await until(lambda: len(walks) >= 1, "the arming check")
    armed = len(walks)
    await asyncio.sleep(TICKS * POLL_S)
    return len(walks) - armed


async def test_a_folder_without_outside_links_is_not_walked_on_the_tick(
    tmp_path: Path,
    reloaders: list[ContentReloader],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    content = tmp_path / "content"
    (content / "..data").mkdir(parents=True)
    (content / "a.yaml").write_text(bank("c-1"))
    # A link that stays inside the folder (a Kubernetes ConfigMap's) changes with events.
    (content / "..data" / "b.yaml").write_text(bank("c-2"))
    (content / "b.yaml").symlink_to(content / "..data" / "b.yaml")
    assert await walks_over_ticks(content, reloaders, caplog, monkeypatch) == 0


async def test_a_folder_with_a_bank_linked_from_outside_is_walked_on_the_tick(
    tmp_path: Path,
    reloaders: list[ContentReloader],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    content = tmp_path / "content"
    content.mkdir()
    (content / "a.yaml").write_text(bank("c-1"))
    (tmp_path / "shared.yaml").write_text(bank("c-2"))
    (content / "s.yaml").symlink_to(tmp_path / "shared.yaml")
    assert await walks_over_ticks(content, reloaders, caplog, monkeypatch) >= 2
