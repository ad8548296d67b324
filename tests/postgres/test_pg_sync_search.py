"""The PostgreSQL backend: sync, search and usage against a real server."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memctl.index.backend import open_store
from memctl.index.sync import sync
from memctl.search.hybrid import search
from memctl.vault import Vault
from tests.postgres.conftest import use_postgres
from tests.search.conftest import FIXTURE, NOW


def fixture_on_pg(tmp_path: Path, name: str, url: str, mp: pytest.MonkeyPatch) -> Vault:
    root = tmp_path / name
    shutil.copytree(FIXTURE / "memory", root / "memory")
    return use_postgres(root, name, url, mp)


def test_sync_then_search_finds_the_note(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = fixture_on_pg(tmp_path, "alice", pg_url, monkeypatch)
    report = sync(vault, embed=True, now=NOW)
    assert report.chunks_written > 0 and report.pending_embeddings == 0
    response = search(vault, "deploy", k=3, now=NOW, log=False)
    assert response.results, response.notices
    assert all(r.vault == "alice" for r in response.results)
    with open_store(vault) as store:
        assert store.counts()["chunks"] == report.chunks_total
