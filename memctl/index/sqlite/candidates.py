"""The SQLite index's CandidateSource: a search's candidate lists from the in-process index
(FTS5 words, trigram substrings, the window words, the vector matrix or vec0) with the
typo and prefix vocabulary; a shared server's are index/postgres/search.py's. A kept
Searcher's source keeps the vocabulary, the matrix and a second connection."""

from __future__ import annotations

import contextlib
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from memctl.index.sqlite import lexical as cand
from memctl.index.sqlite import substring_list, vectors
from memctl.index.sqlite.lexical import SqliteWordCounts
from memctl.index.sqlite.window_list import window_candidates
from memctl.lexical import lexicon, vocab
from memctl.lexical.crossing import is_name
from memctl.lexical.parse import Query
from memctl.lexical.plan import TYPO_MIN_RATIO, Candidates, Filters, LexicalPlan
from memctl.sqlite import connect
from memctl.vault import Vault

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from memctl.index.protocol import KeptReads
    from memctl.index.store import Store
    from memctl.index.usage import ChunkRecord
    from memctl.sqlite import Connection


_worker: ThreadPoolExecutor | None = None
_worker_lock = threading.Lock()


def _background() -> ThreadPoolExecutor:
    """One thread per process for the vector product of a search (made on first use)."""
    global _worker
    with _worker_lock:
        if _worker is None:
            _worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memctl-vectors")
        return _worker


class _Beside:
    """A second connection to the SQLite index and the one thread that reads it: a kept
    Searcher's window list ranks there while the words list ranks on the main
    connection (FTS5 runs without the GIL), as the vector product does beside both."""

    def __init__(self, path: Path) -> None:
        self.conn = connect(path, load_vec=False)
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memctl-windows")

    def close(self) -> None:
        self.worker.shutdown(wait=True)
        self.conn.close()


class SqliteCandidates:
    """The candidate lists of an in-process SQLite index (a CandidateSource: see
    memctl.index.protocol). `fresh`: whether this search re-checks what it keeps (set by
    the Searcher before each search)."""

    def __init__(
        self, store: Store, vault: Vault, kept: KeptReads, embed: Callable[[str], Any]
    ) -> None:
        self.store = store
        self.conn: Connection = store.conn
        self.vault = vault
        self.fresh = True
        self._kept = kept
        self._embed = embed
        self._vocab: vocab.Vocabulary | None = None
        self.matrix: vectors.VectorMatrix | Literal[False] | None = None  # False: not worth it
        self._beside: _Beside | None = None  # the window list's connection, once needed

    def close(self) -> None:
        if self._beside is not None:
            self._beside.close()
            self._beside = None

    def rows(self) -> int | None:
        """SQLite counts its own rows where the reranker weighs words (None)."""
        return None

    # Kept reads are checked against data_version; snippets read only what they need.
    keeps_reads = True
    reads_ahead = False

    def data_version(self) -> tuple[int, int] | None:
        """SQLite's data_version of index.db and state.db: each moves when another
        connection commits to that file."""
        conn = self.conn
        return (
            int(conn.execute("PRAGMA main.data_version").fetchone()[0]),
            int(conn.execute("PRAGMA state.data_version").fetchone()[0]),
        )

    def word_counts(self) -> SqliteWordCounts:
        return SqliteWordCounts(self.conn, self._kept.counts)

    def records(self, ids: Sequence[int]) -> dict[int, ChunkRecord]:
        """The candidates' chunk records (kept between searches of an unchanged index)."""
        return self._kept.chunk_records(ids, self.store.chunks_by_ids)

    def vector_first(
        self,
        query: str,
        parsed: Query,
        reads: tuple[str, ...],
        filters: Filters,
        vector: Any,
        limit: int,
    ) -> contextlib.AbstractContextManager[vectors.Ahead | None]:
        """The vector product started before anything else a search does (the index's
        freshness and counts, the lexical plan: ~0.25 ms of the searching thread at 10k),
        when its list will be wanted and needs no SQL (`vector_ahead`); its span ends
        with the caller's block. A list found unwanted after all (the index holds another
        model's vectors, or none) is dropped unread."""
        if (
            "vector" not in reads
            or parsed.is_empty()
            or self.fresh
            or not self.matrix
            or filters.active()
        ):
            return contextlib.nullcontext()
        qvec = vector if vector is not None else self._embed(query)
        return self.vector_ahead(qvec, filters, limit) or contextlib.nullcontext()

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
        first: vectors.Ahead | None = None,
    ) -> Candidates:
        """Each wanted list's candidates (chunk id -> raw score), and the lexical plan
        (`first`: the vector list already under way, `vector_first`; `reads`: the lists the
        search's mode reads)."""
        conn = self.conn
        plan = self._plan(parsed, common_fraction)
        lists: dict[str, dict[int, float]] = {}
        started = time.perf_counter()
        qvec, ahead = self._query_vector(query, wanted, vector, first)
        # The vector product runs beside the lexical lists' SQL when it can (both release
        # the GIL): the same list, found while FTS5 ranks. Its span (BLAS held at one
        # thread) ends with this block, also when a lexical list raises.
        with contextlib.ExitStack() as span:
            if qvec is not None and ahead is None:
                ahead = self.vector_ahead(qvec, filters, limit)
                if ahead is not None:
                    span.enter_context(ahead)
            windows = self._windows_beside(plan, filters, limit) if "window" in wanted else None
            if "fts" in wanted:
                lists["fts"] = cand.fts_candidates(conn, plan, filters, limit)
            # The trigram list (Python) before the window list is waited for: its thread
            # ranks meanwhile. The lists keep their order (fusion sums in it).
            trigram = (
                substring_list.trigram_candidates(
                    conn, parsed, plan, filters, limit, self._kept.trigram
                )
                if "trigram" in wanted
                else None
            )
            if "fts" in wanted and "window" in wanted:
                # Ranked here if its thread has not started on it (no free core).
                lists["window"] = (
                    windows.result()
                    if windows is not None and not windows.cancel()
                    else window_candidates(conn, plan, filters, limit)
                )
            if trigram is not None:
                lists["trigram"] = trigram
            if qvec is not None:
                lists["vector"] = (
                    ahead.result()
                    if ahead is not None
                    else self._vector_candidates(qvec, filters, limit)
                )
        if qvec is not None:
            return Candidates(plan, lists, started, qvec)
        return Candidates(plan, lists, started)

    def _plan(self, parsed: Query, common_fraction: float) -> LexicalPlan:
        """The lexical plan over this index's FTS5 counts (kept between searches), its
        typos corrected and prefixes expanded from the vocabulary."""
        return cand.plan_lexical(
            self.conn,
            parsed,
            common_fraction,
            corrector=self._correct,
            prefix_terms=self._prefix_terms,
            across=self._across,
            counts=self._kept.counts,
        )

    def _query_vector(
        self, query: str, wanted: tuple[str, ...], vector: Any, first: vectors.Ahead | None
    ) -> tuple[Any, vectors.Ahead | None]:
        """The query's vector where the vector list is read (None: it is not), embedded
        only when no caller has, and the product already under way (`first`)."""
        if "vector" not in wanted or not self.store.has_vectors():
            return None, None
        qvec = first.query if first is not None else vector
        if qvec is None:
            qvec = self._embed(query)
        return qvec, first

    def vector_ahead(self, qvec: Any, filters: Filters, limit: int) -> vectors.Ahead | None:
        """The vector list computed in the background thread, when it needs no SQL (no
        filters, the matrix held and not re-checked; smaller indexes have no matrix)."""
        matrix = self.matrix
        if self.fresh or not matrix or filters.active():
            return None
        return vectors.Ahead(_background(), matrix, qvec, limit)

    def _windows_beside(
        self, plan: LexicalPlan, filters: Filters, limit: int
    ) -> Future[dict[int, float]] | None:
        """The window list ranked on the second connection, for a Searcher kept across
        searches (not one that re-checks freshness: it answers on one connection)."""
        if self.fresh:
            return None
        if self._beside is None:
            self._beside = _Beside(self.store.path)
        return self._beside.worker.submit(
            window_candidates, self._beside.conn, plan, filters, limit
        )

    def _vector_candidates(self, qvec: Any, filters: Filters, limit: int) -> dict[int, float]:
        conn = self.conn
        # A Searcher kept across searches (an agent's session) re-checks the matrix's
        # signature whenever it re-checks freshness and keeps the matrix it holds while
        # that signature is unchanged.
        if filters.since is not None or filters.until is not None:
            # A date range leaves few chunks: scored exactly (cand.vectors_within).
            exact = cand.vectors_within(conn, qvec, filters, limit)
            if exact is not None:
                return exact
        if self.matrix is None or self.fresh:
            previous = self.matrix or None
            self.matrix = vectors.load(conn, self.vault.state_dir, previous=previous) or False
        if not self.matrix:
            return cand.vec0_candidates(conn, qvec, filters, limit)
        if not filters.active():
            return self.matrix.top(qvec, limit)
        # Filters are applied after an over-fetch; if too few survive, vec0 does it exactly.
        wide = self.matrix.top(qvec, limit * 20)
        kept = cand.filtered(conn, list(wide), filters)[:limit]
        if len(kept) < limit:
            return cand.vec0_candidates(conn, qvec, filters, limit)
        return {i: wide[i] for i in kept}

    def _correct(self, word: str) -> str | None:
        return self._vocabulary().closest(vocab.index_fold(word), TYPO_MIN_RATIO)

    def _across(self, word: str) -> list[str]:
        return self._vocabulary().across(vocab.index_fold(word), self._named)

    def _named(self, term: str) -> bool:
        return is_name(term, lexicon.is_common, lambda word: cand.capitalised(self.conn, word))

    def _prefix_terms(self, stem: str) -> list[str]:
        return self._vocabulary().with_prefix(vocab.index_fold(stem))

    def _vocabulary(self) -> vocab.Vocabulary:
        if self._vocab is None:
            self._vocab = vocab.load(self.conn, self.vault.state_dir, cand.VOCAB_TABLE)
        elif self.fresh:
            self._vocab.refresh(self.conn)
        return self._vocab
