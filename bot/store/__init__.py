"""Persistence: the only package that touches SQL. Sync; the service calls it from a thread."""

from bot.store.answers import Answered, AnswerRequest, HintSeen, SolutionSeen
from bot.store.db import DEFAULT_DATABASE_URL
from bot.store.guild_config import GuildConfigInfo
from bot.store.leaderboard import Leaderboard, Rank
from bot.store.migrate import make_engine
from bot.store.posts import PostCounts, PostInfo
from bot.store.schedules import ScheduleStore
from bot.store.sessions import SessionSummary
from bot.store.stats import MemberStats, TriedPost
from bot.store.store import Group, Store, Unit

__all__ = [
    "DEFAULT_DATABASE_URL",
    "AnswerRequest",
    "Answered",
    "Group",
    "GuildConfigInfo",
    "HintSeen",
    "Leaderboard",
    "MemberStats",
    "PostCounts",
    "PostInfo",
    "Rank",
    "ScheduleStore",
    "SessionSummary",
    "SolutionSeen",
    "Store",
    "TriedPost",
    "Unit",
    "make_engine",
]
