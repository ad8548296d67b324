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
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from memctl.files import atomic_write_text, read_unlinked_text
from memctl.lexical import crossing
from memctl.lexical.typos import nearest_word

if TYPE_CHECKING:
    from memctl.sqlite import Connection

_FILE = "search-vocab.txt"
# Its words' crossing keys (memctl.lexical.crossing), made when a search first crosses a
# word: ~7 µs of CPU a word, ~0.2 s for a 10k-chunk vault's 26k words (seconds on a
# loaded machine), which a one-shot search would otherwise pay each time. Under a header naming the keys' version and the
# vocabulary they key, a line per key of a word, "key<TAB>script<TAB>word", sorted, so a
# key's words are found in the text as it is read, nothing parsed; a word with no key is
# "<TAB><TAB>word".
_KEYS_FILE = "search-vocab-keys.txt"
CORRECTIONS_KEPT = 10_000  # words' corrections a vocabulary remembers
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def fold(word: str) -> str:
    """Lowercase without diacritics, as the unicode61 tokenizer (remove_diacritics 2) stores it."""
    decomposed = unicodedata.normalize("NFD", word.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def index_fold(word: str) -> str:
    """A word as SQLite's unicode61 tokenizer (remove_diacritics 2) stores it: lowercase,
    diacritics taken off Latin letters only, so Cyrillic й and ё stay whole ("уведомлений",
    "ещё"); `fold` (PostgreSQL's own words) takes them off everywhere."""
    lowered = word.lower()
    if lowered.isascii():
        return lowered
    return "".join(ch if "\u0400" <= ch <= "\u04ff" else fold(ch) for ch in lowered)


class Vocabulary:
    def __init__(self, terms: set[str], seen_id: int, state_dir: Path | None = None) -> None:
        self.seen_id = seen_id
        self.terms = terms
        self.state_dir = state_dir  # where the crossing keys are cached (None: not kept)
        self._buckets: dict[str, list[str]] | None = None
        self._sorted: list[str] | None = None
        # Each word's correction while the terms stay as they are: a query's typo comes
        # back with the query (~0.5 ms a word at 10k: the filter and rapidfuzz's pass).
        self._closest: dict[tuple[str, float], str | None] = {}
        self._keys: str | None = None  # the keys file's text, read (or keyed) on first use
        self._held_scripts: set[str] | None = None
        self._named: dict[str, bool] = {}  # whether a word is a name (an SQL read each)

    def refresh(self, conn: Connection) -> None:
        """Add the words of chunks indexed since this vocabulary was read (in memory only)."""
        top = int(conn.execute("SELECT max(rowid) FROM chunks").fetchone()[0] or 0)
        if top > self.seen_id:
            _add_newer(conn, self, top)
            self._buckets = None
            self._sorted = None
            self._closest.clear()
            self._keys = None
            self._held_scripts = None
            self._named.clear()

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

    def across(self, word: str, named: Callable[[str], bool]) -> list[str]:
        """The vault's names spelling `word` (folded) in another script (crossing.forms)."""
        script = crossing.script_of(word)
        if script is None or not self._scripts() & set(crossing.crossed_scripts(script)):
            return []  # a Latin name in a Latin-only vault: no keys read, none made
        if self._keys is None:
            self._keys = _keys_text(self.terms, self.seen_id, self.state_dir)
        keys = self._keys
        return crossing.forms(
            word, lambda wanted: _keyed_words(keys, wanted), self._is_named(named)
        )

    def _scripts(self) -> set[str]:
        """The scripts the vocabulary writes words in (~5 ms at 30k words)."""
        if self._held_scripts is None:
            held = {crossing.script_of(term) for term in self.terms if not term.isascii()}
            if any(term.isascii() and term.isalpha() for term in self.terms):
                held.add("en")
            self._held_scripts = {script for script in held if script is not None}
        return self._held_scripts

    def _is_named(self, named: Callable[[str], bool]) -> Callable[[str], bool]:
        def kept(term: str) -> bool:
            if term not in self._named:
                self._named[term] = named(term)
            return self._named[term]

        return kept

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
            vocab = Vocabulary(set(body.split("\n")) - {""}, seen, state_dir)
    if vocab is None:
        terms = {t for (t,) in conn.execute(f"SELECT term FROM {vocab_table}")}
        vocab = Vocabulary(terms, top, state_dir)
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
        vocab.terms.update(index_fold(w) for w in _WORD.findall(f"{heading or ''} {text}"))
    vocab.seen_id = top


def _keys_text(terms: set[str], seen_id: int, state_dir: Path | None) -> str:
    """The crossing keys of the vocabulary's words (_KEYS_FILE's text): as cached when it
    keys this vocabulary, else the cached keys of the words still in it, the words added
    since keyed, and the cache rewritten."""
    head = f"keys {crossing.KEYS_VERSION} {seen_id} {len(terms)}"
    path = state_dir / _KEYS_FILE if state_dir is not None else None
    text = ""
    if path is not None:
        with contextlib.suppress(OSError, ValueError):
            text = read_unlinked_text(path)
    if text.partition("\n")[0] == head:
        return text
    lines: dict[str, list[str]] = {}
    if text.partition("\n")[0].split(" ")[:2] == ["keys", str(crossing.KEYS_VERSION)]:
        for line in text.split("\n")[1:]:
            term = line.rpartition("\t")[2]
            if term in terms:
                lines.setdefault(term, []).append(line)
    for term in terms - lines.keys():
        lines[term] = _key_lines(term)
    text = "\n".join([head, *sorted(line for held in lines.values() for line in held)]) + "\n"
    if path is not None:
        # Not writable: every search keys the words again, which costs time, not results.
        with contextlib.suppress(OSError):
            atomic_write_text(path, text)
    return text


def _key_lines(term: str) -> list[str]:
    found = crossing.keyed(term)
    if found is None or not found[1]:
        return [f"\t\t{term}"]
    return [f"{one}\t{found[0]}\t{term}" for one in found[1]]


def _keyed_words(text: str, wanted: str) -> list[tuple[str, str]]:
    """The words (with their scripts) of one key in _KEYS_FILE's text: its lines are sorted,
    so they follow one another from the first."""
    found: list[tuple[str, str]] = []
    mark = f"\n{wanted}\t"
    start = text.find(mark)
    while start >= 0:
        end = text.find("\n", start + 1)
        _, script, term = text[start + 1 : end].split("\t")
        found.append((script, term))
        start = end if text.startswith(mark, end) else -1
    return found
