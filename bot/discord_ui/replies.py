"""What a member is told privately: answer outcomes, hints, solutions, sessions.

Nothing of one member's answer is ever shown to the channel beyond the post's counts; the
send is bot/discord_ui/clicks.py's (`Responder`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import discord

from bot import rendering
from bot.clock import discord_timestamp
from bot.quiz.engine import Outcome, Progress, Status
from bot.quiz.review import CardUpdate, ReviewRating
from bot.quiz.tasks import MAX_ATTEMPTS, Task
from bot.wording import plural

if TYPE_CHECKING:
    from bot.practice_sessions import SessionStep
    from bot.service import PostedTask
    from bot.store import HintSeen, SolutionSeen
    from bot.store.review_cards import DueSummary

RIGHT = discord.Colour.green()
WRONG = discord.Colour.orange()
INFO = discord.Colour.blurple()

FORFEIT_LABEL = "Show the solution (forfeits your remaining attempts)"


@dataclass(frozen=True, slots=True)
class Reply:
    content: str | None = None
    embeds: Sequence[discord.Embed] = field(default_factory=tuple)


def attempts_left(progress: Progress) -> str:
    """The post's attempts left, and how many can still score (`Progress`'s figures)."""
    n = progress.attempts_left
    text = f"**{n}** attempt{'' if n == 1 else 's'} left"
    scoring = progress.scoring_attempts_left
    if progress.scores_none and n:
        text += " on this post, for practice: no answer here can score now"
    elif 0 < scoring < n:
        text += (
            f", {scoring} of them for points, with your {_misses(progress.wrong_elsewhere)} "
            "on another post of this task"
        )
    return text


def solution_embed(task: Task) -> discord.Embed:
    return discord.Embed(
        title=rendering.solution_title(task),
        description=rendering.solution_text(task),
        colour=INFO,
    )


def notes_embed(notes: Sequence[str], *, title: str = "Why not?") -> discord.Embed:
    text = rendering.notes_text(notes) if notes else "Have another careful look at the question."
    embed = discord.Embed(colour=WRONG)
    embed.add_field(name=title, value=text, inline=False)
    return embed


ONCE_PER_TASK = (  # "another", not "an earlier": the one finished first may be the newer
    "You finished this task on another post here, and a task's points count once, so this "
    "one scores none."
)


def no_points(progress: Progress) -> str:
    """Why an answer on this post scores nothing (`Progress.scores_none`)."""
    if progress.finished_elsewhere:
        return ONCE_PER_TASK
    return (
        "Your misses on another post of this task count here too, and with them you've used "
        f"its {MAX_ATTEMPTS} tries, so this one scores none."
    )


def _misses(n: int) -> str:
    return f"{n} miss{'' if n == 1 else 'es'}"


def session_of(posted: PostedTask) -> str | None:
    """A private task's kind, "practice" or "review"; None for a public post."""
    post = posted.post
    if not post.private:
        return None
    return post.session.kind if post.session is not None else "practice"


def points_text(points: int, session: str | None = None) -> str:
    """E.g. "**10** points"; a private task's are "practice points", never taken for the
    leaderboard's."""
    noun = "practice point" if session else "point"
    return f"**{points}** {noun}{'' if points == 1 else 's'}"


PRIVATE_POINTS = "private: they count in your /stats, never on the leaderboard"

_ORDINALS = {1: "first", 2: "second", 3: "third"}


def _attempt_words(progress: Progress, session: str) -> str:
    """Which attempt solved a private task: one met before is never a "first try"."""
    n = progress.attempts_used
    if progress.first_try:
        return " on your first try"
    where = f" on your {_ORDINALS.get(n, f'{n}th')} attempt in this {session}"
    if progress.tried_before:
        where += " (you've answered this task before, so not a first try)"
    return where


def earned(outcome: Outcome, session: str | None = None) -> str:
    """What a right answer earned; `session`: a private task's kind (`session_of`)."""
    progress = outcome.progress
    if session is not None:
        text = f"You earned {points_text(outcome.points, session)} ({PRIVATE_POINTS})"
        text += _attempt_words(progress, session)
        if progress.hint_seen:
            text += ", halved for the hint"
        return text + "."
    if progress.scores_none:
        return no_points(progress)
    text = f"You earned **{outcome.points}** point{'' if outcome.points == 1 else 's'}"
    if progress.first_try:
        text += " on your first try"
    if progress.wrong_elsewhere:
        text += f", counting your {_misses(progress.wrong_elsewhere)} on another post of it"
    if progress.hint_seen:
        text += " (halved for the hint)"
    elif progress.hint_elsewhere:
        text += " (halved for the hint you saw on another post of it)"
    return text + "."


_RATINGS = {
    ReviewRating.GOOD: "**Good** (right at the first attempt, without the hint)",
    ReviewRating.HARD: "**Hard** (right with the hint)",
    ReviewRating.AGAIN: "**Again** (a miss, or the solution opened first)",
}


def card_text(card: CardUpdate | None) -> str:
    """What finishing did to the member's review card, and when it comes back; empty when
    nothing finished."""
    if card is None:
        return ""
    when = f"{discord_timestamp(card.due, 'R')} ({discord_timestamp(card.due, 'f')})"
    if card.rating is None:
        return (
            "🔁 Your review card for this task was already rated today, so this answer leaves "
            f"it as it was: it comes back {when}."
        )
    if card.rating is ReviewRating.AGAIN:
        return (
            f"🔁 Review card rated {_RATINGS[card.rating]}: it's due again right away "
            f"({discord_timestamp(card.due, 'f')}), so /review brings it back first."
        )
    return f"🔁 Review card rated {_RATINGS[card.rating]}: it comes back {when}."


def with_card(text: str, card: CardUpdate | None) -> str:
    """`text`, then `card_text` on a line of its own."""
    line = card_text(card)
    return f"{text}\n{line}" if line else text


def finished_text(progress: Progress, session: str | None = None) -> str:
    """The member's result on a task they already finished."""
    if progress.solved and progress.points == 0:
        # Only another post deciding the task's points makes a solve score nothing.
        return (
            "You already finished this one: you solved it, for no points, since a task's "
            "points count once here and another post of it had already decided them."
        )
    if progress.solved:
        how = " on the first try" if progress.first_try else ""
        private = f" ({PRIVATE_POINTS})" if session else ""
        return (
            f"You already finished this one: you solved it{how} for "
            f"{points_text(progress.points, session)}{private}. Nice work!"
        )
    if progress.forfeited:
        return (
            "You already finished this one: you opened the solution, so it scored no points. "
            "Use /solution to see it again."
        )
    return (
        f"You already finished this one: all {MAX_ATTEMPTS} attempts are used. "
        "Use /solution to go over it again."
    )


def answer_reply(
    task: Task,
    outcome: Outcome,
    chosen: str,
    *,
    session: str | None = None,
    card: CardUpdate | None = None,
) -> Reply:
    """The reply to one option button. `chosen`: the pick as `rendering.picked_text` gives
    it, short and escaped, so the outcome line always shows whole. `card` is said only in a
    private task (`session`), the learning loop's own reply."""
    card = card if session else None
    match outcome.status:
        case Status.CORRECT:
            text = f"✅ Right, **{chosen}** it is! {earned(outcome, session)}"
            return Reply(with_card(text, card), (solution_embed(task),))
        case Status.WRONG:
            hint = "" if outcome.progress.hint_seen else " Stuck? The 💡 Hint button can help."
            return Reply(
                f"Not quite: **{chosen}** isn't it. You have "
                f"{attempts_left(outcome.progress)}.{hint}",
                (notes_embed(outcome.notes),),
            )
        case Status.FAILED:
            text = (
                f"Not quite: **{chosen}** isn't it either. That was your last attempt, so here "
                "is the worked solution. Every miss teaches something; on to the next one!"
            )
            return Reply(with_card(text, card), (notes_embed(outcome.notes), solution_embed(task)))
        case Status.REPEATED:
            return Reply(
                f"You already tried **{chosen}**, and it isn't it, so that click didn't use "
                f"an attempt. You have {attempts_left(outcome.progress)}.",
                (notes_embed(outcome.notes),),
            )
        case Status.ALREADY_FINISHED:
            return Reply(finished_text(outcome.progress, session))


def recorded_text(outcome: Outcome, picks: Sequence[str], session: str | None = None) -> str:
    """The short reply to a stored answer whose detailed reply Discord refused."""
    if len(picks) == 1:
        answer = picks[0]
    else:
        answer = ", ".join(f"[{blank}] {label}" for blank, label in enumerate(picks, start=1))
    recorded = f"Your answer {answer} was recorded"
    match outcome.status:
        case Status.CORRECT:
            result = f"right, for {points_text(outcome.points, session)}"
            if session:
                result += f" ({PRIVATE_POINTS})"
        case Status.WRONG:
            result = f"not right, {attempts_left(outcome.progress)}"
        case Status.FAILED:
            return (
                f"{recorded}: not right, and that was your last attempt. I couldn't show the "
                "details; /solution shows the worked solution."
            )
        case Status.REPEATED:  # nothing was stored (`Responder.answered` raises instead)
            return (
                f"You already tried {answer}, so that didn't use an attempt: "
                f"{attempts_left(outcome.progress)}."
            )
        case Status.ALREADY_FINISHED:
            return finished_text(outcome.progress, session)  # nothing stored: already short
    return f"{recorded}: {result}. I couldn't show the details."


def hint_reply(posted: PostedTask, hint: HintSeen) -> Reply:
    task = posted.task
    if posted.closed:
        cost = "This quiz has closed, so the hint is free."
    elif hint.free:
        cost = "You've finished this one, so the hint is free."
    elif hint.progress.scores_none:
        cost = no_points(hint.progress)
    elif hint.progress.hint_elsewhere:
        cost = "You saw this hint on another post of this task, so your points were already halved."
    else:
        cost = "Points for this task are halved now that you've seen it. Good luck!"
    embed = discord.Embed(title=rendering.task_title(task), colour=INFO)
    embed.add_field(name="💡 Hint", value=rendering.hint_text(task), inline=False)
    return Reply(cost, (embed,))


def solution_reply(posted: PostedTask, seen: SolutionSeen) -> Reply:
    if seen.access.forfeited_now:
        text = (
            "Here's the worked solution. This one ends with no points, but understanding it "
            "counts more."
        )
        if session_of(posted):  # the learning loop says what it did to the card
            text = with_card(text, seen.card)
    elif posted.closed and not seen.access.progress.finished:
        text = "This quiz has closed, so here's the worked solution."
    else:
        text = "Here's the worked solution."
    return Reply(text, (solution_embed(posted.task),))


def solution_prompt(posted: PostedTask) -> str:
    return (
        f"You haven't finished {rendering.bold(rendering.task_title(posted.task))} yet. Seeing the "
        "solution now ends your attempts on it with no points. Want to see it anyway?"
    )


def next_due_text(due: DueSummary) -> str:
    """When the member's next review falls due."""
    if due.next_due is None:
        return "No reviews are waiting: the tasks you miss come back here."
    return f"Your next review falls due {discord_timestamp(due.next_due, 'R')}."


def held_text(due: DueSummary) -> str:
    """Due reviews /review holds back: their tasks are open on public posts not finished."""
    return (
        f"{plural(due.held, 'review', bold=True)} due, but for tasks open on a public post "
        f"here that you haven't finished: answer those first, then /review. "
        f"{next_due_text(due)}"
    )


def session_text(step: SessionStep) -> str:
    """The line above a practice or review task, or a session's end."""
    review = step.kind == "review"
    if step.posted is None and step.summary is None:  # /review with nothing to serve
        assert step.due is not None
        if step.due.held:
            return held_text(step.due)
        return f"No reviews are due right now. {next_due_text(step.due)}"
    if step.posted is None:
        assert step.summary is not None
        done = step.summary
        text = (
            f"{'Review' if review else 'Practice'} session over: "
            f"{done.finished} of {plural(done.served, 'task', bold=True)} finished, "
            f"{done.solved} solved, {done.first_try} on the first try."
        )
        if review and step.due is not None:
            if step.due.due_now:
                return (
                    f"{text} {plural(step.due.due_now, 'review', bold=True)} still due: "
                    "/review when you're ready."
                )
            if step.due.held:  # due, not "falls due later": they wait for public posts
                return f"{text} {held_text(step.due)}"
            return f"{text} {next_due_text(step.due)}"
        return f"{text} That was every matching task. /practice starts a new session."
    if review:
        due = step.due.due_now if step.due is not None else 0
        if step.number == 1:
            return (
                f"🔁 {plural(due, 'review', bold=True)} due. Here's the most overdue one: only "
                "you see it, and it scores no leaderboard points. **Next** moves on."
            )
        return f"🔁 Review {step.number} · {due} due."
    if step.number == 1:
        return (
            "📝 Private practice: only you see it, and it scores no leaderboard points (it "
            "counts in your /stats and your reviews). **Next** moves on."
        )
    return f"📝 Practice task {step.number}."
