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
            text += f", {halved(progress)}"
        return text + "."
    if progress.scores_none:
        return no_points(progress)
    text = f"You earned **{outcome.points}** point{'' if outcome.points == 1 else 's'}"
    if progress.first_try:
        text += " on your first try"
    if progress.wrong_elsewhere:
        text += f", counting your {_misses(progress.wrong_elsewhere)} on another post of it"
    if progress.task_hint_seen:
        text += f" ({halved(progress)})"
    return text + "."


def halved(progress: Progress) -> str:
    """What the hints seen took off: each halves the points still open (`engine.score`)."""
    n = progress.task_hints_seen
    which = "the hint" if n == 1 else f"each of the {n} hints"
    if progress.hints_seen >= n:
        return f"halved for {which}"
    return f"halved for {which} you saw on another post of it"


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
    earned = (  # a multi task's last attempt earns its credit's share
        f", and the right part of your last one earned {points_text(progress.points, session)}"
        if progress.points
        else ""
    )
    return (
        f"You already finished this one: all {MAX_ATTEMPTS} attempts are used{earned}. "
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
            hint = _hint_nudge(task, outcome.progress)
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


def _hint_nudge(task: Task, progress: Progress) -> str:
    seen = progress.task_hints_seen
    if not task.hints or seen >= len(task.hints):
        return ""
    return " Stuck? The 💡 Hint button can help." if not seen else " /hint has another hint."


def credit_text(outcome: Outcome, picks: Sequence[str]) -> str:
    """A multi submission's result: how many picks were right and wrong, and the credit."""
    wrong = len(outcome.wrong_picks)
    right = len(picks) - wrong
    percent = round((outcome.credit or 0) * 100)
    return f"{right} right, {wrong} wrong: {percent}% of the answer"


def wrong_picks_embed(task: Task, outcome: Outcome) -> discord.Embed:
    """Each wrong pick with its tied note; with no wrong pick, a right option was left out."""
    lines = []
    for label in outcome.wrong_picks:
        notes = task.notes_for(label)
        why = f": {' '.join(notes)}" if notes else ""
        shown = rendering.escape_markdown(rendering.option_select_label(task.option(label)))
        lines.append(f"**{shown}**{why}")
    if not outcome.wrong_picks:
        lines.append("Every pick is right, but at least one right option is missing.")
    if not any(task.notes_for(label) for label in outcome.wrong_picks) and outcome.notes:
        lines.append(rendering.notes_text(outcome.notes))
    embed = discord.Embed(colour=WRONG)
    embed.add_field(name="Why not?", value="\n".join(lines), inline=False)
    return embed


def multi_reply(
    task: Task,
    outcome: Outcome,
    picks: Sequence[str],
    *,
    session: str | None = None,
    card: CardUpdate | None = None,
) -> Reply:
    """The reply to a multi task's submitted set (`answer_reply`'s counterpart)."""
    card = card if session else None
    chosen = rendering.picked_text(task, picks)
    match outcome.status:
        case Status.CORRECT:
            text = f"✅ Right, **{chosen}**: every right option and no wrong one! "
            return Reply(with_card(text + earned(outcome, session), card), (solution_embed(task),))
        case Status.WRONG:
            hint = "" if outcome.progress.hint_seen else " Stuck? The 💡 Hint button can help."
            return Reply(
                f"Not quite: **{chosen}** is {credit_text(outcome, picks)}. You have "
                f"{attempts_left(outcome.progress)}.{hint}",
                (wrong_picks_embed(task, outcome),),
            )
        case Status.FAILED:
            earned_now = (
                f", which earns you {points_text(outcome.points, session)}"
                if outcome.points
                else ""
            )
            text = (
                f"Not quite: **{chosen}** is {credit_text(outcome, picks)}{earned_now}. That was "
                "your last attempt, so here is the worked solution."
            )
            return Reply(
                with_card(text, card), (wrong_picks_embed(task, outcome), solution_embed(task))
            )
        case Status.REPEATED:
            return Reply(
                f"You already submitted **{chosen}**, so that didn't use an attempt. You have "
                f"{attempts_left(outcome.progress)}.",
                (wrong_picks_embed(task, outcome),),
            )
        case Status.ALREADY_FINISHED:
            return Reply(finished_text(outcome.progress, session))


def recorded_text(outcome: Outcome, picks: Sequence[str], session: str | None = None) -> str:
    """The short reply to a stored answer whose detailed reply Discord refused."""
    if len(picks) == 1 or outcome.credit is not None:  # one option, or a multi task's set
        answer = ", ".join(picks)
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
    """The hints seen on the task so far, the new one last, and what it cost."""
    task = posted.task
    embed = discord.Embed(title=rendering.task_title(task), colour=INFO)
    for number in range(1, hint.access.shown + 1):
        name = f"💡 {rendering.hint_title(task, number)}"
        embed.add_field(name=name, value=rendering.hint_text(task, number), inline=False)
    return Reply(_hint_cost(posted, hint), (embed,))


def _hint_cost(posted: PostedTask, hint: HintSeen) -> str:
    access, progress = hint.access, hint.progress
    the_hints = "the hint is" if len(posted.task.hints) == 1 else "every hint is"
    if posted.closed:
        return f"This quiz has closed, so {the_hints} free."
    if access.free:
        return f"You've finished this one, so {the_hints} free."
    if progress.scores_none:
        return no_points(progress)
    if not access.charged:
        if progress.hints_elsewhere >= access.shown:
            return (
                "You saw these hints on another post of this task, so your points were already "
                "halved for them."
                if access.shown > 1
                else "You saw this hint on another post of this task, so your points were "
                "already halved."
            )
        return "You've seen every hint of this task already, so this costs nothing more."
    n = progress.task_hints_seen
    if n == 1:
        return "Points for this task are halved now that you've seen it. Good luck!"
    return (
        f"Each hint halves the points still open: with {n} seen, this task is worth 1/{2**n} "
        "of its points. Good luck!"
    )


def next_hint(task: Task, hint: HintSeen) -> int | None:
    """The number of the ladder's next hint for this member, if one is left to see."""
    if hint.access.free or hint.access.shown >= len(task.hints):
        return None
    return hint.access.shown + 1


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
