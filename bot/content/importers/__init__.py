"""Importers: other quiz formats (GIFT, Moodle XML, Aiken, practice pages) into our banks.

Each format is one module that parses its source into `drafts.Draft` tasks and a report of
what it left out; `drafts.bank_yaml` writes them as one bank, which the ordinary content check
then validates."""
