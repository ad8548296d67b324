"""The Searcher's public surface for callers running many queries (eval, --batch, benches),
and the ranking stage's diversity on its own."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest

from memctl.index.sync import sync
from memctl.index.usage import ChunkRecord
from memctl.search.hybrid import Searcher
from memctl.search.present.snippets import Snippet
from memctl.search.query import embedding as query_vectors
from memctl.search.rank.ranking import diversify
from memctl.search.rank.scoring import Policy
from memctl.vault import Vault

NOW = datetime(2026, 11, 22, 9, 30)


def test_a_query_embedded_once_ranks_as_one_embedded_by_search(indexed_fixture: Vault) -> None:
    query = "почему мы выбрали SQLite"
    with Searcher(indexed_fixture, fresh=False) as searcher:
        assert searcher.has_vectors()
        vector = searcher.embed_query(query)
        assert vector.ndim == 1
        assert np.isclose(float(np.linalg.norm(vector)), 1.0, atol=1e-3)
        given = searcher.search(query, k=5, log=False, now=NOW, vector=vector, explain=True)
        own = searcher.search(query, k=5, log=False, now=NOW, explain=True)
    assert given.results and [r.to_dict() for r in given.results] == [
        r.to_dict() for r in own.results
    ]


def test_a_searcher_keeps_its_last_queries_vectors(
    indexed_fixture: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(query_vectors, "QUERY_VECTORS_KEPT", 2)
    with Searcher(indexed_fixture, fresh=False) as searcher:
        first = searcher.embed_query("why sqlite")
        assert not first.flags.writeable  # shared by later searches: nobody may change it
        assert searcher.embed_query("why sqlite") is first
        searcher.embed_query("dns change")
        searcher.embed_query("why sqlite")  # the most recent again: "dns change" goes next
        searcher.embed_query("backup")
        assert searcher.embed_query("why sqlite") is first
        again = searcher.embed_query("dns change")
        assert np.array_equal(again, searcher.embed_query("dns change"))
        searcher.embed_query("backup")
        searcher.embed_query("deploy")
        fresh = searcher.embed_query("why sqlite")
    assert fresh is not first and np.array_equal(fresh, first)


def test_a_lexical_index_has_no_vectors(vault: Vault) -> None:
    (vault.root / "memory/daily/2026-11-20.md").write_text(
        "# 2026-11-20\n\n- 10:00 גיבוי כל לילה\n", encoding="utf-8"
    )
    sync(vault, embed=False, now=NOW)
    with Searcher(vault, fresh=False) as searcher:
        assert not searcher.has_vectors()


def test_refresh_once_then_search_without_the_walk(fixture_copy: Vault) -> None:
    note = fixture_copy.root / "memory" / "daily" / "2026-11-22.md"
    with Searcher(fixture_copy, fresh=False) as searcher:
        note.write_text("# 2026-11-22\n\n- 08:00 zanzibar gateway timeout\n", encoding="utf-8")
        unseen = searcher.search("zanzibar", k=3, log=False, now=NOW, mode="lexical")
        assert all(r.path != "memory/daily/2026-11-22.md" for r in unseen.results)
        assert searcher.refresh(NOW) == []
        seen = searcher.search("zanzibar", k=3, log=False, now=NOW, mode="lexical")
    assert seen.results[0].path == "memory/daily/2026-11-22.md"


def _record(cid: int, path: str, text: str, digest: str, lines: tuple[int, int]) -> ChunkRecord:
    return ChunkRecord(
        id=cid, path=path, line_start=lines[0], line_end=lines[1], heading="", text=text,
        hash=digest, tier="warm", source="daily", date=None, tags=[], importance=0.5,
        embedded=False, created_at=None, last_referenced_at=None, access_count=0,
    )  # fmt: skip


def test_diversify_drops_the_same_lines_shown_twice_and_keeps_the_rest_in_order() -> None:
    records = {
        1: _record(1, "memory/daily/a.md", "backup every night at 03:00", "h1", (3, 4)),
        2: _record(2, "memory/daily/a.md", "nightly backup moved to 04:00", "h2", (5, 6)),
        3: _record(3, "memory/daily/b.md", "גיבוי כל לילה", "h3", (3, 3)),
        4: _record(4, "memory/daily/c.md", "backup every night at 03:00", "h1", (9, 9)),
    }
    # Chunks 1 and 2 are shown with the same widened window: one of them is enough.
    shown = {1: (1, 8), 2: (1, 8), 3: (3, 3), 4: (9, 9)}

    def snippet(cid: int) -> Snippet:
        lo, hi = shown[cid]
        return Snippet(
            text=records[cid].text, line_start=lo, line_end=hi, highlights=(), truncated=False
        )

    scores = {1: 0.9, 2: 0.8, 3: 0.7, 4: 0.6}
    # Chunk 4 is chunk 1's text again (same hash): a duplicate too.
    assert diversify(scores, records, snippet, 4, Policy()) == [1, 3]
    shown[2] = (10, 12)  # shown on its own lines, chunk 2 is a result of its own
    assert diversify(scores, records, snippet, 4, Policy()) == [1, 2, 3]


def test_the_lists_a_mode_reads_drop_another_models_vectors_and_add_the_window_list() -> None:
    from memctl.search.options import lists_wanted, with_window

    notices: list[str] = []
    assert lists_wanted("hybrid", "e5", "e5", notices) == ("fts", "trigram", "vector")
    assert lists_wanted("hybrid", "", "e5", notices) == ("fts", "trigram", "vector")
    assert notices == []  # an index without a model yet holds no other model's vectors
    assert lists_wanted("vector", "minilm", "e5", notices) == ()
    assert notices and "minilm" in notices[0]
    assert lists_wanted("bm25", "minilm", "e5", []) == ("fts",)
    import dataclasses

    policy = Policy()
    assert with_window(("fts", "trigram"), policy) == ("fts", "trigram")  # weight 0: left out
    policy = dataclasses.replace(policy, weights=dataclasses.replace(policy.weights, window=0.4))
    assert with_window(("fts", "trigram"), policy) == ("fts", "trigram", "window")
    assert with_window(("fts",), policy) == ("fts",)  # bm25 stays the plain baseline
