"""What a kept Searcher remembers of the index between searches, and when it forgets it.

A search of an unchanged index asks it the same things again: the same words' trigram
lookups, the same chunks' records and neighbouring lines. A Searcher kept across
searches (the resident process, an MCP server, a batch) keeps those answers while the
index stays as it was: it forgets them whenever a search re-checks freshness
(`Searcher.refresh`) and whenever SQLite's `data_version` says another connection
committed (a `memctl index`, another process's usage log). The chunks' usage counters
live in the state database: its own `data_version` moves only the records, and the
Searcher's own usage log forgets the records it just counted.

Answers that are a pure function of a string (a line's token cost, its words) are kept
regardless of the index, within a size bound.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memctl.index.sqlite.lexical import KeptCounts
from memctl.index.sqlite.substring_list import TrigramMemory
from memctl.index.usage import ChunkRecord
from memctl.search.present.snippets import Snippet
from memctl.search.query.matcher import TextWords, kept_text_words
from memctl.search.rank.ranking import KeptFactors
from memctl.search.rerank.lines import LineWords
from memctl.search.rerank.windows import KeptWindows

if TYPE_CHECKING:
    from memctl.index.protocol import ContextWindow, IndexBackend

ContextRows = Sequence[tuple[int, int, str]]

KEPT = 50_000  # entries a table may hold before it is emptied (~30 MB; ~55 MB for `fits`)
WINDOWS_KEPT = 10_000  # the reranker's windows and chunks' vectors (~1.6 KB each at 384 dims)


@dataclass
class IndexMemory:
    """What earlier searches read from an unchanged index (module docstring)."""

    counts: KeptCounts = field(default_factory=KeptCounts)
    trigram: TrigramMemory = field(default_factory=TrigramMemory)
    records: dict[int, ChunkRecord] = field(default_factory=dict)
    files: dict[str, _FileRows] = field(default_factory=dict)  # every chunk of a file
    spans: dict[str, list[tuple[int, int, int]]] = field(default_factory=dict)  # their ids
    windows: KeptWindows = field(default_factory=KeptWindows)  # the reranker's windows
    _file_rows: int = 0
    fits: dict[tuple[int, int], Snippet | None] = field(default_factory=dict)  # present/results.py
    line_costs: dict[str, int] = field(default_factory=dict)  # a string's, never stale
    line_words: LineWords = field(default_factory=dict)  # the same
    # Each record's composite-score signals (ranking.score; checked against the record).
    factors: KeptFactors = field(default_factory=dict)
    _by_hash: dict[str, list[int]] = field(default_factory=dict)  # the records' ids per hash
    _versions: tuple[int, int] | None = None

    def clear(self) -> None:
        """Forget everything read from the index (its text may have changed)."""
        self.counts.clear()
        self.trigram.clear()
        for table in (
            self.files,
            self.spans,
            self.windows,
            self.fits,
            self.factors,
        ):
            table.clear()
        self._file_rows = 0
        self._forget_records()
        self._versions = None

    def _forget_records(self) -> None:
        self.records.clear()
        self._by_hash.clear()

    def check(self, versions: tuple[int, int] | None) -> None:
        """Forget what another connection's commit may have changed (`versions`: the
        index's, CandidateSource.data_version; None: it has none, and nothing that could
        go stale is kept); bound every table."""
        if versions is not None:
            if self._versions is not None and versions != self._versions:
                if versions[0] != self._versions[0]:
                    self.clear()
                else:
                    self._forget_records()
            self._versions = versions
        if len(self.counts.capped) > KEPT:
            self.counts.clear()
        if self.trigram.size() > KEPT:
            self.trigram.clear()
        if len(self.records) > KEPT:
            self._forget_records()
        tables = (
            self.line_costs,
            self.line_words,
            self.factors,
            self.spans,
            self.fits,
        )
        for table in tables:
            if len(table) > KEPT:
                table.clear()
        if len(self.windows) > WINDOWS_KEPT:
            self.windows.clear()
        if self._file_rows > KEPT:
            self.files.clear()
            self._file_rows = 0

    def chunk_count(self, read: Callable[[], int], keep: bool) -> int:
        """store.chunk_count(), read once while the index stays as it was (`keep`: the
        candidate source's reads may be kept, CandidateSource.keeps_reads)."""
        if not keep:
            return read()
        if self.counts.chunks is None:
            self.counts.chunks = read()
        return self.counts.chunks

    def text_words(self, text: str) -> TextWords:
        """matcher.text_words of a text, kept by text (shared with the reranker's lines)."""
        return kept_text_words(self.line_words, text)

    def chunk_records(
        self, ids: Sequence[int], read: Callable[[Sequence[int]], list[ChunkRecord]]
    ) -> dict[int, ChunkRecord]:
        """{id: record} of these chunks (those still indexed), read only when not kept."""
        kept = self.records
        unknown = [i for i in ids if i not in kept]
        if unknown:
            for record in read(unknown):
                kept[record.id] = record
                self._by_hash.setdefault(record.hash, []).append(record.id)
        return {i: kept[i] for i in ids if i in kept}

    def forget_usage(self, ids: Iterable[int]) -> None:
        """The usage counters of these chunks changed (this Searcher logged them): every
        kept record sharing their text's hash reads them again."""
        for i in ids:
            if i in self.records:
                for cid in self._by_hash.pop(self.records[i].hash, []):
                    self.records.pop(cid, None)

    def context_reader(self, store: IndexBackend) -> Callable[[ContextWindow], ContextRows]:
        """store.context_rows of a window, from the file's chunks read once."""

        def rows(window: ContextWindow) -> ContextRows:
            vault, path, lo, hi = window
            whole = self.files.get(path)
            if whole is None:
                whole = self.files[path] = _FileRows(store.context_rows(vault, path, -_ALL, _ALL))
                self._file_rows += len(whole.rows)
            return whole.overlapping(lo, hi)

        return rows

    def context_lines(self, store: IndexBackend) -> Callable[[ContextWindow], FileLines | None]:
        """present.snippet_lines' lines of a window, cut from its file's lines laid out
        once (None: lay out the window's rows instead, see _FileRows.lines)."""
        read = self.context_reader(store)

        def lines(window: ContextWindow) -> FileLines | None:
            whole = self.files.get(window[1])
            if whole is None:
                read(window)  # reads and keeps the file's rows
                whole = self.files[window[1]]
            return whole.lines(window[2], window[3])

        return lines


_ALL = 1 << 62  # a line range holding every line
# A stretch of a file's lines (blank between chunks) and the first one's number.
FileLines = tuple[list[str], int]


class _FileRows:
    """A file's chunks (line_start, line_end, text) by line_start, as context_rows reads them."""

    def __init__(self, rows: ContextRows) -> None:
        self.rows = list(rows)
        self.starts = [r[0] for r in self.rows]
        self.span = max((r[1] - r[0] for r in self.rows), default=0)
        self._laid: list[str] | None = None
        self._ends: list[int] = []
        self._plain: bool | None = None  # whether the chunks lay out as lines (see lines)

    def overlapping(self, lo: int, hi: int) -> ContextRows:
        """Those with line_end >= lo and line_start <= hi (none starting before lo - span
        can reach lo), in the same order."""
        first = bisect.bisect_left(self.starts, lo - self.span)
        last = bisect.bisect_right(self.starts, hi)
        return [r for r in self.rows[first:last] if r[1] >= lo]

    def lines(self, lo: int, hi: int) -> FileLines | None:
        """The lines from the first chunk overlapping lo..hi to the last one's end, blank
        between chunks, as present.snippet_lines lays out the window's rows; None when no
        chunk overlaps or the file's chunks do not lay out plainly (two overlap, or a text
        has more or fewer lines than its range): the window's own rows are laid out then.

        Chunks that neither overlap nor overrun their ranges own their lines alone, so a
        stretch cut from the whole file holds exactly what the window's rows would."""
        if self._plain is None:
            self._plain = self._lay_out()
        if not self._plain or self._laid is None:
            return None
        first = bisect.bisect_left(self._ends, lo)  # ends rise with starts here
        last = bisect.bisect_right(self.starts, hi) - 1
        if first > last:
            return None
        base = self.rows[0][0]
        start, end = self.rows[first][0], self.rows[last][1]
        return self._laid[start - base : end - base + 1], start

    def _lay_out(self) -> bool:
        rows = self.rows
        if not rows:
            return False
        base = rows[0][0]
        laid = [""] * (rows[-1][1] - base + 1)
        previous = base - 1
        for start, end, text in rows:
            parts = text.split("\n")
            if start <= previous or end < start or len(parts) != end - start + 1:
                return False
            laid[start - base : end - base + 1] = parts
            previous = end
        self._laid, self._ends = laid, [r[1] for r in rows]
        return True
