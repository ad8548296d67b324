"""Light Hebrew suffix stripping: the floor's coverage counts inflected forms."""

from __future__ import annotations

import pytest

from memctl.search import floor as fl
from memctl.search import hebrew
from memctl.search.floor import WeightedTerm


@pytest.mark.parametrize(
    ("forms", "stem"),
    [
        (("מדינה", "מדינות", "מדינת"), "מדינ"),  # singular, plural, construct
        (("ספר", "ספרים", "ספריו"), "ספר"),  # plural, possessive
        (("ילד", "ילדים", "ילדיהם"), "ילד"),
        (("מלך", "מלכים"), "מלכ"),  # a final letter takes its ordinary form
        (("אייפון",), "אייפונ"),
    ],
)
def test_inflected_forms_share_a_key(forms: tuple[str, ...], stem: str) -> None:
    assert {hebrew.key(f) for f in forms} == {stem}


def test_short_words_and_other_scripts_have_no_key() -> None:
    assert hebrew.key("שנה") == "שנה"  # stripping would leave two letters: not stripped
    assert hebrew.key("על") is None
    assert hebrew.key("iphone") is None
    assert hebrew.key("страны") is None
    assert hebrew.keys("") == frozenset()


def test_keys_look_behind_prefix_letters() -> None:
    assert "מדינ" in hebrew.keys("ובמדינות")
    assert hebrew.keys("ספרים") == {"ספר"}  # ס is no prefix letter


def test_coverage_counts_a_snippet_word_in_another_inflection() -> None:
    exact = WeightedTerm(2.0, lambda w: w == "מדינות")
    stemmed = WeightedTerm(2.0, lambda w: w == "מדינות", frozenset({"מדינ"}))
    words = ["הבירה", "של", "המדינה"]
    assert fl.coverage([exact], words) == 0.0
    assert fl.coverage([stemmed], words) == 1.0
    assert fl.coverage([stemmed], ["דינים"]) == 0.0  # another stem
