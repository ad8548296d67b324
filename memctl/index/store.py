"""The SQLite store: `index.db` (derived, rebuildable) with `state.db` attached as `state`.

The schema is the contract in docs/internals.md, built and changed only by the numbered
migrations of `memctl.index.migrations` (run on open); search reads these tables with its own
SQL, so a change here is a change there. Triggers keep both FTS5 tables and the vector
table in step with `chunks`, so no code path can leave a stale FTS or vector row behind.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memctl import clock
from memctl.index import migrations, neighbours, usage, window_spans
from memctl.index.damage import (
    REBUILD_HINT,
    IndexDamaged,
    file_damage,
    is_damage,
    set_state_aside,
)
from memctl.index.embed.registry import canonical
from memctl.index.neighbours import NeighbourPair
from memctl.index.protocol import ReferenceEvent
from memctl.index.store_writes import StoreWrites
from memctl.index.usage import ChunkRecord, ChunkSpan, ChunkUsage, ContextRow, IndexCounts
from memctl.sqlite import connect, select_in
from memctl.vault import Vault

if TYPE_CHECKING:
    import numpy as np

    from memctl.index.protocol import KeptReads, ReferenceKind
    from memctl.index.sqlite.candidates import SqliteCandidates
    from memctl.sqlite import Connection

INDEX_FILE = "index.db"
STATE_FILE = "state.db"
NEIGHBOURS_FILE = "neighbours.json"  # lint's nearest-neighbour lists (index/neighbours.py)
DEFAULT_DIM = 384


def index_path(vault: Vault) -> Path:
    return database_path(vault, INDEX_FILE)


def state_db_path(vault: Vault) -> Path:
    """state.db: the vault's own, or for an as-of snapshot the live vault's it shares."""
    if vault.shared_state_db is not None:
        return vault.shared_state_db
    return database_path(vault, STATE_FILE)


def database_path(vault: Vault, name: str) -> Path:
    """`.memctl/NAME`, a database SQLite opens with its journal files beside it: neither
    it nor they may be a link (SQLite would write through a committed one)."""
    for suffix in ("-wal", "-shm", "-journal"):
        vault.state_entry(name + suffix)
    return vault.state_entry(name)


class Store(StoreWrites):
    """One connection to the index with the state database attached (an `IndexBackend`);
    the writer's methods are store_writes.py's."""

    backend = "sqlite"

    def __init__(self, conn: Connection, path: Path, vault_name: str = "") -> None:
        self.conn = conn
        self.path = path
        self.vault_name = vault_name
        self._span_index: dict[str, window_spans.SpanIndex] = {}  # window_vectors' spans, by path

    @classmethod
    def open(
        cls,
        vault: Vault,
        *,
        path: Path | None = None,
        model_id: str | None = None,
        dim: int = DEFAULT_DIM,
    ) -> Store:
        """Open (creating if needed) the index. `model_id`/`dim` seed a brand-new index."""
        path = path or index_path(vault)
        state = state_db_path(vault)
        # A damaged state.db is set aside and started afresh; a damaged index.db is an
        # error that names its repair (docs/index.md, "Damaged databases").
        if file_damage(state):
            set_state_aside(vault, state)
        why = file_damage(path)
        if why:
            raise IndexDamaged(f"{path} is damaged ({why}): {REBUILD_HINT}")
        for attempt in (1, 2):
            conn = None
            try:
                conn = connect(path)
                conn.execute("SELECT count(*) FROM main.sqlite_master").fetchone()
            except Exception as exc:
                if conn is not None:
                    conn.close()
                if is_damage(exc):
                    raise IndexDamaged(f"{path} is damaged ({exc}): {REBUILD_HINT}") from None
                raise
            try:
                conn.execute("ATTACH DATABASE ? AS state", (str(state),))
                conn.execute("PRAGMA state.journal_mode=WAL")
                conn.execute("PRAGMA state.synchronous=NORMAL")
                from memctl.index.protocol import vault_name

                store = cls(conn, path, vault_name(vault))
                store._ensure_schema(model_id or canonical(vault.settings.embed.model), dim)
                return store
            except BaseException as exc:
                conn.close()
                if attempt == 1 and is_damage(exc) and set_state_aside(vault, state):
                    continue
                if is_damage(exc):
                    raise IndexDamaged(f"{path} is damaged ({exc}): {REBUILD_HINT}") from None
                raise
        raise AssertionError("unreachable")

    def _ensure_schema(self, model_id: str, dim: int) -> None:
        migrations.migrate(self.conn, migrations.Seed(model_id, dim), str(self.path.parent))

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT; a failure rolls the whole batch back."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    # -- meta -------------------------------------------------------------------------

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def _set_meta(self, key: str, value: str) -> None:
        # Plain SQL: sqlite-utils' import (it pulls in NumPy, ~0.3-0.8 s) was most of a
        # no-change `memctl index` and of maintain's two stamps.
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    @property
    def model_id(self) -> str:
        return self.meta("model_id") or ""

    @property
    def dim(self) -> int:
        return int(self.meta("dim") or DEFAULT_DIM)

    def set_model(self, model_id: str, dim: int) -> bool:
        """Switch the index to another embedding model; returns whether anything changed.

        Vectors of two models are never mixed: a new model (or dimension) drops every
        vector and marks every chunk pending; cached vectors of the new model come back
        from `state.embed_cache` without running the model.
        """
        if model_id == self.model_id and dim == self.dim:
            return False
        with self.transaction():
            self.conn.execute("DROP TABLE IF EXISTS chunks_vec")
            migrations.create_vectors(self.conn, dim)
            self.conn.execute("UPDATE chunks SET embedded = 0")
            self._set_meta("model_id", model_id)
            self._set_meta("dim", str(int(dim)))
        with self.transaction():
            self._fill_from_cache("SELECT id, hash FROM chunks")
        return True

    def mark_synced(self, now: datetime) -> None:
        with self.transaction():
            self._set_meta("last_sync", clock.iso(now))

    # -- reading and usage (search, lifecycle, agent) -------------------------------------

    def chunks_by_ids(self, ids: Sequence[int]) -> list[ChunkRecord]:
        return usage.chunks_by_ids(self.conn, ids)

    def chunk_usage(self, cold_before: str | None = None) -> Iterator[ChunkUsage]:
        """Every chunk with its last reference, in id order, streamed (the lifecycle rules);
        COLD chunks dated `cold_before` (ISO day) or later left out."""
        return usage.chunk_usage(self.conn, cold_before)

    def record_references(
        self,
        hashes_and_paths: Iterable[tuple[str, str]],
        kind: ReferenceKind,
        query: str | None,
        now: datetime,
    ) -> None:
        with self.transaction():
            usage.record_references(self.conn, hashes_and_paths, kind, query, now)

    def reference_counts(self, since: datetime) -> dict[str, int]:
        return usage.reference_counts(self.conn, since)

    def chunk_ids(self) -> list[int]:
        return [row[0] for row in self.conn.execute("SELECT id FROM chunks ORDER BY id")]

    def chunks_in_paths(self, paths: Sequence[str]) -> list[ChunkSpan]:
        """(hash, path, line_start, line_end) of every chunk of these files."""
        rows = select_in(
            self.conn,
            "SELECT hash, path, line_start, line_end FROM chunks WHERE path IN ({marks})",
            paths,
        )
        return [ChunkSpan(*row) for row in rows]

    def context_rows(self, vault: str, path: str, lo: int, hi: int) -> list[ContextRow]:
        """(line_start, line_end, text) of a file's chunks overlapping lines lo..hi."""
        rows = self.conn.execute(
            "SELECT line_start, line_end, text FROM chunks WHERE path = ? AND line_end >= ? "
            "AND line_start <= ? ORDER BY line_start",
            (path, lo, hi),
        ).fetchall()
        return [ContextRow(*row) for row in rows]

    def context_windows(
        self, windows: Sequence[tuple[str, str, int, int]]
    ) -> list[list[ContextRow]]:
        """`context_rows` of each (vault, path, lo, hi) window; in-process, one query each."""
        return [self.context_rows(v, path, lo, hi) for v, path, lo, hi in windows]

    def window_vectors(
        self,
        windows: Sequence[tuple[str, str, int, int]],
        matrix: Any = None,
        spans: dict[str, list[tuple[int, int, int]]] | None = None,
    ) -> list[dict[int, np.ndarray]]:
        """Per (vault, path, lo, hi) window, the vectors of the chunks overlapping it
        (index/window_spans.py)."""
        if len(self._span_index) > 50_000:
            self._span_index.clear()
        return window_spans.window_vectors(self.conn, self._span_index, windows, matrix, spans)

    def vector_blocks(self, state_dir: Path) -> neighbours.BlockSource | None:
        """The vectors read from search's cached matrix (a file read, ~10x faster than
        vec0's rows), rebuilt first when stale: tonight's cost, which tomorrow's no-change
        run and every search reuse. None below the size that keeps one."""
        from memctl.index.sqlite import vectors

        conn = self.conn

        def blocks(rows: int) -> Any:
            found = vectors.cached_blocks(conn, state_dir, rows)
            if found is None and vectors.load(conn, state_dir) is not None:
                found = vectors.cached_blocks(conn, state_dir, rows)
            return found

        return blocks

    def near_pairs(
        self, min_cosine: float, k: int, blocks: neighbours.BlockSource | None = None
    ) -> list[NeighbourPair]:
        """Each HOT and WARM chunk's `k` nearest chunks of another tier, cosine >= `min_cosine`
        (`blocks`: a faster copy of the vectors than vec0, when the caller has one). The
        lists are kept beside the index, so the next call scans only what changed."""
        return neighbours.near_pairs(
            self.conn,
            min_cosine=min_cosine,
            k=k,
            blocks=blocks,
            memo=self.path.parent / NEIGHBOURS_FILE,
        )

    def nearest(self, vector: np.ndarray, limit: int) -> dict[int, float]:
        """id -> cosine of the `limit` chunks nearest to a unit vector (sqlite-vec, exact)."""
        from memctl.index.sqlite.lexical import vec0_candidates
        from memctl.lexical.plan import Filters

        return vec0_candidates(self.conn, vector, Filters(), limit)

    def has_vectors(self) -> bool:
        # vec0's own rowid table: O(1), where a scan of chunks for embedded = 1 is not.
        return self.conn.execute("SELECT 1 FROM chunks_vec_rowids LIMIT 1").fetchone() is not None

    def candidate_source(
        self, vault: Vault, kept: KeptReads, embed: Callable[[str], Any]
    ) -> SqliteCandidates:
        """Search's in-process candidate lists over this index (memctl.index.sqlite)."""
        from memctl.index.sqlite.candidates import SqliteCandidates

        return SqliteCandidates(self, vault, kept, embed)

    def reference_window(
        self, since: datetime, until: datetime
    ) -> tuple[dict[str, tuple[int, str | None, str | None]], dict[str, list[str]]]:
        return usage.reference_window(self.conn, since, until)

    def reference_events(
        self, hashes: Sequence[str], limit: int
    ) -> dict[str, list[ReferenceEvent]]:
        return usage.reference_events(self.conn, hashes, limit)

    def references_per_day(self, since: datetime) -> dict[str, int]:
        return usage.references_per_day(self.conn, since)

    def chunk_count(self) -> int:
        """The chunks in the index, from the smallest index (no walk of the table's texts:
        a sync reports this, and at 1M chunks a cold walk took seconds)."""
        return int(self.conn.execute("SELECT count(*) FROM chunks").fetchone()[0])

    def counts(self) -> IndexCounts:
        by_tier = dict(self.conn.execute("SELECT tier, count(*) FROM chunks GROUP BY tier"))
        return {
            "chunks": sum(by_tier.values()),
            "chunks_by_tier": {tier: by_tier.get(tier, 0) for tier in ("hot", "warm", "cold")},
            "files": self.conn.execute("SELECT count(*) FROM files").fetchone()[0],
            "pending_embeddings": self.pending_count(),
        }
