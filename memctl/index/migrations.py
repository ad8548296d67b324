"""The SQLite schema of index.db and state.db, as numbered migrations run on open.

The way sqlite-utils' and llm's `migrations.py` do it: each database records the
migrations it has had in `_memctl_migrations(version, name, applied_at, memctl)`, and an
open applies, in order and in one write transaction, those it lacks. state.db holds what
cannot be rebuilt (usage history, the reference log, the embedding cache), so a change
to it is always a migration, never a re-create. A database a newer memctl migrated past
what this one knows is refused with one line, before anything is written to it.

Databases from before the migrations table existed (memctl <= 0.1, schema 1): index.db
says `meta.schema_version = 1`; state.db has its tables and no record. Both count as
having had migration 1, whose statements are all `IF NOT EXISTS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memctl import __version__, clock
from memctl.errors import MemctlError

TABLE = "_memctl_migrations"


class SchemaTooNew(MemctlError):
    """A database written by a newer memctl: refused rather than half-understood."""


@dataclass(frozen=True)
class Seed:
    """What a brand-new index.db starts with: the embedding model and its dimension."""

    model_id: str
    dim: int


Migration = Callable[[Any, Seed], None]


def split_sql(script: str) -> list[str]:
    """Statements of a schema script; trigger bodies keep their inner semicolons."""
    statements: list[str] = []
    current: list[str] = []
    for line in script.strip().splitlines():
        current.append(line)
        joined = "\n".join(current).strip()
        in_trigger = joined.upper().startswith("CREATE TRIGGER")
        if joined.endswith(";") and (not in_trigger or joined.upper().endswith("END;")):
            statements.append(joined)
            current = []
    return statements


def create_vectors(conn: Any, dim: int) -> None:
    conn.execute(
        f"CREATE VIRTUAL TABLE chunks_vec USING vec0("
        f"embedding float[{int(dim)}] distance_metric=cosine)"
    )


def set_meta(conn: Any, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO main.meta(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


# -- index.db -----------------------------------------------------------------------------

_INDEX_V1 = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files(
  path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, hash TEXT, indexed_at TEXT);
CREATE TABLE IF NOT EXISTS chunks(
  id INTEGER PRIMARY KEY, path TEXT, line_start INTEGER, line_end INTEGER,
  heading TEXT, text TEXT, hash TEXT,
  tier TEXT, source TEXT, date TEXT, tags TEXT,
  importance REAL, embedded INTEGER DEFAULT 0);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks(path);
CREATE INDEX IF NOT EXISTS chunks_hash ON chunks(hash);
CREATE INDEX IF NOT EXISTS chunks_pending ON chunks(embedded) WHERE embedded = 0;
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
  heading, text, content='chunks', content_rowid='id',
  tokenize='unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_trigram USING fts5(
  text, content='chunks', content_rowid='id', tokenize='trigram');
CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_fts(rowid, heading, text) VALUES (new.id, new.heading, new.text);
  INSERT INTO chunks_trigram(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, heading, text)
    VALUES ('delete', old.id, old.heading, old.text);
  INSERT INTO chunks_trigram(chunks_trigram, rowid, text) VALUES ('delete', old.id, old.text);
  DELETE FROM chunks_vec WHERE rowid = old.id;
END;
CREATE TRIGGER IF NOT EXISTS chunks_au AFTER UPDATE OF heading, text ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, heading, text)
    VALUES ('delete', old.id, old.heading, old.text);
  INSERT INTO chunks_trigram(chunks_trigram, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO chunks_fts(rowid, heading, text) VALUES (new.id, new.heading, new.text);
  INSERT INTO chunks_trigram(rowid, text) VALUES (new.id, new.text);
END;
"""


def _index_v1(conn: Any, seed: Seed) -> None:
    """The first schema: files, chunks, both FTS5 tables, vec0 vectors, their triggers."""
    if not conn.execute("SELECT 1 FROM main.sqlite_master WHERE name = 'chunks_vec'").fetchone():
        create_vectors(conn, seed.dim)
    for statement in split_sql(_INDEX_V1):
        conn.execute(statement)
    if conn.execute("SELECT 1 FROM main.meta WHERE key = 'model_id'").fetchone() is None:
        set_meta(conn, "model_id", seed.model_id)
        set_meta(conn, "dim", str(int(seed.dim)))


# -- state.db -----------------------------------------------------------------------------

_STATE_V1 = """
CREATE TABLE IF NOT EXISTS state.embed_cache(
  model TEXT, hash TEXT, vector BLOB, PRIMARY KEY (model, hash));
CREATE TABLE IF NOT EXISTS state.usage(
  hash TEXT PRIMARY KEY, created_at TEXT, last_referenced_at TEXT, access_count INTEGER);
CREATE TABLE IF NOT EXISTS state.reference_log(
  id INTEGER PRIMARY KEY, hash TEXT, path TEXT, ts TEXT, kind TEXT, query TEXT);
CREATE INDEX IF NOT EXISTS state.reference_log_ts ON reference_log(ts);
"""


def _state_v1(conn: Any, seed: Seed) -> None:
    """The first schema: the embedding cache, usage counters, the reference log."""
    for statement in split_sql(_STATE_V1):
        conn.execute(statement)


def _index_v2(conn: Any, seed: Seed) -> None:
    """The window words table (memctl.index.window_words), filled from the chunks."""
    from memctl.index import window_words

    conn.execute(window_words.SCHEMA)
    window_words.fill(conn)


# A new migration is the next number here, never an edit of an old one. Check search's query
# plans before adding an index to `chunks`: without statistics SQLite may drive a filtered
# FTS lookup from a low-selectivity index (a `tier` index did exactly that).
INDEX_MIGRATIONS: dict[int, Migration] = {1: _index_v1, 2: _index_v2}
STATE_MIGRATIONS: dict[int, Migration] = {1: _state_v1}
INDEX_LATEST = max(INDEX_MIGRATIONS)
STATE_LATEST = max(STATE_MIGRATIONS)


@dataclass(frozen=True)
class Versions:
    index: int
    state: int
    recorded: bool = True  # both databases have the migrations table

    @property
    def current(self) -> bool:
        return self.recorded and self.index == INDEX_LATEST and self.state == STATE_LATEST


def versions(conn: Any) -> Versions:
    """The schema version of each database (0: brand new)."""
    index, index_recorded = _version(conn, "main")
    state, state_recorded = _version(conn, "state")
    return Versions(index, state, index_recorded and state_recorded)


def _version(conn: Any, schema: str) -> tuple[int, bool]:
    try:
        row = conn.execute(f"SELECT max(version) FROM {schema}.{TABLE}").fetchone()
        return int(row[0] or 0), True
    except Exception as exc:  # no such table: a database from before migrations
        if "no such table" not in str(exc):
            raise
    if schema == "main":
        try:
            row = conn.execute("SELECT value FROM main.meta WHERE key = 'schema_version'")
            found = row.fetchone()
        except Exception as exc:
            if "no such table" not in str(exc):
                raise
            return 0, False
        return (int(found[0]) if found and str(found[0]).isdigit() else 0), False
    legacy = conn.execute("SELECT 1 FROM state.sqlite_master WHERE name = 'reference_log'")
    return (1 if legacy.fetchone() else 0), False


def check_not_newer(found: Versions, where: str) -> None:
    for name, version, latest in (
        ("index.db", found.index, INDEX_LATEST),
        ("state.db", found.state, STATE_LATEST),
    ):
        if version > latest:
            raise SchemaTooNew(
                f"{where}/{name} has schema version {version}, newer than this memctl "
                f"({__version__}) understands ({latest}): upgrade memctl"
            )


def migrate(conn: Any, seed: Seed, where: str) -> list[str]:
    """Bring both databases to the latest schema; returns what was applied ("index.db 2").

    The caller holds no transaction; this takes a write transaction (BEGIN IMMEDIATE
    locks both files) only when something is missing, and reads the versions again
    under it, so two processes opening one old index never apply a migration twice.
    """
    found = versions(conn)
    check_not_newer(found, where)
    if found.current:
        return []
    applied: list[str] = []
    conn.execute("BEGIN IMMEDIATE")
    try:
        found = versions(conn)
        check_not_newer(found, where)
        for schema, have, steps in (
            ("state", found.state, STATE_MIGRATIONS),
            ("main", found.index, INDEX_MIGRATIONS),
        ):
            _record_table(conn, schema)
            if have:
                # A database from before the table: record what it already had.
                _record(conn, schema, range(1, have + 1), legacy=True)
            for version in sorted(v for v in steps if v > have):
                steps[version](conn, seed)
                _record(conn, schema, [version])
                applied.append(f"{'index' if schema == 'main' else 'state'}.db {version}")
        set_meta(conn, "schema_version", str(INDEX_LATEST))
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return applied


def _record_table(conn: Any, schema: str) -> None:
    conn.execute(
        f"CREATE TABLE IF NOT EXISTS {schema}.{TABLE}("
        "version INTEGER PRIMARY KEY, name TEXT, applied_at TEXT, memctl TEXT)"
    )


def _record(conn: Any, schema: str, done: Any, *, legacy: bool = False) -> None:
    steps = STATE_MIGRATIONS if schema == "state" else INDEX_MIGRATIONS
    conn.executemany(
        f"INSERT OR IGNORE INTO {schema}.{TABLE}(version, name, applied_at, memctl) "
        "VALUES (?, ?, ?, ?)",
        [
            (
                v,
                steps[v].__name__.lstrip("_"),
                clock.iso(clock.now()),
                "<=0.1" if legacy else __version__,
            )
            for v in done
        ],
    )
