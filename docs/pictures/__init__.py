"""Pictures of what members see, for the docs: `python -m docs.pictures` (see __main__)."""
