"""SearchTrace: what a search saw, handed to the tools that calibrate and train it, without
changing what it answers."""

from __future__ import annotations

from datetime import datetime

from memctl.search.hybrid import Searcher
from memctl.search.rerank.model import FEATURES
from memctl.search.trace import SearchTrace
from memctl.vault import Vault

NOW = datetime(2026, 11, 22, 9, 30)


def test_a_trace_sees_every_stage_and_changes_no_result(indexed_fixture: Vault) -> None:
    query = "why did we choose a single-file database"
    with Searcher(indexed_fixture, fresh=False) as searcher:
        plain = searcher.search(query, k=5, log=False, now=NOW, explain=True)
        trace = SearchTrace(rerank_features=True)
        traced = searcher.search(query, k=5, log=False, now=NOW, explain=True, trace=trace)
    assert plain.results and traced.to_dict() == plain.to_dict()
    assert set(trace.lists) >= {"fts", "trigram", "vector"}
    assert trace.query is not None and trace.plan is not None and trace.words is not None
    assert trace.verdict is not None
    kept = [trace.records[cid] for cid in trace.verdict.kept]
    assert [(r.path, r.hash) for r in kept] == [(r.path, r.hash) for r in plain.results]
    assert set(trace.verdict.kept) <= set(trace.chosen) <= set(trace.records)
    # The reranker's rows, one per candidate it looked at, each on the window it showed.
    assert trace.features and set(trace.features) == set(trace.windows)
    assert all(len(row) == len(FEATURES) for row in trace.features.values())
    assert trace.terms and trace.snippets is not None
    cid = trace.verdict.kept[0]
    assert trace.snippets(cid).text == trace.snippets.made_at(cid, trace.snippets.tokens).text


def test_without_rerank_features_a_trace_holds_only_what_the_search_computed(
    indexed_fixture: Vault,
) -> None:
    trace = SearchTrace()
    with Searcher(indexed_fixture, fresh=False) as searcher:
        searcher.search("deploy checklist", mode="lexical", log=False, now=NOW, trace=trace)
        assert trace.features == {} and trace.rerank == {}
        assert set(trace.lists) == {"fts", "trigram", "window"}
        empty = SearchTrace()
        searcher.search("?!", log=False, now=NOW, trace=empty)
    assert empty.verdict is None and empty.lists == {}
