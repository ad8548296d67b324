"""`PgStore`: the `IndexBackend` over a PostgreSQL server shared by a team of vaults.

Every row carries its vault (the namespace); a vault writes only its own rows, so
writers on different machines never touch the same rows. A file's chunks are replaced
in the caller's transaction under an advisory lock on (vault, path), held until commit:
two writers of the same file queue, writers of different files never wait, and a reader
sees the file as it was or as it is, never half. Chunks are keyed by (vault, path,
line_start, hash): an unchanged chunk keeps its row and its vector, a replayed write
(after a dropped connection) inserts nothing twice.

Embeddings come from the vault's local cache (`.memctl/state.db`, as with SQLite): a
text embedded once on this machine is never embedded again.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

import psycopg

from memctl import clock
from memctl.index.backend import Window, database_url, iter_batches, vault_name
from memctl.index.chunker import Chunk
from memctl.index.postgres import schema, search, words
from memctl.index.usage import (
    REFERENCE_KINDS,
    ChunkRecord,
    ChunkSpan,
    ChunkUsage,
    ContextRow,
    IndexCounts,
    _record,
)
from memctl.vault import Vault

if TYPE_CHECKING:
    import numpy as np

    from memctl.index.neighbours import BlockSource, NeighbourPair

STATE_FILE = "state.db"
_RECORD = (
    "SELECT c.id, c.path, c.line_start, c.line_end, c.heading, c.text, c.hash, c.tier, "
    "c.source, c.date, c.tags, c.importance, c.embedded, "
    "u.created_at, u.last_referenced_at, coalesce(u.access_count, 0), c.vault "
    "FROM chunks AS c LEFT JOIN usage AS u ON u.vault = %s AND u.hash = c.hash "
)


class PgStore:
    backend = "postgres"

    def __init__(self, conn: psycopg.Connection[Any], vault: Vault) -> None:
        self.conn = conn
        self.vault = vault
        self.vault_name = vault_name(vault)
        self._cache: Any = None
        self._has_vectors = False
        self._model: tuple[str, int] | None = None  # (id, dim), read once per store
        self._common: tuple[float, dict[str, float]] | None = None
        self._depth = 0
        self._delta = [0, 0]  # chunks and tokens added by the open transaction
        self._new_words: set[str] = set()
        self._new_hashes: dict[str, str] = {}
        self._stats: tuple[float, int, float] | None = None  # (read at, rows, mean length)

    @classmethod
    def open(cls, vault: Vault) -> PgStore:
        """Connect, and migrate the schema first if this database lacks a version."""
        conn = schema.connect(database_url(vault))
        try:
            version = schema.schema_version(conn)
            schema.check_not_newer(version)
            if version < schema.LATEST:
                from memctl.index.embed import model_identity

                schema.migrate(conn, model_identity(vault.settings)[1] or schema.DEFAULT_DIM)
            schema.prepare_session(conn)
        except BaseException:
            conn.close()
            raise
        return cls(conn, vault)

    def close(self) -> None:
        self.conn.close()
        if self._cache is not None:
            self._cache.close()
            self._cache = None

    def __enter__(self) -> PgStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One transaction (a savepoint when nested).

        Rows every writer of a vault shares are touched once, at the end: the vault's
        statistics row as the last statement before commit, so no writer holds it while
        it waits for a file lock (a deadlock between two syncs of one vault); the team's
        vocabulary and the usage rows after commit, each in one sorted statement of its
        own, so two writers never take those rows' locks in crossing orders.
        """
        outer = self._depth == 0
        self._depth += 1
        try:
            with self.conn.transaction():
                yield
                if outer:
                    self._flush_counts()
        except BaseException:
            if outer:
                self._discard_deferred()
            raise
        finally:
            self._depth -= 1
        if outer:
            self._flush_deferred()

    def _discard_deferred(self) -> None:
        self._delta = [0, 0]
        self._new_words.clear()
        self._new_hashes.clear()

    def _flush_counts(self) -> None:
        chunks, tokens = self._delta
        self._delta = [0, 0]
        if chunks or tokens:
            self.conn.execute(
                "INSERT INTO vault_stats(vault, chunks, tokens) VALUES (%s, %s, %s) "
                "ON CONFLICT (vault) DO UPDATE SET chunks = vault_stats.chunks + excluded.chunks, "
                "tokens = vault_stats.tokens + excluded.tokens",
                (self.vault_name, chunks, tokens),
            )

    def _flush_deferred(self) -> None:
        """The vocabulary (typo hints) and first-seen usage rows: losing them to a dropped
        connection costs nothing the next sync or search does not restore."""
        words_, hashes = sorted(self._new_words), sorted(self._new_hashes.items())
        self._new_words.clear()
        self._new_hashes.clear()
        if words_:
            self.conn.execute(
                "INSERT INTO lexemes(word) SELECT w FROM unnest(%s::text[]) AS w ORDER BY 1 "
                "ON CONFLICT DO NOTHING",
                (words_,),
            )
        if hashes:
            self.conn.execute(
                "INSERT INTO usage(vault, hash, created_at, access_count) "
                "SELECT %s, h, s, 0 FROM unnest(%s::text[], %s::text[]) AS x(h, s) ORDER BY 2 "
                "ON CONFLICT DO NOTHING",
                (self.vault_name, [h for h, _ in hashes], [t for _, t in hashes]),
            )

    # -- model --------------------------------------------------------------------------

    def _meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM memctl_meta WHERE key = %s", (key,)).fetchone()
        return row[0] if row else None

    def _set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO memctl_meta(key, value) VALUES (%s, %s) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    @property
    def model_id(self) -> str:
        # Read once per store: a search asks for it every query, and a model switch
        # (rare, team-wide) reaches long-lived readers when they reconnect.
        if self._model is None:
            self._model = (self._meta("model_id") or "", self._column_dim())
        return self._model[0]

    @property
    def dim(self) -> int:
        if self._model is None:
            self._model = (self._meta("model_id") or "", self._column_dim())
        return self._model[1]

    def _column_dim(self) -> int:
        row = self.conn.execute(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = 'chunks'::regclass "
            "AND attname = 'embedding'"
        ).fetchone()
        return int(row[0]) if row and row[0] > 0 else schema.DEFAULT_DIM

    def set_model(self, model_id: str, dim: int) -> bool:
        """The team's index holds one model's vectors: a switch drops every vault's vectors
        (their texts come back from each machine's cache or model on its next sync)."""
        self._model = None  # re-read: another machine may have switched it
        current = self.model_id
        if current == model_id and dim == self.dim:
            return False
        with self.transaction():
            if current:
                self.conn.execute(
                    "UPDATE chunks SET embedding = NULL, embedded = false WHERE embedded"
                )
            if dim != self.dim:
                # The HNSW index is rebuilt for the new dimension after the next sync.
                self.conn.execute("DROP INDEX IF EXISTS chunks_embedding")
                self.conn.execute(
                    f"ALTER TABLE chunks ALTER COLUMN embedding TYPE vector({int(dim)}) USING NULL"
                )
            self._set_meta("model_id", model_id)
        self._has_vectors = False
        self._model = None
        return bool(current)

    def mark_synced(self, now: datetime) -> None:
        """Stamp the sync, and build any search index still missing (after a first load)."""
        schema.build_search_indexes(self.conn)
        self.conn.execute(
            "INSERT INTO vault_stats(vault, last_sync) VALUES (%s, %s) "
            "ON CONFLICT (vault) DO UPDATE SET last_sync = excluded.last_sync",
            (self.vault_name, clock.iso(now)),
        )

    # -- files and chunks ----------------------------------------------------------------

    def file_states(self) -> dict[str, tuple[int, int, str]]:
        rows = self.conn.execute(
            "SELECT path, size, mtime_ns, hash FROM files WHERE vault = %s", (self.vault_name,)
        )
        return {path: (size, mtime_ns, digest) for path, size, mtime_ns, digest in rows}

    def forget_file_stats(self) -> None:
        """Make the next sync re-read and re-chunk every file (a full rebuild in place)."""
        self.conn.execute(
            "UPDATE files SET size = -1, hash = '' WHERE vault = %s", (self.vault_name,)
        )

    def touch_file(self, path: str, size: int, mtime_ns: int) -> None:
        self.conn.execute(
            "UPDATE files SET size = %s, mtime_ns = %s WHERE vault = %s AND path = %s",
            (size, mtime_ns, self.vault_name, path),
        )

    def _lock_file(self, path: str) -> None:
        self.conn.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
            (f"{len(self.vault_name)}:{self.vault_name}/{path}",),
        )

    def replace_file(
        self,
        path: str,
        *,
        size: int,
        mtime_ns: int,
        digest: str,
        chunks: Sequence[Chunk],
        now: datetime,
    ) -> int:
        """Swap a file's chunks in one transaction (the caller's, if open); returns cache hits."""
        with self.transaction():
            return self._replace_file(path, size, mtime_ns, digest, chunks, now)

    def _replace_file(
        self,
        path: str,
        size: int,
        mtime_ns: int,
        digest: str,
        chunks: Sequence[Chunk],
        now: datetime,
    ) -> int:
        me = self.vault_name
        self._lock_file(path)
        keys = [(c.line_start, c.hash) for c in chunks]
        gone = self.conn.execute(
            "DELETE FROM chunks WHERE vault = %s AND path = %s AND (line_start, hash) NOT IN "
            "(SELECT * FROM unnest(%s::integer[], %s::text[])) RETURNING ntokens",
            (me, path, [k[0] for k in keys], [k[1] for k in keys]),
        ).fetchall()
        # Vectors go in with the row: setting them afterwards would write every row twice
        # (and its GIN entries with it, since an indexed column changes).
        cached = self._cached_vectors([c.hash for c in chunks])
        rows = []
        vocabulary: set[str] = set()
        for chunk in chunks:
            tokens = words.tokens(f"{chunk.heading} {chunk.text}")
            vocabulary.update(t for t in tokens if len(t.encode("utf-8")) < 512)
            literal, count = words.tsvector(tokens)
            rows.append(
                (
                    me,
                    path,
                    *chunk.columns(),
                    count,
                    literal,
                    cached.get(chunk.hash),
                    chunk.hash in cached,
                )
            )
        hits = 0
        added = 0
        added_tokens = 0
        with self.conn.cursor() as cur:
            if rows:
                cur.executemany(
                    "INSERT INTO chunks(vault, path, line_start, line_end, heading, text, hash, "
                    "tier, source, date, tags, importance, ntokens, words, embedding, embedded) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::tsvector, "
                    "%s, %s) ON CONFLICT (vault, path, line_start, hash) DO UPDATE SET "
                    "line_end = excluded.line_end, heading = excluded.heading, "
                    "tier = excluded.tier, source = excluded.source, date = excluded.date, "
                    "tags = excluded.tags, importance = excluded.importance "
                    "WHERE (chunks.line_end, chunks.heading, chunks.tier, chunks.source, "
                    "chunks.date, chunks.tags, chunks.importance) IS DISTINCT FROM "
                    "(excluded.line_end, excluded.heading, excluded.tier, excluded.source, "
                    "excluded.date, excluded.tags, excluded.importance) "
                    "RETURNING (xmax = 0), ntokens, embedded",
                    rows,
                    returning=True,
                )
                while True:
                    for inserted, ntokens, embedded in cur.fetchall():
                        if inserted:
                            added += 1
                            added_tokens += ntokens
                            hits += bool(embedded)
                    if not cur.nextset():
                        break
        self._new_words |= vocabulary
        stamp = clock.iso(now)
        for chunk in chunks:
            self._new_hashes.setdefault(chunk.hash, stamp)
        self.conn.execute(
            "INSERT INTO files(vault, path, size, mtime_ns, hash, indexed_at) "
            "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (vault, path) DO UPDATE SET "
            "size = excluded.size, mtime_ns = excluded.mtime_ns, hash = excluded.hash, "
            "indexed_at = excluded.indexed_at",
            (me, path, size, mtime_ns, digest, stamp),
        )
        self._count(added - len(gone), added_tokens - sum(n for (n,) in gone))
        if hits:
            self._has_vectors = True
        return hits

    def remove_file(self, path: str) -> int:
        with self.transaction():
            return self._remove_file(path)

    def _remove_file(self, path: str) -> int:
        self._lock_file(path)
        gone = self.conn.execute(
            "DELETE FROM chunks WHERE vault = %s AND path = %s RETURNING ntokens",
            (self.vault_name, path),
        ).fetchall()
        self.conn.execute(
            "DELETE FROM files WHERE vault = %s AND path = %s", (self.vault_name, path)
        )
        self._count(-len(gone), -sum(n for (n,) in gone))
        return len(gone)

    def _count(self, chunks: int, tokens: int) -> None:
        """The vault's row count and total length (BM25's N and mean length), applied
        when the transaction ends."""
        self._delta[0] += chunks
        self._delta[1] += tokens

    # -- embeddings -------------------------------------------------------------------------

    def _local_cache(self) -> Any:
        if self._cache is None:
            from memctl.sqlite import connect

            self._cache = connect(self.vault.state_dir / STATE_FILE, load_vec=False)
            self._cache.execute(
                "CREATE TABLE IF NOT EXISTS embed_cache("
                "model TEXT, hash TEXT, vector BLOB, PRIMARY KEY (model, hash))"
            )
        return self._cache

    def _cached_vectors(self, hashes: Sequence[str]) -> dict[str, Any]:
        """hash -> the cached vector of that text under the index's model (when it has one)."""
        if not hashes:
            return {}
        model, dim = self.model_id, self.dim
        if not model:
            return {}
        import numpy as np

        found: dict[str, Any] = {}
        for part in iter_batches(sorted(set(hashes)), 500):
            marks = ",".join("?" * len(part))
            for digest, blob in self._local_cache().execute(
                f"SELECT hash, vector FROM embed_cache WHERE model = ? AND hash IN ({marks})",
                [model, *part],
            ):
                if len(blob) == dim * 4:
                    found[digest] = np.frombuffer(blob, dtype=np.float32)
        return found

    def _fill_from_cache(self, rows: Sequence[tuple[int, str]]) -> int:
        """Give these chunks the cached vector of their text under the current model."""
        found = self._cached_vectors([h for _, h in rows])
        updates = [(found[h], cid) for cid, h in rows if h in found]
        if updates:
            with self.conn.cursor() as cur:
                cur.executemany(
                    "UPDATE chunks SET embedding = %s, embedded = true WHERE id = %s", updates
                )
            self._has_vectors = True
        return len(updates)

    def pending_after(self, last_id: int, limit: int) -> list[tuple[int, str]]:
        return self.conn.execute(
            "SELECT id, hash FROM chunks WHERE vault = %s AND NOT embedded AND id > %s "
            "ORDER BY id LIMIT %s",
            (self.vault_name, last_id, limit),
        ).fetchall()

    def still_pending(self, ids: Sequence[int]) -> list[tuple[str, str]]:
        if not ids:
            return []
        return self.conn.execute(
            "SELECT hash, text FROM chunks WHERE NOT embedded AND id = ANY(%s)", (list(ids),)
        ).fetchall()

    def pending_count(self) -> int:
        row = self.conn.execute(
            "SELECT count(*) FROM chunks WHERE vault = %s AND NOT embedded", (self.vault_name,)
        ).fetchone()
        return int(row[0])

    def cache_vectors(self, model_id: str, items: Iterable[tuple[str, np.ndarray]]) -> None:
        import numpy as np

        cache = self._local_cache()
        cache.execute("BEGIN")
        try:
            cache.executemany(
                "INSERT OR REPLACE INTO embed_cache(model, hash, vector) VALUES (?, ?, ?)",
                [
                    (model_id, digest, np.asarray(vector, dtype=np.float32).tobytes())
                    for digest, vector in items
                ],
            )
        except BaseException:
            cache.execute("ROLLBACK")
            raise
        cache.execute("COMMIT")

    def fill_pending_from_cache(self, ids: Sequence[int]) -> int:
        if not ids:
            return 0
        rows = self.conn.execute(
            "SELECT id, hash FROM chunks WHERE NOT embedded AND id = ANY(%s)", (list(ids),)
        ).fetchall()
        return self._fill_from_cache(rows)

    def counts(self) -> IndexCounts:
        me = self.vault_name
        by_tier = dict(
            self.conn.execute(
                "SELECT tier, count(*) FROM chunks WHERE vault = %s GROUP BY tier", (me,)
            ).fetchall()
        )
        files = self.conn.execute("SELECT count(*) FROM files WHERE vault = %s", (me,)).fetchone()
        return {
            "chunks": sum(by_tier.values()),
            "chunks_by_tier": {tier: by_tier.get(tier, 0) for tier in ("hot", "warm", "cold")},
            "files": int(files[0]),
            "pending_embeddings": self.pending_count(),
        }

    # -- readers ----------------------------------------------------------------------------

    def chunks_by_ids(self, ids: Sequence[int]) -> list[ChunkRecord]:
        unique = list(dict.fromkeys(int(i) for i in ids))
        if not unique:
            return []
        found = {
            row[0]: _with_vault(row)
            for row in self.conn.execute(
                _RECORD + "WHERE c.id = ANY(%s)", (self.vault_name, unique)
            ).fetchall()
        }
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

    def chunk_usage(self) -> Iterator[ChunkUsage]:
        for row in self.conn.execute(
            "SELECT c.hash, c.path, c.line_start, c.line_end, c.text, c.tier, c.source, c.date, "
            "u.last_referenced_at FROM chunks AS c LEFT JOIN usage AS u "
            "ON u.vault = c.vault AND u.hash = c.hash WHERE c.vault = %s ORDER BY c.id",
            (self.vault_name,),
        ):
            yield ChunkUsage(*row)

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

    def stats(self, vaults: Sequence[str] | None) -> tuple[int, float]:
        """(rows, mean row length in tokens) of the vaults searched, for BM25; cached 60 s."""
        if self._stats is None or time.monotonic() - self._stats[0] > 60:
            row = self.conn.execute(
                "SELECT coalesce(sum(chunks), 0), coalesce(sum(tokens), 0) FROM vault_stats "
                "WHERE %s::text[] IS NULL OR vault = ANY(%s)",
                (vaults, vaults),
            ).fetchone()
            rows, tokens = int(row[0]), int(row[1])
            self._stats = (time.monotonic(), rows, tokens / rows if rows else 1.0)
        return self._stats[1], self._stats[2]

    def common_words(self) -> dict[str, float]:
        """lexeme -> fraction of rows holding it, for the commonest words (PostgreSQL's own
        statistics of the tsvector column; refreshed by ANALYZE). Cached 10 minutes."""
        if self._common is None or time.monotonic() - self._common[0] > 600:
            row = self.conn.execute(
                "SELECT most_common_elems::text::text[], most_common_elem_freqs FROM pg_stats "
                "WHERE tablename = 'chunks' AND attname = 'words'"
            ).fetchone()
            freqs: dict[str, float] = {}
            if row and row[0]:
                freqs = dict(zip(row[0], row[1], strict=False))
            self._common = (time.monotonic(), freqs)
        return self._common[1]

    def vaults(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT vault FROM vault_stats ORDER BY vault")]

    def candidate_lists(self, *args: Any) -> tuple[Any, dict[str, dict[int, float]]]:
        return search.candidate_lists(self, *args)

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

    def reference_counts(self, since: datetime) -> dict[str, int]:
        rows = self.conn.execute(
            "SELECT hash, count(*) FROM reference_log WHERE vault = %s AND ts >= %s GROUP BY hash",
            (self.vault_name, clock.iso(since)),
        )
        return {digest: int(count) for digest, count in rows}

    def reference_window(
        self, since: datetime, until: datetime
    ) -> tuple[Window, dict[str, list[str]]]:
        me, lo, hi = self.vault_name, clock.iso(since), clock.iso(until)
        window = {
            digest: (int(count), first, last)
            for digest, count, first, last in self.conn.execute(
                "SELECT hash, count(*), min(ts), max(ts) FROM reference_log WHERE vault = %s "
                "AND ts >= %s AND ts <= %s AND kind != 'context' GROUP BY hash",
                (me, lo, hi),
            )
        }
        asked: dict[str, list[str]] = {}
        for digest, query in self.conn.execute(
            "SELECT DISTINCT hash, query FROM reference_log WHERE vault = %s AND ts >= %s "
            "AND ts <= %s AND kind = 'search' AND query IS NOT NULL",
            (me, lo, hi),
        ):
            asked.setdefault(digest, []).append(query)
        return window, asked


def _with_vault(row: Sequence[Any]) -> ChunkRecord:
    return replace(_record(row), vault=row[16])
