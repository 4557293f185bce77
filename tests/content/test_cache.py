"""The on-disk catalog cache: a hit skips parsing; any change to the banks is a miss."""

import os
import shutil
from pathlib import Path

import pytest

from bot.content import ContentError, cache, load_banks
from bot.settings import Settings

SEED = Path(__file__).resolve().parents[2] / "content" / "mlops"


@pytest.fixture
def banks(tmp_path: Path) -> Path:
    folder = tmp_path / "content"
    shutil.copytree(SEED, folder / "mlops")
    return folder


def no_parsing(*_: object) -> None:
    raise AssertionError("parsed the banks although the cache should have answered")


def test_a_restart_with_unchanged_banks_is_answered_from_the_cache(
    banks: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache_file = tmp_path / "data" / "content-cache.pickle"
    first = cache.load_banks_cached(banks, cache_file)
    assert cache_file.exists()
    monkeypatch.setattr(cache, "load_banks", no_parsing)
    again = cache.load_banks_cached(banks, cache_file)
    assert list(again.tasks) == list(first.tasks)
    assert again.get("mlops-parallelism-fill-5") == first.get("mlops-parallelism-fill-5")


def test_an_edited_bank_is_parsed_again(banks: Path, tmp_path: Path) -> None:
    cache_file = tmp_path / "cache.pickle"
    cache.load_banks_cached(banks, cache_file)
    bank = banks / "mlops" / "data-vs-model-parallelism.yaml"
    text = bank.read_text().replace("difficulty: easy", "difficulty: medium", 1)
    bank.write_text(text)
    stat = bank.stat()
    os.utime(bank, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    edited = cache.load_banks_cached(banks, cache_file)
    assert edited.get("mlops-parallelism-fill-1").difficulty == "medium"


def test_a_broken_bank_is_reported_even_after_a_clean_cache(banks: Path, tmp_path: Path) -> None:
    cache_file = tmp_path / "cache.pickle"
    cache.load_banks_cached(banks, cache_file)
    bank = banks / "mlops" / "data-vs-model-parallelism.yaml"
    bank.write_text(bank.read_text().replace("answers: [B]", "answers: [Z]", 1))
    with pytest.raises(ContentError) as raised:
        cache.load_banks_cached(banks, cache_file)
    assert "mlops-parallelism-fill-1" in str(raised.value)


def test_a_torn_cache_file_is_a_miss_not_a_failed_start(banks: Path, tmp_path: Path) -> None:
    cache_file = tmp_path / "cache.pickle"
    cache_file.write_bytes(b"\x80\x05not a pickle")
    catalog = cache.load_banks_cached(banks, cache_file)
    assert len(catalog) == len(load_banks(banks)) == 10


def test_an_unwritable_cache_location_only_costs_the_cache(banks: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert len(cache.load_banks_cached(banks, blocker / "cache.pickle")) == 10


def test_an_empty_content_cache_setting_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONTENT_CACHE", "")
    assert Settings(_env_file=None).content_cache is None
    monkeypatch.setenv("CONTENT_CACHE", "/data/c.pickle")
    assert Settings(_env_file=None).content_cache == Path("/data/c.pickle")
