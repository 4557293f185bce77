"""Benchmarks: answer load against the floor bot, start-up and queries.

Run from the repository root: `python -m benchmarks.load` (see BENCHMARKS.md).
"""
