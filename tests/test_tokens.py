"""The token estimate's stated method (memctl.tokens docstring), on odd text."""

from __future__ import annotations

import math
import random
import re

import pytest

from memctl.tokens import estimate_tokens, least_tokens, words


def _by_the_method(text: str) -> int:
    runs = re.findall(r"\w+", text)
    return sum(math.ceil(len(r) / 4) for r in runs) + len(re.findall(r"[^\w\s]", text))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \t\n",
        "a",
        "abcd",
        "abcde",
        "a" * 17,
        "snake_case_identifier_2026",
        "x_y_z123 4.5e-3 (foo) [bar] -- **Speaker:** done.",
        "שלום עולם!!",
        "привет, мир — да",
        "emoji 😀😀 ok",
        "tab\tsep\u00a0nbsp\u200b zero-width",
        "ǅ ß ﬁ ٣٤٥ arabic-digits",
        "- **Alice:** I moved to Lisbon in 2023; the flat on Rua Augusta costs €1,200/month.",
    ],
)
def test_each_word_run_costs_a_token_per_four_characters_and_each_mark_one(text: str) -> None:
    assert estimate_tokens(text) == _by_the_method(text)


def test_ascii_text_costs_what_the_token_pattern_counts() -> None:
    # ASCII text is counted by whole-string operations, not the pattern: every ASCII
    # character alone and in runs of every length, and mixed strings of them, count alike.
    piece = re.compile(r"\w{1,4}|[^\w\s]")
    texts = [chr(b) * n for b in range(128) for n in (1, 2, 3, 4, 5, 8, 9)]
    texts += ["a" * n + sep + "b" * m for n in range(10) for m in range(10) for sep in " .\n_"]
    rng = random.Random(12)
    alphabet = [chr(b) for b in range(128)] + ["é", "ж"]
    texts += ["".join(rng.choices(alphabet, k=rng.randint(0, 40))) for _ in range(5000)]
    texts += ["".join(rng.choices("ab _.\n\x1f", k=rng.randint(0, 40))) for _ in range(5000)]
    for text in texts:
        assert estimate_tokens(text) == len(piece.findall(text)), repr(text)


def test_words_are_the_runs_of_word_characters() -> None:
    # ASCII text is split by a translation, not the pattern: the same runs in order.
    texts = ["", "a", "snake_case x1 2.5e-3 (foo)", "שלום עולם", "привет, мир", "ǅ ß ﬁ ٣٤٥"]
    rng = random.Random(7)
    alphabet = [chr(b) for b in range(128)] + ["é", "ж"]
    texts += ["".join(rng.choices(alphabet, k=rng.randint(0, 40))) for _ in range(5000)]
    for text in texts:
        assert words(text) == re.findall(r"\w+", text), repr(text)


def test_least_tokens_is_a_quarter_of_the_non_space_characters() -> None:
    # The snippets' cheap test of a line too long for the room left: never above the
    # estimate, and a quarter of the characters str.split keeps, rounded up.
    rng = random.Random(5)
    alphabet = [chr(b) for b in range(128)] + ["é", "ж", "\u00a0", "\u2003"]
    texts = ["", " \t", "abcd efgh!", "a" * 17]
    texts += ["".join(rng.choices(alphabet, k=rng.randint(0, 60))) for _ in range(5000)]
    for text in texts:
        assert least_tokens(text) == (sum(map(len, text.split())) + 3) // 4, repr(text)
        assert least_tokens(text) <= estimate_tokens(text)
