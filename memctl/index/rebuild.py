"""`memctl index --full` on SQLite: build a fresh index file beside the live one, then
swap its content in.

The swap copies the finished file into the live one with SQLite's backup API in one
write transaction, rather than renaming a file over it: a long-lived reader (an MCP
server, a search in progress) keeps its connection and sees either the old index or the
new one, and no connection is ever left pointing at a deleted file whose WAL now belongs
to another. state.db (cache, usage) is shared, so unchanged texts get their vectors back
from the cache.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from memctl.index.damage import file_damage, is_damage, set_state_aside
from memctl.index.store import INDEX_FILE, Store, index_path, state_db_path
from memctl.vault import Vault

if TYPE_CHECKING:
    from memctl.index.sync import SyncReport

REBUILD_SUFFIX = ".rebuild"
FTS_TABLES = ("chunks_fts", "chunks_trigram")
INSERT_TRIGGER = "chunks_ai"  # the schema's trigger that feeds FTS_TABLES row by row
CACHE_KIB = 65536  # the rebuild connection's page cache per database (SQLite: 2 MB)


def rebuild_beside(vault: Vault, build: Callable[[Store], None], report: SyncReport) -> None:
    """Run `build` (the sync phases) on a fresh file, then make it the live index."""
    from memctl.index.embed import model_identity

    live = index_path(vault)
    fresh = live.with_name(INDEX_FILE + REBUILD_SUFFIX)
    remove_db(fresh)
    # --full is the repair: read every page of state.db (set aside if damaged) first.
    set_state_aside(vault, state_db_path(vault), thorough=True)
    model_id, dim = model_identity(vault.settings)
    try:
        with Store.open(vault, path=fresh, model_id=model_id, dim=dim or 384) as store:
            for schema in ("main", "state"):
                store.conn.execute(f"PRAGMA {schema}.cache_size = -{CACHE_KIB}")
            trigger = _drop_insert_trigger(store)
            build(store)
            _fill_fts(store, trigger)
            report.pending_embeddings = store.pending_count()
            report.model = store.model_id
            store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        if file_damage(live) is None:
            try:
                _copy_into(fresh, live)
                return
            except Exception as exc:
                if not is_damage(exc):
                    raise
        # The live file is no database (garbage, truncated, another format): its readers
        # cannot use it anyway, so the finished rebuild simply replaces it.
        remove_db(live)
        os.replace(fresh, live)
    finally:
        remove_db(fresh)


def _drop_insert_trigger(store: Store) -> str:
    """Drop the FTS insert trigger of a fresh index; returns its SQL to put back.

    Safe only on a fresh file: every path is written once, so no chunk is ever deleted
    (the delete trigger would tell FTS5 to remove a row it never had).
    """
    row = store.conn.execute(
        "SELECT sql FROM main.sqlite_master WHERE type = 'trigger' AND name = ?",
        (INSERT_TRIGGER,),
    ).fetchone()
    if row is None:
        raise AssertionError(f"index schema has no {INSERT_TRIGGER} trigger")
    store.conn.execute(f"DROP TRIGGER {INSERT_TRIGGER}")
    return str(row[0])


def _fill_fts(store: Store, trigger: str) -> None:
    """Index every chunk in both FTS5 tables in one pass, and put the trigger back."""
    with store.transaction():
        for table in FTS_TABLES:
            store.conn.execute(f"INSERT INTO {table}({table}) VALUES ('rebuild')")
        store.conn.execute(trigger)


def _copy_into(fresh: Path, live: Path) -> None:
    from memctl.sqlite import connect

    source = connect(fresh, load_vec=False)
    try:
        target = connect(live, load_vec=False)
        try:
            source.backup(target)
        finally:
            target.close()
    finally:
        source.close()


def remove_db(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            path.with_name(path.name + suffix).unlink()
