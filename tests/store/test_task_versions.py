"""A post is stored with its task's version and read back with it: it keeps grading, and
showing, the task it was posted with, across edits and restarts. The decoded versions are
cached, bounded, by hash."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import text

from bot.clock import utcnow
from bot.quiz import task_codec
from bot.quiz.engine import Status
from bot.quiz.errors import StoreAction
from bot.quiz.tasks import Option
from bot.store import Store, make_engine, posts
from bot.store import answers as answers_unit
from bot.store.posts import CACHE, VersionCache
from tests.factories import choice, note
from tests.store.conftest import CHANNEL, GUILD, NOW, TASK, new_post, request
from tests.store_calls import answer, read, reveal_solution, write

EDITED = replace(TASK, answers=("B",))
"""TASK with its right answer moved from A to B."""


@pytest.fixture(autouse=True)
def empty_cache() -> Iterator[None]:
    CACHE.clear()
    yield
    CACHE.clear()


def versions(store: Store) -> list[tuple[int, str]]:
    with store.read() as conn:
        return [tuple(r) for r in conn.execute(text("SELECT id, task_id FROM task_version"))]


def test_a_post_keeps_its_version_when_the_task_is_edited(store: Store) -> None:
    old = new_post(store)
    new = new_post(store, task=EDITED)
    assert old.task == TASK and new.task == EDITED
    assert old.task_version_id != new.task_version_id
    # The same member answers A on both: right on the old version, wrong on the new one.
    assert answer(store, request(old, 1, ("A",)), NOW).outcome.status is Status.CORRECT
    assert answer(store, request(new, 1, ("A",)), NOW).outcome.status is Status.WRONG
    assert answer(store, request(new, 1, ("B",)), NOW).outcome.status is Status.CORRECT


def test_an_unchanged_task_posted_again_reuses_its_version(store: Store) -> None:
    first, second = new_post(store), new_post(store)
    assert first.id != second.id
    assert first.task_version_id == second.task_version_id
    new_post(store, task=EDITED)
    (kept, _), (edited, task_id) = versions(store)
    assert kept == first.task_version_id != edited and task_id == TASK.id


def test_every_read_of_a_post_brings_its_version(store: Store) -> None:
    edited_notes = replace(
        TASK,
        options=(Option("A", "renamed"), *TASK.options[1:]),
        mistakes=(note("A new note.", "B"),),
    )
    post = new_post(store)
    new_post(store, task=edited_notes)  # the latest version of the task
    write(store, posts.set_post_message, post.id, 5)
    fetched = read(store, posts.get_post, post.id)
    assert fetched is not None and fetched.task == TASK
    found = read(store, posts.search_posts, GUILD, TASK.id, 25)
    assert [p.task for p in found] == [edited_notes, TASK]
    latest = read(store, posts.latest_post, GUILD, CHANNEL)
    assert latest is not None and latest.task == edited_notes
    state, _ = read(store, answers_unit.member_state, post.id, GUILD, 1, utcnow())
    assert state.task == TASK
    assert (
        write(
            store,
            answers_unit.reveal_hint,
            post.id,
            GUILD,
            1,
            "ada",
            NOW,
            action=StoreAction.REVEAL,
        ).post.task
        == TASK
    )
    assert reveal_solution(store, post.id, GUILD, 2, "bob", NOW).post.task == TASK


def test_a_restart_still_grades_the_posted_version(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/quiz.db"
    engine = make_engine(url)
    post = new_post(Store(engine))
    engine.dispose()
    CACHE.clear()  # a new process: nothing decoded yet

    engine = make_engine(url)
    try:
        store = Store(engine)
        new_post(store, task=EDITED)  # the banks changed while the bot was down
        answered = answer(store, request(post, 1, ("A",)), NOW)
        assert answered.outcome.status is Status.CORRECT
        assert answered.post.task == TASK
    finally:
        engine.dispose()


def test_a_post_and_its_version_commit_together(store: Store) -> None:
    """A post that is not stored leaves no version behind (one write unit)."""
    with pytest.raises(RuntimeError), store.write() as conn:
        posts.ensure_versions(conn, [TASK], NOW)
        raise RuntimeError("the post insert failed")
    assert versions(store) == []


# -- pinning posts from before versions ----------------------------------------------------


def unversioned_post(store: Store, task_id: str) -> int:
    """A post as 0.1.0 stored it: no version."""
    post = new_post(store, task=choice(task_id))
    with store.write() as conn:
        conn.execute(text("UPDATE post SET task_version_id = NULL WHERE id = :id"), {"id": post.id})
    return post.id


def test_pinning_gives_old_posts_the_version_of_their_loaded_task(store: Store) -> None:
    a1, a2, gone = (unversioned_post(store, t) for t in ("a", "a", "gone"))
    assert read(store, posts.get_post, a1).task is None  # type: ignore[union-attr]
    loaded = {"a": choice("a", hint="As loaded now."), "other": choice("other")}

    assert write(store, posts.pin_unversioned, loaded, NOW) == 2
    for post_id in (a1, a2):
        pinned = read(store, posts.get_post, post_id)
        assert pinned is not None and pinned.task == loaded["a"]
    still = read(store, posts.get_post, gone)
    assert still is not None and still.task is None and still.task_version_id is None
    assert write(store, posts.pin_unversioned, loaded, NOW) == 0  # pinned once; nothing else to do
    assert write(store, posts.pin_unversioned, loaded | {"gone": choice("gone")}, NOW) == 1


# -- the cache of decoded versions ---------------------------------------------------------


def test_a_version_is_decoded_once_however_often_it_is_read(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    post = new_post(store)
    CACHE.clear()
    decoded: list[str] = []

    def counting(content: str):  # type: ignore[no-untyped-def]
        decoded.append(content)
        return task_codec.decode_task(content)

    monkeypatch.setattr(posts, "decode_task", counting)
    for n in range(5):
        answer(store, request(post, n, ("B",)), NOW)
        assert read(store, posts.get_post, post.id).task == TASK  # type: ignore[union-attr]
    assert len(decoded) == 1


def test_posting_a_task_caches_it_without_decoding(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(posts, "decode_task", lambda _c: pytest.fail("decoded"))
    post = new_post(store)
    assert read(store, posts.get_post, post.id).task is TASK  # type: ignore[union-attr]


def test_the_cache_is_bounded_and_drops_the_least_recently_used() -> None:
    cache = VersionCache(size=2)
    a, b, c = choice("a"), choice("b"), choice("c")
    cache.put("ha", a)
    cache.put("hb", b)
    assert cache.get("ha") is a  # now b is the least recently used
    cache.put("hc", c)
    assert len(cache) == 2
    assert "hb" not in cache
    assert cache.get("ha") is a and cache.get("hc") is c
    assert cache.get("hb") is None


def test_an_evicted_version_is_read_and_decoded_again(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(posts, "CACHE", VersionCache(size=1))
    decoded: list[str] = []

    def counting(content: str):  # type: ignore[no-untyped-def]
        decoded.append(content)
        return task_codec.decode_task(content)

    monkeypatch.setattr(posts, "decode_task", counting)
    tasks = [choice(f"t{n}") for n in range(3)]
    for task in tasks:
        new_post(store, task=task)  # each one cached as posted, pushing the one before out
    found = read(store, posts.search_posts, GUILD, "t", 25)
    assert [p.task for p in found] == tasks[::-1]
    assert len(decoded) == 2  # t0 and t1 were evicted; t2 was still cached
    assert len(posts.CACHE) == 1
