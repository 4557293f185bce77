"""What a member is told privately: answer outcomes, hints, solutions, sessions.

Nothing of one member's answer is ever shown to the channel beyond the post's counts; the
send is bot/discord_ui/clicks.py's (`Responder`). Every text here is in the member's language
(the entry point set it from `interaction.locale`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import discord

from bot import rendering
from bot.clock import discord_timestamp
from bot.i18n import N_, _, formats, ngettext
from bot.quiz.engine import Outcome, Progress, Status
from bot.quiz.review import CardUpdate, ReviewRating
from bot.quiz.tasks import MAX_ATTEMPTS, Task

if TYPE_CHECKING:
    from bot.practice_sessions import SessionStep
    from bot.service import PostedTask
    from bot.store import HintSeen, SolutionSeen
    from bot.store.review_cards import DueSummary

RIGHT = discord.Colour.green()
WRONG = discord.Colour.orange()
INFO = discord.Colour.blurple()

# TRANSLATORS: a button's label (at most 80 characters).
FORFEIT_LABEL = N_("Show the solution (forfeits your remaining attempts)")


@dataclass(frozen=True, slots=True)
class Reply:
    content: str | None = None
    embeds: Sequence[discord.Embed] = field(default_factory=tuple)


def attempts_sentence(progress: Progress) -> str:
    """The post's attempts left, and how many can still score (`Progress`'s figures), as the
    sentence "You have **2** attempts left."."""
    n = progress.attempts_left
    scoring = progress.scoring_attempts_left
    if progress.scores_none and n:
        return ngettext(
            "You have **{n}** attempt left on this post, for practice: no answer here can "
            "score now.",
            "You have **{n}** attempts left on this post, for practice: no answer here can "
            "score now.",
            n,
        ).format(n=formats.number(n))
    if 0 < scoring < n:
        misses = progress.wrong_elsewhere
        # TRANSLATORS: {n} (2 or more) attempts left, {scoring} of which still score; the
        # form follows {misses}, the member's misses on other posts of the task.
        return ngettext(
            "You have **{n}** attempts left, {scoring} of them for points, with your {misses} "
            "miss on another post of this task.",
            "You have **{n}** attempts left, {scoring} of them for points, with your {misses} "
            "misses on another post of this task.",
            misses,
        ).format(
            n=formats.number(n), scoring=formats.number(scoring), misses=formats.number(misses)
        )
    return ngettext("You have **{n}** attempt left.", "You have **{n}** attempts left.", n).format(
        n=formats.number(n)
    )


def solution_embed(task: Task) -> discord.Embed:
    return discord.Embed(
        title=rendering.solution_title(task),
        description=rendering.solution_text(task),
        colour=INFO,
    )


def notes_embed(notes: Sequence[str], *, title: str | None = None) -> discord.Embed:
    text = rendering.notes_text(notes) if notes else _("Have another careful look at the question.")
    embed = discord.Embed(colour=WRONG)
    # TRANSLATORS: the title above the notes on a wrong answer (at most 256 characters).
    embed.add_field(name=title or _("Why not?"), value=text, inline=False)
    return embed


ONCE_PER_TASK = N_(  # "another", not "an earlier": the one finished first may be the newer
    "You finished this task on another post here, and a task's points count once, so this "
    "one scores none."
)


def no_points(progress: Progress) -> str:
    """Why an answer on this post scores nothing (`Progress.scores_none`)."""
    if progress.finished_elsewhere:
        return _(ONCE_PER_TASK)
    return _(
        "Your misses on another post of this task count here too, and with them you've used "
        "its {max} tries, so this one scores none."
    ).format(max=formats.number(MAX_ATTEMPTS))


def session_of(posted: PostedTask) -> str | None:
    """A private task's kind, "practice" or "review"; None for a public post."""
    post = posted.post
    if not post.private:
        return None
    return post.session.kind if post.session is not None else "practice"


def points_text(points: int, session: str | None = None) -> str:
    """E.g. "**10** points"; a private task's are "practice points", never taken for the
    leaderboard's, and say so."""
    if session:
        return ngettext(
            "**{n}** practice point (private: it counts in your /stats, never on the leaderboard)",
            "**{n}** practice points (private: they count in your /stats, never on the "
            "leaderboard)",
            points,
        ).format(n=formats.number(points))
    return ngettext("**{n}** point", "**{n}** points", points).format(n=formats.number(points))


def _attempt_words(progress: Progress, session: str) -> str:
    """Which attempt solved a private task: one met before is never a "first try"."""
    if progress.first_try:
        return _("on your first try")
    n = progress.attempts_used
    review = session == "review"
    if n == 1:
        where = (
            _("on your first attempt in this review")
            if review
            else _("on your first attempt in this practice")
        )
    elif n == 2:
        where = (
            _("on your second attempt in this review")
            if review
            else _("on your second attempt in this practice")
        )
    elif n == 3:
        where = (
            _("on your third attempt in this review")
            if review
            else _("on your third attempt in this practice")
        )
    else:
        where = (
            _("on attempt {n} in this review") if review else _("on attempt {n} in this practice")
        ).format(n=formats.number(n))
    if progress.tried_before:
        where = _("{where} (you've answered this task before, so not a first try)").format(
            where=where
        )
    return where


def earned(outcome: Outcome, session: str | None = None) -> str:
    """What a right answer earned; `session`: a private task's kind (`session_of`)."""
    progress = outcome.progress
    points = points_text(outcome.points, session)
    if session is not None:
        when = _attempt_words(progress, session)
        if progress.hint_seen:
            # TRANSLATORS: {points} is e.g. "**10** practice points (private: ...)"; {when}
            # e.g. "on your first try"; {halved} e.g. "halved for the hint".
            return _("You earned {points} {when}, {halved}.").format(
                points=points, when=when, halved=halved(progress)
            )
        # TRANSLATORS: {points} is e.g. "**10** practice points (private: ...)"; {when} e.g.
        # "on your first try".
        return _("You earned {points} {when}.").format(points=points, when=when)
    if progress.scores_none:
        return no_points(progress)
    hint = halved(progress) if progress.task_hint_seen else None
    if misses := progress.wrong_elsewhere:
        # TRANSLATORS: {points} is e.g. "**10** points".
        text = (
            ngettext(
                "You earned {points}, counting your {n} miss on another post of it.",
                "You earned {points}, counting your {n} misses on another post of it.",
                misses,
            )
            if hint is None
            else ngettext(
                "You earned {points}, counting your {n} miss on another post of it ({halved}).",
                "You earned {points}, counting your {n} misses on another post of it ({halved}).",
                misses,
            )
        )
    elif progress.first_try:
        # TRANSLATORS: {points} is e.g. "**10** points"; {halved} e.g. "halved for the hint".
        text = (
            _("You earned {points} on your first try.")
            if hint is None
            else _("You earned {points} on your first try ({halved}).")
        )
    else:
        text = _("You earned {points}.") if hint is None else _("You earned {points} ({halved}).")
    return text.format(points=points, n=formats.number(misses), halved=hint)


def halved(progress: Progress) -> str:
    """What the hints seen took off: each halves the points still open (`engine.score`)."""
    n = progress.task_hints_seen
    here = progress.hints_seen >= n
    if n == 1:
        # TRANSLATORS: a remark on points earned, e.g. "(halved for the hint)".
        return (
            _("halved for the hint")
            if here
            else _("halved for the hint you saw on another post of it")
        )
    text = (
        ngettext("halved for each of the {n} hint", "halved for each of the {n} hints", n)
        if here
        else ngettext(
            "halved for each of the {n} hint you saw on another post of it",
            "halved for each of the {n} hints you saw on another post of it",
            n,
        )
    )
    return text.format(n=formats.number(n))


def rating_text(rating: ReviewRating) -> str:
    """A review rating and why it was given."""
    match rating:
        case ReviewRating.GOOD:
            return _("**Good** (right at the first attempt, without the hint)")
        case ReviewRating.HARD:
            return _("**Hard** (right with the hint)")
        case _:
            return _("**Again** (a miss, or the solution opened first)")


def card_text(card: CardUpdate | None) -> str:
    """What finishing did to the member's review card, and when it comes back; empty when
    nothing finished."""
    if card is None:
        return ""
    when = f"{discord_timestamp(card.due, 'R')} ({discord_timestamp(card.due, 'f')})"
    if card.rating is None:
        return _(
            "🔁 Your review card for this task was already rated today, so this answer leaves "
            "it as it was: it comes back {when}."
        ).format(when=when)
    if card.rating is ReviewRating.AGAIN:
        return _(
            "🔁 Review card rated {rating}: it's due again right away ({when}), so /review "
            "brings it back first."
        ).format(rating=rating_text(card.rating), when=discord_timestamp(card.due, "f"))
    # TRANSLATORS: {when} is a Discord timestamp, e.g. "in 3 days (10 December 2026 09:00)".
    return _("🔁 Review card rated {rating}: it comes back {when}.").format(
        rating=rating_text(card.rating), when=when
    )


def with_card(text: str, card: CardUpdate | None) -> str:
    """`text`, then `card_text` on a line of its own."""
    line = card_text(card)
    return f"{text}\n{line}" if line else text


def finished_text(progress: Progress, session: str | None = None) -> str:
    """The member's result on a task they already finished."""
    if progress.solved and progress.points == 0:
        # Only another post deciding the task's points makes a solve score nothing.
        return _(
            "You already finished this one: you solved it, for no points, since a task's "
            "points count once here and another post of it had already decided them."
        )
    if progress.solved:
        points = points_text(progress.points, session)
        if progress.first_try:
            text = _("You already finished this one: you solved it on the first try for {points}.")
        else:
            text = _("You already finished this one: you solved it for {points}.")
        return text.format(points=points) + " " + _("Nice work!")
    if progress.forfeited:
        return _(
            "You already finished this one: you opened the solution, so it scored no points. "
            "Use /solution to see it again."
        )
    if progress.points:  # a multi task's last attempt earns its credit's share
        return _(
            "You already finished this one: all {max} attempts are used, and the right part of "
            "your last one earned {points}. Use /solution to go over it again."
        ).format(max=formats.number(MAX_ATTEMPTS), points=points_text(progress.points, session))
    return _(
        "You already finished this one: all {max} attempts are used. Use /solution to go over "
        "it again."
    ).format(max=formats.number(MAX_ATTEMPTS))


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
            text = _("✅ Right, **{chosen}** it is!").format(chosen=chosen)
            text += " " + earned(outcome, session)
            return Reply(with_card(text, card), (solution_embed(task),))
        case Status.WRONG:
            text = _("Not quite: **{chosen}** isn't it.").format(chosen=chosen)
            text += " " + attempts_sentence(outcome.progress)
            return Reply(text + _hint_nudge(task, outcome.progress), (notes_embed(outcome.notes),))
        case Status.FAILED:
            text = _(
                "Not quite: **{chosen}** isn't it either. That was your last attempt, so here "
                "is the worked solution. Every miss teaches something; on to the next one!"
            ).format(chosen=chosen)
            return Reply(with_card(text, card), (notes_embed(outcome.notes), solution_embed(task)))
        case Status.REPEATED:
            text = _(
                "You already tried **{chosen}**, and it isn't it, so that click didn't use an "
                "attempt."
            ).format(chosen=chosen)
            return Reply(
                text + " " + attempts_sentence(outcome.progress), (notes_embed(outcome.notes),)
            )
        case Status.ALREADY_FINISHED:
            return Reply(finished_text(outcome.progress, session))


def _hint_nudge(task: Task, progress: Progress) -> str:
    seen = progress.task_hints_seen
    if not task.hints or seen >= len(task.hints):
        return ""
    return " " + (
        _("Stuck? The 💡 Hint button can help.") if not seen else _("/hint has another hint.")
    )


def credit_text(
    outcome: Outcome,
    picks: Sequence[str],
    chosen: str,
    session: str | None = None,
    *,
    single: bool = False,
) -> str:
    """A multi submission's result: how many picks were right and wrong (not for a single
    pick), the credit, and on the last attempt what that credit earned."""
    wrong = len(outcome.wrong_picks)
    figures = {
        "chosen": chosen,
        "right": formats.number(len(picks) - wrong),
        "wrong": formats.number(wrong),
        "percent": formats.percent(float(outcome.credit or 0)),
    }
    if single and outcome.status is Status.FAILED and outcome.points:
        # TRANSLATORS: one picked option; {percent} is e.g. "50%"; {points} e.g. "**3** points".
        return _(
            "Not quite: **{chosen}** earns {percent} of the answer, which gives you {points}."
        ).format(**figures, points=points_text(outcome.points, session))
    if single:
        # TRANSLATORS: {chosen} is the one option picked; {percent} e.g. "50%".
        return _("Not quite: **{chosen}** earns {percent} of the answer.").format(**figures)
    if outcome.status is Status.FAILED and outcome.points:
        # TRANSLATORS: {percent} is e.g. "50%"; {points} e.g. "**3** points".
        return _(
            "Not quite: **{chosen}** is {right} right, {wrong} wrong: {percent} of the answer, "
            "which earns you {points}."
        ).format(**figures, points=points_text(outcome.points, session))
    # TRANSLATORS: {chosen} is the member's picks; {percent} e.g. "50%".
    return _(
        "Not quite: **{chosen}** is {right} right, {wrong} wrong: {percent} of the answer."
    ).format(**figures)


def wrong_picks_embed(task: Task, outcome: Outcome) -> discord.Embed:
    """Each wrong pick with its tied note; with no wrong pick, a right option was left out."""
    lines = []
    for label in outcome.wrong_picks:
        notes = task.notes_for(label)
        why = f": {' '.join(notes)}" if notes else ""
        shown = rendering.escape_markdown(rendering.option_select_label(task.option(label)))
        lines.append(f"**{shown}**{why}")
    if not outcome.wrong_picks:
        lines.append(_("Every pick is right, but at least one right option is missing."))
    if not any(task.notes_for(label) for label in outcome.wrong_picks) and outcome.notes:
        lines.append(rendering.notes_text(outcome.notes))
    embed = discord.Embed(colour=WRONG)
    embed.add_field(name=_("Why not?"), value="\n".join(lines), inline=False)
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
            text = (
                _("✅ Right, **{chosen}** it is!")
                if task.single
                else _("✅ Right, **{chosen}**: every right option and no wrong one!")
            ).format(chosen=chosen)
            text += " " + earned(outcome, session)
            return Reply(with_card(text, card), (solution_embed(task),))
        case Status.WRONG:
            text = credit_text(outcome, picks, chosen, single=task.single)
            text += " " + attempts_sentence(outcome.progress)
            if not outcome.progress.hint_seen:
                text += " " + _("Stuck? The 💡 Hint button can help.")
            return Reply(text, (wrong_picks_embed(task, outcome),))
        case Status.FAILED:
            text = credit_text(outcome, picks, chosen, session, single=task.single) + " "
            text += _("That was your last attempt, so here is the worked solution.")
            return Reply(
                with_card(text, card), (wrong_picks_embed(task, outcome), solution_embed(task))
            )
        case Status.REPEATED:
            text = _("You already submitted **{chosen}**, so that didn't use an attempt.").format(
                chosen=chosen
            )
            return Reply(
                text + " " + attempts_sentence(outcome.progress),
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
    progress = outcome.progress
    match outcome.status:
        case Status.CORRECT:
            # TRANSLATORS: {points} is e.g. "**10** points".
            return _(
                "Your answer {answer} was recorded: right, for {points}. I couldn't show the "
                "details."
            ).format(answer=answer, points=points_text(outcome.points, session))
        case Status.WRONG:
            n = progress.attempts_left
            if progress.scores_none or 0 < progress.scoring_attempts_left < n:
                # TRANSLATORS: {attempts} is a sentence, e.g. "You have **2** attempts left."
                return _(
                    "Your answer {answer} was recorded: not right. {attempts} I couldn't show "
                    "the details."
                ).format(answer=answer, attempts=attempts_sentence(progress))
            return ngettext(
                "Your answer {answer} was recorded: not right, **{n}** attempt left. I couldn't "
                "show the details.",
                "Your answer {answer} was recorded: not right, **{n}** attempts left. I couldn't "
                "show the details.",
                n,
            ).format(answer=answer, n=formats.number(n))
        case Status.FAILED:
            return _(
                "Your answer {answer} was recorded: not right, and that was your last attempt. "
                "I couldn't show the details; /solution shows the worked solution."
            ).format(answer=answer)
        case Status.REPEATED:  # nothing was stored (`Responder.answered` raises instead)
            return (
                _("You already tried {answer}, so that didn't use an attempt.").format(
                    answer=answer
                )
                + " "
                + attempts_sentence(progress)
            )
        case Status.ALREADY_FINISHED:
            return finished_text(progress, session)  # nothing stored: already short


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
    one = len(posted.task.hints) == 1
    if posted.closed:
        return (
            _("This quiz has closed, so the hint is free.")
            if one
            else _("This quiz has closed, so every hint is free.")
        )
    if access.free:
        return (
            _("You've finished this one, so the hint is free.")
            if one
            else _("You've finished this one, so every hint is free.")
        )
    if progress.scores_none:
        return no_points(progress)
    if not access.charged:
        if progress.hints_elsewhere >= access.shown:
            return (
                _(
                    "You saw these hints on another post of this task, so your points were "
                    "already halved for them."
                )
                if access.shown > 1
                else _(
                    "You saw this hint on another post of this task, so your points were "
                    "already halved."
                )
            )
        return _("You've seen every hint of this task already, so this costs nothing more.")
    n = progress.task_hints_seen
    if n == 1:
        return _("Points for this task are halved now that you've seen it. Good luck!")
    # TRANSLATORS: {n} (2 or more) hints seen; {share} is a fraction such as "1/4".
    return _(
        "Each hint halves the points still open: with {n} seen, this task is worth {share} of "
        "its points. Good luck!"
    ).format(n=formats.number(n), share=f"1/{formats.number(2**n)}")


def next_hint(task: Task, hint: HintSeen) -> int | None:
    """The number of the ladder's next hint for this member, if one is left to see."""
    if hint.access.free or hint.access.shown >= len(task.hints):
        return None
    return hint.access.shown + 1


def solution_reply(posted: PostedTask, seen: SolutionSeen) -> Reply:
    if seen.access.forfeited_now:
        text = _(
            "Here's the worked solution. This one ends with no points, but understanding it "
            "counts more."
        )
        if session_of(posted):  # the learning loop says what it did to the card
            text = with_card(text, seen.card)
    elif posted.closed and not seen.access.progress.finished:
        text = _("This quiz has closed, so here's the worked solution.")
    else:
        text = _("Here's the worked solution.")
    return Reply(text, (solution_embed(posted.task),))


def solution_prompt(posted: PostedTask) -> str:
    return _(
        "You haven't finished {task} yet. Seeing the solution now ends your attempts on it "
        "with no points. Want to see it anyway?"
    ).format(task=rendering.bold(rendering.task_title(posted.task)))


def next_due_text(due: DueSummary) -> str:
    """When the member's next review falls due."""
    if due.next_due is None:
        return _("No reviews are waiting: the tasks you miss come back here.")
    # TRANSLATORS: {when} is a relative Discord timestamp, e.g. "in 3 days".
    return _("Your next review falls due {when}.").format(when=discord_timestamp(due.next_due, "R"))


def held_text(due: DueSummary) -> str:
    """Due reviews /review holds back: their tasks are open on public posts not finished."""
    held = ngettext(
        "**{n}** review due, but for tasks open on a public post here that you haven't "
        "finished: answer those first, then /review.",
        "**{n}** reviews due, but for tasks open on a public post here that you haven't "
        "finished: answer those first, then /review.",
        due.held,
    ).format(n=formats.number(due.held))
    return f"{held} {next_due_text(due)}"


def _session_over(step: SessionStep) -> str:
    """A session's end: what was served, finished, solved and solved at the first try."""
    assert step.summary is not None
    done = step.summary
    figures = {
        "finished": formats.number(done.finished),
        "served": formats.number(done.served),
        "solved": formats.number(done.solved),
        "first_try": formats.number(done.first_try),
    }
    if step.kind == "review":
        text = ngettext(
            "Review session over: {finished} of **{served}** task finished, {solved} solved, "
            "{first_try} on the first try.",
            "Review session over: {finished} of **{served}** tasks finished, {solved} solved, "
            "{first_try} on the first try.",
            done.served,
        )
    else:
        text = ngettext(
            "Practice session over: {finished} of **{served}** task finished, {solved} solved, "
            "{first_try} on the first try.",
            "Practice session over: {finished} of **{served}** tasks finished, {solved} "
            "solved, {first_try} on the first try.",
            done.served,
        )
    return text.format(**figures)


def session_text(step: SessionStep) -> str:
    """The line above a practice or review task, or a session's end."""
    review = step.kind == "review"
    if step.posted is None and step.summary is None:  # /review with nothing to serve
        assert step.due is not None
        if step.due.held:
            return held_text(step.due)
        return _("No reviews are due right now.") + " " + next_due_text(step.due)
    if step.posted is None:
        text = _session_over(step)
        if review and step.due is not None:
            if n := step.due.due_now:
                return (
                    text
                    + " "
                    + ngettext(
                        "**{n}** review still due: /review when you're ready.",
                        "**{n}** reviews still due: /review when you're ready.",
                        n,
                    ).format(n=formats.number(n))
                )
            if step.due.held:  # due, not "falls due later": they wait for public posts
                return f"{text} {held_text(step.due)}"
            return f"{text} {next_due_text(step.due)}"
        return text + " " + _("That was every matching task. /practice starts a new session.")
    if review:
        due = step.due.due_now if step.due is not None else 0
        if step.number == 1:
            # TRANSLATORS: **Next** is the label of the button below (translated as "Next").
            return ngettext(
                "🔁 **{n}** review due. Here's the most overdue one: only you see it, and it "
                "scores no leaderboard points. **Next** moves on.",
                "🔁 **{n}** reviews due. Here's the most overdue one: only you see it, and it "
                "scores no leaderboard points. **Next** moves on.",
                due,
            ).format(n=formats.number(due))
        # TRANSLATORS: e.g. "🔁 Review 2 · 5 due.": the 2nd task of this review session, and
        # the reviews due.
        return _("🔁 Review {number} · {due} due.").format(
            number=formats.number(step.number), due=formats.number(due)
        )
    if step.number == 1:
        # TRANSLATORS: **Next** is the label of the button below (translated as "Next").
        return _(
            "📝 Private practice: only you see it, and it scores no leaderboard points (it "
            "counts in your /stats and your reviews). **Next** moves on."
        )
    return _("📝 Practice task {number}.").format(number=formats.number(step.number))
