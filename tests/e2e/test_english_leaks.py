"""The English-leak checker of the pseudo-locale run (english_leaks.py) catches a made-up leak
wherever a member reads it, and lets through what may stay English."""

from __future__ import annotations

from pathlib import Path

from tests.i18n.pseudo import pseudo

from .bot_helpers import CONTENT_DIR
from .english_leaks import LeakFinder, bank_strings, visible_texts

QUESTION = (
    "What is the main difference between data parallelism and model parallelism in machine "
    "learning training?"
)
NOTE = "Confusing which is split: data or model."


def finder() -> LeakFinder:
    return LeakFinder({QUESTION, NOTE, "MLOps", "mlops-parallelism-mc-1", "Study Group", "alice"})


def test_translated_texts_with_what_may_stay_english_pass() -> None:
    shown = [
        {
            "content": pseudo("**{n}** answered · <@12> solved it, see /leaderboard").replace(
                "{n}", "12"
            ),
            "embeds": [
                {
                    "title": pseudo("Multiple choice") + " · MLOps",
                    "description": f"{QUESTION}\n\n{pseudo('Pick one answer.')}",
                    "fields": [{"name": pseudo("Closes"), "value": "<t:1796774220:R>"}],
                    "footer": {"text": pseudo("{n} attempts left").replace("{n}", "2")},
                }
            ],
            "components": [
                {"type": 1, "components": [{"type": 2, "label": "A", "custom_id": "quiz:ans:1:A"}]}
            ],
        },
        {"content": f"{pseudo('Not quite.')} {NOTE} https://example.com/some/page `git log`"},
        {"content": f"{pseudo('Welcome to')} Study Group, alice"},
        # A bank's text cut short for a button label, and a line of it: bank content still.
        {"content": "What is the main difference between data…"},
        {"content": "A · What is the main differ…"},
        {"choices": [{"name": "mlops-parallelism-mc-1 · What is the main", "value": "x"}]},
    ]
    assert finder().leaks_in(shown) == []


def test_english_is_found_wherever_a_member_reads_it() -> None:
    shown = [
        {"content": "You already tried that"},
        {"embeds": [{"footer": {"text": pseudo("Points") + " · no leaderboard points"}}]},
        {"embeds": [{"fields": [{"name": "Final answer", "value": "B"}]}]},
        {
            "components": [
                {
                    "type": 1,
                    "components": [
                        {"type": 3, "placeholder": "Pick an option", "options": []},
                    ],
                },
                {"type": 17, "components": [{"type": 10, "content": "Page 1 of 2"}]},
            ]
        },
        {
            "modal": {
                "title": pseudo("Your answer"),
                "components": [
                    {
                        "type": 18,
                        "label": "Type it here",
                        "component": {"type": 4, "custom_id": "a"},
                    }
                ],
            }
        },
        {"choices": [{"name": "Every member's language", "value": "x"}]},
        # English filled into a translated sentence's placeholder, next to bank content.
        {"content": pseudo("Posted {what}").replace("{what}", "Short answer · MLOps")},
    ]
    leaks = finder().leaks_in(shown)
    assert [leak.runs for leak in leaks] == [
        ("You already tried that",),
        ("no leaderboard points",),
        ("Final answer",),
        ("Pick an option",),
        ("Page of",),  # numbers are taken out
        ("Type it here",),
        ("Every member's language",),
        ("Short answer",),
    ]


def test_a_word_of_an_untranslated_text_is_a_leak_but_not_a_word_amid_a_translation() -> None:
    assert finder().runs("💡 Hint") == ["Hint"]
    assert finder().runs("**Moderators**") == ["Moderators"]
    assert finder().runs("easy · **10** pts") == ["easy", "pts"]
    assert finder().runs(pseudo("Answer:") + " A · B · C") == []
    assert finder().runs(pseudo("{n} picked") + " Hint") == []  # one word: a value, maybe
    assert finder().runs("UTC") == finder().runs("MLOps") == finder().runs("B") == []
    assert finder().runs(pseudo("Local time, HH:MM")) == []  # letters no accent exists for


def test_every_visible_text_of_a_message_is_read() -> None:
    message = {
        "content": "c",
        "embeds": [
            {
                "title": "t",
                "description": "d",
                "fields": [{"name": "n", "value": "v"}],
                "footer": {"text": "f"},
                "author": {"name": "a"},
            }
        ],
        "components": [
            {
                "type": 1,
                "components": [
                    {"type": 3, "placeholder": "p", "options": [{"label": "l", "description": "o"}]}
                ],
            },
            {"type": 9, "components": [{"type": 10, "content": "x"}], "accessory": {"label": "b"}},
        ],
    }
    assert [t for t in visible_texts(message) if t] == [*"ctdnvfaplox", "b"]
    field = {"type": 4, "custom_id": "a", "placeholder": "p", "value": "w"}
    modal = {
        "modal": {"title": "m", "components": [{"type": 18, "label": "q", "component": field}]}
    }
    assert [t for t in visible_texts(modal) if t] == ["m", "q", "p", "w"]
    assert list(visible_texts({"choices": [{"name": "k", "value": "hidden"}]})) == ["k"]


def test_the_shipped_banks_are_read(tmp_path: Path) -> None:
    strings = bank_strings(CONTENT_DIR)
    assert "MLOps" in strings and QUESTION in strings
    (tmp_path / "b.yaml").write_text("bank: B\ntasks:\n  - id: x\n    hints: [one, two]\n")
    assert bank_strings(tmp_path) == {"B", "x", "one", "two"}
    assert "easy" not in strings and "choice" not in strings  # the bot names these
