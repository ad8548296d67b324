"""Which words a query matches (pure, no I/O): the `Matcher` of a query's forms and stems,
and a text's words as a caller keeps them across searches (`TextWords`), so that a
search tests only the few words that may match rather than every word of every line.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from memctl.lexical.parse import HEBREW_PREFIXES
from memctl.tokens import words

_WORD = re.compile(r"\w+", re.UNICODE)
_HEBREW_PREFIX_SET = frozenset(HEBREW_PREFIXES)
_HEBREW_LETTER = re.compile(f"[{HEBREW_PREFIXES}]")


class TextWords:
    """What a text holds, whatever the query (a caller keeps it by text across searches):
    its words, the set of them and its lowercase; the words whose lowercase differs from
    them, by that lowercase, are made when first asked for (most of the reranker's window
    lines hold no query word and never need them; most words are lowercase already, so
    the table stays small)."""

    __slots__ = ("_folded", "_hebrew", "_sorted", "distinct", "lower", "words")

    def __init__(self, text: str) -> None:
        self.words = tuple(words(text))
        self.distinct = frozenset(self.words)
        self.lower = text.lower()
        # A text that is its own lowercase has no word that is not (one comparison).
        self._folded: dict[str, tuple[str, ...]] | None = {} if self.lower == text else None
        self._sorted: list[str] | None = None
        self._hebrew: tuple[str, ...] | None = None

    def starting(self, stems: tuple[str, ...]) -> list[str]:
        """Its distinct words that start with one of `stems` (those of a stem sit side by
        side in their sorted list, made when first asked for: a bisect per stem rather
        than a test per word, 30-40 words a running log's line)."""
        ordered = self._sorted
        if ordered is None:
            ordered = self._sorted = sorted(self.distinct)
        found = []
        for stem in stems:
            i = bisect_left(ordered, stem)
            while i < len(ordered) and ordered[i].startswith(stem):
                found.append(ordered[i])
                i += 1
        return found

    @property
    def folded(self) -> dict[str, tuple[str, ...]]:
        if self._folded is None:
            originals = list(self.distinct)
            folded: dict[str, tuple[str, ...]] = {}
            for lw, word in zip(map(str.lower, originals), originals, strict=True):
                if lw != word:
                    folded[lw] = (*folded.get(lw, ()), word)
            self._folded = folded
        return self._folded

    def maybe(
        self, forms: AbstractSet[str], stems: tuple[str, ...], hebrew: bool = True
    ) -> set[str]:
        """Its distinct words whose lowercase may be one of `forms`, start with one of
        `stems` or (`hebrew`) with a Hebrew prefix letter: a superset of those, by set
        operations rather than a test per word (a word not lowercase is let through when
        it is itself a form or starts with a stem)."""
        distinct, folded = self.distinct, self.folded
        found = set(distinct & forms)
        for lw in folded.keys() & forms:
            found.update(folded[lw])
        if stems:
            found.update(self.starting(stems))
            for lw, originals in folded.items():
                if lw.startswith(stems):
                    found.update(originals)
        # A Hebrew letter has no case: a word's lowercase starts with one only if it does.
        if hebrew:
            found.update(self.hebrew)
        return found

    @property
    def hebrew(self) -> tuple[str, ...]:
        """Its distinct words that start with a Hebrew prefix letter (made once)."""
        if self._hebrew is None:
            self._hebrew = (
                tuple(w for w in self.distinct if w[:1] in _HEBREW_PREFIX_SET)
                # (ASCII text holds no Hebrew letter: isascii is one flag, not a scan.)
                if not self.lower.isascii() and _HEBREW_LETTER.search(self.lower)
                else ()
            )
        return self._hebrew


text_words = TextWords


def has_words(text: str) -> bool:
    """Whether `text` holds a word (as TextWords(text).words would), without listing them."""
    return _WORD.search(text) is not None


def kept_text_words(table: dict[str, TextWords], text: str) -> TextWords:
    """text_words of `text`, made once per table (a Searcher keeps one table across
    searches for its snippets, floor and reranker lines)."""
    kept = table.get(text)
    if kept is None:
        kept = table[text] = text_words(text)
    return kept


@dataclass(frozen=True)
class Matcher:
    """Which words count as a match: exact forms, or words that start with a stem."""

    exact: frozenset[str]
    prefixes: tuple[str, ...] = ()
    # A search asks about the same few hundred words many times (every window of every
    # candidate's snippet): each is worked out once per query.
    _known: dict[str, str | None] = field(default_factory=dict, compare=False, repr=False)
    # Texts' words kept across searches by text (text_words), when the caller keeps them:
    # spans then look for the few words that may match, not at every word.
    texts: dict[str, TextWords] | None = field(default=None, compare=False, repr=False)

    def matches(self, word: str) -> str | None:
        """The query form this word matches (lowercased), or None."""
        # A test, not try/except: most words are asked once per query (the reranker's
        # window words), and a raised KeyError costs ~1 µs each.
        known = self._known
        if word in known:
            return known[word]
        form = known[word] = self._match(word)
        return form

    def maybe(self, kept: TextWords) -> list[str]:
        """The distinct words of a text (its text_words) that may match: those whose
        lowercase is an exact form or starts with a stem or a Hebrew prefix letter, the
        only ones _match can find (set operations instead of a test per word)."""
        return list(kept.maybe(self.exact, self.prefixes))

    def _match(self, word: str) -> str | None:
        lw = word.lower()
        if lw in self.exact:
            return lw
        # Hebrew glues one or two prefix letters onto a word: בבית is בית.
        if lw[:1] in _HEBREW_PREFIX_SET:
            for cut in (1, 2):
                stripped = lw[cut:]
                prefixed = all(c in _HEBREW_PREFIX_SET for c in lw[:cut])
                if prefixed and len(stripped) >= 2 and stripped in self.exact:
                    return stripped
        if self.prefixes and lw.startswith(self.prefixes):
            for prefix in self.prefixes:
                if lw.startswith(prefix):
                    return prefix
        return None

    def spans(self, text: str) -> list[tuple[int, int]]:
        if self.texts is not None:
            hits = {w for w in self.maybe(kept_text_words(self.texts, text)) if self.matches(w)}
            if not hits:
                return []
            return [m.span() for m in _WORD.finditer(text) if m.group(0) in hits]
        return self.plain_spans(text)

    def plain_spans(self, text: str) -> list[tuple[int, int]]:
        """spans() testing every word (for a one-off text not worth keeping)."""
        known, matches = self._known, self.matches
        out = []
        for m in _WORD.finditer(text):
            word = m.group(0)
            form = known[word] if word in known else matches(word)
            if form:
                out.append(m.span())
        return out

    def distinct(self, text: str) -> set[str]:
        # The hot loop of every snippet: the cache is read inline, not through matches().
        known, matches = self._known, self.matches
        found = set()
        for word in _WORD.findall(text):
            form = known[word] if word in known else matches(word)
            if form:
                found.add(form)
        return found
