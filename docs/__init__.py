"""The docs are Markdown; this makes their generator importable: `python -m docs.pictures`."""
