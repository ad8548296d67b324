"""The lifecycle's reads through the backend seam agree on both backends: every chunk with
its usage (`chunk_usage`) and the nearest neighbours lint's near-duplicate check reads."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from memctl.index.backend import open_store
from memctl.index.sync import sync
from memctl.lifecycle.maintain import lint_vault
from memctl.vault import Vault
from tests.postgres.test_pg_sync_search import fixture_on_pg, synced_fixture_on_pg
from tests.search.conftest import NOW


def test_chunks_and_neighbours_agree_with_sqlite(
    tmp_path: Path, pg_url: str, indexed_fixture: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = synced_fixture_on_pg(tmp_path, "alice", pg_url, indexed_fixture, monkeypatch)

    def read(v: Vault) -> tuple[set[tuple[Any, ...]], set[tuple[Any, ...]]]:
        with open_store(v) as store:
            chunks = list(store.chunk_usage())
            where = {c.id: (c.path, c.line_start) for c in store.chunks_by_ids(store.chunk_ids())}
            pairs = store.near_pairs(0.3, 5)
        return (
            {(c.path, c.line_start, c.hash, c.tier, c.last_referenced_at) for c in chunks},
            {(*where[p.source], *where[p.neighbour], round(p.cosine, 3)) for p in pairs},
        )

    lite_chunks, lite_pairs = read(indexed_fixture)
    pg_chunks, pg_pairs = read(vault)
    assert pg_chunks == lite_chunks and len(pg_chunks) > 10
    assert pg_pairs == lite_pairs and len(pg_pairs) > 5
    lite, pg = lint_vault(indexed_fixture, now=NOW), lint_vault(vault, now=NOW)
    assert [f.message for f in pg.findings] == [f.message for f in lite.findings]


def test_reference_events_and_per_day_agree_with_sqlite(
    tmp_path: Path, pg_url: str, indexed_fixture: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What memctl ui reads of the reference log (a promotion's evidence, the trends)."""
    from datetime import timedelta

    vault = fixture_on_pg(tmp_path, "carol", pg_url, monkeypatch)
    sync(vault, embed=False, now=NOW)
    lite = tmp_path / "lite"
    shutil.copytree(indexed_fixture.root, lite)
    lite_vault = Vault(lite)

    def logged(v: Vault) -> tuple[dict[str, Any], dict[str, int]]:
        with open_store(v) as store:
            chunk = store.chunks_by_ids(store.chunk_ids()[:1])[0]
            hits = [(chunk.hash, chunk.path)]
            for hours, kind, query in (
                (1, "search", "деплой"),
                (30, "context", None),
                (5, "tool", "שרת"),
            ):
                store.record_references(hits, kind, query, NOW - timedelta(hours=hours))
            events = store.reference_events([chunk.hash, "nothing"], 2)
            return events, store.references_per_day(NOW - timedelta(days=3))

    lite_events, lite_days = logged(lite_vault)
    pg_events, pg_days = logged(vault)
    assert pg_events == lite_events and pg_days == lite_days
    (digest,) = [h for h in lite_events if h != "nothing"]
    assert lite_events["nothing"] == []
    assert [(kind, query) for _, kind, query in lite_events[digest]] == [
        ("search", "деплой"),
        ("tool", "שרת"),
    ]  # newest first, two of three
    assert sum(lite_days.values()) >= 3
