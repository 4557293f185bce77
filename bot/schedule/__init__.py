"""The scheduler loop, which drives the service: daily quizzes (runner.py; which task is next,
rotation.py; a zone from a typed name, zones.py) and the review reminders' pass (reminders.py).
Their rules live below the service: bot/quiz/timing.py, bot/quiz/reminders.py, bot/reports/.

No discord here: the loop reaches Discord only through the `Poster` protocol (runner.py).
Import the submodules directly; this package imports nothing so the pure parts stay cheap.
"""
