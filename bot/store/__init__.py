"""Persistence: the only package that touches SQL. Sync; the service calls it from a thread."""

from bot.store.db import DEFAULT_DATABASE_URL, make_engine, writer
from bot.store.periods import Period, day_bounds, local_date, week_bounds
from bot.store.records import (
    Answered,
    AnswerRequest,
    GuildConfigInfo,
    HintSeen,
    Leaderboard,
    MemberActivity,
    MemberStats,
    PostCounts,
    PostInfo,
    Rank,
    SessionInfo,
    SessionSummary,
    SolutionSeen,
    TriedPost,
)
from bot.store.schedules import ScheduleStore
from bot.store.store import Group, Store, Unit

__all__ = [
    "DEFAULT_DATABASE_URL",
    "AnswerRequest",
    "Answered",
    "Group",
    "GuildConfigInfo",
    "HintSeen",
    "Leaderboard",
    "MemberActivity",
    "MemberStats",
    "Period",
    "PostCounts",
    "PostInfo",
    "Rank",
    "ScheduleStore",
    "SessionInfo",
    "SessionSummary",
    "SolutionSeen",
    "Store",
    "TriedPost",
    "Unit",
    "day_bounds",
    "local_date",
    "make_engine",
    "week_bounds",
    "writer",
]
