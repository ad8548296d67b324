"""Searcher: one query through the stages, each in its sub-package of memctl.search.

A `Searcher` holds the open index and (once needed) the embedding model, so `--batch`
and `memctl eval` pay the model load once; `memctl.search.search()` is the one-shot
entry point. The stages, in order: the query read and its candidate lists
(candidate_lists.py: query/ for the dates said and the query vector, memctl.lexical for
the words and the lexical plan, the store's CandidateSource: memctl.index.sqlite or
memctl.index.postgres), fusion and the composite score with the candidates' snippets
(scored.py over rank/), then here: rerank/ (the learned second stage), diversity (rank/),
floor/ (the relevance floor), present/ (the results).
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from memctl import clock
from memctl.index.backend import IndexBackend, open_store
from memctl.index.protocol import CandidateSource
from memctl.lexical.plan import Filters
from memctl.search import candidate_lists
from memctl.search.floor.evidence import Verdict, judge_results
from memctl.search.kept import IndexMemory
from memctl.search.options import checked_k, policy_from
from memctl.search.present import results as present
from memctl.search.query.embedding import QueryVectors
from memctl.search.rank import dated as dated_stage
from memctl.search.rank import meaning, ranking
from memctl.search.rank.scoring import Policy
from memctl.search.rerank import stage
from memctl.search.results import SearchResponse, SearchResult
from memctl.search.run import Listed, SearchRun
from memctl.search.scored import ranked
from memctl.search.trace import SearchTrace
from memctl.vault import Vault

__all__ = ["Filters", "SearchResponse", "SearchResult", "Searcher"]


class Searcher:
    """Searches one vault; keep it for many queries (batch, eval), close it when done."""

    def __init__(self, vault: Vault, *, fresh: bool = True, policy: Policy | None = None) -> None:
        self.vault = vault
        self.settings = vault.settings.search
        self.policy = policy or policy_from(vault)
        self.fresh = fresh
        self._store: IndexBackend | None = None
        self._query_vectors = QueryVectors(vault.settings)
        # What earlier searches read from the index (memctl.search.kept): valid while the
        # index does not change, so emptied whenever a search re-checks freshness.
        self._kept = IndexMemory()
        self._candidates: CandidateSource | None = None
        self.timings: dict[str, float] = {}

    @property
    def store(self) -> IndexBackend:
        if self._store is None:
            self._store = open_store(self.vault)
        return self._store

    @property
    def kept(self) -> IndexMemory:
        """What earlier searches read from the index, kept while it does not change (the
        stages in candidate_lists.py and scored.py read through it)."""
        return self._kept

    @property
    def candidates(self) -> CandidateSource:
        """Where this index's candidate lists come from (the store's own source: in process
        for SQLite, in SQL for a shared server), kept with what it holds between searches."""
        if self._candidates is None:
            self._candidates = self.store.candidate_source(self.vault, self._kept, self.embed_query)
        return self._candidates

    def close(self) -> None:
        if self._candidates is not None:
            self._candidates.close()
            self._candidates = None
        if self._store is not None:
            self._store.close()
            self._store = None

    def __enter__(self) -> Searcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def embed_query(self, text: str) -> Any:
        """The query vector of `text` (loads the model on first use; the last queries'
        vectors are kept: query/embedding.py). Callers running one query in several modes
        embed it once and pass it to `search(vector=...)`."""
        vector, self.timings["embed_ms"] = self._query_vectors.embed(text)
        return vector

    def has_vectors(self) -> bool:
        """Whether the index holds any chunk vectors (without them a query vector is useless)."""
        return self.store.has_vectors()

    def refresh(self, now: datetime | None = None) -> list[str]:
        """Bring the index up to date with the vault now (the cheap stat walk); notices.

        A batch over a vault that does not change under it refreshes once, then sets
        `fresh = False` so each search skips the walk."""
        from memctl.index.sync import ensure_fresh

        report = ensure_fresh(self.vault, now=now or clock.now())
        # What earlier searches read from the index may be out of date from here on.
        self._kept.clear()
        return [f"index not refreshed: {report.skipped}"] if report.skipped else []

    def search(
        self,
        query: str,
        *,
        k: int = 5,
        filters: Filters | None = None,
        explain: bool = False,
        log: bool = True,
        mode: str = "hybrid",
        now: datetime | None = None,
        vector: Any = None,
        min_score: float | None = None,
        use_floor: bool = True,
        budget: int | None = None,
        trace: SearchTrace | None = None,
    ) -> SearchResponse:
        """`use_floor` False returns everything (--all); `min_score` overrides the calibrated
        floor; `budget` returns as many results as fit that many snippet tokens, best first
        (k is then at most MAX_BUDGET_RESULTS, options.py); `vector` is the query's, if already embedded;
        `trace` is filled in with what the stages saw (memctl.search.trace).

        Stages: freshness, candidate lists (candidate_lists.py), fusion and scoring
        (scored.py), the reranker (rerank/stage.py), diversity (ranking.diversify), the
        relevance floor (evidence.judge_results), results."""
        k = checked_k(mode, k, budget, min_score)
        now = now or clock.now()
        notices: list[str] = self.refresh(now) if self.fresh else []
        response = SearchResponse(query=query, results=[], pending_embeddings=0, notices=notices)
        asked = candidate_lists.asked(self.settings, query, mode, now, filters or Filters(), vector)
        listed = candidate_lists.listed(self, asked, response)
        if listed is None:
            return response
        found, dated = listed.found, listed.asked.dated
        rerank = stage.reranks(listed.model_id, self.settings.rerank, mode, found.lists)
        run = ranked(self, listed, k, explain, rerank)
        scores, probability = self._reranked(run, rerank, trace)
        chosen = self._diversified(run, scores)
        # A query that says only a date asks for everything dated then: no floor.
        confined = run.dated is not None and run.dated.carried
        floored = use_floor and not confined
        verdict = self._judged(run, listed, chosen, min_score, floored, budget)
        if trace is not None:
            trace.record(run, chosen, probability, verdict)
        response.floor, response.below_floor = verdict.floor, verdict.below_floor
        response.dates = dated.describe() if dated is not None else None
        response.matched, response.missing = verdict.matched, verdict.missing
        notices.extend(verdict.notices)
        self.timings["search_ms"] = (time.perf_counter() - found.started) * 1000
        self._results(run, response, verdict, scores, probability, explain, budget)
        if log and response.results:
            self.store.record_references(
                [(r.hash, r.path) for r in response.results], "search", query, now
            )
            self._kept.forget_usage(verdict.kept)
        return response

    def _reranked(
        self, run: SearchRun, rerank: bool, trace: SearchTrace | None
    ) -> tuple[dict[int, float], dict[int, float]]:
        """The scores after the learned reranker (rerank/), and its probabilities (read
        without reordering when only the trace asks for its features)."""
        scores, probability = run.scored.scores, {}
        if rerank or (trace is not None and trace.rerank_features):
            source = self.candidates
            probability = stage.rerank_probabilities(
                self.store,
                run,
                rows=source.rows() if run.terms is None else None,
                matrix=source.matrix or None,
                apply=rerank,
                sink=trace.keep_rerank if trace is not None else None,
            )
            scores = ranking.rescore(run.scored, probability, run.records, run.now)
        return scores, probability

    def _diversified(self, run: SearchRun, scores: dict[int, float]) -> list[int]:
        """The best k that do not repeat each other (rank/ranking.diversify)."""
        snippet = run.snippets
        return ranking.diversify(
            scores,
            run.records,
            snippet,
            run.k,
            self.policy,
            self.settings.snippet_tokens,
            reach_of=snippet.reach,
        )

    def _judged(
        self,
        run: SearchRun,
        listed: Listed,
        chosen: list[int],
        min_score: float | None,
        use_floor: bool,
        budget: int | None,
    ) -> Verdict:
        """The relevance floor over the chosen (floor/evidence.judge_results), told whether
        a filter narrowed the lists, and where facts lifted the vector list the chunks' own
        cosines and the facts nearest the query."""
        snippet = run.snippets
        filtered = listed.asked.filters.active()
        return judge_results(
            run.words,
            run.parsed,
            run.plan,
            run.lists,
            run.records,
            chosen,
            snippet,
            model_id=run.model_id,
            trusted="vector" in run.lists and run.weights.vector >= self.policy.weights.vector,
            floor=(True if min_score is None else min_score) if use_floor else None,
            budget=budget,
            weighted=run.weighted,
            # Every term's forms and stem are the snippets' matcher's: only the words it
            # may match are read (each text's words kept by text).
            words_of=lambda text: snippet.matcher.maybe(self._kept.text_words(text)),
            whole=not filtered,
            credit=dated_stage.credit(run.dated, run.records, chosen) if run.dated else None,
            cosines=listed.own,
            facts=meaning.floor_facts(listed.facts) or None,
            newer=run.scored.newer,
        )

    def _results(
        self,
        run: SearchRun,
        response: SearchResponse,
        verdict: Verdict,
        scores: dict[int, float],
        probability: dict[int, float],
        explain: bool,
        budget: int | None,
    ) -> None:
        """The kept candidates as results, with --explain's detail (present/)."""
        scored, records = run.scored, run.records
        stage.fill(
            response,
            verdict,
            records,
            run.snippets,
            scores,
            probability,
            self.store.vault_name,
            (
                lambda cid, rr: present.explain(
                    scored.detail[cid],
                    records[cid],
                    run.plan,
                    run.weights,
                    verdict,
                    verdict.judged[cid],
                    rr,
                )
            )
            if explain
            else None,
            # --budget adds up the snippets the floor priced: their sizes stay as they are.
            by_rank=self.settings.snippet_by_rank and budget is None,
            # Candidates are compared at snippet_tokens (the reranker was trained on those
            # windows); only the results' snippets grow to result_tokens.
            result_tokens=(self.settings.result_tokens or None) if budget is None else None,
            newer=scored.newer,
        )
