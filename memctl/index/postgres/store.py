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
from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

import psycopg

from memctl import clock
from memctl.index.postgres import crossing_keys, schema, word_counts
from memctl.index.postgres.lists import Lists, SideConnections
from memctl.index.postgres.reads import PgReads
from memctl.index.postgres.writes import PgWrites
from memctl.index.protocol import database_url, vault_name
from memctl.index.usage import ChunkRecord
from memctl.vault import Vault

if TYPE_CHECKING:
    from memctl.lexical.substrings import ChunkWords


class PgStore(PgWrites, PgReads):
    """The store: connection, transactions and the model; writes and reads are mixed in."""

    backend = "postgres"

    def __init__(self, conn: psycopg.Connection[Any], vault: Vault) -> None:
        self.conn = conn
        self.vault = vault
        self.vault_name = vault_name(vault)
        self._cache: Any = None
        self._claimed = False  # the namespace checked as this vault's (claims.py)
        self._has_vectors = False
        self._model: tuple[str, int] | None = None  # (id, dim), read once per store
        self._common: dict[str, tuple[float, dict[str, float]]] = {}
        self._depth = 0
        self._delta_table = False  # this session's word_counts.DELTA_TABLE exists
        # chunks, tokens, windows, window tokens added by the open transaction
        self._delta = [0, 0, 0, 0]
        self._new_words: set[str] = set()
        self._new_hashes: dict[str, str] = {}
        # scope -> (read at, rows, mean length, windows, mean window length)
        self._stats: dict[tuple[str, ...] | None, tuple[float, int, float, int, float]] = {}
        self._table_rows: tuple[float, int] | None = None
        self._estimates: dict[str, tuple[tuple[float, int, int], dict[str, int]]] = {}
        self._shares: tuple[float, dict[str, float]] | None = None
        self._prefetched: dict[int, ChunkRecord] = {}
        self.chunk_words: dict[int, ChunkWords] = {}  # by id: a row's text never changes
        self.held_substrings: set[str] = set()  # words the vocabulary holds (substrings.unheld)
        self._searches = 0
        self._side: SideConnections | None = None

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

    def list_runner(self) -> Lists:
        """Where this search's candidate lists run: from a store's second search on, on
        side connections at once (lists.py), unless `[index] parallel_lists` is off."""
        self._searches += 1
        parallel = self.vault.settings.index.parallel_lists
        if parallel and self._searches >= 2 and self._side is None:
            self._side = SideConnections(database_url(self.vault))
        return Lists(self.conn, self._side)

    def close(self) -> None:
        if self._side is not None:
            self._side.close()
            self._side = None
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

        Rows every writer shares are touched once, at the end, after every file lock: the
        team's vocabulary in one sorted statement (two writers never wait on each other's
        new words in crossing orders), then the vault's statistics row as the last
        statement before commit, so no writer holds it while it waits for a file lock (a
        deadlock between two syncs of one vault). The vocabulary commits with the files:
        a connection dropped after the commit cannot leave a file's words out of it (the
        next sync would see the file unchanged and never write them). First-seen usage
        rows go after commit, in a sorted statement of their own.
        """
        outer = self._depth == 0
        self._depth += 1
        try:
            with self.conn.transaction():
                if outer:
                    self._defer_word_counts()
                yield
                if outer:
                    self._flush_words()
                    self.conn.execute(word_counts.FLUSH)
                    self._flush_counts()
        except BaseException:
            if outer:
                self._discard_deferred()
            raise
        finally:
            self._depth -= 1
        if outer:
            self._flush_deferred()

    def _defer_word_counts(self) -> None:
        """The word counts' deltas held in this session until the end (word_counts.py)."""
        if not self._delta_table:
            # Its own transaction's: created in one that rolls back, it is gone again.
            self.conn.execute(word_counts.CREATE_DELTA)
        self.conn.execute(f"SET LOCAL {word_counts.DEFER} = on")
        self._delta_table = True

    def _discard_deferred(self) -> None:
        self._delta_table = False  # in case the rollback took the table with it
        self._delta = [0, 0, 0, 0]
        self._new_words.clear()
        self._new_hashes.clear()

    def _flush_counts(self) -> None:
        delta = self._delta
        self._delta = [0, 0, 0, 0]
        if any(delta):
            self.conn.execute(
                "INSERT INTO vault_stats(vault, chunks, tokens, windows, window_tokens) "
                "VALUES (%s, %s, %s, %s, %s) "
                "ON CONFLICT (vault) DO UPDATE SET chunks = vault_stats.chunks + excluded.chunks, "
                "tokens = vault_stats.tokens + excluded.tokens, "
                "windows = vault_stats.windows + excluded.windows, "
                "window_tokens = vault_stats.window_tokens + excluded.window_tokens",
                (self.vault_name, *delta),
            )

    def _flush_words(self) -> None:
        """The vocabulary (typo hints, and which substring lookups can match anything:
        memctl_held_substrings skips a word no vocabulary word holds, so a word missing
        here would be missing from every substring lookup)."""
        words_ = sorted(self._new_words)
        self._new_words.clear()
        if words_:
            added = self.conn.execute(
                "INSERT INTO lexemes(word) SELECT w FROM unnest(%s::text[]) AS w ORDER BY 1 "
                "ON CONFLICT DO NOTHING RETURNING word",
                (words_,),
            ).fetchall()
            # Keyed once, by the writer that brought the word (crossing_keys.py).
            crossing_keys.add_keys(self.conn, [word for (word,) in added])

    def _flush_deferred(self) -> None:
        """First-seen usage rows, after commit. A lost one (a connection dropped between
        the commit and this statement) costs nothing the next sync or search does not
        restore."""
        hashes = sorted(self._new_hashes.items())
        self._new_hashes.clear()
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

    def units_embedded(self) -> str | None:
        # Per vault: a team's server holds vaults embedded by different memctl versions.
        return self.meta(f"unit_vectors:{self.vault_name}")

    def set_units_embedded(self, version: str) -> None:
        with self.transaction():
            self._set_meta(f"unit_vectors:{self.vault_name}", version)

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
