"""Posts and server settings."""

from __future__ import annotations

from datetime import UTC, timedelta, timezone
from typing import TypeVar, cast

import pytest
from sqlalchemy import Connection

from bot.quiz.errors import StoreAction
from bot.store import GuildConfigInfo, PostInfo, Store, Unit, guild_config, posts, sessions
from tests.factories import choice
from tests.store.conftest import CHANNEL, GUILD, NOW, WRONG, new_post, request
from tests.store_calls import answer, configure, create_post, read, write

T = TypeVar("T")


def test_create_get_and_attach_the_message(store: Store) -> None:
    later = NOW + timedelta(days=1)
    post = create_post(
        store,
        GUILD,
        CHANNEL,
        choice("gpu-1"),
        now=NOW,
        posted_by=42,
        closes_at=later,
        schedule_id=3,
    )
    assert (post.guild_id, post.channel_id, post.task_id, post.posted_by) == (
        GUILD,
        CHANNEL,
        "gpu-1",
        42,
    )
    assert post.posted_at == NOW and post.posted_at.tzinfo is UTC
    assert post.schedule_id == 3 and post.message_id is None
    write(store, posts.set_post_message, post.id, 123456789012345678)
    fetched = read(store, posts.get_post, post.id)
    assert fetched is not None and fetched.message_id == 123456789012345678
    assert not fetched.is_closed(NOW)
    assert fetched.is_closed(NOW + timedelta(days=1))
    assert read(store, posts.get_post, post.id + 1) is None


def test_discard_deletes_only_an_unsent_unused_post(store: Store) -> None:
    refused = new_post(store)
    assert write(store, posts.discard_post, refused.id, action=StoreAction.POST)
    assert read(store, posts.get_post, refused.id) is None
    sent = new_post(store)
    write(store, posts.set_post_message, sent.id, 123456789012345678)
    answered = new_post(store)
    answer(store, request(answered, 7, WRONG), NOW)
    assert not write(store, posts.discard_post, sent.id, action=StoreAction.POST) and not write(
        store, posts.discard_post, answered.id, action=StoreAction.POST
    )
    assert (
        read(store, posts.get_post, sent.id) is not None
        and read(store, posts.get_post, answered.id) is not None
    )


def test_latest_post_per_channel(store: Store) -> None:
    assert read(store, posts.latest_post, GUILD, CHANNEL) is None
    new_post(store, NOW - timedelta(hours=1), task=choice("older"))
    latest = new_post(store, NOW, task=choice("newer"))
    create_post(store, GUILD, CHANNEL + 1, choice("elsewhere"), now=NOW + timedelta(hours=1))
    found = read(store, posts.latest_post, GUILD, CHANNEL)
    assert found is not None and found.id == latest.id


def test_search_posts_most_recent_first(store: Store) -> None:
    a = new_post(store, NOW - timedelta(hours=2), task=choice("gpu-memory"))
    b = new_post(store, NOW - timedelta(hours=1), task=choice("cpu-cache"))
    c = new_post(store, NOW, task=choice("GPU-streams"))
    new_post(store, NOW, guild_id=GUILD + 1, task=choice("gpu-other-server"))
    d = new_post(store, NOW, task=choice("gpu_under"))
    assert [p.id for p in read(store, posts.search_posts, GUILD, "gpu-", 25)] == [c.id, a.id]
    assert [p.id for p in read(store, posts.search_posts, GUILD, "", 25)] == [
        d.id,
        c.id,
        b.id,
        a.id,
    ]
    assert [p.id for p in read(store, posts.search_posts, GUILD, "", 2)] == [d.id, c.id]
    # LIKE wildcards in the text are literal characters.
    assert [p.id for p in read(store, posts.search_posts, GUILD, "gpu_", 25)] == [d.id]
    assert read(store, posts.search_posts, GUILD, "%", 25) == []
    assert [p.id for p in read(store, posts.search_posts, GUILD, f"#{b.id}", 25)] == [b.id]


def test_guild_config_defaults_and_updates(store: Store) -> None:
    assert read(store, guild_config.guild_config, GUILD) == GuildConfigInfo(GUILD)
    updated = configure(store, GUILD, timezone="Europe/Berlin", cooldown_seconds=5)
    assert updated == GuildConfigInfo(GUILD, timezone="Europe/Berlin", cooldown_seconds=5)
    again = configure(store, GUILD, post_policy="mods", mod_role_id=77)
    assert again == GuildConfigInfo(GUILD, "Europe/Berlin", 77, "mods", 5)
    assert read(store, guild_config.guild_config, GUILD) == again
    assert read(store, guild_config.guild_config, GUILD + 1) == GuildConfigInfo(GUILD + 1)
    assert configure(store, GUILD, timezone=None).timezone is None


@pytest.mark.parametrize(
    "changes",
    [
        {"timezone": "Mars/Olympus"},
        {"post_policy": "admins"},
        {"cooldown_seconds": -1},
        {"cooldown_seconds": 3601},
    ],
)
def test_guild_config_rejects_bad_values(store: Store, changes: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        configure(store, GUILD, **changes)
    assert read(store, guild_config.guild_config, GUILD) == GuildConfigInfo(GUILD)


def test_guild_config_rejects_unknown_settings(store: Store) -> None:
    with pytest.raises(TypeError):
        configure(store, GUILD, colour="blue")


def _committed(store: Store, unit: Unit[T]) -> T:
    """`unit` run as the service runs it: in a group commit (here, alone in it)."""
    (result,) = store.commit_group((), NOW, [unit]).units
    return cast(T, result)


def _same_as_read_back(store: Store, created: PostInfo) -> None:
    fetched = read(store, posts.get_post, created.id)
    assert fetched is not None
    # `task` and `session` are left out of PostInfo's equality: compare them too.
    assert (created, created.task, created.session) == (fetched, fetched.task, fetched.session)


def test_a_created_post_is_what_reading_it_back_gives(store: Store) -> None:
    """Posts are built from what was inserted, not read back: the two must not drift."""
    local_now = NOW.astimezone(timezone(timedelta(hours=2)))  # stored and read back as UTC
    public = create_post(
        store,
        GUILD,
        CHANNEL,
        choice("gpu-1"),
        now=local_now,
        posted_by=42,
        closes_at=NOW,
        schedule_id=3,
    )
    assert public.posted_at.tzinfo is UTC
    _same_as_read_back(store, public)

    def open_practice(conn: Connection) -> PostInfo:
        session = sessions.start_session(
            conn, GUILD, 7, "practice", topic=None, difficulty=None, now=local_now
        )
        return sessions.add_post(conn, session, CHANNEL, choice("gpu-2"), local_now)

    first = _committed(store, Unit(open_practice, StoreAction.POST))
    assert first.private and first.session is not None and first.session.user_id == 7
    _same_as_read_back(store, first)

    session_id = first.session_id
    assert session_id is not None
    step = _committed(
        store,
        Unit(
            lambda conn: sessions.advance(
                conn,
                session_id,
                GUILD,
                7,
                CHANNEL,
                NOW + timedelta(minutes=5),
                lambda _state: choice("gpu-3"),
                queue=0,
            ),
            StoreAction.POST,
        ),
    )
    assert step.post is not None and step.post.task_id == "gpu-3"
    assert step.post.session is not None
    assert step.post.session.last_active_at == NOW + timedelta(minutes=5)
    _same_as_read_back(store, step.post)
