"""A query's candidates fused and scored, with their snippets: the SearchRun the later stages read.

The Searcher (hybrid.py) calls `ranked` once its lists are read (candidate_lists.py);
reranking, diversity, the floor and the results (hybrid.py, rerank/, floor/, present/)
read only the SearchRun it returns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

from memctl.index.usage import ChunkRecord
from memctl.search.floor.evidence import weighted_terms
from memctl.search.floor.rule import WeightedTerm
from memctl.search.floor.words import TermHits
from memctl.search.kept import IndexMemory
from memctl.search.present import results as present
from memctl.search.query.matcher import Matcher
from memctl.search.rank import dated as dated_stage
from memctl.search.rank import meaning, ranking
from memctl.search.rank.scoring import COVERED_LISTS, covered, echoed, fuse, weights_for
from memctl.search.rerank import windows
from memctl.search.run import Asked, Listed, Searching, SearchRun


def ranked(searcher: Searching, listed: Listed, k: int, explain: bool, rerank: bool) -> SearchRun:
    """Fusion and the composite score (rank/), the candidates' snippets (present/) and
    the query's weighted words: the run the later stages read (`rerank`: whether
    the reranker reorders, so a server reads its candidates' context at once)."""
    asked, found = listed.asked, listed.found
    source = searcher.candidates
    policy = searcher.policy
    weights = weights_for(
        policy.weights,
        asked.text,
        listed.model_id,
        found.plan.reach(asked.parsed.content_terms),
        policy.reach_power,
    )
    fused = fuse(found.lists, policy, weights)
    records = source.records(list(fused))
    # The query's words by IDF, read once for the reranker and the floor (their tests
    # remember the words they saw). Another backend's reranker weighs by its own
    # chunk count, its floor by its plan: each reads its own.
    words = source.word_counts()
    weighted = weighted_terms(words, asked.parsed, found.plan) if words.exact else None
    matcher = present.matcher_for(asked.parsed, found.plan, searcher.kept.line_words)
    terms = weighted[0] if weighted is not None else None
    worded = True
    if found.lists.get("vector"):
        # The word lists weigh what a candidate holds of the question only beside a
        # vector list (bm25 mode stays the plain baseline, lexical mode the words').
        if terms is None:
            terms = weighted_terms(words, asked.parsed, found.plan, source.rows())[0]
        covers = _covers(searcher.kept, matcher, terms, fused, records)
        fused = covered(fused, covers, policy.cover_full)
        worded = echoed(covers, policy.cover_full)
    scored = _scored(searcher, asked, found.lists, fused, records, explain, listed.facts)
    snippets = _snippets(searcher, listed, matcher, records, scored, k, rerank)
    return SearchRun(
        text=asked.text,
        parsed=asked.parsed,
        mode=asked.mode,
        k=k,
        now=asked.now,
        model_id=listed.model_id,
        plan=found.plan,
        lists=found.lists,
        vector=found.vector,
        weights=weights,
        fused=fused,
        records=records,
        scored=scored,
        snippets=snippets,
        kept=searcher.kept,
        words=words,
        keeps_reads=source.keeps_reads,
        weighted=weighted,
        dated=asked.dated,
        terms=terms,
        echoed=worded,
    )


def _scored(
    searcher: Searching,
    asked: Asked,
    lists: dict[str, dict[int, float]],
    fused: dict[int, dict[str, float]],
    records: dict[int, ChunkRecord],
    explain: bool,
    facts: dict[int, tuple[meaning.Fact, ...]],
) -> ranking.Scored:
    """The composite score of each fused candidate (rank/ranking.score), boosted where
    it is dated when the query says (rank/dated.py); `facts`: the vector candidates'
    (supersession compares them by meaning)."""
    kept = searcher.kept if searcher.candidates.keeps_reads else None
    scored = ranking.score(
        fused,
        lists,
        records,
        words=[t.text for t in asked.parsed.content_terms],
        recent=_recent_hashes(searcher, asked.now),
        now=asked.now,
        policy=searcher.policy,
        # bm25 mode stays plain BM25: it is the baseline the eval compares against.
        context=asked.mode != "bm25",
        explain=explain,
        # An entry stands while its record object is the same: only kept records
        # (SQLite's, see SqliteCandidates.records) ever find theirs. A shared server's
        # (no `kept`) would only grow the table, ~5 objects a candidate the cyclic
        # collector walks.
        kept=kept.factors if kept else None,
        facts=facts,
    )
    if asked.dated is not None:
        dated_stage.boost(scored, records, asked.dated)
    return scored


def _snippets(
    searcher: Searching,
    listed: Listed,
    matcher: Matcher,
    records: dict[int, ChunkRecord],
    scored: ranking.Scored,
    k: int,
    rerank: bool,
) -> present.Snippets:
    """The candidates' snippets (present/), read through what the Searcher keeps where
    the store's reads may be kept; each holds the fact it was found by where known."""
    source, store, memory = searcher.candidates, searcher.store, searcher.kept
    kept = memory if source.keeps_reads else None
    facts = {
        cid: lines
        for cid, found in listed.facts.items()
        if cid in records and (lines := present.fact_lines(records[cid], found))
    }
    return present.Snippets(
        store,
        records,
        matcher,
        searcher.settings.snippet_tokens,
        # A server's round trips are worth saving: the pool's context (and the reranked
        # candidates') in one statement. In-process SQLite makes only those it needs.
        likely=ranking.diversity_pool(scored.scores, k)
        + (windows.reranked(scored.composite) if rerank else [])
        if source.reads_ahead
        else (),
        line_costs=memory.line_costs,
        read=kept.context_reader(store) if kept else None,
        fits=kept.fits if kept else None,
        laid=kept.context_lines(store) if kept else None,
        facts=facts,
    )


def _covers(
    kept: IndexMemory,
    matcher: Matcher,
    terms: Sequence[WeightedTerm],
    fused: Mapping[int, Mapping[str, float]],
    records: Mapping[int, ChunkRecord],
) -> dict[int, float]:
    """The IDF share of the query's words each candidate of a word list holds
    (scoring.covered), its words read as the snippets' matcher reads them."""
    hits = TermHits(terms)
    return {
        cid: hits.coverage(matcher.maybe(kept.text_words(records[cid].text)))
        for cid, parts in fused.items()
        if cid in records and any(name in parts for name in COVERED_LISTS)
    }


def _recent_hashes(searcher: Searching, now: datetime) -> set[str]:
    """The chunks' hashes returned in the last recent_penalty_minutes: their score takes
    the recent-return penalty (rank/scoring.py)."""
    minutes = searcher.settings.recent_penalty_minutes
    if minutes <= 0:
        return set()
    return set(searcher.store.reference_counts(now - timedelta(minutes=minutes)))
