"""The reader's half of `PgStore`: records, snippet context, statistics, usage (see store.py)."""

from __future__ import annotations

import bisect
import itertools
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import psycopg

from memctl import clock
from memctl.index import usage
from memctl.index.postgres import candidates, schema, window_reads
from memctl.index.postgres.lists import records_by_ids
from memctl.index.protocol import ContextWindow, ReferenceEvent, Window
from memctl.index.usage import (
    REFERENCE_KINDS,
    ChunkRecord,
    ChunkSpan,
    ChunkUsage,
    ContextRow,
    IndexCounts,
)

if TYPE_CHECKING:
    import numpy as np

    from memctl.index.neighbours import BlockSource, NeighbourPair
    from memctl.index.postgres.store import PgStore
    from memctl.index.protocol import KeptReads
    from memctl.vault import Vault


class _Lexemes:
    """The common words of a column's statistics joined into one string, for finding those
    holding a word by str.find (in C) rather than testing ~1,000 words one by one in Python
    (0.6 ms a new query word at 1M); kept for the statistics' dict it was made from."""

    __slots__ = ("common", "freqs", "starts", "text")
    _last: _Lexemes | None = None

    def __init__(self, common: dict[str, float]) -> None:
        self.common = common
        # NUL joins them: PostgreSQL text never holds it, so no match spans two words.
        self.text = "\0".join(common)
        self.freqs = list(common.values())
        self.starts = list(itertools.accumulate((len(w) + 1 for w in common), initial=0))

    @classmethod
    def of(cls, common: dict[str, float]) -> _Lexemes:
        last = cls._last
        if last is None or last.common is not common:
            last = cls._last = cls(common)
        return last

    def share(self, word: str) -> float:
        """sum(f for lexeme, f in common.items() if word in lexeme): the same terms, in the
        same order, so the same float."""
        if not word or "\0" in word:
            return sum(f for lexeme, f in self.common.items() if word in lexeme)
        text, starts, found = self.text, self.starts, []
        at = text.find(word)
        while at >= 0:
            k = bisect.bisect_right(starts, at) - 1
            found.append(self.freqs[k])
            at = text.find(word, starts[k + 1])  # the next word's start (the last: past the end)
        return sum(found)


class PgReads:
    """Everything a search, the lifecycle and the agent read; usage is per vault."""

    conn: psycopg.Connection[Any]
    vault_name: str
    _has_vectors: bool
    _common: dict[str, tuple[float, dict[str, float]]]  # per tsvector column
    _stats: dict[tuple[str, ...] | None, tuple[float, int, float, int, float]]
    _prefetched: dict[int, ChunkRecord]
    _table_rows: tuple[float, int] | None
    _estimates: dict[str, tuple[tuple[float, int, int], dict[str, int]]]
    _shares: tuple[float, dict[str, float]] | None

    if TYPE_CHECKING:

        def transaction(self) -> AbstractContextManager[None]: ...
        def _meta(self, key: str) -> str | None: ...
        def pending_count(self) -> int: ...

    def chunk_count(self) -> int:
        """This vault's chunks, by an index-only scan (no visit of the rows' texts)."""
        row = self.conn.execute(
            "SELECT count(*) FROM chunks WHERE vault = %s", (self.vault_name,)
        ).fetchone()
        return int(schema.one(row)[0])

    def counts(self) -> IndexCounts:
        me = self.vault_name
        by_tier = dict(
            self.conn.execute(
                "SELECT tier, count(*) FROM chunks WHERE vault = %s GROUP BY tier", (me,)
            ).fetchall()
        )
        files = schema.one(
            self.conn.execute("SELECT count(*) FROM files WHERE vault = %s", (me,)).fetchone()
        )
        return {
            "chunks": sum(by_tier.values()),
            "chunks_by_tier": {tier: by_tier.get(tier, 0) for tier in ("hot", "warm", "cold")},
            "files": int(files[0]),
            "pending_embeddings": self.pending_count(),
        }

    # -- readers ----------------------------------------------------------------------------

    def prefetched(self, records: dict[int, ChunkRecord]) -> None:
        """Records the candidate lists brought along, for the next `chunks_by_ids` only."""
        self._prefetched = records

    def chunks_by_ids(self, ids: Sequence[int]) -> list[ChunkRecord]:
        unique = list(dict.fromkeys(int(i) for i in ids))
        found, self._prefetched = self._prefetched, {}
        missing = [i for i in unique if i not in found]
        if missing:
            found = found | records_by_ids(self.conn, self.vault_name, missing)
        return [found[i] for i in unique if i in found]

    def chunk_ids(self) -> list[int]:
        rows = self.conn.execute(
            "SELECT id FROM chunks WHERE vault = %s ORDER BY id", (self.vault_name,)
        )
        return [r[0] for r in rows]

    def chunks_in_paths(self, paths: Sequence[str]) -> list[ChunkSpan]:
        rows = self.conn.execute(
            "SELECT hash, path, line_start, line_end FROM chunks WHERE vault = %s "
            "AND path = ANY(%s)",
            (self.vault_name, list(paths)),
        ).fetchall()
        return [ChunkSpan(*row) for row in rows]

    def context_rows(self, vault: str, path: str, lo: int, hi: int) -> list[ContextRow]:
        rows = self.conn.execute(
            "SELECT line_start, line_end, text FROM chunks WHERE vault = %s AND path = %s "
            "AND line_end >= %s AND line_start <= %s ORDER BY line_start",
            (vault or self.vault_name, path, lo, hi),
        ).fetchall()
        return [ContextRow(*row) for row in rows]

    def _keyed(self, windows: Sequence[ContextWindow]) -> list[ContextWindow]:
        """The windows with this vault's name for an empty one."""
        return [(v or self.vault_name, path, lo, hi) for v, path, lo, hi in windows]

    def context_windows(
        self, windows: Sequence[tuple[str, str, int, int]]
    ) -> list[list[ContextRow]]:
        """`context_rows` of every (vault, path, lo, hi) window in one round trip."""
        return window_reads.context_windows(self.conn, self._keyed(windows))

    def window_vectors(
        self,
        windows: Sequence[tuple[str, str, int, int]],
        matrix: Any = None,
        spans: dict[str, list[tuple[int, int, int]]] | None = None,
    ) -> list[dict[int, np.ndarray]]:
        """Per (vault, path, lo, hi) window, the vectors of the chunks overlapping it, in
        one round trip (chunks without a vector left out; `matrix` and `spans` are
        SQLite's)."""
        return window_reads.window_vectors(self.conn, self._keyed(windows))

    def chunk_usage(self, cold_before: str | None = None) -> Iterator[ChunkUsage]:
        for row in self.conn.execute(
            "SELECT c.hash, c.path, c.line_start, c.line_end, c.text, c.tier, c.source, c.date, "
            "u.last_referenced_at FROM chunks AS c LEFT JOIN usage AS u "
            "ON u.vault = c.vault AND u.hash = c.hash WHERE c.vault = %s "
            "AND (%s::text IS NULL OR c.tier <> 'cold' OR c.date IS NULL OR c.date < %s) "
            "ORDER BY c.id",
            (self.vault_name, cold_before, cold_before),
        ):
            yield ChunkUsage(*row)

    def vector_blocks(self, state_dir: Path) -> BlockSource | None:
        """None: the server's HNSW index answers nearest neighbours itself."""
        return None

    def near_pairs(
        self, min_cosine: float, k: int, blocks: BlockSource | None = None
    ) -> list[NeighbourPair]:
        """Each HOT and WARM chunk's `k` nearest chunks of another tier, by the HNSW index
        (`blocks`, a SQLite matrix copy, does not apply)."""
        from memctl.index.neighbours import NeighbourPair

        askers = self.conn.execute(
            "SELECT id, tier, embedding FROM chunks WHERE vault = %s AND embedded "
            "AND tier IN ('hot', 'warm')",
            (self.vault_name,),
        ).fetchall()
        pairs = []
        for source, tier, vector in askers:
            for other, cosine in self.conn.execute(
                "SELECT id, 1 - (embedding <=> %s) FROM chunks WHERE vault = %s AND embedded "
                "AND tier <> %s ORDER BY embedding <=> %s LIMIT %s",
                (vector, self.vault_name, tier, vector, k),
            ):
                if cosine >= min_cosine:
                    pairs.append(NeighbourPair(source, int(other), float(cosine)))
        return pairs

    def meta(self, key: str) -> str | None:
        if key == "last_sync":
            row = self.conn.execute(
                "SELECT last_sync FROM vault_stats WHERE vault = %s", (self.vault_name,)
            ).fetchone()
            return row[0] if row else None
        return self._meta(key)

    def has_vectors(self, vaults: Sequence[str] | None = None) -> bool:
        if not self._has_vectors:
            row = self.conn.execute(
                "SELECT 1 FROM chunks WHERE embedded AND (%s::text[] IS NULL OR vault = ANY(%s)) "
                "LIMIT 1",
                (vaults, vaults),
            ).fetchone()
            self._has_vectors = row is not None
        return self._has_vectors

    def nearest(self, vector: np.ndarray, limit: int) -> dict[int, float]:
        """id -> cosine of this vault's `limit` chunks nearest to a unit vector (HNSW)."""
        import numpy as np

        qvec = np.asarray(vector, dtype=np.float32)
        rows = self.conn.execute(
            "SELECT id, 1 - (embedding <=> %s) FROM chunks WHERE vault = %s "
            "AND embedding IS NOT NULL ORDER BY embedding <=> %s LIMIT %s",
            (qvec, self.vault_name, qvec, limit),
        ).fetchall()
        return {int(cid): float(cosine) for cid, cosine in rows}

    def stats(self, vaults: Sequence[str] | None) -> tuple[int, float]:
        """(rows, mean row length in tokens) of the vaults searched, for BM25 (and the
        reranker's IDF: this vault's, without a count of its rows); cached 60 s a scope."""
        key = None if vaults is None else tuple(vaults)
        kept = self._stats.get(key)
        if kept is None or time.monotonic() - kept[0] > 60:
            row = schema.one(
                self.conn.execute(
                    "SELECT coalesce(sum(chunks), 0), coalesce(sum(tokens), 0), "
                    "coalesce(sum(windows), 0), coalesce(sum(window_tokens), 0) "
                    "FROM vault_stats WHERE %s::text[] IS NULL OR vault = ANY(%s)",
                    (vaults, vaults),
                ).fetchone()
            )
            rows, tokens, windows, window_tokens = (int(v) for v in row)
            kept = self._stats[key] = (
                time.monotonic(),
                rows,
                tokens / rows if rows else 1.0,
                windows,
                window_tokens / windows if windows else 1.0,
            )
        return kept[1], kept[2]

    def window_stats(self, vaults: Sequence[str] | None) -> tuple[int, float]:
        """(windows, mean window length in tokens) of the vaults searched: the window
        list's BM25 N and mean length (a one-chunk file's chunk has no window)."""
        self.stats(vaults)
        kept = self._stats[None if vaults is None else tuple(vaults)]
        return kept[3], kept[4]

    def table_rows(self) -> int:
        """Rows of every vault on the server (what a scan of the table reads); cached 60 s."""
        if self._table_rows is None or time.monotonic() - self._table_rows[0] > 60:
            row = self.conn.execute("SELECT coalesce(sum(chunks), 0) FROM vault_stats").fetchone()
            self._table_rows = (time.monotonic(), int(schema.one(row)[0]))
        return self._table_rows[1]

    def common_words(self, column: str = "words") -> dict[str, float]:
        """lexeme -> fraction of rows holding it, for the commonest words (PostgreSQL's own
        statistics of a tsvector column, `words` or `window_words`; refreshed by ANALYZE).
        Cached 10 minutes."""
        kept = self._common.get(column)
        if kept is None or time.monotonic() - kept[0] > 600:
            row = self.conn.execute(
                "SELECT most_common_elems::text::text[], most_common_elem_freqs FROM pg_stats "
                "WHERE tablename = %s AND attname = %s",
                ("chunk_windows" if column == "window_words" else "chunks", column),
            ).fetchone()
            freqs: dict[str, float] = {}
            if row and row[0]:
                freqs = dict(zip(row[0], row[1], strict=False))
            kept = self._common[column] = (time.monotonic(), freqs)
        return kept[1]

    def word_estimates(self, rows: int, at_least: int, column: str = "words") -> dict[str, int]:
        """Rows holding each common word, from `common_words`, for words in `at_least` rows
        or more; kept while the statistics and `rows` stay the same (a search would
        otherwise rebuild it from ~1,000 words each time)."""
        common = self.common_words(column)
        key = (self._common[column][0], rows, at_least)  # when the statistics were read
        kept = self._estimates.get(column)
        if kept is None or kept[0] != key:
            estimates = {w: round(f * rows) for w, f in common.items() if f * rows >= at_least}
            kept = self._estimates[column] = (key, estimates)
        return kept[1]

    def substring_share(self, word: str) -> float:
        """The share of the table's rows the common words holding `word` are in (summed:
        an overestimate when a row holds several; at most 1), from `common_words`; kept
        while the statistics stay the same (~1,000 words to test for each word)."""
        common = self.common_words()
        read_at = self._common["words"][0]  # when the statistics were read
        if self._shares is None or self._shares[0] != read_at:
            self._shares = (read_at, {})
        shares = self._shares[1]
        if word not in shares:
            if len(shares) > 10_000:
                shares.clear()
            shares[word] = min(1.0, _Lexemes.of(common).share(word))
        return shares[word]

    def vaults(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT vault FROM vault_stats ORDER BY vault")]

    def candidate_source(
        self, vault: Vault, kept: KeptReads, embed: Callable[[str], Any]
    ) -> candidates.PgCandidates:
        """The candidate lists computed in SQL beside the data (`vault` and `kept`: the
        SQLite source's; a shared server's rows are read each search)."""
        # The mixin is only ever part of PgStore.
        return candidates.PgCandidates(cast("PgStore", self), embed)

    # -- usage (this vault's) ---------------------------------------------------------------

    def record_references(
        self,
        hashes_and_paths: Iterable[tuple[str, str]],
        kind: str,
        query: str | None,
        now: datetime,
    ) -> None:
        if kind not in REFERENCE_KINDS:
            raise ValueError(f"reference kind must be one of {REFERENCE_KINDS}, not {kind!r}")
        stamp = clock.iso(now)
        items = list(dict.fromkeys((h, p) for h, p in hashes_and_paths))
        if not items:
            return
        me = self.vault_name
        with self.transaction():
            self.conn.execute(
                "INSERT INTO reference_log(vault, hash, path, ts, kind, query) "
                "SELECT %s, h, p, %s, %s, %s FROM unnest(%s::text[], %s::text[]) AS x(h, p)",
                (me, stamp, kind, query, [h for h, _ in items], [p for _, p in items]),
            )
            self.conn.execute(
                "INSERT INTO usage(vault, hash, created_at, last_referenced_at, access_count) "
                "SELECT %s, h, %s, %s, 1 FROM unnest(%s::text[]) AS h ORDER BY 1 "
                "ON CONFLICT (vault, hash) DO UPDATE SET access_count = usage.access_count + 1, "
                "last_referenced_at = greatest(coalesce(usage.last_referenced_at, ''), "
                "excluded.last_referenced_at)",
                (me, stamp, stamp, sorted({h for h, _ in items})),
            )

    # The reference log's reads are SQLite's (memctl.index.usage), on this vault's rows.
    def reference_counts(self, since: datetime) -> dict[str, int]:
        return usage.reference_counts(self.conn, since, self._log())

    def reference_window(
        self, since: datetime, until: datetime
    ) -> tuple[Window, dict[str, list[str]]]:
        return usage.reference_window(self.conn, since, until, self._log())

    def reference_events(
        self, hashes: Sequence[str], limit: int
    ) -> dict[str, list[ReferenceEvent]]:
        return usage.reference_events(self.conn, hashes, limit, self._log())

    def references_per_day(self, since: datetime) -> dict[str, int]:
        return usage.references_per_day(self.conn, since, self._log())

    def _log(self) -> usage.ReferenceLog:
        return usage.ReferenceLog("reference_log", "%s", self.vault_name)
