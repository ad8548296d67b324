"""Numbered migrations of index.db and state.db: every past schema opens with its data
intact, and a database from a newer memctl is refused with one line."""

from __future__ import annotations

import contextlib
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memctl.cli import app
from memctl.index import migrations
from memctl.index.migrations import INDEX_LATEST, STATE_LATEST, SchemaTooNew
from memctl.index.store import Store, index_path
from memctl.index.sync import sync
from memctl.sqlite import connect
from memctl.vault import Vault

PAST = Path(__file__).parent / "past_schemas"
DIM = 4
TEXT = "- 09:00 деплой заблокирован: DNS; הפריסה נחסמה"
HASH = "a" * 32
VECTOR = struct.pack(f"{DIM}f", 0.5, 0.5, 0.5, 0.5)


def build_v1(vault: Vault) -> None:
    """index.db and state.db exactly as memctl 0.1 (schema 1, no migrations table) left them,
    with a chunk, its vector, usage, a reference and a cached embedding."""
    vault.state_dir.mkdir(exist_ok=True)
    conn = connect(index_path(vault))
    conn.execute("ATTACH DATABASE ? AS state", (str(vault.state_dir / "state.db"),))
    conn.execute(
        f"CREATE VIRTUAL TABLE chunks_vec USING vec0(embedding float[{DIM}] distance_metric=cosine)"
    )
    script = (PAST / "v1.sql").read_text(encoding="utf-8")
    body = "\n".join(line for line in script.splitlines() if not line.startswith("--"))
    for statement in migrations.split_sql(body):
        conn.execute(statement)
    conn.executemany(
        "INSERT INTO meta(key, value) VALUES (?, ?)",
        [("schema_version", "1"), ("model_id", "test-model"), ("dim", str(DIM))],
    )
    conn.execute(
        "INSERT INTO files VALUES ('memory/daily/2026-11-20.md', 10, 1, 'f', '2026-11-20T09:00:00')"
    )
    conn.execute(
        "INSERT INTO chunks(id, path, line_start, line_end, heading, text, hash, tier, source, "
        "date, tags, importance, embedded) VALUES (7, 'memory/daily/2026-11-20.md', 3, 3, "
        "'2026-11-20', ?, ?, 'warm', 'daily', '2026-11-20', '[]', 0.5, 1)",
        (TEXT, HASH),
    )
    conn.execute("INSERT INTO chunks_vec(rowid, embedding) VALUES (7, ?)", (VECTOR,))
    conn.execute(
        "INSERT INTO state.usage VALUES (?, '2026-11-20T09:00:00', '2026-11-21T10:00:00', 4)",
        (HASH,),
    )
    conn.execute(
        "INSERT INTO state.reference_log(hash, path, ts, kind, query) VALUES "
        "(?, 'memory/daily/2026-11-20.md', '2026-11-21T10:00:00', 'search', 'деплой')",
        (HASH,),
    )
    conn.execute("INSERT INTO state.embed_cache VALUES ('test-model', ?, ?)", (HASH, VECTOR))
    conn.close()


def recorded(store: Store, schema: str) -> list[int]:
    return [
        v
        for (v,) in store.conn.execute(
            f"SELECT version FROM {schema}._memctl_migrations ORDER BY version"
        )
    ]


def test_schema_1_migrates_with_its_data_intact(vault: Vault) -> None:
    build_v1(vault)
    # A second chunk in the same file: chunks have windows only beside a neighbour.
    conn = connect(index_path(vault))
    conn.execute(
        "INSERT INTO chunks(id, path, line_start, line_end, heading, text, hash, tier, source, "
        "date, tags, importance, embedded) VALUES (8, 'memory/daily/2026-11-20.md', 4, 4, "
        "'2026-11-20', '- 10:00 rollback done', ?, 'warm', 'daily', '2026-11-20', '[]', 0.5, 0)",
        ("b" * 32,),
    )
    conn.commit()
    conn.close()
    with Store.open(vault) as store:
        assert recorded(store, "main") == list(range(1, INDEX_LATEST + 1))
        assert recorded(store, "state") == list(range(1, STATE_LATEST + 1))
        assert store.meta("schema_version") == str(INDEX_LATEST)
        assert (store.model_id, store.dim) == ("test-model", DIM)
        (record,) = store.chunks_by_ids([7])
        assert (record.text, record.access_count, record.last_referenced_at) == (
            TEXT,
            4,
            "2026-11-21T10:00:00",
        )
        assert store.reference_counts(migrations.clock.now().replace(year=2000)) == {HASH: 1}
        assert store.has_vectors()
        # The words and trigram tables the old triggers filled still answer, in all three scripts.
        for table, query in (
            ("chunks_fts", "деплой"),
            ("chunks_fts", "הפריסה"),
            ("chunks_trigram", "DNS"),
        ):
            hits = store.conn.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH ?", (query,))
            assert [r[0] for r in hits] == [7], (table, query)
        cached = store.conn.execute("SELECT vector FROM state.embed_cache WHERE hash = ?", (HASH,))
        assert cached.fetchone()[0] == VECTOR
        # Migration 2 built the window words of the chunks it found (the heading included):
        # each of the two holds its neighbour's words.
        hits = store.conn.execute(
            "SELECT rowid FROM windows_fts WHERE windows_fts MATCH ? ORDER BY rowid",
            ("деплой AND rollback AND 2026",),
        )
        assert [r[0] for r in hits] == [7, 8]


def test_a_migrated_index_keeps_working_and_is_not_migrated_twice(notes_vault: Vault) -> None:
    build_v1(notes_vault)
    with Store.open(notes_vault) as store:
        first = store.conn.execute("SELECT version, applied_at FROM _memctl_migrations").fetchall()
    sync(notes_vault, embed=False)  # the old chunk's file is gone: it is removed, others added
    with Store.open(notes_vault) as store:
        assert (
            store.conn.execute("SELECT version, applied_at FROM _memctl_migrations").fetchall()
            == first
        )
        assert store.counts()["chunks"] > 0
        (usage,) = store.conn.execute(
            "SELECT access_count FROM state.usage WHERE hash = ?", (HASH,)
        )
        assert usage[0] == 4  # usage is keyed by text, and survives its chunk


def test_brand_new_databases_get_every_migration(vault: Vault) -> None:
    with Store.open(vault) as store:
        assert recorded(store, "main") == list(range(1, INDEX_LATEST + 1))
        assert recorded(store, "state") == list(range(1, STATE_LATEST + 1))
        assert migrations.versions(store.conn).current


def test_a_fresh_index_over_an_old_state_db_keeps_the_history(vault: Vault) -> None:
    build_v1(vault)
    index_path(vault).unlink()  # index.db is derived: removed, it is rebuilt; state.db stays
    with Store.open(vault) as store:
        assert recorded(store, "state") == list(range(1, STATE_LATEST + 1))
        assert store.conn.execute("SELECT access_count FROM state.usage").fetchall() == [(4,)]


@pytest.mark.parametrize("schema", ["main", "state"])
def test_a_database_from_a_newer_memctl_is_refused_in_one_line(
    vault: Vault, runner: CliRunner, schema: str
) -> None:
    with Store.open(vault) as store:
        store.conn.execute(
            f"INSERT INTO {schema}._memctl_migrations(version, name) VALUES (99, 'from the future')"
        )
    with pytest.raises(SchemaTooNew, match="version 99, newer than this memctl"):
        Store.open(vault)
    for args in (
        ["status"],
        ["search", "деплой"],
        ["index", "--no-embed"],
        ["maintain", "--no-embed"],
    ):
        result = runner.invoke(app, ["--vault", str(vault.root), *args])
        assert result.exit_code != 0, args
        assert result.exception is None or isinstance(result.exception, SystemExit), args
        assert "newer than this memctl" in result.output, args
        assert "Traceback" not in result.output
    with _raw(vault) as conn:  # nothing was written: the version is still the newer one
        assert (
            conn.execute(f"SELECT max(version) FROM {schema}._memctl_migrations").fetchone()[0]
            == 99
        )


@contextlib.contextmanager
def _raw(vault: Vault) -> Iterator[Any]:
    conn = connect(index_path(vault))
    try:
        conn.execute("ATTACH DATABASE ? AS state", (str(vault.state_dir / "state.db"),))
        yield conn
    finally:
        conn.close()


def test_a_later_migration_runs_once_in_order_over_old_data(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The machinery a next schema change will use: an added step runs on the next open,
    once, after those the database had, with the rows it found."""
    build_v1(vault)
    calls: list[int] = []

    def add_pinned(conn: Any, seed: migrations.Seed) -> None:
        calls.append(conn.execute("SELECT count(*) FROM state.usage").fetchone()[0])
        conn.execute("ALTER TABLE state.usage ADD COLUMN pinned INTEGER DEFAULT 0")

    monkeypatch.setitem(migrations.STATE_MIGRATIONS, 2, add_pinned)
    monkeypatch.setattr(migrations, "STATE_LATEST", 2)
    with Store.open(vault) as store:
        assert recorded(store, "state") == [1, 2]
        row = store.conn.execute("SELECT access_count, pinned FROM state.usage").fetchone()
        assert tuple(row) == (4, 0)
    with Store.open(vault):
        pass
    assert calls == [1]
