"""Words for PostgreSQL full-text search, tokenised the way the SQLite index does (pure).

The SQLite index stores unicode61 tokens (split on non-word characters and underscores,
lowercased, diacritics removed) with no stemming, and the query side adds the forms:
Hebrew with one-letter prefixes stripped, Russian and English stems as prefixes. Here the
same tokens are built in Python and handed to PostgreSQL as a `tsvector` literal with
their positions, so PostgreSQL's own parser (which splits differently) and no
dictionary (English stemming would mangle Hebrew) ever touch them; queries are `tsquery`
literals of the same folded forms, prefixes as `stem:*`. Same words in, same matches out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from memctl.lexical.vocab import fold

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
MAX_POSITION = 16383  # PostgreSQL's cap on a lexeme position
MAX_POSITIONS = 256  # and on positions kept per lexeme
MAX_LEXEME_BYTES = 2046


def tokens(text: str) -> list[str]:
    """The words of `text` as the index stores them (unicode61, remove_diacritics 2).

    Folded before the split, so a pointed Hebrew word (niqqud are combining marks, which
    the word pattern would split on) is stored as the plain word people type.
    """
    return _WORD.findall(fold(text))


def lexeme(word: str) -> str:
    """A tsvector/tsquery literal for one word (quoted; quotes and backslashes escaped)."""
    return "'" + word.replace("\\", "\\\\").replace("'", "''") + "'"


def tsvector(words: Iterable[str]) -> tuple[str, int]:
    """(a tsvector literal with positions, the number of tokens) for BM25's length."""
    positions: dict[str, list[int]] = {}
    count = 0
    for count, word in enumerate(words, start=1):
        if len(word.encode("utf-8")) > MAX_LEXEME_BYTES:
            continue
        places = positions.setdefault(word, [])
        if len(places) < MAX_POSITIONS:
            places.append(min(count, MAX_POSITION))
    parts = []
    for word, places in positions.items():
        # Positions past the cap all become the cap; a tsvector wants them distinct.
        unique = sorted(set(places))
        parts.append(f"{lexeme(word)}:{','.join(map(str, unique))}")
    return " ".join(parts), count


def tsquery(forms: Iterable[str], prefixes: Iterable[str] = (), phrases: Iterable[str] = ()) -> str:
    """An OR of quoted forms, `prefix:*` and `a <-> b` phrases; '' when nothing to match."""
    parts = [lexeme(f) for f in dict.fromkeys(fold(f) for f in forms) if f]
    parts += [lexeme(p) + ":*" for p in dict.fromkeys(fold(p) for p in prefixes) if p]
    for phrase in phrases:
        words = tokens(phrase)
        if len(words) == 1:
            parts.append(lexeme(words[0]))
        elif words:
            parts.append("(" + " <-> ".join(lexeme(w) for w in words) + ")")
    return " | ".join(dict.fromkeys(parts))
