"""The reranker's window lines (pure, no I/O): what each line shows of the query, worked
out once per line text per search (the ~30 windows of a running log overlap), and what a
line or a window shows whatever the query, kept across searches by text
(memctl.search.rerank.model's window features read them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from types import MappingProxyType

from memctl.search.floor.rule import WeightedTerm
from memctl.search.query.matcher import TextWords, has_words, kept_text_words

_SPEAKER = re.compile(r"^\s*(?:[-*+]\s+)?\*\*([^*:\n]{1,40}):\*\*")


def speaker(text: str) -> str | None:
    """The speaker a `**Name:**` line (a conversation's turn) names, lowercased; None for
    any other text."""
    m = _SPEAKER.match(text) if "**" in text else None
    return m.group(1).split()[0].lower() if m else None


# A line's words, kept across searches by line text (matcher.text_words).
LineWords = dict[str, TextWords]


class LineView:
    """What a line shows whatever the query, kept across searches by its text: its
    lowercase, whether it has a word, its speaker. It also stands for the line in a search
    none of whose query words it holds (most of a window's lines): no counts, no hits."""

    __slots__ = ("lower", "speaker", "words")

    counts: Mapping[int, int] = MappingProxyType({})  # shared by every such line: read only
    found: frozenset[int] = frozenset()

    def __init__(self, text: str, kept: TextWords | None) -> None:
        self.lower = text.lower() if kept is None else kept.lower
        self.words = bool(kept.words) if kept is not None else has_words(text)
        self.speaker = speaker(text)


class WindowView:
    """A window's lines and what they show whatever the query (kept by its text)."""

    __slots__ = ("lines", "speakers", "worded")

    def __init__(self, lines: tuple[str, ...], views: Sequence[LineView]) -> None:
        self.lines = lines
        self.speakers = tuple(v.speaker for v in views if v.speaker is not None)
        worded = [0]
        for v in views:
            worded.append(worded[-1] + v.words)
        self.worded = tuple(worded)  # how many of the lines before each one have a word


class TextViews:
    """LineView and WindowView kept across searches by text (a kept Searcher's, bounded
    by its caller: `len` counts both)."""

    __slots__ = ("lines", "windows")

    def __init__(self) -> None:
        self.lines: dict[str, LineView] = {}
        self.windows: dict[str, WindowView] = {}

    def __len__(self) -> int:
        return len(self.lines) + len(self.windows)

    def clear(self) -> None:
        self.lines.clear()
        self.windows.clear()


class Line:
    """What one line of text shows of the query, when it holds a query word (worked out
    once per line text per search: the 30 windows of a running log overlap)."""

    __slots__ = ("counts", "found", "head", "inner", "share", "tail")

    def __init__(self, kept: TextWords, known: Terms) -> None:
        words = kept.words
        counts: dict[int, int] = {}
        pairs = known.pairs
        first = known.first
        at: dict[int, int] = {}  # the first query word each query word of the line is, by place
        for word in kept.distinct & known.hit_words:
            times = words.count(word)
            for i in known.hits(word):
                counts[i] = counts.get(i, 0) + times
            if pairs:
                place = -1
                for _ in range(times):
                    place = words.index(word, place + 1)
                    at[place] = first[word]
        self.counts: Mapping[int, int] = counts
        self.found = frozenset(counts)
        self.share = share(known.terms, self.found, known.total)
        # For the `adjacent` feature: the query word its first and last word are (None:
        # not one), and the pairs of different query words side by side in it (a window
        # joins its lines' pairs, and those across two lines, once per line; the places
        # of its few query words looked at, not each of a running log line's 30-40 words).
        self.head = first.get(words[0]) if words else None
        self.tail = first.get(words[-1]) if words else None
        inner: set[tuple[int, int]] = set()
        for place, a in at.items():
            b = at.get(place + 1)
            if b is not None and a != b:
                inner.add((a, b) if a < b else (b, a))
        self.inner = inner


class Terms:
    """The query's weighted words, and which of them each window word is (worked out once
    per word per search: the 30 windows share most of their words)."""

    def __init__(
        self,
        terms: Sequence[WeightedTerm],
        may_match: Callable[[str], object] | None = None,
        line_words: LineWords | None = None,
        needles: AbstractSet[str] | None = None,
        prefixes: Sequence[str] | None = None,
        views: TextViews | None = None,
    ) -> None:
        self.terms = terms
        self.total = sum(t.weight for t in terms)
        self.pairs = len(terms) >= 2  # whether the `adjacent` feature looks at word pairs
        # A word is a query word only if one of these is in its lowercase: then so is it in
        # its line's, unless it holds a sigma (the one letter whose lowercase depends on
        # what follows it, and so differs between a word and its line).
        sigma = needles is None or any(("σ" in n or "ς" in n or not n) for n in needles)
        self._needles = None if sigma else tuple(needles or ())
        # With the matcher's stems as well (needles: its exact forms and stems), a word can
        # be a query word only if its lowercase is a needle, starts with a stem or with a
        # Hebrew prefix letter: the others are not tested one by one.
        quick = self._needles is not None and prefixes is not None and may_match is not None
        self._stems = tuple(prefixes or ()) if quick else None
        self._forms = frozenset(self._needles or ())
        self._hits: dict[str, tuple[int, ...]] = {}
        self.hit_words: set[str] = set()  # those of _hits that are a query word
        self.first: dict[str, int] = {}  # the first query word each of them is
        self._lines: dict[str, Line | LineView] = {}
        self.hit_lines: dict[str, Line] = {}  # those of _lines that hold a query word
        self._may_match = may_match
        self._words: LineWords = {} if line_words is None else line_words
        views = TextViews() if views is None else views
        self._views, self._windows = views.lines, views.windows

    def hits(self, word: str) -> tuple[int, ...]:
        found = self._hits.get(word)
        if found is None:
            if self._may_match is not None and self._may_match(word) is None:
                found = ()
            else:
                found = tuple(i for i, t in enumerate(self.terms) if t.matches(word))
            self._hits[word] = found
            if found:
                self.hit_words.add(word)
                self.first[word] = found[0]
        return found

    def needle_free(self, lower: str) -> bool:
        """Whether no needle is in a line's lowercase: then none of its words is a query word."""
        needles = self._needles
        return needles is not None and not any(map(lower.__contains__, needles))

    def any_hit(self, kept: TextWords) -> bool:
        """Whether any of a line's words is a query word (each tested once per search),
        for a line whose lowercase holds a needle (see needle_free)."""
        words, lower = kept.distinct, kept.lower
        stems = self._stems
        if stems is None:
            for word in words.difference(self._hits):
                self.hits(word)
            return not words.isdisjoint(self.hit_words)
        # A stem held by a word is held by its line's lowercase (no stem holds a sigma).
        held = tuple(s for s in stems if s in lower)
        for word in kept.maybe(self._forms, held):
            self.hits(word)
        return not words.isdisjoint(self.hit_words)

    def line(self, text: str) -> Line | LineView:
        known = self._lines.get(text)
        if known is None:
            view = self._view(text)
            known = view
            # Only a line with a needle in its lowercase is split into words (about a
            # third of a window's lines), and kept split.
            if not self.needle_free(view.lower):
                kept = kept_text_words(self._words, text)
                if self.any_hit(kept):
                    known = self.hit_lines[text] = Line(kept, self)
            self._lines[text] = known
        return known

    def _view(self, text: str) -> LineView:
        view = self._views.get(text)
        if view is None:
            view = self._views[text] = LineView(text, self._words.get(text))
        return view

    def windows(self, texts: Sequence[str], chunks: Sequence[str] = ()) -> list[WindowView]:
        """The windows of these texts, each of their lines (and those of `chunks`, texts
        whose lines are then looked up in `hit_lines`) worked out for this query."""
        out = []
        known = self._views.get
        for text in texts:
            window = self._windows.get(text)
            if window is None:
                lines = tuple(text.split("\n"))
                views = [known(line) or self._view(line) for line in lines]
                window = self._windows[text] = WindowView(lines, views)
            out.append(window)
        seen = set().union(*(w.lines for w in out), *(c.split("\n") for c in chunks))
        for line in seen.difference(self._lines):
            self.line(line)
        return out


def share(terms: Sequence[WeightedTerm], found: AbstractSet[int], total: float) -> float:
    return sum(terms[i].weight for i in found) / total if total > 0 else 0.0
