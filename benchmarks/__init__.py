"""Load benchmarks and their reference bots (run from the repo root with `python -m`)."""
