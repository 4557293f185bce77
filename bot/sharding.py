"""Which servers this process serves, decided once. A server's events go only to shard
`(guild_id >> 22) % shard_count` (`shard_of`) and DMs to shard 0; with each shard run by one
process, a server's clicks and daily quizzes belong to one process (`owns_guild`) and DMs to
shard 0's (`owns_direct_messages`). bot/store/process_claim.py refuses a shard taken twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

DM_SHARD: Final = 0
"""Discord delivers direct messages to shard 0 only."""


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard that receives a server's events: Discord's formula."""
    return (guild_id >> 22) % shard_count


@dataclass(frozen=True, slots=True)
class ShardPlan:
    """This process's shards, `ids` of `count`; both None when unsharded (owning everything)."""

    count: int | None = None
    ids: tuple[int, ...] | None = None

    UNSHARDED: ClassVar[ShardPlan]

    def __post_init__(self) -> None:
        if (self.count is None) != (self.ids is None):
            raise ValueError("a shard plan has both a count and ids, or neither")

    @classmethod
    def parse(cls, count: int | None, ids: str | None) -> ShardPlan:
        """The plan for SHARD_COUNT and SHARD_IDS (`0,2-3`; none: every shard); ValueError."""
        if count is None:
            if ids is not None:
                raise ValueError("SHARD_IDS is set but SHARD_COUNT is not")
            return cls.UNSHARDED
        if count < 1:
            raise ValueError(f"{count} is less than 1")
        if ids is None:
            return cls(count, tuple(range(count)))
        return cls(count, parse_ids(ids, count))

    @property
    def sharded(self) -> bool:
        return self.count is not None

    def owns_guild(self, guild_id: int) -> bool:
        """Whether this process serves the server (its events, its daily quizzes)."""
        if self.count is None or self.ids is None:
            return True
        return shard_of(guild_id, self.count) in self.ids

    @property
    def owns_direct_messages(self) -> bool:
        """Whether this process sends what goes outside a server (reminders): shard 0's."""
        return self.ids is None or DM_SHARD in self.ids

    def client_options(self) -> dict[str, object]:
        """discord.py's AutoShardedClient arguments: none unless sharding is configured."""
        if self.count is None or self.ids is None:
            return {}
        return {"shard_count": self.count, "shard_ids": list(self.ids)}

    def describe(self) -> str:
        """For the log: e.g. `shards 0, 1 of 4`."""
        if self.ids is None:
            return "unsharded"
        return f"shard{'s' if len(self.ids) > 1 else ''} {format_ids(self.ids)} of {self.count}"


ShardPlan.UNSHARDED = ShardPlan()


def parse_ids(text: str, count: int) -> tuple[int, ...]:
    """`0,2-3` -> (0, 2, 3): each id below `count`, none twice; ValueError otherwise."""
    ids: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise ValueError(f"{text!r} has an empty entry")
        low_text, dash, high_text = part.partition("-")
        low = _shard_number(low_text, text)
        high = _shard_number(high_text, text) if dash else low
        where = repr(text) if part == text.strip() else f"{part!r} in {text!r}"
        if high < low:
            raise ValueError(f"{where} runs backwards: write {high}-{low}")
        if high >= count:
            raise ValueError(
                f"shard {high} in {text!r} does not exist: SHARD_COUNT is {count}, "
                f"so shards are 0 to {count - 1}"
            )
        for shard in range(low, high + 1):
            if shard in ids:
                raise ValueError(f"shard {shard} appears twice in {text!r}")
            ids.add(shard)
    return tuple(sorted(ids))


def _shard_number(part: str, text: str) -> int:
    part = part.strip()
    if not part.isdigit() or not part.isascii():
        raise ValueError(f"{text!r} is not a list of shard numbers")
    return int(part)


def format_ids(ids: tuple[int, ...]) -> str:
    """(0, 1, 2, 5) -> `0-2, 5`."""
    runs: list[str] = []
    start = prev = None
    for shard in (*ids, None):
        if shard is not None and prev is not None and shard == prev + 1:
            prev = shard
            continue
        if start is not None:
            runs.append(str(start) if start == prev else f"{start}-{prev}")
        start = prev = shard
    return ", ".join(runs)
