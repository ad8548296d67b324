"""How substring candidates are scored, by either backend (pure, no I/O): the words a
query looks up as substrings, and how well a chunk's words match them (rapidfuzz). The
SQLite index looks them up in memctl.index.sqlite.substring_list, a shared server in
memctl.index.postgres.substrings.
"""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz import fuzz, process

from memctl.lexical.parse import Query
from memctl.lexical.plan import LexicalPlan


def trigram_words(query: Query, plan: LexicalPlan) -> list[str]:
    """Substrings worth looking up: words of 3+ characters, corrected typos, identifiers."""
    words = [t.text for t in query.content_terms if len(t.text) >= 3 and not t.text.isdigit()]
    words += [v for t in query.content_terms for v in t.variants if len(v) >= 3]
    words += list(plan.corrections.values()) + list(query.identifiers) + list(query.dates)
    words += [form for forms in plan.crossings.values() for form in forms]
    return list(dict.fromkeys(words))


# A chunk's text lowercased and its distinct words, as words_score reads them.
ChunkWords = tuple[str, list[str]]


def chunk_words(text: str) -> ChunkWords:
    lower = text.lower()
    return lower, list(dict.fromkeys(lower.split()))


def words_score(targets: Sequence[str], text_words: ChunkWords) -> float:
    """Mean over query words of the best word-to-word similarity (0..1), substrings scoring
    1, of a text from its `chunk_words` (kept per chunk by a Searcher)."""
    if not targets:
        return 0.0
    total = 0.0
    for target in targets:
        total += word_score(target, text_words)
    return total / len(targets)


def word_score(target: str, text_words: ChunkWords) -> float:
    """1 for a substring of the chunk, else its best word's similarity (0 below 0.7)."""
    lower, words = text_words
    if target in lower:
        return 1.0
    best = process.extractOne(target, words, scorer=fuzz.ratio, score_cutoff=70.0)
    return best[1] / 100.0 if best else 0.0


NO_WORDS: ChunkWords = ("", [])
