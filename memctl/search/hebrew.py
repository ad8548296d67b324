"""Light Hebrew suffix stripping for the relevance floor's coverage (pure).

A Hebrew question and the paragraph that answers it often name the same word in other
forms: a plural (מדינות / מדינה), a construct state (מדינת), a possessive (ספריו).
The keyword lists match exact forms and prefix letters only; the floor's coverage also
counts a snippet word whose suffix-stripped key equals the query word's, so an answer
in another inflection is not read as noise. No dictionary: a few suffixes, longest first,
and a stem of at least three letters (shorter stems collide too often).
"""

from __future__ import annotations

import re

from memctl.search.query import HEBREW_PREFIXES

_HEBREW_WORD = re.compile(r"^[\u05D0-\u05EA]+$")
# Final letters take their ordinary form once a suffix follows them (מלך, מלכים).
_FINALS = str.maketrans("ךםןףץ", "כמנפצ")
# Plural, feminine, construct and possessive endings, longest first.
_SUFFIXES = (
    "ותיהם", "ותיהן", "יהם", "יהן", "ותי", "ותו", "ותה", "ותם",
    "ים", "ות", "יו", "יה", "נו", "הם", "הן", "כם", "כן",
    "ה", "ת", "י", "ו", "ך",
)  # fmt: skip
MIN_STEM = 3


def key(word: str) -> str | None:
    """The suffix-stripped key of a lowercased Hebrew word (None: not a Hebrew word or
    too short to compare)."""
    if not _HEBREW_WORD.match(word):
        return None
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= MIN_STEM:
            return word[: -len(suffix)].translate(_FINALS)
    return word.translate(_FINALS) if len(word) >= MIN_STEM else None


def keys(word: str) -> frozenset[str]:
    """The keys of a word as written in a text: itself, and behind one or two prefix
    letters (ובמדינות is ו+ב+מדינות)."""
    out = set()
    for cut in (0, 1, 2):
        if cut and (len(word) <= cut or word[cut - 1] not in HEBREW_PREFIXES):
            break
        k = key(word[cut:])
        if k is not None:
            out.add(k)
    return frozenset(out)
