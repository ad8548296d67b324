"""The reranking stage over the best candidates' windows, and the results built from the
candidates the relevance floor kept (memctl.search.hybrid runs the stages; windows.py
reads the windows, model.py holds the model, present/results.py the snippets)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from memctl.index.protocol import IndexBackend
from memctl.index.usage import ChunkRecord
from memctl.search.floor.evidence import Verdict, weighted_terms
from memctl.search.present import results as present
from memctl.search.rank import ranking
from memctl.search.rerank import windows
from memctl.search.results import SearchResponse

if TYPE_CHECKING:
    from memctl.search.run import SearchRun

RerankSink = Callable[[dict[int, list[float]], dict[int, Any]], None]


def reranks(model_id: str, rerank: bool, mode: str, lists: Mapping[str, Any]) -> bool:
    """Whether the reranker reorders this search. Its cosine features are one model's (its
    weights name it): another model (`model_id`: the index's), or a mode without the vector
    list, keeps fusion's order."""
    return rerank and mode == "hybrid" and "vector" in lists and model_id == windows.model().model


def rerank_probabilities(
    store: IndexBackend,
    run: SearchRun,
    *,
    rows: int | None,
    matrix: Any,
    apply: bool,
    sink: RerankSink | None,
) -> dict[int, float]:
    """The reranker's probability for each of the best fused candidates (empty when not
    `apply`; `sink`, a SearchTrace's, receives every search's features and windows;
    `rows`: a shared server's chunk count for the words' IDF, where the run has no
    `terms` read already; `matrix`: the vectors held in memory, if any)."""
    terms = (
        run.terms
        if run.terms is not None
        else weighted_terms(run.words, run.parsed, run.plan, rows)[0]
    )
    return windows.rerank_scores(
        store,
        run,
        terms,
        frozenset(w.lower() for w in re.findall(r"\w+", run.text)),
        matrix=matrix,
        apply=apply,
        sink=sink,
        # Windows' vectors are kept by (vault, path, lines) only where the index says when
        # another connection changed it (SQLite's data_version, IndexMemory.check). On a
        # shared server another machine may rewrite a file under a kept Searcher: its
        # chunks there are read each search, never an old chunk's vectors with new text.
        kept_windows=run.kept.windows if run.keeps_reads else None,
    )


def fill(
    response: SearchResponse,
    verdict: Verdict,
    records: Mapping[int, ChunkRecord],
    snippet: present.Snippets,
    scores: Mapping[int, float],
    probability: Mapping[int, float],
    vault_name: str,
    explain: Callable[[int, float | None], dict[str, Any]] | None,
    by_rank: bool = False,
    result_tokens: int | None = None,
    newer: Mapping[int, int] | None = None,
) -> None:
    """The results of the candidates the floor kept, best first (`explain`: each one's
    --explain detail from its id and rerank probability; `by_rank`: snippets sized by
    rank, present.Snippets.by_rank; `result_tokens`: the results' snippets remade around
    this budget instead of the one the candidates were compared at; `newer`: the id of
    the memory that supersedes a candidate, named in its `superseded_by`)."""
    sized = (
        snippet.by_rank(verdict.kept, result_tokens, present.RANK_SHARES if by_rank else (1.0,))
        if by_rank or result_tokens
        else {}
    )
    for cid in verdict.kept:
        record, judged = records[cid], verdict.judged[cid]
        snip = sized.get(cid) or snippet(cid)
        hit = present.result(record, snip, scores[cid], judged, vault_name)
        hit.rerank = probability.get(cid)
        by = newer.get(cid) if newer else None
        hit.superseded_by = ranking.place(records[by]) if by is not None else None
        if explain is not None:
            hit.explain = explain(cid, hit.rerank)
        response.results.append(hit)
