"""Searcher: one query through the stages, each in its sub-package of memctl.search.

A `Searcher` holds the open index and (once needed) the embedding model, so `--batch`
and `memctl eval` pay the model load once; `memctl.search.search()` is the one-shot
entry point. The stages, in order: query/ (the dates said, the query vector; parsing
and the lexical plan are memctl.lexical's), the candidate lists (the store's
CandidateSource: memctl.index.sqlite or memctl.index.postgres), rank/ (fusion, composite score, supersession, diversity),
rerank/ (the learned second stage), floor/ (the relevance floor), present/ (snippets
and results).
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from typing import Any

from memctl import clock
from memctl.index.backend import IndexBackend, open_store
from memctl.index.catch_up import catch_up, pending_notice
from memctl.index.embed.registry import canonical
from memctl.index.protocol import CandidateSource
from memctl.index.usage import ChunkRecord
from memctl.lexical.parse import Query, parse_query
from memctl.lexical.plan import Candidates, Filters, LexicalPlan
from memctl.search.floor.evidence import Verdict, judge_results, weighted_terms
from memctl.search.kept import IndexMemory
from memctl.search.options import MODE_LISTS, checked_k, lists_wanted, policy_from, with_window
from memctl.search.present import results as present
from memctl.search.query.dates import read_dates
from memctl.search.query.embedding import QueryVectors
from memctl.search.rank import dated as dated_stage
from memctl.search.rank import meaning, ranking
from memctl.search.rank.scoring import Policy, fuse, weights_for
from memctl.search.rerank import stage, windows
from memctl.search.results import SearchResponse, SearchResult
from memctl.search.run import Asked, Listed, SearchRun
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

        Stages: freshness, candidate lists, fusion and scoring (ranking.score), diversity
        (ranking.diversify), the relevance floor (evidence.judge_results), results."""
        k = checked_k(mode, k, budget, min_score)
        now = now or clock.now()
        notices: list[str] = self.refresh(now) if self.fresh else []
        response = SearchResponse(query=query, results=[], pending_embeddings=0, notices=notices)
        listed = self._listed(self._asked(query, mode, now, filters or Filters(), vector), response)
        if listed is None:
            return response
        found, dated = listed.found, listed.asked.dated
        rerank = stage.reranks(listed.model_id, self.settings.rerank, mode, found.lists)
        run = self._ranked(listed, k, explain, rerank)
        scores, probability = self._reranked(run, rerank, trace)
        chosen = self._diversified(run, scores)
        # A query that says only a date asks for everything dated then: no floor.
        confined = run.dated is not None and run.dated.carried
        floored = use_floor and not confined
        verdict = self._judged(
            run,
            chosen,
            min_score,
            floored,
            budget,
            listed.asked.filters.active(),
            listed.own,
            meaning.floor_facts(listed.facts) or None,
        )
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

    def _asked(self, query: str, mode: str, now: datetime, filters: Filters, vector: Any) -> Asked:
        """The query read: its words, and the dates it says (rank/dated.py; not in bm25
        mode, the plain baseline), a date-only query's range narrowing the filters."""
        parsed = parse_query(query)
        dated = (
            dated_stage.dated_query(parsed, read_dates(query, now.date()), filters)
            if mode != "bm25" and self.settings.dates
            else None
        )
        asked = Asked(query, mode, now, vector, parsed, parsed, filters, dated)
        if dated is not None:
            asked.parsed = dated.parsed
            asked.filters = dated.filters(filters) if dated.carried else filters
        return asked

    def _listed(self, asked: Asked, response: SearchResponse) -> Listed | None:
        """The query's candidate lists, each vector candidate scored by its best fact too;
        None when it has no words (the response then says so)."""
        notices = response.notices
        source = self.candidates
        source.fresh = self.fresh
        # A kept Searcher's vector product starts here, beside the statements below and
        # the lexical lists (SqliteCandidates.vector_first).
        with source.vector_first(
            asked.text,
            asked.parsed,
            MODE_LISTS[asked.mode],
            asked.filters,
            asked.vector,
            self.settings.candidates,
        ) as first:
            pending = self._pending(asked.mode, response)
            if asked.parsed.is_empty():
                notices.append("the query has no words to search for")
                return None
            # Read once: each read of it is a statement (the index's model changes only
            # with a re-index, which the freshness walk above would have run).
            model_id = self.store.model_id
            # Vectors of another model than the configured one (the setting or the default
            # changed; `memctl index` re-embeds) must never meet this model's query vector.
            configured = canonical(self.vault.settings.embed.model)
            wanted = lists_wanted(asked.mode, model_id, configured, notices)
            found = self._lists_read(asked, wanted, notices, first)
        # The chunks' own cosines stay the floor's: its bars were fitted on them, and a
        # best-of-several-facts cosine sits higher for any question, foreign ones too.
        own: dict[int, float] | None = None
        facts: dict[int, tuple[meaning.Fact, ...]] = {}
        if self.settings.units and found.vector is not None and found.lists.get("vector"):
            found.lists["vector"], own = self._by_fact(
                found.lists["vector"], found.vector, asked.filters, facts
            )
        if pending and "vector" in wanted:
            notices.append(pending_notice(pending, "vector" in found.lists))
        return Listed(asked, found, model_id, own, facts)

    def _pending(self, mode: str, response: SearchResponse) -> int:
        """The chunks still waiting for their vectors, a few embedded first where the search
        wants vectors (the kept reads checked against the index's change counter first)."""
        self._kept.check(self.candidates.data_version())
        pending = self.store.pending_count()
        if pending and self.fresh and mode in ("hybrid", "vector"):
            pending = self._catch_up(pending, response.notices)
        response.pending_embeddings = pending
        return pending

    def _lists_read(
        self, asked: Asked, wanted: tuple[str, ...], notices: list[str], first: Any
    ) -> Candidates:
        """The candidate lists, with those read inside the range a query's date says merged
        in (no note of that time at all: the date's words are the query's words again)."""
        ranged = None
        if asked.dated is not None and not asked.dated.carried:
            ranged = self._ranged(
                asked.text, asked.parsed, asked.dated.filters(asked.filters), wanted, asked.vector
            )
            if ranged is None:
                # No note of that time matches at all (a vault of other years): the
                # date's words are the query's words again, and nothing is boosted.
                asked.dated, asked.parsed = asked.dated.unfound(asked.plain), asked.plain
        found = self.candidates.lists(
            asked.text,
            asked.parsed,
            asked.filters,
            with_window(wanted, self.policy),
            asked.vector,
            notices,
            self.settings.candidates,
            self.settings.common_term_fraction,
            first,
        )
        if ranged is not None:
            found.lists = dated_stage.merged(found.lists, ranged)
        return found

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
                rows=source.rows(),
                matrix=source.matrix or None,
                apply=rerank,
                sink=trace.keep_rerank if trace is not None else None,
            )
            scores = ranking.rescore(run.scored, probability, run.records, run.now)
        return scores, probability

    def _ranked(self, listed: Listed, k: int, explain: bool, rerank: bool) -> SearchRun:
        """Fusion and the composite score (rank/), the candidates' snippets (present/) and
        the query's weighted words: the run the later stages read (`rerank`: whether
        the reranker reorders, so a server reads its candidates' context at once)."""
        asked, found = listed.asked, listed.found
        source = self.candidates
        weights = weights_for(
            self.policy.weights,
            asked.text,
            listed.model_id,
            found.plan.reach(asked.parsed.content_terms),
            self.policy.reach_power,
        )
        fused = fuse(found.lists, self.policy, weights)
        records = source.records(list(fused))
        scored = self._scored(asked, found.lists, fused, records, explain, listed.facts)
        snippets = self._snippets(asked.parsed, found.plan, records, scored, k, rerank)
        # The query's words by IDF, read once for the reranker and the floor (their tests
        # remember the words they saw). Another backend's reranker weighs by its own
        # chunk count, its floor by its plan: each reads its own.
        words = source.word_counts()
        weighted = weighted_terms(words, asked.parsed, found.plan) if words.exact else None
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
            kept=self._kept,
            words=words,
            keeps_reads=source.keeps_reads,
            weighted=weighted,
            dated=asked.dated,
        )

    def _scored(
        self,
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
        kept = self._kept if self.candidates.keeps_reads else None
        scored = ranking.score(
            fused,
            lists,
            records,
            words=[t.text for t in asked.parsed.content_terms],
            recent=self._recent_hashes(asked.now),
            now=asked.now,
            policy=self.policy,
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
        self,
        parsed: Query,
        plan: LexicalPlan,
        records: dict[int, ChunkRecord],
        scored: ranking.Scored,
        k: int,
        rerank: bool,
    ) -> present.Snippets:
        """The candidates' snippets (present/), read through what the Searcher keeps where
        the store's reads may be kept."""
        source = self.candidates
        kept = self._kept if source.keeps_reads else None
        return present.Snippets(
            self.store,
            records,
            present.matcher_for(parsed, plan, self._kept.line_words),
            self.settings.snippet_tokens,
            # A server's round trips are worth saving: the pool's context (and the reranked
            # candidates') in one statement. In-process SQLite makes only those it needs.
            likely=ranking.diversity_pool(scored.scores, k)
            + (windows.reranked(scored.composite) if rerank else [])
            if source.reads_ahead
            else (),
            line_costs=self._kept.line_costs,
            read=kept.context_reader(self.store) if kept else None,
            fits=kept.fits if kept else None,
            laid=kept.context_lines(self.store) if kept else None,
        )

    def _ranged(
        self, query: str, parsed: Query, filters: Filters, wanted: tuple[str, ...], vector: Any
    ) -> dict[str, dict[int, float]] | None:
        """The lists read inside the range a query says (rank/dated.py), so the notes
        dated then are candidates however they rank in the whole vault; None when no
        note of that time matches at all."""
        found = self.candidates.lists(
            query,
            parsed,
            filters,
            with_window(wanted, self.policy),
            vector,
            [],  # its notices are the main lists' own
            self.settings.candidates,
            self.settings.common_term_fraction,
        )
        return found.lists if any(found.lists.values()) else None

    def _by_fact(
        self,
        scores: dict[int, float],
        qvec: Any,
        filters: Filters,
        facts: dict[int, tuple[meaning.Fact, ...]],
    ) -> tuple[dict[int, float], dict[int, float] | None]:
        """The vector list with each chunk scored by its best fact (rank/meaning.py), read
        wider first where the vault holds facts and a wider read is cheap; and the listed
        chunks' own cosines (None: no fact changed anything). `facts` gets each chunk's
        fact nearest the query (supersession compares them)."""
        texts = {cid: r.text for cid, r in self.candidates.records(list(scores)).items()}
        if not meaning.has_units(texts):
            return scores, None
        limit = len(scores)
        chunks = self._kept.chunk_count(self.store.chunk_count, self.candidates.keeps_reads)
        if chunks > meaning.LIFT_MAX_CHUNKS:
            return scores, None
        if not filters.active() and chunks <= meaning.POOL_MAX_CHUNKS:
            wider = self.store.nearest(qvec, max(meaning.POOL, limit))
            scores = {**wider, **scores}
            unread = [c for c in wider if c not in texts]
            texts |= {c: r.text for c, r in self.candidates.records(unread).items()}
        ranked = meaning.lift(scores, texts, qvec, self.store.cached_vectors, facts)
        lifted = dict(list(ranked.items())[:limit])
        return lifted, {cid: scores[cid] for cid in lifted}

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
        chosen: list[int],
        min_score: float | None,
        use_floor: bool,
        budget: int | None,
        filtered: bool = False,
        cosines: dict[int, float] | None = None,
        facts: dict[int, list[tuple[float, str]]] | None = None,
    ) -> Verdict:
        """The relevance floor over the chosen (floor/evidence.judge_results; `filtered`:
        a filter narrowed the lists; `cosines`: the chunks' own, where facts lifted the
        vector list)."""
        snippet = run.snippets
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
            cosines=cosines,
            facts=facts,
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
            superseded=scored.superseded,
        )

    def _catch_up(self, pending: int, notices: list[str]) -> int:
        """Embed a few pending chunks before answering (memctl.index.catch_up)."""
        started = time.perf_counter()
        done = catch_up(self.vault, pending, self.store.model_id)
        if done.embedded:
            self.timings["catch_up_ms"] = (time.perf_counter() - started) * 1000
        if done.busy:
            notices.append("another memctl process is computing embeddings")
        return done.pending

    def _recent_hashes(self, now: datetime) -> set[str]:
        minutes = self.settings.recent_penalty_minutes
        if minutes <= 0:
            return set()
        return set(self.store.reference_counts(now - timedelta(minutes=minutes)))
