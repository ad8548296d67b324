"""The writer's half of `PgStore`: files, chunks and their vectors (see store.py)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

import psycopg

from memctl import clock
from memctl.index.chunker import Chunk
from memctl.index.postgres import claims, schema, words
from memctl.index.postgres import windows as window_rows
from memctl.sqlite import iter_batches
from memctl.vault import Vault

if TYPE_CHECKING:
    import numpy as np


class PgWrites:
    """A file's chunks swapped under a (vault, path) lock; vectors from the local cache."""

    conn: psycopg.Connection[Any]
    vault: Vault
    vault_name: str
    _cache: Any
    _has_vectors: bool
    _delta: list[int]
    _new_words: set[str]
    _new_hashes: dict[str, str]
    _claimed: bool

    if TYPE_CHECKING:

        @property
        def model_id(self) -> str: ...
        @property
        def dim(self) -> int: ...

        def transaction(self) -> AbstractContextManager[None]: ...

    # -- files and chunks ----------------------------------------------------------------

    def claim(self) -> None:
        """Make sure this vault owns its namespace before it writes there (claims.py)."""
        if not self._claimed:
            claims.check_claim(self.conn, self.vault, self.vault_name)
            self._claimed = True

    def file_states(self) -> dict[str, tuple[int, int, str]]:
        # Every sync starts here: the namespace's rows are this vault's to replace.
        self.claim()
        rows = self.conn.execute(
            "SELECT path, size, mtime_ns, hash FROM files WHERE vault = %s", (self.vault_name,)
        )
        return {path: (size, mtime_ns, digest) for path, size, mtime_ns, digest in rows}

    def forget_file_stats(self) -> None:
        """Make the next sync re-read and re-chunk every file (a full rebuild in place)."""
        self.claim()
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
        # The file's total window length before, for BM25's mean (a kept row's window
        # changes with its neighbours, and an upsert does not return the old value).
        windows_before = self._windows(path)
        gone = self.conn.execute(
            "DELETE FROM chunks WHERE vault = %s AND path = %s AND (line_start, hash) NOT IN "
            "(SELECT * FROM unnest(%s::integer[], %s::text[])) RETURNING ntokens",
            (me, path, [k[0] for k in keys], [k[1] for k in keys]),
        ).fetchall()
        rows, vocabulary = self._chunk_rows(path, chunks)
        added, added_tokens, hits = self._upsert_chunks(rows)
        # The windows, in a table of their own (windows.py), after the rows they belong to.
        self._write_windows(path, chunks)
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
        self._count(
            added - len(gone),
            added_tokens - sum(n for (n,) in gone),
            *(now - was for now, was in zip(self._windows(path), windows_before, strict=True)),
        )
        if hits:
            self._has_vectors = True
        return hits

    def _chunk_rows(
        self, path: str, chunks: Sequence[Chunk]
    ) -> tuple[list[tuple[Any, ...]], set[str]]:
        """Each chunk's row for the upsert, its words as a tsvector and its vector when
        the local cache holds it; the words the file brings to the vocabulary."""
        me = self.vault_name
        # Vectors go in with the row: setting them afterwards would write every row twice
        # (and its GIN entries with it, since an indexed column changes).
        cached = self.cached_vectors([c.hash for c in chunks])
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
        return rows, vocabulary

    def _upsert_chunks(self, rows: list[tuple[Any, ...]]) -> tuple[int, int, int]:
        """The rows in, a kept one updated only where its columns changed; (rows added,
        their tokens, those added with a vector: the cache's hits)."""
        hits = 0
        added = 0
        added_tokens = 0
        with self.conn.cursor() as cur:
            if rows:
                cur.executemany(
                    "INSERT INTO chunks(vault, path, line_start, line_end, heading, text, hash, "
                    "tier, source, date, tags, importance, ntokens, words, embedding, embedded) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::tsvector, "
                    "%s, %s) ON CONFLICT (vault, path, line_start, hash) "
                    "DO UPDATE SET "
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
        return added, added_tokens, hits

    def _write_windows(self, path: str, chunks: Sequence[Chunk]) -> None:
        """The file's windows (windows.py), by the ids its rows have now."""
        me = self.vault_name
        ids = {
            (line, digest): cid
            for line, digest, cid in self.conn.execute(
                "SELECT line_start, hash, id FROM chunks WHERE vault = %s AND path = %s",
                (me, path),
            )
        }
        window_rows.write(
            self.conn,
            me,
            [ids[(c.line_start, c.hash)] for c in chunks],
            window_rows.windows([(c.heading, c.text) for c in chunks]),
        )

    def remove_file(self, path: str) -> int:
        with self.transaction():
            return self._remove_file(path)

    def _remove_file(self, path: str) -> int:
        self._lock_file(path)
        windows, window_tokens = self._windows(path)  # their rows go with the chunks'
        gone = self.conn.execute(
            "DELETE FROM chunks WHERE vault = %s AND path = %s RETURNING ntokens",
            (self.vault_name, path),
        ).fetchall()
        self.conn.execute(
            "DELETE FROM files WHERE vault = %s AND path = %s", (self.vault_name, path)
        )
        self._count(
            -len(gone),
            -sum(n for (n,) in gone),
            -windows,
            -window_tokens,
        )
        return len(gone)

    def _windows(self, path: str) -> tuple[int, int]:
        """(windows, their total length) of a file's rows."""
        row = schema.one(
            self.conn.execute(
                "SELECT count(*), coalesce(sum(w.window_ntokens), 0) FROM chunks AS c "
                "JOIN chunk_windows AS w ON w.id = c.id WHERE c.vault = %s AND c.path = %s",
                (self.vault_name, path),
            ).fetchone()
        )
        return int(row[0]), int(row[1])

    def _count(self, chunks: int, tokens: int, windows: int, window_tokens: int) -> None:
        """The vault's rows and windows and their total lengths (BM25's N and mean
        lengths of the words and window lists), applied when the transaction ends."""
        for i, change in enumerate((chunks, tokens, windows, window_tokens)):
            self._delta[i] += change

    # -- embeddings -------------------------------------------------------------------------

    def _local_cache(self) -> Any:
        if self._cache is None:
            from memctl.index.store import state_db_path
            from memctl.sqlite import connect

            self._cache = connect(state_db_path(self.vault), load_vec=False)
            self._cache.execute(
                "CREATE TABLE IF NOT EXISTS embed_cache("
                "model TEXT, hash TEXT, vector BLOB, PRIMARY KEY (model, hash))"
            )
        return self._cache

    def cached_vectors(self, hashes: Sequence[str]) -> dict[str, Any]:
        """hash -> the cached vector of that text under the index's model (when it has one):
        chunks' before they are stored, and the units' (memctl.index.units), which live
        only in this vault's local cache."""
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

    def chunk_texts_after(self, last_id: int, limit: int) -> list[tuple[int, str]]:
        return self.conn.execute(
            "SELECT id, text FROM chunks WHERE vault = %s AND id > %s ORDER BY id LIMIT %s",
            (self.vault_name, last_id, limit),
        ).fetchall()

    def _fill_from_cache(self, rows: Sequence[tuple[int, str]]) -> int:
        """Give these chunks the cached vector of their text under the current model."""
        found = self.cached_vectors([h for _, h in rows])
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
        return int(schema.one(row)[0])

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
