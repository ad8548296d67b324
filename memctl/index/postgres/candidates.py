"""A shared server's CandidateSource: the candidate lists computed in SQL beside the data.

The PostgreSQL side of memctl.index.protocol's CandidateSource, beside SQLite's
(memctl.index.sqlite.candidates): the lists themselves are search.py's, their BM25
bm25.py's; nothing is kept between searches but the store's own caches.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from memctl.index.postgres.search import candidate_lists
from memctl.lexical.parse import Query
from memctl.lexical.plan import Candidates, Filters, LexicalPlan

if TYPE_CHECKING:
    from memctl.index.postgres.store import PgStore
    from memctl.index.usage import ChunkRecord


class PgCandidates:
    """A shared server's CandidateSource (memctl.index.protocol): the lists computed in
    SQL beside the data; nothing is kept between searches but the store's own caches."""

    fresh = True
    matrix = None  # no vectors held in memory: the reranker reads windows' vectors in SQL

    def __init__(self, store: PgStore, embed: Callable[[str], Any]) -> None:
        self.store = store
        self._embed = embed

    def close(self) -> None:
        pass

    def rows(self) -> int:
        """This vault's chunk count for the reranker's IDF: its statistics row, as BM25
        reads it, not a count of the rows (~150 ms at 100k)."""
        rows, _ = self.store.stats([self.store.vault_name])
        return max(int(rows), 1)

    # Another machine may rewrite a file under a kept Searcher, unseen: its chunks are
    # read each search. Round trips are what cost: the snippets' context is read ahead.
    keeps_reads = False
    reads_ahead = True

    def data_version(self) -> tuple[int, int] | None:
        return None

    def word_counts(self) -> PlanWordCounts:
        return PlanWordCounts()

    def records(self, ids: Sequence[int]) -> dict[int, ChunkRecord]:
        return {r.id: r for r in self.store.chunks_by_ids(ids)}

    def vector_first(
        self,
        query: str,
        parsed: Query,
        reads: tuple[str, ...],
        filters: Filters,
        vector: Any,
        limit: int,
    ) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    def lists(
        self,
        query: str,
        parsed: Query,
        filters: Filters,
        wanted: tuple[str, ...],
        vector: Any,
        notices: list[str],
        limit: int,
        common_fraction: float,
        first: Any = None,
    ) -> Candidates:
        started = time.perf_counter()
        # The store asks for the vector only when it builds the vector list; the
        # reranker's window cosines need the same one, as on SQLite.
        asked: list[Any] = []

        def query_vector() -> Any:
            if not asked:
                asked.append(vector if vector is not None else self._embed(query))
            return asked[0]

        plan, shared = candidate_lists(
            self.store, parsed, filters, limit, wanted, query_vector, notices, common_fraction
        )
        return Candidates(plan, shared, started, asked[0] if asked else None)


class PlanWordCounts:
    """A shared server's word counts (a WordCounts: memctl.index.protocol): what its
    lexical plan counted, its chunk count estimated from them unless the reranker gives
    it; no word is looked up again, none judged missing."""

    exact = False

    def rows(self, plan: LexicalPlan, rows: int | None = None) -> int:
        if rows is not None:
            return rows
        return max(max(plan.doc_freqs.values(), default=0) * 10, 1000)

    def doc_freqs(self, words: list[str], cap: int | None = None) -> dict[str, int]:
        return {}

    def prefixed_rows(self, word: str) -> int:
        return 0
