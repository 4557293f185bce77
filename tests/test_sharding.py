"""Shard ownership: SHARD_COUNT and SHARD_IDS, Discord's formula, and who owns DMs."""

from __future__ import annotations

import pytest

from bot.sharding import ShardPlan, format_ids, parse_ids, shard_of

# Real-looking snowflakes: the shard is taken from the timestamp bits, not the low bits.
GUILD_A = 81384788765712384  # Discord API server
GUILD_B = 613425648685547541


@pytest.mark.parametrize(
    ("text", "count", "ids"),
    [
        ("0", 1, (0,)),
        ("0,1", 2, (0, 1)),
        ("0-3", 4, (0, 1, 2, 3)),
        ("0,2-3", 4, (0, 2, 3)),
        (" 3 , 1 ", 4, (1, 3)),
        ("2-2", 3, (2,)),
        ("5-6,0", 8, (0, 5, 6)),
    ],
)
def test_shard_ids_parse(text: str, count: int, ids: tuple[int, ...]) -> None:
    assert parse_ids(text, count) == ids


@pytest.mark.parametrize(
    ("text", "count", "problem"),
    [
        ("0-2", 2, "shard 2 in '0-2' does not exist: SHARD_COUNT is 2, so shards are 0 to 1"),
        ("4", 4, "shard 4 in '4' does not exist"),
        ("0,0", 2, "shard 0 appears twice in '0,0'"),
        ("0-2,1", 4, "shard 1 appears twice"),
        ("3-1", 4, "'3-1' runs backwards: write 1-3"),
        ("0,3-1", 4, "'3-1' in '0,3-1' runs backwards"),
        ("0,", 2, "'0,' has an empty entry"),
        ("", 2, "has an empty entry"),
        ("one", 2, "'one' is not a list of shard numbers"),
        ("-1", 2, "is not a list of shard numbers"),
        ("0-", 2, "is not a list of shard numbers"),
        ("0;1", 2, "is not a list of shard numbers"),
        ("٣", 4, "is not a list of shard numbers"),  # a digit, but not one we read
    ],
)
def test_bad_shard_ids_say_what_is_wrong(text: str, count: int, problem: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_ids(text, count)
    assert problem in str(caught.value)
    assert "\n" not in str(caught.value)


def test_no_settings_is_one_process_that_owns_everything() -> None:
    plan = ShardPlan.parse(None, None)
    assert plan is ShardPlan.UNSHARDED
    assert not plan.sharded
    assert plan.client_options() == {}  # discord.py decides, as before sharding existed
    assert plan.owns_guild(GUILD_A) and plan.owns_guild(GUILD_B)
    assert plan.owns_direct_messages


def test_a_count_alone_runs_every_shard_here() -> None:
    plan = ShardPlan.parse(3, None)
    assert plan.ids == (0, 1, 2)
    assert plan.client_options() == {"shard_count": 3, "shard_ids": [0, 1, 2]}
    assert plan.owns_direct_messages
    assert all(plan.owns_guild(g) for g in (GUILD_A, GUILD_B, 1, 1 << 22, 2 << 22))


def test_ids_without_a_count_are_refused() -> None:
    with pytest.raises(ValueError, match="SHARD_IDS is set but SHARD_COUNT is not"):
        ShardPlan.parse(None, "0")
    with pytest.raises(ValueError, match="less than 1"):
        ShardPlan.parse(0, None)


def test_discords_formula_uses_the_timestamp_bits() -> None:
    assert shard_of(GUILD_A, 1) == 0
    assert shard_of(GUILD_A, 2) == (GUILD_A >> 22) % 2
    # Guilds made in the same millisecond range share a shard whatever their low bits.
    assert shard_of(5 << 22, 4) == shard_of((5 << 22) + 4_194_303, 4) == 1
    assert [shard_of(n << 22, 3) for n in range(6)] == [0, 1, 2, 0, 1, 2]


@pytest.mark.parametrize(
    "split", [("0", "1"), ("0-1", "2-3"), ("0,2", "1,3"), ("0", "1-2", "3")]
)
def test_processes_that_split_the_shards_own_each_guild_exactly_once(
    split: tuple[str, ...],
) -> None:
    count = max(parse_ids(ids, 4)[-1] for ids in split) + 1
    plans = [ShardPlan.parse(count, ids) for ids in split]
    for guild_id in [GUILD_A, GUILD_B, *(n << 22 for n in range(16)), 12345]:
        owners = [plan for plan in plans if plan.owns_guild(guild_id)]
        assert len(owners) == 1, guild_id
        (owner,) = owners
        assert owner.ids is not None and shard_of(guild_id, count) in owner.ids
    # Direct messages (reminders): exactly one process, the one that runs shard 0.
    dm_owners = [plan for plan in plans if plan.owns_direct_messages]
    assert len(dm_owners) == 1
    assert dm_owners[0].ids is not None and 0 in dm_owners[0].ids


def test_a_process_without_shard_0_never_sends_direct_messages() -> None:
    assert not ShardPlan.parse(2, "1").owns_direct_messages
    assert not ShardPlan.parse(4, "1-3").owns_direct_messages
    assert ShardPlan.parse(4, "3,0").owns_direct_messages


def test_shard_1_of_2_owns_only_odd_shard_guilds() -> None:
    plan = ShardPlan.parse(2, "1")
    assert [plan.owns_guild(n << 22) for n in range(4)] == [False, True, False, True]
    assert plan.client_options() == {"shard_count": 2, "shard_ids": [1]}


def test_a_plan_is_whole() -> None:
    with pytest.raises(ValueError, match="both a count and ids"):
        ShardPlan(2, None)


@pytest.mark.parametrize(
    ("ids", "text"),
    [((0,), "0"), ((0, 1, 2, 5), "0-2, 5"), ((1, 3), "1, 3"), ((0, 1, 3, 4), "0-1, 3-4")],
)
def test_ids_are_logged_compactly(ids: tuple[int, ...], text: str) -> None:
    assert format_ids(ids) == text
    assert parse_ids(text.replace(" ", ""), 8) == ids


def test_describe() -> None:
    assert ShardPlan.UNSHARDED.describe() == "unsharded"
    assert ShardPlan.parse(2, "1").describe() == "shard 1 of 2"
    assert ShardPlan.parse(4, None).describe() == "shards 0-3 of 4"

