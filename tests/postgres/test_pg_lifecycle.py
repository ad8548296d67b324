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
from tests.postgres.test_pg_sync_search import fixture_on_pg
from tests.search.conftest import NOW


def test_chunks_and_neighbours_agree_with_sqlite(
    tmp_path: Path, pg_url: str, indexed_fixture: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = fixture_on_pg(tmp_path, "alice", pg_url, monkeypatch)
    shutil.copy(indexed_fixture.state_dir / "state.db", vault.state_dir / "state.db")
    sync(vault, embed=True, now=NOW)

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
