from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot import i18n
from tests.i18n.catalog_files import use_locale_dir


@pytest.fixture
def locale_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty QUIZBOT_LOCALE_DIR, searched before the shipped catalogs."""
    yield use_locale_dir(tmp_path / "locales", monkeypatch)
    i18n.clear_cache()
