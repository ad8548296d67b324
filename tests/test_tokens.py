"""The token estimate's stated method (memctl.tokens docstring), on odd text."""

from __future__ import annotations

import math
import re

import pytest

from memctl.tokens import estimate_tokens


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
