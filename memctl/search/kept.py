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

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memctl.index.usage import ChunkRecord
from memctl.search.candidates import ChunkWords, IndexCounts

if TYPE_CHECKING:
    from memctl.index.backend import ContextWindow
    from memctl.sqlite import Connection

KEPT = 50_000  # entries a table may hold before it is emptied (~30 MB at most)


@dataclass
class IndexMemory:
    """What earlier searches read from an unchanged index (module docstring)."""

    counts: IndexCounts = field(default_factory=IndexCounts)
    chunk_words: dict[int, ChunkWords] = field(default_factory=dict)
    lookups: dict[tuple[Any, ...], list[int]] = field(default_factory=dict)
    records: dict[int, ChunkRecord] = field(default_factory=dict)
    context: dict[ContextWindow, Sequence[tuple[int, int, str]]] = field(default_factory=dict)
    word_sets: dict[int, frozenset[str]] = field(default_factory=dict)
    line_costs: dict[str, int] = field(default_factory=dict)  # a string's, never stale
    _by_hash: dict[str, list[int]] = field(default_factory=dict)  # the records' ids per hash
    _versions: tuple[int, int] | None = None

    def clear(self) -> None:
        """Forget everything read from the index (its text may have changed)."""
        self.counts.clear()
        for table in (self.chunk_words, self.lookups, self.context, self.word_sets):
            table.clear()
        self._forget_records()
        self._versions = None

    def _forget_records(self) -> None:
        self.records.clear()
        self._by_hash.clear()

    def check(self, conn: Connection | None) -> None:
        """Forget what another connection's commit may have changed; bound every table."""
        if conn is not None:
            versions = (
                int(conn.execute("PRAGMA main.data_version").fetchone()[0]),
                int(conn.execute("PRAGMA state.data_version").fetchone()[0]),
            )
            if self._versions is not None and versions != self._versions:
                if versions[0] != self._versions[0]:
                    self.clear()
                else:
                    self._forget_records()
            self._versions = versions
        if len(self.counts.capped) > KEPT:
            self.counts.clear()
        if len(self.records) > KEPT:
            self._forget_records()
        for table in (
            self.chunk_words,
            self.lookups,
            self.context,
            self.word_sets,
            self.line_costs,
        ):
            if len(table) > KEPT:
                table.clear()

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
