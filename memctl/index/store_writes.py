"""The writer's half of the SQLite `Store` (store.py): a file's chunks swapped, and the
pending chunks' vectors, cached by model and text hash in `state.embed_cache`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memctl import clock
from memctl.index import window_words
from memctl.sqlite import insert_rows, iter_batches, select_in

if TYPE_CHECKING:
    import numpy as np

    from memctl.index.chunker import Chunk
    from memctl.sqlite import Connection


# The highest chunk id ever given. The chunks table's INTEGER PRIMARY KEY would give the ids
# of a rewritten last note's deleted chunks again, and what reads "chunks newer than id N"
# (the typo vocabulary, its crossing keys) would then miss their words: today's daily
# note, the one `memctl add` rewrites all day, is usually the last indexed.
CHUNK_ID_HIGH = "chunk_id_high"


class StoreWrites:
    """Files and chunks (the one writer holds `index.lock`); vectors (`embed.lock`), which
    a chunk takes from the cache when its text was embedded before under the same model."""

    conn: Connection

    if TYPE_CHECKING:

        @property
        def model_id(self) -> str: ...
        @property
        def dim(self) -> int: ...

        def transaction(self) -> AbstractContextManager[None]: ...
        def meta(self, key: str) -> str | None: ...
        def _set_meta(self, key: str, value: str) -> None: ...

    # -- files and chunks (the writer's side) ----------------------------------------

    def _next_chunk_id(self) -> int:
        """One past every chunk id given so far, deleted ones included."""
        top = self.conn.execute("SELECT max(rowid) FROM chunks").fetchone()[0] or 0
        return max(int(self.meta(CHUNK_ID_HIGH) or 0), int(top)) + 1

    def file_states(self) -> dict[str, tuple[int, int, str]]:
        rows = self.conn.execute("SELECT path, size, mtime_ns, hash FROM files")
        return {path: (size, mtime_ns, digest) for path, size, mtime_ns, digest in rows}

    def touch_file(self, path: str, size: int, mtime_ns: int) -> None:
        """Same content, new stat (a `touch`, a checkout): remember it so the next walk skips it."""
        self.conn.execute(
            "UPDATE files SET size = ?, mtime_ns = ? WHERE path = ?", (size, mtime_ns, path)
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
        """Swap a file's chunks for new ones (caller holds a transaction); returns how many
        of them got their vector straight from the embedding cache."""
        window_words.forget_file(self.conn, path)
        self.conn.execute("DELETE FROM chunks WHERE path = ?", (path,))
        first = self._next_chunk_id()
        insert_rows(
            self.conn,
            "INSERT INTO chunks(id, path, line_start, line_end, heading, text, hash, tier, "
            "source, date, tags, importance, embedded)",
            "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
            [(first + i, path, *chunk.columns()) for i, chunk in enumerate(chunks)],
        )
        if chunks:
            self._set_meta(CHUNK_ID_HIGH, str(first + len(chunks) - 1))
        stamp = clock.iso(now)
        self.conn.executemany(
            "INSERT OR IGNORE INTO state.usage(hash, created_at, last_referenced_at, "
            "access_count) VALUES (?, ?, NULL, 0)",
            [(chunk.hash, stamp) for chunk in chunks],
        )
        window_words.write_file(self.conn, path)
        self.conn.execute(
            "INSERT INTO files(path, size, mtime_ns, hash, indexed_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(path) DO UPDATE SET size = excluded.size, "
            "mtime_ns = excluded.mtime_ns, hash = excluded.hash, indexed_at = excluded.indexed_at",
            (path, size, mtime_ns, digest, stamp),
        )
        if not chunks:
            return 0
        return self._fill_from_cache("SELECT id, hash FROM chunks WHERE path = ?", (path,))

    def remove_file(self, path: str) -> int:
        window_words.forget_file(self.conn, path)
        cursor = self.conn.execute("DELETE FROM chunks WHERE path = ?", (path,))
        self.conn.execute("DELETE FROM files WHERE path = ?", (path,))
        return max(cursor.rowcount, 0)

    def _fill_from_cache(self, select: str, params: Sequence[Any] = ()) -> int:
        """Give chunks the cached vector of their text under the current model."""
        rows = self.conn.execute(
            f"SELECT c.id, e.vector FROM ({select}) AS c "
            "JOIN state.embed_cache AS e ON e.model = ? AND e.hash = c.hash",
            (*params, self.model_id),
        ).fetchall()
        dim_bytes = self.dim * 4
        good = [(cid, vector) for cid, vector in rows if len(vector) == dim_bytes]
        self.conn.executemany(
            "INSERT OR REPLACE INTO chunks_vec(rowid, embedding) VALUES (?, ?)", good
        )
        self.conn.executemany(
            "UPDATE chunks SET embedded = 1 WHERE id = ?", [(cid,) for cid, _ in good]
        )
        return len(good)

    # -- embeddings ---------------------------------------------------------------------

    def pending_after(self, last_id: int, limit: int) -> list[tuple[int, str]]:
        """(id, hash) of chunks still waiting for a vector, in id order after `last_id`."""
        return self.conn.execute(
            "SELECT id, hash FROM chunks WHERE embedded = 0 AND id > ? ORDER BY id LIMIT ?",
            (last_id, limit),
        ).fetchall()

    def still_pending(self, ids: Sequence[int]) -> list[tuple[str, str]]:
        """(hash, text) of those chunks that still exist and still lack a vector."""
        return list(
            select_in(
                self.conn,
                "SELECT hash, text FROM chunks WHERE embedded = 0 AND id IN ({marks})",
                ids,
            )
        )

    def pending_count(self) -> int:
        return int(
            self.conn.execute("SELECT count(*) FROM chunks WHERE embedded = 0").fetchone()[0]
        )

    def cache_vectors(self, model_id: str, items: Iterable[tuple[str, np.ndarray]]) -> None:
        import numpy as np

        self.conn.executemany(
            "INSERT OR REPLACE INTO state.embed_cache(model, hash, vector) VALUES (?, ?, ?)",
            [
                (model_id, digest, np.asarray(vector, dtype=np.float32).tobytes())
                for digest, vector in items
            ],
        )

    def fill_pending_from_cache(self, ids: Sequence[int]) -> int:
        """Vectors for these chunks from the cache, if they still exist unchanged."""
        filled = 0
        for part in iter_batches(ids):
            marks = ",".join("?" * len(part))
            filled += self._fill_from_cache(
                f"SELECT id, hash FROM chunks WHERE embedded = 0 AND id IN ({marks})", part
            )
        return filled

    def cached_vectors(self, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """hash -> the cached vector of that text under the index's model: the units'
        vectors (memctl.index.units) live only there."""
        import numpy as np

        model, dim_bytes = self.model_id, self.dim * 4
        found: dict[str, np.ndarray] = {}
        for part in iter_batches(sorted(set(hashes))):
            marks = ",".join("?" * len(part))
            for digest, blob in self.conn.execute(
                f"SELECT hash, vector FROM state.embed_cache WHERE model = ? AND hash IN ({marks})",
                (model, *part),
            ):
                if len(blob) == dim_bytes:
                    found[digest] = np.frombuffer(blob, dtype=np.float32)
        return found

    def chunk_texts_after(self, last_id: int, limit: int) -> list[tuple[int, str]]:
        return self.conn.execute(
            "SELECT id, text FROM chunks WHERE id > ? ORDER BY id LIMIT ?", (last_id, limit)
        ).fetchall()

    def units_embedded(self) -> str | None:
        return self.meta("unit_vectors")

    def set_units_embedded(self, version: str) -> None:
        with self.transaction():
            self._set_meta("unit_vectors", version)
