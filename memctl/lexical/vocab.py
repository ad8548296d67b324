"""The index's vocabulary for typo correction, cached under `.memctl/` and grown incrementally.

Reading the vocabulary through fts5vocab costs a walk over every posting list of the
terms read (~150 ms at 100k chunks, more than a second at 1M, dominated by the commonest
words), so it is done once; afterwards only chunks newer than the cache are tokenised
and their words added. Words of deleted chunks linger: a correction towards a vanished
word then simply matches nothing, which is harmless.
"""

from __future__ import annotations

import bisect
import contextlib
import os
import re
import tempfile
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING

from memctl.files import read_unlinked_text
from memctl.lexical.typos import nearest_word

if TYPE_CHECKING:
    from memctl.sqlite import Connection

_FILE = "search-vocab.txt"
CORRECTIONS_KEPT = 10_000  # words' corrections a vocabulary remembers
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def fold(word: str) -> str:
    """Lowercase without diacritics, as the unicode61 tokenizer (remove_diacritics 2) stores it."""
    decomposed = unicodedata.normalize("NFD", word.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


class Vocabulary:
    def __init__(self, terms: set[str], seen_id: int) -> None:
        self.seen_id = seen_id
        self.terms = terms
        self._buckets: dict[str, list[str]] | None = None
        self._sorted: list[str] | None = None
        # Each word's correction while the terms stay as they are: a query's typo comes
        # back with the query (~0.5 ms a word at 10k: the filter and rapidfuzz's pass).
        self._closest: dict[tuple[str, float], str | None] = {}

    def refresh(self, conn: Connection) -> None:
        """Add the words of chunks indexed since this vocabulary was read (in memory only)."""
        top = int(conn.execute("SELECT max(rowid) FROM chunks").fetchone()[0] or 0)
        if top > self.seen_id:
            _add_newer(conn, self, top)
            self._buckets = None
            self._sorted = None
            self._closest.clear()

    def closest(self, word: str, min_ratio: float) -> str | None:
        """The nearest known word with the same first letter and a similar length."""
        key = (word, min_ratio)
        if key in self._closest:
            return self._closest[key]
        if len(self._closest) >= CORRECTIONS_KEPT:
            self._closest.clear()
        if self._buckets is None:
            # Sorted: rapidfuzz keeps the first of equally near words, and a set's order
            # changes from process to process (str hashes are salted), so "change" became
            # "changes" in one run and "changed" in the next (5 of 173 vault-shaped
            # questions answered differently run to run). In order, as fts5vocab reads them.
            self._buckets = {}
            for term in sorted(self.terms):
                self._buckets.setdefault(term[:1], []).append(term)
        found = self._closest[key] = nearest_word(word, self._buckets.get(word[:1], ()), min_ratio)
        return found

    def with_prefix(self, prefix: str, limit: int = 200) -> list[str]:
        """Known words starting with `prefix` (folded), at most `limit` of them."""
        if self._sorted is None:
            self._sorted = sorted(self.terms)
        start = bisect.bisect_left(self._sorted, prefix)
        out: list[str] = []
        for term in self._sorted[start : start + limit]:
            if not term.startswith(prefix):
                break
            out.append(term)
        return out


def load(conn: Connection, state_dir: Path, vocab_table: str) -> Vocabulary:
    """The cached vocabulary, topped up with the words of chunks indexed since."""
    top = int(conn.execute("SELECT max(rowid) FROM chunks").fetchone()[0] or 0)
    path = state_dir / _FILE
    vocab: Vocabulary | None = None
    with contextlib.suppress(OSError, ValueError):
        head, _, body = read_unlinked_text(path).partition("\n")  # a link: no cache
        seen = int(head)
        if seen <= top:
            vocab = Vocabulary(set(body.split("\n")) - {""}, seen)
    if vocab is None:
        terms = {t for (t,) in conn.execute(f"SELECT term FROM {vocab_table}")}
        vocab = Vocabulary(terms, top)
    elif vocab.seen_id < top:
        _add_newer(conn, vocab, top)
    else:
        return vocab
    # A fresh temp name (O_EXCL): never written through a link a cloned repository planted.
    fd, tmp = tempfile.mkstemp(prefix=f".{_FILE}.", suffix=".tmp", dir=state_dir)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(f"{vocab.seen_id}\n" + "\n".join(sorted(vocab.terms)))
    os.replace(tmp, path)
    return vocab


def _add_newer(conn: Connection, vocab: Vocabulary, top: int) -> None:
    rows = conn.execute("SELECT text, heading FROM chunks WHERE id > ?", (vocab.seen_id,))
    for text, heading in rows:
        vocab.terms.update(fold(w) for w in _WORD.findall(f"{heading or ''} {text}"))
    vocab.seen_id = top
