"""Posts and server settings."""

from __future__ import annotations

from datetime import UTC, timedelta, timezone
from typing import TypeVar, cast

import pytest

from bot.store import GuildConfigInfo, PostInfo, Store, Unit
from tests.factories import choice
from tests.store.conftest import CHANNEL, GUILD, NOW, WRONG, new_post, request

T = TypeVar("T")


def test_create_get_and_attach_the_message(store: Store) -> None:
    later = NOW + timedelta(days=1)
    post = store.create_post(
        GUILD, CHANNEL, choice("gpu-1"), 42, schedule_id=3, closes_at=later, now=NOW
    )
    assert (post.guild_id, post.channel_id, post.task_id, post.posted_by) == (
        GUILD,
        CHANNEL,
        "gpu-1",
        42,
    )
    assert post.posted_at == NOW and post.posted_at.tzinfo is UTC
    assert post.schedule_id == 3 and post.message_id is None
    store.set_post_message(post.id, 123456789012345678)
    fetched = store.get_post(post.id)
    assert fetched is not None and fetched.message_id == 123456789012345678
    assert not fetched.is_closed(NOW)
    assert fetched.is_closed(NOW + timedelta(days=1))
    assert store.get_post(post.id + 1) is None


def test_discard_deletes_only_an_unsent_unused_post(store: Store) -> None:
    refused = new_post(store)
    assert store.discard_post(refused.id)
    assert store.get_post(refused.id) is None
    sent = new_post(store)
    store.set_post_message(sent.id, 123456789012345678)
    answered = new_post(store)
    store.answer(request(answered, 7, WRONG), NOW)
    assert not store.discard_post(sent.id) and not store.discard_post(answered.id)
    assert store.get_post(sent.id) is not None and store.get_post(answered.id) is not None


def test_latest_post_per_channel(store: Store) -> None:
    assert store.latest_post(GUILD, CHANNEL) is None
    new_post(store, NOW - timedelta(hours=1), task=choice("older"))
    latest = new_post(store, NOW, task=choice("newer"))
    store.create_post(GUILD, CHANNEL + 1, choice("elsewhere"), None, now=NOW + timedelta(hours=1))
    found = store.latest_post(GUILD, CHANNEL)
    assert found is not None and found.id == latest.id


def test_search_posts_most_recent_first(store: Store) -> None:
    a = new_post(store, NOW - timedelta(hours=2), task=choice("gpu-memory"))
    b = new_post(store, NOW - timedelta(hours=1), task=choice("cpu-cache"))
    c = new_post(store, NOW, task=choice("GPU-streams"))
    new_post(store, NOW, guild_id=GUILD + 1, task=choice("gpu-other-server"))
    d = new_post(store, NOW, task=choice("gpu_under"))
    assert [p.id for p in store.search_posts(GUILD, "gpu-")] == [c.id, a.id]
    assert [p.id for p in store.search_posts(GUILD, "")] == [d.id, c.id, b.id, a.id]
    assert [p.id for p in store.search_posts(GUILD, "", limit=2)] == [d.id, c.id]
    # LIKE wildcards in the text are literal characters.
    assert [p.id for p in store.search_posts(GUILD, "gpu_")] == [d.id]
    assert store.search_posts(GUILD, "%") == []
    assert [p.id for p in store.search_posts(GUILD, f"#{b.id}")] == [b.id]


def test_guild_config_defaults_and_updates(store: Store) -> None:
    assert store.guild_config(GUILD) == GuildConfigInfo(GUILD)
    updated = store.update_guild_config(GUILD, timezone="Europe/Berlin", cooldown_seconds=5)
    assert updated == GuildConfigInfo(GUILD, timezone="Europe/Berlin", cooldown_seconds=5)
    again = store.update_guild_config(GUILD, post_policy="mods", mod_role_id=77)
    assert again == GuildConfigInfo(GUILD, "Europe/Berlin", 77, "mods", 5)
    assert store.guild_config(GUILD) == again
    assert store.guild_config(GUILD + 1) == GuildConfigInfo(GUILD + 1)
    assert store.update_guild_config(GUILD, timezone=None).timezone is None


@pytest.mark.parametrize(
    "changes",
    [{"timezone": "Mars/Olympus"}, {"post_policy": "admins"}, {"cooldown_seconds": -1}],
)
def test_guild_config_rejects_bad_values(store: Store, changes: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        store.update_guild_config(GUILD, **changes)
    assert store.guild_config(GUILD) == GuildConfigInfo(GUILD)


def test_guild_config_rejects_unknown_settings(store: Store) -> None:
    with pytest.raises(TypeError):
        store.update_guild_config(GUILD, colour="blue")


def _committed(store: Store, unit: Unit[T]) -> T:
    """`unit` run as the service runs it: in a group commit (here, alone in it)."""
    (result,) = store.commit_group((), NOW, [unit]).units
    return cast(T, result)


def _same_as_read_back(store: Store, created: PostInfo) -> None:
    fetched = store.get_post(created.id)
    assert fetched is not None
    # `task` and `session` are left out of PostInfo's equality: compare them too.
    assert (created, created.task, created.session) == (fetched, fetched.task, fetched.session)


def test_a_created_post_is_what_reading_it_back_gives(store: Store) -> None:
    """Posts are built from what was inserted, not read back: the two must not drift."""
    local_now = NOW.astimezone(timezone(timedelta(hours=2)))  # stored and read back as UTC
    public = store.create_post(
        GUILD, CHANNEL, choice("gpu-1"), 42, schedule_id=3, closes_at=NOW, now=local_now
    )
    assert public.posted_at.tzinfo is UTC
    _same_as_read_back(store, public)

    first = _committed(
        store, store.open_session_unit(GUILD, 7, "practice", CHANNEL, choice("gpu-2"), local_now)
    )
    assert first.private and first.session is not None and first.session.user_id == 7
    _same_as_read_back(store, first)

    assert first.session_id is not None
    step = _committed(
        store,
        store.advance_session_unit(
            first.session_id,
            GUILD,
            7,
            CHANNEL,
            NOW + timedelta(minutes=5),
            lambda _state: choice("gpu-3"),
        ),
    )
    assert step.post is not None and step.post.task_id == "gpu-3"
    assert step.post.session is not None
    assert step.post.session.last_active_at == NOW + timedelta(minutes=5)
    _same_as_read_back(store, step.post)
