"""The last validated catalog, kept on disk so that a restart with unchanged banks skips parsing
(seconds at 10,000 tasks). Keyed by every bank's path, size and mtime and by the source of the
code that loads tasks; written only after a clean check, beside the database.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import pickle
import stat
from pathlib import Path

from bot.content.loader import Survey, find_bank_files, load_banks, remember_checked, survey
from bot.quiz.tasks import Catalog

log = logging.getLogger(__name__)

_PACKAGE = Path(__file__).resolve().parent.parent
_CODE = ("content", "quiz/tasks.py", "rendering.py")

Key = tuple[str, tuple[tuple[str, int, int], ...]]


def _code_digest() -> str:
    digest = hashlib.sha256()
    for rel in _CODE:
        path = _PACKAGE / rel
        for source in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            digest.update(source.name.encode())
            digest.update(source.read_bytes())
    return digest.hexdigest()


def cache_key(seen: Survey) -> Key | None:
    """From the watch's fingerprint; None when a file cannot be stat'ed (the check says why)."""
    if not seen.complete:
        return None
    stamps = tuple(
        (real, size, mtime_ns)
        for real, (_, _, _, size, mtime_ns, _) in zip(seen.real, seen.fingerprint, strict=True)
    )
    return _code_digest(), stamps


def _read(cache_file: Path, key: Key) -> Catalog | None:
    try:
        with cache_file.open("rb") as fh:
            saved_key, catalog = pickle.load(fh)
    except FileNotFoundError:
        return None
    except Exception as exc:  # a torn or foreign file is a miss, never a failed start
        log.warning("ignoring the content cache %s: %s", cache_file, exc)
        return None
    return catalog if saved_key == key and isinstance(catalog, Catalog) else None


def _write(cache_file: Path, key: Key, catalog: Catalog) -> None:
    # Through links, and only over a regular file (never replace /dev/null with pickles).
    target = Path(os.path.realpath(cache_file))
    partial = target.with_name(target.name + ".tmp")
    try:
        with contextlib.suppress(FileNotFoundError):
            if not stat.S_ISREG(target.stat().st_mode):
                log.warning("not writing the content cache %s: not a regular file", cache_file)
                return
        target.parent.mkdir(parents=True, exist_ok=True)
        with partial.open("wb") as fh:
            pickle.dump((key, catalog), fh, protocol=pickle.HIGHEST_PROTOCOL)
        partial.replace(target)  # readers see the old file or the new one, never half
    except OSError as exc:
        log.warning("cannot write the content cache %s: %s", cache_file, exc)
        with contextlib.suppress(OSError):
            partial.unlink()


def load_banks_cached(path: Path, cache_file: Path | None) -> Catalog:
    """`load_banks(path)`, answered from `cache_file` when nothing changed since it was written."""
    if cache_file is None:
        return load_banks(path)
    try:
        files = find_bank_files(path)
    except OSError:  # a folder the bot may list but not look into: load_banks says so
        return load_banks(path)
    seen = survey(files)
    key = cache_key(seen)
    catalog = None if key is None else _read(cache_file, key)
    if catalog is not None:
        remember_checked(path, seen)  # for the watch, as a full check would (loader.read_banks)
        log.info("loaded %d tasks from the content cache %s", len(catalog), cache_file)
        return catalog
    catalog = load_banks(path)
    if key is not None:
        _write(cache_file, key, catalog)
    return catalog
