"""A multi task's select menu: the member picks every option they think right (a single-pick
task's: one), and closing the menu submits the set as one attempt. The post carries one
select for everyone; Discord keeps each member's picks on their own screen, so no one sees
another's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Self

import discord

from bot import rendering
from bot.discord_ui import replies
from bot.discord_ui.clicks import LAST_POST_FIELD, Control, Fields, Responder, member
from bot.quiz import engine
from bot.quiz.errors import BlankAnswerError, InvalidAnswerError
from bot.quiz.tasks import Task

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot


class MultiSelect(
    Control,
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=rf"quiz:multi{LAST_POST_FIELD}",
):
    """`quiz:multi:<post>`: the values are option letters; one submitted set, one attempt."""

    FIELDS: ClassVar[Fields] = {"post_id": engine.post_id}

    def __init__(
        self,
        post_id: int,
        options: list[discord.SelectOption] | None = None,
        *,
        placeholder: str | None = None,
        row: int | None = None,
        single: bool = False,
    ) -> None:
        options = options or []
        super().__init__(
            discord.ui.Select(
                custom_id=f"quiz:multi:{post_id}",
                placeholder=placeholder,
                options=options,
                min_values=1,
                max_values=1 if single else max(1, len(options)),
            ),
            row=row,
        )
        self.post_id = post_id

    @classmethod
    def build(cls, task: Task, post_id: int, *, row: int | None = None) -> Self:
        options = [
            discord.SelectOption(
                label=rendering.option_select_label(option, task.kind), value=option.label
            )
            for option in task.options
        ]
        placeholder = rendering.truncate(rendering.multi_instruction(task), 150)
        return cls(post_id, options, placeholder=placeholder, row=row, single=task.single)

    async def handle(self, interaction: discord.Interaction[QuizBot]) -> None:
        bot = interaction.client
        data: Any = interaction.data or {}
        picks = submitted(data.get("values"))
        async with Responder(interaction) as responder:
            result = await bot.service.answer(self.post_id, *member(interaction), picks)
            if result.outcome.recorded and not result.post.private:
                bot.live_counts.bump(self.post_id)
            posted = bot.service.posted_of(result.post)
            session = replies.session_of(posted)
            graded = result.outcome.picks or picks
            reply = replies.multi_reply(
                posted.task, result.outcome, graded, session=session, card=result.card
            )
            await responder.answered(result.outcome, graded, reply, session=session)


def submitted(values: object) -> tuple[str, ...]:
    """The select's values as Discord sent them; a raw payload may send anything there. None
    picked is refused here, before any attempt is counted."""
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise InvalidAnswerError(f"a set of options, got {values!r}")
    if not values:
        raise BlankAnswerError("no option picked")
    if len(values) > rendering.MAX_SELECT_OPTIONS:
        raise InvalidAnswerError(f"{len(values)} options picked")
    return tuple(values)
