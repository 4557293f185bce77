"""Domain errors: the Discord layer turns each into a private, friendly reply."""


class QuizError(Exception):
    """Base for everything a member can be told about."""


class InvalidAnswerError(QuizError):
    """An answer of the wrong shape: unknown option or wrong number of blanks."""


class UnknownTaskError(QuizError):
    """The task is not (or no longer) in the loaded banks."""


class UnknownPostError(QuizError):
    """No posted task has that id in this server."""


class PostClosedError(QuizError):
    """The daily quiz this post belongs to has closed."""


class AttemptLimitError(QuizError):
    """The database refused a fourth attempt (a concurrent click got there first)."""
