"""A query word's typo corrected to the nearest word the vault knows: one rule for the
SQLite vocabulary, SQLite's fts5vocab and the shared PostgreSQL lexemes (pure)."""

from __future__ import annotations

from collections.abc import Iterable

from rapidfuzz import fuzz, process

from memctl.lexical.plan import TYPO_MIN_RATIO


def nearest_word(word: str, known: Iterable[str], min_ratio: float = TYPO_MIN_RATIO) -> str | None:
    """The known word nearest to `word` by rapidfuzz's ratio (at least `min_ratio`), among
    those with its first letter and within two letters of its length; None: none is near.

    Of equally near words the first in code point order wins, whatever order `known`
    comes in: rapidfuzz keeps the first of a tie, and a set's order changes from process
    to process (str hashes are salted), so "change" once became "changes" in one run and
    "changed" in the next. Code point order is SQLite's (fts5vocab) and PostgreSQL's
    `lexemes` (collated "C") own, so a caller reading in that order pays only a check.
    """
    choices = sorted(t for t in known if t[:1] == word[:1] and abs(len(t) - len(word)) <= 2)
    best = process.extractOne(word, choices, scorer=fuzz.ratio, score_cutoff=min_ratio)
    return best[0] if best else None
