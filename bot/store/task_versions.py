"""Task versions: the exact task a post was made from, stored once per distinct content.

A post records its task's version in the write unit that creates it (`ensure_versions`, then
`post.task_version_id`), so editing a task in the banks, or removing it, never changes how an
open post grades, what its buttons say or which note a wrong pick gets. A version is the task's
canonical JSON (`bot.quiz.task_codec`), named by its sha256 (UNIQUE): posting an unchanged task
again reuses its version. Versions are never changed or deleted.

Reads join the version's hash to the post (`posts.POST_COLUMNS`) and turn it into the Task
here (`tasks_by_hash`): decoded once, then served from `CACHE`, a small bounded map from hash to
Task. The hash names the content, so an entry can never be stale, not even for a version id
that a rolled-back write had used, and one map serves every database.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy import Connection, bindparam, select

from bot.quiz.task_codec import decode_task, encode_task
from bot.quiz.tasks import Task
from bot.store import dialect
from bot.store.tables import TaskVersion, table_of

_version = table_of(TaskVersion)

_IDS_BY_HASH = select(_version.c.hash, _version.c.id).where(
    _version.c.hash.in_(bindparam("hashes", expanding=True))
)
_ID_BY_HASH = select(_version.c.id).where(_version.c.hash == bindparam("hash"))
"""One task's version (a /quiz, a practice or review step): a plain `=`, since expanding an
IN list costs more than the statement."""
_CONTENT_BY_HASH = select(_version.c.hash, _version.c.content).where(
    _version.c.hash.in_(bindparam("hashes", expanding=True))
)

CACHE_SIZE = 512
"""Distinct task versions kept decoded: far more than the posts open at once anywhere."""


class VersionCache:
    """A bounded map from a version's hash to its Task, least recently used out first.
    Thread-safe: the service's reader threads and its writer share it. Process-local, and
    correct with several processes on one database: versions are never changed and are named
    by their content, so no process can hold a stale one."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._tasks: OrderedDict[str, Task] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._tasks)

    def __contains__(self, key: object) -> bool:
        return key in self._tasks

    def get(self, key: str) -> Task | None:
        with self._lock:
            task = self._tasks.get(key)
            if task is not None:
                self._tasks.move_to_end(key)
            return task

    def put(self, key: str, task: Task) -> None:
        with self._lock:
            self._tasks[key] = task
            self._tasks.move_to_end(key)
            while len(self._tasks) > self.size:
                self._tasks.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._tasks.clear()


CACHE = VersionCache()


def ensure_versions(conn: Connection, tasks: Sequence[Task], now: datetime) -> list[int]:
    """The version id of each task, inserting the versions not stored yet (in the caller's
    unit of work, so a post and its version commit together)."""
    if not tasks:
        return []
    encoded = [encode_task(task) for task in tasks]
    rows = {}
    for task, (content, key) in zip(tasks, encoded, strict=True):
        rows[key] = {
            "task_id": task.id,
            "hash": key,
            "content": content,
            "created_at": now,
        }
        # Exactly the task the version decodes to (the codec round-trips): no decoding later.
        CACHE.put(key, task)
    if len(rows) == 1:
        # The usual case, one task posted again: its version is found, nothing is written.
        (key,) = rows
        version_id = conn.execute(_ID_BY_HASH, {"hash": key}).scalar()
        if version_id is None:
            conn.execute(dialect.insert_ignoring_conflicts(conn, _version), list(rows.values()))
            version_id = conn.execute(_ID_BY_HASH, {"hash": key}).scalar_one()
        return [version_id for _ in tasks]
    conn.execute(dialect.insert_ignoring_conflicts(conn, _version), list(rows.values()))
    stored = conn.execute(_IDS_BY_HASH, {"hashes": list(rows)})
    ids = {key: version_id for key, version_id in stored}
    return [ids[key] for _, key in encoded]


def tasks_by_hash(conn: Connection, hashes: Iterable[str | None]) -> dict[str, Task]:
    """The Task of each version hash (None, a post without a version, is skipped): from the
    cache, else read and decoded once, in one statement for all the misses."""
    found: dict[str, Task] = {}
    missing: set[str] = set()
    for key in hashes:
        if key is None or key in found:
            continue
        task = CACHE.get(key)
        if task is None:
            missing.add(key)
        else:
            found[key] = task
    if missing:
        for key, content in conn.execute(_CONTENT_BY_HASH, {"hashes": sorted(missing)}):
            task = found[key] = decode_task(content)
            CACHE.put(key, task)
    return found


__all__ = ["CACHE", "CACHE_SIZE", "VersionCache", "ensure_versions", "tasks_by_hash"]
