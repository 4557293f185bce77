"""quizbot: a Discord tutor bot for study groups."""

__version__ = "0.2.0"
