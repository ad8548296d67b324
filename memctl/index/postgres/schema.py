"""Connecting to the shared index and its numbered migrations.

Each migration runs once, in order, inside one transaction that also records it in
`memctl_schema`; concurrent migrators queue on a transaction-scoped advisory lock, so
two agents starting at once never apply one twice. A database migrated by a newer
memctl is refused with one line rather than half-understood.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import psycopg

from memctl import __version__
from memctl.errors import MemctlError
from memctl.index.postgres import claims, crossing_keys
from memctl.index.postgres.substring_functions import (
    held_substrings,
    scanned_substrings,
    substring_lookup,
    tested_substrings,
)
from memctl.index.postgres.term_functions import scanned_window_terms, term_rows
from memctl.index.postgres.word_counts import word_counts
from memctl.secrets import redact_url

_Row = TypeVar("_Row")


def one(row: _Row | None) -> _Row:
    """The row a query that always returns one (an aggregate, a function call) returned."""
    if row is None:
        raise MemctlError("PostgreSQL returned no row where one is always expected")
    return row


DEFAULT_DIM = 384
CONNECT_TIMEOUT = 10  # seconds: a server that does not answer is an error, not a hang
_MIGRATION_LOCK = 0x6D656D63746C  # "memctl": one key for the migrators' queue
EF_SEARCH = 100  # HNSW candidates per vector query; recall@30 in docs/scale.md


class DatabaseError(MemctlError):
    """The shared index cannot be used (unreachable, refused, incompatible)."""


def _reason(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    # psycopg joins one attempt per address; the last line says what finally failed.
    return redact_url(lines[-1] if lines else type(exc).__name__)


def connect(url: str) -> psycopg.Connection[Any]:
    """An autocommit connection; every failure is one clear line with the URL redacted."""
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT)
    except psycopg.Error as exc:
        raise DatabaseError(
            f"cannot connect to the PostgreSQL index at {redact_url(url)}: {_reason(exc)}"
        ) from None
    return conn


def _extensions(conn: psycopg.Connection[Any]) -> None:
    for name, purpose in (("vector", "pgvector"), ("pg_trgm", "pg_trgm")):
        present = conn.execute("SELECT 1 FROM pg_extension WHERE extname = %s", (name,)).fetchone()
        if present:
            continue
        try:
            conn.execute(f"CREATE EXTENSION IF NOT EXISTS {name}")
        except psycopg.Error as exc:
            raise DatabaseError(
                f"the PostgreSQL server lacks the {purpose} extension ({name}) and it could "
                f"not be created: {_reason(exc)}; install it or ask an administrator to run "
                f"CREATE EXTENSION {name}"
            ) from None


def _v1(conn: psycopg.Connection[Any], dim: int) -> None:
    conn.execute(f"""
CREATE TABLE memctl_meta(key text PRIMARY KEY, value text);
CREATE TABLE files(
  vault text NOT NULL, path text NOT NULL, size bigint, mtime_ns bigint, hash text,
  indexed_at text, PRIMARY KEY (vault, path));
CREATE TABLE chunks(
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  vault text NOT NULL, path text NOT NULL, line_start integer NOT NULL,
  line_end integer NOT NULL, heading text, text text NOT NULL, hash text NOT NULL,
  tier text, source text, date text, tags text, importance real,
  embedded boolean NOT NULL DEFAULT false, ntokens integer NOT NULL DEFAULT 0,
  words tsvector NOT NULL, embedding vector({int(dim)}),
  UNIQUE (vault, path, line_start, hash));
CREATE INDEX chunks_pending ON chunks (vault, id) WHERE NOT embedded;
ALTER TABLE chunks ALTER COLUMN words SET STATISTICS 1000;
CREATE INDEX chunks_date ON chunks (vault, date);
CREATE TABLE lexemes(word text COLLATE "C" PRIMARY KEY);
CREATE TABLE vault_stats(
  vault text PRIMARY KEY, chunks bigint NOT NULL DEFAULT 0,
  tokens bigint NOT NULL DEFAULT 0, last_sync text);
CREATE TABLE usage(
  vault text NOT NULL, hash text NOT NULL, created_at text, last_referenced_at text,
  access_count integer NOT NULL DEFAULT 0, PRIMARY KEY (vault, hash));
CREATE TABLE reference_log(
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, vault text NOT NULL,
  hash text NOT NULL, path text, ts text NOT NULL, kind text NOT NULL, query text);
CREATE INDEX reference_log_ts ON reference_log (vault, ts);
""")


def _window_words(conn: psycopg.Connection[Any], dim: int) -> None:
    """The window words (memctl.index.window_words): each chunk's words with its
    neighbours', ranked by BM25 beside the chunk's own, filled for the rows there are.

    A table of their own, not columns of `chunks`: filling (or, on every file rewrite,
    changing) an indexed column of `chunks` writes a new version of the whole row and a
    new entry in each of its indexes, the HNSW graph included (~ms a row): hours, and a
    table and indexes twice their size, at a million chunks. Here a window changes
    alone. Keys and the reference to `chunks` are added after the rows (one check of
    them all, not one per row); the GIN index is a search index (built after a load)."""
    from memctl.index.postgres.windows import fill

    conn.execute(
        "CREATE TABLE chunk_windows(id bigint NOT NULL, vault text NOT NULL, "
        "window_words tsvector NOT NULL, window_ntokens integer NOT NULL)"
    )
    # As `chunks.words`: the statistics estimate the document count of each word in
    # ~1/1000 of the windows or more; a word they miss is counted row by row, on the
    # search's own connection, before the window list can start (~6 ms a count at 1M).
    conn.execute("ALTER TABLE chunk_windows ALTER COLUMN window_words SET STATISTICS 1000")
    conn.execute(
        "ALTER TABLE vault_stats ADD COLUMN windows bigint NOT NULL DEFAULT 0, "
        "ADD COLUMN window_tokens bigint NOT NULL DEFAULT 0"
    )
    fill(conn)
    conn.execute(
        "ALTER TABLE chunk_windows ADD PRIMARY KEY (id), "
        "ADD FOREIGN KEY (id) REFERENCES chunks(id) ON DELETE CASCADE"
    )


# The search indexes are built after the first load, not maintained row by row during it:
# on 2 busy cores an HNSW insert runs at ~120 rows/s and a trigram GIN insert at ~700,
# while building either over loaded rows is many times faster (docs/lab/scale-rounds.md, the 100k bench).
SEARCH_INDEXES = {
    "chunks_words": "CREATE INDEX CONCURRENTLY chunks_words ON chunks USING gin (words)",
    "chunk_windows_words": "CREATE INDEX CONCURRENTLY chunk_windows_words ON chunk_windows "
    "USING gin (window_words)",
    "chunks_trigram": "CREATE INDEX CONCURRENTLY chunks_trigram ON chunks "
    "USING gin (text gin_trgm_ops)",
    "chunks_embedding": "CREATE INDEX CONCURRENTLY chunks_embedding ON chunks "
    "USING hnsw (embedding vector_cosine_ops)",
}
_INDEX_LOCK = _MIGRATION_LOCK + 1
BUILD_MEMORY = 1 << 30  # bytes of maintenance_work_mem the index builds take at least


def missing_search_indexes(conn: psycopg.Connection[Any]) -> list[str]:
    valid = {
        name
        for (name,) in conn.execute(
            "SELECT c.relname FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid "
            "WHERE i.indrelid IN ('chunks'::regclass, 'chunk_windows'::regclass) AND i.indisvalid"
        )
    }
    return [name for name in SEARCH_INDEXES if name not in valid]


def build_search_indexes(conn: psycopg.Connection[Any]) -> list[str]:
    """Build the search indexes the table lacks; returns those built.

    CONCURRENTLY, so writers and readers go on meanwhile; one builder at a time (a
    second process skips rather than waits); an index a crash left invalid is rebuilt.
    """
    missing = missing_search_indexes(conn)
    if not missing:
        return []
    if not one(conn.execute("SELECT pg_try_advisory_lock(%s)", (_INDEX_LOCK,)).fetchone())[0]:
        return []
    try:
        missing = missing_search_indexes(conn)
        # At least 1 GB (an HNSW graph that outgrows it is finished on disk, several times
        # slower: ~2 GB per million 384-d rows); more if the server or database says so.
        raised = one(
            conn.execute(
                "SELECT pg_size_bytes(current_setting('maintenance_work_mem')) < %s",
                (BUILD_MEMORY,),
            ).fetchone()
        )[0]
        if raised:
            conn.execute(f"SET maintenance_work_mem = {BUILD_MEMORY // 1024}")  # in kB
        for name in missing:
            conn.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")
            conn.execute(SEARCH_INDEXES[name])
        if raised:
            conn.execute("RESET maintenance_work_mem")
        # Word frequencies for the search planner (and memctl's common-word pruning)
        # now, not whenever autovacuum gets to the freshly loaded table.
        conn.execute("ANALYZE chunks, chunk_windows")
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (_INDEX_LOCK,))
    return missing


Migration = Callable[[psycopg.Connection[Any], int], None]
# Numbered in the order written; a branch merged later renumbers its own.
MIGRATIONS: dict[int, Migration] = {
    1: _v1,
    2: substring_lookup,
    3: _window_words,
    4: held_substrings,
    5: scanned_substrings,
    6: term_rows,
    7: word_counts,
    8: tested_substrings,
    9: scanned_window_terms,
    10: claims.migration,
    11: crossing_keys.migration,
}
LATEST = max(MIGRATIONS)


def schema_version(conn: psycopg.Connection[Any]) -> int:
    if not one(conn.execute("SELECT to_regclass('memctl_schema')").fetchone())[0]:
        return 0
    return int(
        one(conn.execute("SELECT coalesce(max(version), 0) FROM memctl_schema").fetchone())[0]
    )


def check_not_newer(version: int) -> None:
    if version > LATEST:
        raise DatabaseError(
            f"the index database has schema version {version}, newer than this memctl "
            f"({__version__}) understands ({LATEST}): upgrade memctl"
        )


def migrate(conn: psycopg.Connection[Any], dim: int = DEFAULT_DIM) -> list[int]:
    """Apply the migrations this database lacks; returns the versions applied."""
    check_not_newer(schema_version(conn))
    _extensions(conn)
    applied: list[int] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS memctl_schema(version integer PRIMARY KEY, "
            "applied_at timestamptz NOT NULL DEFAULT now(), memctl text)"
        )
        current = schema_version(conn)  # again, now that migrators queue behind the lock
        check_not_newer(current)
        for version in sorted(v for v in MIGRATIONS if v > current):
            MIGRATIONS[version](conn, dim)
            conn.execute(
                "INSERT INTO memctl_schema(version, memctl) VALUES (%s, %s)",
                (version, __version__),
            )
            applied.append(version)
    return applied


def prepare_session(conn: psycopg.Connection[Any]) -> None:
    """Vector adapters, the HNSW settings and the scan order of this connection."""
    from pgvector.psycopg import register_vector

    register_vector(conn)
    conn.execute(f"SET hnsw.ef_search = {EF_SEARCH}")
    # Filtered vector queries (one vault, a tier) keep scanning the graph until enough
    # rows pass the filter instead of returning fewer than asked (pgvector 0.8).
    conn.execute("SET hnsw.iterative_scan = relaxed_order")
    # A scan of a table larger than a quarter of shared_buffers otherwise starts wherever
    # another scan of it is: an unranked lookup's LIMIT (a common word's substring rows)
    # would return other rows from one search to the next. From the first block, the
    # same query gives the same results, and they are the rows the index would give.
    conn.execute("SET synchronize_seqscans = off")
    # Nor in parallel workers: a LIMIT over their rows takes whichever worker answers
    # first, and a substring scan the planner thinks reads the whole table (it cannot
    # estimate `(text || '') ILIKE`, the common word's scan) started two of them for a
    # lookup that stops within a few hundred rows.
    conn.execute("SET max_parallel_workers_per_gather = 0")
    # A statement run again (psycopg prepares it from its fifth run) is planned once:
    # the lists' statements have one shape whatever the query (its terms in arrays, each
    # LIMIT a literal), and the planner would otherwise plan each run anew (~1 ms a list at
    # 1M), its estimate of the generic plan being no better than a custom one's.
    conn.execute("SET plan_cache_mode = force_generic_plan")
