"""Daily quizzes: pure timing, rotation and close summaries, and the scheduler loop.

No discord here: the loop reaches Discord only through the `Poster` protocol (runner.py).
Import the submodules directly; this package imports nothing so the pure parts stay cheap.
"""
