"""search(): candidates from the index, fusion, composite score, diversity, snippets, usage log.

A `Searcher` holds the open index and (once needed) the embedding model, so `--batch`
and `memctl eval` pay the model load once; `search()` is the one-shot entry point.
"""

from __future__ import annotations

import time
from datetime import date, datetime, timedelta
from typing import Any

from memctl import clock
from memctl.errors import UsageError
from memctl.index.backend import IndexBackend, open_store
from memctl.index.catch_up import catch_up, pending_notice
from memctl.index.embed.registry import canonical
from memctl.index.usage import ChunkRecord
from memctl.search import candidates as cand
from memctl.search import supersession, vectors, vocab
from memctl.search.candidates import Filters
from memctl.search.evidence import judge_results
from memctl.search.query import Query, parse_query
from memctl.search.results import SearchResponse, SearchResult
from memctl.search.scoring import (
    Placed,
    Policy,
    Signals,
    Weights,
    composite,
    context_boost,
    fuse,
    jaccard,
    mmr,
    weights_for,
    word_set,
)
from memctl.search.snippets import Matcher, Snippet, best_snippet
from memctl.tokens import estimate_tokens
from memctl.vault import Vault

MODES = ("hybrid", "lexical", "vector", "bm25")
_MODE_LISTS = {
    "hybrid": ("fts", "trigram", "vector"),
    "lexical": ("fts", "trigram"),
    "vector": ("vector",),
    "bm25": ("fts",),
}
# How far around a chunk the snippet may look for context lines.
_CONTEXT_LINES = 40
_CONTEXT_SOURCES = ("daily", "archive")
MAX_BUDGET_RESULTS = 50  # --budget: k is the budget's business, up to this many
__all__ = ["Filters", "SearchResponse", "SearchResult", "Searcher", "search"]


def policy_from(vault: Vault) -> Policy:
    s = vault.settings.search
    return Policy(
        fusion=s.fusion,
        weights=Weights(fts=s.weight_fts, trigram=s.weight_trigram, vector=s.weight_vector),
        rrf_k=s.rrf_k,
        half_life_days=s.half_life_days,
    )


class Searcher:
    """Searches one vault; keep it for many queries (batch, eval), close it when done."""

    def __init__(self, vault: Vault, *, fresh: bool = True, policy: Policy | None = None) -> None:
        self.vault = vault
        self.settings = vault.settings.search
        self.policy = policy or policy_from(vault)
        self.fresh = fresh
        self._store: IndexBackend | None = None
        self._embedder: Any = None
        self._vocab: vocab.Vocabulary | None = None
        self._matrix: vectors.VectorMatrix | bool | None = None  # False: not worth it here
        self.timings: dict[str, float] = {}

    @property
    def store(self) -> IndexBackend:
        if self._store is None:
            self._store = open_store(self.vault)
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def __enter__(self) -> Searcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _embed(self, text: str) -> Any:
        if self._embedder is None:
            from memctl.index.embed import get_embedder

            self._embedder = get_embedder(self.vault.settings)
        started = time.perf_counter()
        vector = self._embedder.embed_query(text)
        self.timings["embed_ms"] = (time.perf_counter() - started) * 1000
        return vector

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
    ) -> SearchResponse:
        """`use_floor` False returns everything (--all); `min_score` overrides the calibrated
        floor; `budget` returns as many results as fit that many snippet tokens, best first
        (k is then at most MAX_BUDGET_RESULTS)."""
        if mode not in MODES:
            raise UsageError(f"search mode must be one of {', '.join(MODES)}, not {mode!r}")
        if k < 1:
            raise UsageError("-k must be at least 1")
        if budget is not None:
            if budget < 1:
                raise UsageError("--budget must be at least 1 token")
            k = MAX_BUDGET_RESULTS
        if min_score is not None and not 0.0 <= min_score <= 1.0:
            raise UsageError("--min-score must be between 0 and 1")
        now = now or clock.now()
        filters = filters or Filters()
        notices: list[str] = []
        if self.fresh:
            from memctl.index.sync import ensure_fresh

            report = ensure_fresh(self.vault, now=now)
            if report.skipped:
                notices.append(f"index not refreshed: {report.skipped}")
        parsed = parse_query(query)
        pending = self.store.pending_count()
        if pending and self.fresh and mode in ("hybrid", "vector"):
            pending = self._catch_up(pending, notices)
        response = SearchResponse(
            query=query, results=[], pending_embeddings=pending, notices=notices
        )
        if parsed.is_empty():
            notices.append("the query has no words to search for")
            return response
        lists_wanted = _MODE_LISTS[mode]
        limit = self.settings.candidates
        if "vector" in lists_wanted and (other := self._other_model()):
            notices.append(
                f"the index holds vectors of {other}, not of the configured model: "
                "answered from keyword search only until `memctl index` re-embeds"
            )
            lists_wanted = tuple(name for name in lists_wanted if name != "vector")
        if self.store.backend != "sqlite":
            # A shared server computes the candidate lists in SQL beside the data; the
            # fusion, scoring and snippets below are the same for every backend.
            started = time.perf_counter()
            plan, lists = self.store.candidate_lists(  # type: ignore[attr-defined]
                parsed,
                filters,
                limit,
                lists_wanted,
                lambda: vector if vector is not None else self._embed(query),
                notices,
                self.settings.common_term_fraction,
            )
        else:
            conn = self.store.conn  # type: ignore[attr-defined]
            plan = cand.plan_lexical(
                conn,
                parsed,
                self.settings.common_term_fraction,
                corrector=self._correct,
                prefix_terms=self._prefix_terms,
            )
            lists: dict[str, dict[int, float]] = {}
            started = time.perf_counter()
            if "fts" in lists_wanted:
                lists["fts"] = cand.fts_candidates(conn, plan, filters, limit)
            if "trigram" in lists_wanted:
                lists["trigram"] = cand.trigram_candidates(conn, parsed, plan, filters, limit)
            if "vector" in lists_wanted and self._has_vectors():
                qvec = vector if vector is not None else self._embed(query)
                lists["vector"] = self._vector_candidates(qvec, filters, limit)
        if pending and "vector" in lists_wanted:
            notices.append(pending_notice(pending, "vector" in lists))
        weights = weights_for(self.policy.weights, query, self.store.model_id)
        fused = fuse(lists, self.policy, weights)
        records = {r.id: r for r in self.store.chunks_by_ids(list(fused))}
        recent = self._recent_hashes(now)
        matcher = _matcher(parsed, plan)
        words = [t.text for t in parsed.content_terms]
        scored: dict[int, float] = {}
        detail: dict[int, dict[str, Any]] = {}
        base = {cid: sum(parts.values()) for cid, parts in fused.items() if cid in records}
        placed = {
            cid: Placed(records[cid].path, records[cid].line_start, records[cid].line_end)
            for cid in base
            if records[cid].source in _CONTEXT_SOURCES and mode != "bm25"
        }
        # bm25 mode stays plain BM25: it is the baseline the eval compares against.
        boosted = context_boost(base, placed, self.policy)
        for cid, parts in fused.items():
            record = records.get(cid)
            if record is None:
                continue
            relevance = boosted[cid]
            signals = Signals(
                source=record.source,
                day=_day(record.date),
                text=record.text,
                importance=record.importance,
                access_count=record.access_count,
                tags=tuple(record.tags),
                returned_recently=record.hash in recent,
            )
            score, factors = composite(relevance, signals, words, now, self.policy)
            scored[cid] = score
            if explain:
                detail[cid] = {
                    "raw": {
                        name: round(lists[name][cid], 6) for name in lists if cid in lists[name]
                    },
                    "contribution": {name: round(v, 6) for name, v in parts.items()},
                    "relevance": round(relevance, 6),
                    "context": round(relevance - base[cid], 6),
                    "factors": {name: round(v, 6) for name, v in factors.items()},
                    "access_count": record.access_count,
                    "final": round(score, 6),
                }
        scored = self._settle(scored, boosted, records, now, detail)
        ranked = sorted(scored, key=lambda i: (-scored[i], i))
        snippets: dict[int, Snippet] = {}
        pool = ranked[: k * 4]
        words_of: dict[int, frozenset[str]] = {}

        def snippet(cid: int) -> Snippet:
            if cid not in snippets:
                snippets[cid] = self._snippet(records[cid], matcher)
            return snippets[cid]

        pairs: dict[tuple[int, int], float] = {}

        def similarity(a: int, b: int) -> float:
            key = (a, b) if a < b else (b, a)
            if key not in pairs:
                pairs[key] = _similarity(a, b)
            return pairs[key]

        def _similarity(a: int, b: int) -> float:
            ra, rb = records[a], records[b]
            if ra.hash == rb.hash:
                return 1.0
            if ra.path == rb.path:
                sa, sb = snippet(a), snippet(b)
                if sa.line_start <= sb.line_end and sb.line_start <= sa.line_end:
                    return 1.0  # the same lines shown twice
            for cid in (a, b):
                if cid not in words_of:
                    words_of[cid] = word_set(records[cid].text)
            return jaccard(words_of[a], words_of[b])

        chosen = mmr(pool, scored, similarity, k, self.policy)
        floor_verdict = judge_results(
            self.store.conn if self.store.backend == "sqlite" else None,  # type: ignore[attr-defined]
            parsed,
            plan,
            lists,
            records,
            chosen,
            snippet,
            model_id=self.store.model_id,
            trusted="vector" in lists and weights.vector >= self.policy.weights.vector,
            floor=(True if min_score is None else min_score) if use_floor else None,
            budget=budget,
        )
        judged, thresholds = floor_verdict.judged, floor_verdict.thresholds
        response.floor, response.below_floor = floor_verdict.floor, floor_verdict.below_floor
        response.matched = floor_verdict.matched
        response.missing = floor_verdict.missing
        notices.extend(floor_verdict.notices)
        chosen = floor_verdict.kept
        self.timings["search_ms"] = (time.perf_counter() - started) * 1000
        for cid in chosen:
            record, snip = records[cid], snippet(cid)
            result = SearchResult(
                path=record.path,
                line_start=snip.line_start,
                line_end=snip.line_end,
                heading=record.heading,
                snippet=snip.text,
                score=scored[cid],
                tier=record.tier,
                source=record.source,
                date=record.date,
                highlights=snip.highlights,
                hash=record.hash,
                vault=record.vault or self.store.vault_name,
                chunk_lines=(record.line_start, record.line_end),
                evidence=judged[cid].evidence,
                coverage=judged[cid].coverage,
                cosine=judged[cid].cosine,
                cross=judged[cid].cross,
                tokens=estimate_tokens(snip.text),
            )
            if explain:
                result.explain = {
                    **detail[cid],
                    "chunk_lines": [record.line_start, record.line_end],
                    "terms": plan.forms,
                    "prefixes": plan.prefixes,
                    "dropped_common": plan.dropped,
                    "corrections": plan.corrections,
                    "weights": {
                        "fts": weights.fts,
                        "trigram": weights.trigram,
                        "vector": weights.vector,
                    },
                    "floor": {
                        "missing": round(floor_verdict.missing, 4),
                        "coverage": round(judged[cid].coverage, 4),
                        "cosine": None
                        if judged[cid].cosine is None
                        else round(judged[cid].cosine, 4),
                        "thresholds": thresholds.to_dict(),
                    },
                }
            response.results.append(result)
        if log and response.results:
            self.store.record_references(
                [(r.hash, r.path) for r in response.results], "search", query, now
            )
        return response

    def _vector_candidates(self, qvec: Any, filters: Filters, limit: int) -> dict[int, float]:
        conn = self.store.conn  # type: ignore[attr-defined]
        # A Searcher kept across searches (an agent's session) re-checks the matrix's
        # signature whenever it re-checks freshness and keeps the matrix it holds while
        # that signature is unchanged.
        if self._matrix is None or self.fresh:
            previous = self._matrix or None
            self._matrix = vectors.load(conn, self.vault.state_dir, previous=previous) or False
        if not self._matrix:
            return cand.vec0_candidates(conn, qvec, filters, limit)
        if not filters.active():
            return self._matrix.top(qvec, limit)
        # Filters are applied after an over-fetch; if too few survive, vec0 does it exactly.
        wide = self._matrix.top(qvec, limit * 20)
        kept = cand.filtered(conn, list(wide), filters)[:limit]
        if len(kept) < limit:
            return cand.vec0_candidates(conn, qvec, filters, limit)
        return {i: wide[i] for i in kept}

    def _catch_up(self, pending: int, notices: list[str]) -> int:
        """Embed a few pending chunks before answering (memctl.index.catch_up)."""
        started = time.perf_counter()
        done = catch_up(self.vault, pending, self.store.model_id)
        if done.embedded:
            self.timings["catch_up_ms"] = (time.perf_counter() - started) * 1000
        if done.busy:
            notices.append("another memctl process is computing embeddings")
        return done.pending

    def _correct(self, word: str) -> str | None:
        return self._vocabulary().closest(vocab.fold(word), cand.TYPO_MIN_RATIO)

    def _prefix_terms(self, stem: str) -> list[str]:
        return self._vocabulary().with_prefix(vocab.fold(stem))

    def _vocabulary(self) -> vocab.Vocabulary:
        if self._vocab is None:
            conn = self.store.conn  # type: ignore[attr-defined]
            self._vocab = vocab.load(conn, self.vault.state_dir, cand.VOCAB_TABLE)
        elif self.fresh:
            self._vocab.refresh(self.store.conn)  # type: ignore[attr-defined]
        return self._vocab

    def _settle(
        self,
        scored: dict[int, float],
        relevance: dict[int, float],
        records: dict[int, ChunkRecord],
        now: datetime,
        detail: dict[int, dict[str, Any]],
    ) -> dict[int, float]:
        """COLD under an as-relevant WARM, and the newer of two conflicting facts first."""
        items = {
            cid: supersession.Item(r.tier, r.source, _day(r.date), r.text)
            for cid, r in records.items()
            if cid in scored
        }
        settled = supersession.cold_under_warm(scored, relevance, items)
        settled, superseded = supersession.newer_first(settled, items, now.date())
        for cid, by in superseded.items():
            if cid in detail:
                detail[cid]["superseded_by"] = f"{records[by].path}:{records[by].line_start}"
        for cid in detail:
            detail[cid]["final"] = round(settled[cid], 6)
        return settled

    def _other_model(self) -> str | None:
        # Vectors of another model than the configured one (the setting or the default
        # changed; `memctl index` re-embeds) must never meet this model's query vector.
        wanted = canonical(self.vault.settings.embed.model)
        return self.store.model_id if self.store.model_id != wanted else None

    def _has_vectors(self) -> bool:
        return self.store.has_vectors()

    def _recent_hashes(self, now: datetime) -> set[str]:
        minutes = self.settings.recent_penalty_minutes
        if minutes <= 0:
            return set()
        return set(self.store.reference_counts(now - timedelta(minutes=minutes)))

    def _snippet(self, record: ChunkRecord, matcher: Matcher) -> Snippet:
        """The best window of the chunk, widened with neighbouring lines of the same file.

        Only running logs (daily notes, the archive) are widened: their neighbouring lines
        are the same day's story, while a decision or a core section stands alone.
        """
        if record.source not in _CONTEXT_SOURCES:
            lines = record.text.split("\n")
            return best_snippet(lines, record.line_start, matcher, self.settings.snippet_tokens)
        lo = max(record.line_start - _CONTEXT_LINES, 1)
        hi = record.line_end + _CONTEXT_LINES
        rows = self.store.context_rows(record.vault, record.path, lo, hi)
        first = min(r[0] for r in rows) if rows else record.line_start
        last = max(r[1] for r in rows) if rows else record.line_end
        lines: list[str | None] = [None] * (last - first + 1)
        covered_lo, covered_hi = first, last
        for start, _end, text in rows:
            for offset, line in enumerate(text.split("\n")):
                lines[start - first + offset] = line
        # Lines between two chunks of a file are blank (the chunker keeps every other line).
        for i in range(covered_lo - first, covered_hi - first + 1):
            if lines[i] is None:
                lines[i] = ""
        if not rows:
            lines = list(record.text.split("\n"))
        core = (record.line_start - first, record.line_end - first)
        return best_snippet(lines, first, matcher, self.settings.snippet_tokens, core=core)


def _matcher(parsed: Query, plan: cand.LexicalPlan) -> Matcher:
    exact = {f for t in parsed.content_terms for f in t.forms()}
    exact |= set(plan.corrections.values())
    for ident in parsed.identifiers:
        exact.update(w.lower() for w in ident.replace(".", " ").replace("_", " ").split())
    prefixes = tuple(t.stem for t in parsed.content_terms if t.stem)
    return Matcher(exact=frozenset(exact), prefixes=prefixes)


def _day(value: str | None) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def search(
    vault: Vault,
    query: str,
    *,
    k: int = 5,
    filters: Filters | None = None,
    explain: bool = False,
    log: bool = True,
    mode: str = "hybrid",
    now: datetime | None = None,
    min_score: float | None = None,
    use_floor: bool = True,
    budget: int | None = None,
) -> SearchResponse:
    """Search the vault (after a cheap freshness sync) and return the top k results that
    pass the relevance floor (see Searcher.search for `min_score`, `use_floor`, `budget`).

    Example: search(vault, "why did we pick sqlite", k=3).results[0].snippet
    """
    from memctl.search.warm import searcher_for

    # In a long-lived process (memctl serve, the HTTP MCP server) this is the warm one.
    with searcher_for(vault) as searcher:
        return searcher.search(
            query,
            k=k,
            filters=filters,
            explain=explain,
            log=log,
            mode=mode,
            now=now,
            min_score=min_score,
            use_floor=use_floor,
            budget=budget,
        )
