"""From fused candidates to the chosen few: composite scores (with explain), settling
(COLD under WARM, newer facts first) and diversity.

No I/O: the chunk records and a snippet maker are handed in by `Searcher.search`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from memctl.index.usage import ChunkRecord
from memctl.search.present.snippets import Snippet
from memctl.search.rank import supersession
from memctl.search.rank.diversity import jaccard, mmr, word_set
from memctl.search.rank.meaning import Fact
from memctl.search.rank.scoring import (
    Policy,
    Signals,
    best_first,
    composite,
    composite_product,
    context_boost,
    record_factors,
)
from memctl.statement_values import query_stems

# Running logs: a chunk's neighbouring lines are the same day's story, so neighbours
# lend each other relevance and a snippet may widen into them. A decision or a core
# section stands alone.
CONTEXT_SOURCES = ("daily", "archive")


@functools.lru_cache(maxsize=4096)
def day_of(value: str | None) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


# A record's signals and record-only factors on a day under a policy, by chunk id.
KeptEntry = tuple[ChunkRecord, date, Policy, Signals, tuple[float, float, float], supersession.Item]
KeptFactors = dict[int, KeptEntry]


@dataclass
class Scored:
    scores: dict[int, float]  # settled composite score of each candidate with a record
    relevance: dict[int, float]  # fused relevance after the context boost
    detail: dict[int, dict[str, Any]] = field(default_factory=dict)  # explain only
    composite: dict[int, float] = field(default_factory=dict)  # before settling
    factors: dict[int, float] = field(default_factory=dict)  # composite / relevance
    items: dict[int, supersession.Item] = field(default_factory=dict)  # what settle reads
    query: frozenset[str] = frozenset()  # the query's stems (statement_values.query_stems)
    newer: dict[int, int] = field(default_factory=dict)  # superseded id -> the newer's id
    facts: Mapping[int, tuple[Fact, ...]] = field(
        default_factory=dict
    )  # each one's fact nearest the query


def score(
    fused: Mapping[int, Mapping[str, float]],
    lists: Mapping[str, Mapping[int, float]],
    records: Mapping[int, ChunkRecord],
    *,
    words: list[str],
    recent: set[str],
    now: datetime,
    policy: Policy,
    context: bool,
    explain: bool,
    kept: KeptFactors | None = None,
    facts: Mapping[int, tuple[Fact, ...]] | None = None,
) -> Scored:
    """Each fused candidate's composite score: relevance (boosted by relevant neighbours
    when `context`) times recency, importance and usage; then settled. `kept`: each
    record's signals and record-only factors from earlier searches (by chunk id; an
    entry stands while its record, the day and the policy are the same). `facts`: the
    vector candidates' facts nearest the query (rank/meaning.py), for supersession."""
    facts = facts or {}
    memo: KeptFactors = {} if kept is None else kept
    today = now.date()
    scored: dict[int, float] = {}
    items: dict[int, supersession.Item] = {}
    detail: dict[int, dict[str, Any]] = {}
    product: dict[int, float] = {}
    base = {cid: sum(parts.values()) for cid, parts in fused.items() if cid in records}
    # The records are where the chunks sit (no Placed made per candidate).
    placed = (
        {cid: records[cid] for cid in base if records[cid].source in CONTEXT_SOURCES}
        if context
        else {}
    )
    boosted = context_boost(base, placed, policy)
    for cid, parts in fused.items():
        record = records.get(cid)
        if record is None:
            continue
        relevance = boosted[cid]
        known = memo.get(cid)
        if known is None or known[0] is not record or known[1] != today or known[2] is not policy:
            known = memo[cid] = _record_factors(record, now, policy)
        items[cid] = known[5]
        if not explain:
            scored[cid], product[cid] = composite_product(
                relevance, known[3], words, policy, known[4], record.hash in recent
            )
            continue
        signals = known[3]
        if record.hash in recent:
            signals = dataclasses.replace(signals, returned_recently=True)
        value, factors = composite(relevance, signals, words, now, policy, known[4])
        scored[cid] = value
        product[cid] = math.prod(factors.values())
        detail[cid] = {
            "raw": {name: round(lists[name][cid], 6) for name in lists if cid in lists[name]},
            "contribution": {name: round(v, 6) for name, v in parts.items()},
            "relevance": round(relevance, 6),
            "context": round(relevance - base[cid], 6),
            "factors": {name: round(v, 6) for name, v in factors.items()},
            "access_count": record.access_count,
            "final": round(value, 6),
        }
    query = query_stems(" ".join(words))
    newer: dict[int, int] = {}
    settled = settle(scored, boosted, records, now, detail, items, query, newer, facts)
    return Scored(settled, boosted, detail, scored, product, items, query, newer, facts)


def _record_factors(record: ChunkRecord, now: datetime, policy: Policy) -> KeptEntry:
    """What score reads of a record whatever the query (KeptFactors' entry): its signals,
    the factors that depend on the record alone, and what supersession compares."""
    plain = Signals(
        source=record.source,
        day=day_of(record.date),
        text=record.text,
        importance=record.importance,
        access_count=record.access_count,
        tags=tuple(record.tags),
        returned_recently=False,
    )
    item = supersession.Item(record.tier, record.source, plain.day, record.text, record.heading)
    return (record, now.date(), policy, plain, record_factors(plain, now, policy), item)


def rescore(
    scored: Scored,
    probability: Mapping[int, float],
    records: Mapping[int, ChunkRecord],
    now: datetime,
) -> dict[int, float]:
    """Scores after the reranker: each reranked candidate's probability times its
    composite factors (recency, importance, usage, tags, recent penalty), every other
    candidate kept in its order below them; then settled again (COLD under WARM, newer
    facts first), with the probability as the reranked candidates' relevance."""
    if not probability:
        return scored.scores
    values = {cid: p * scored.factors[cid] for cid, p in probability.items()}
    relevance = dict(probability)
    rest = [cid for cid in scored.composite if cid not in probability]
    top_rest = max((scored.composite[cid] for cid in rest), default=0.0)
    shrink = 0.99 * min(values.values()) / top_rest if top_rest > 0 else 1.0
    for cid in rest:
        values[cid] = scored.composite[cid] * shrink
        relevance[cid] = scored.relevance[cid] * shrink
    scored.newer.clear()
    return settle(
        values,
        relevance,
        records,
        now,
        scored.detail,
        scored.items or None,
        scored.query,
        scored.newer,
        scored.facts,
    )


def place(record: ChunkRecord) -> str:
    """A chunk's "path:line", as `superseded_by` names the newer memory."""
    return f"{record.path}:{record.line_start}"


def settle(
    scored: dict[int, float],
    relevance: dict[int, float],
    records: Mapping[int, ChunkRecord],
    now: datetime,
    detail: dict[int, dict[str, Any]],
    items: Mapping[int, supersession.Item] | None = None,
    query: frozenset[str] = frozenset(),
    newer_out: dict[int, int] | None = None,
    facts: Mapping[int, tuple[Fact, ...]] | None = None,
) -> dict[int, float]:
    """COLD under an as-relevant WARM, and the newer of two conflicting facts first
    (`items`: the candidates' supersession items, when the caller made them; `query`:
    the query's stems; `newer_out` gets each superseded id's newer one's id; `facts`: the candidates' facts nearest the query, compared by
    meaning)."""
    if items is None:
        items = {
            cid: supersession.Item(r.tier, r.source, day_of(r.date), r.text, r.heading)
            for cid, r in records.items()
            if cid in scored
        }
    settled = supersession.cold_under_warm(scored, relevance, items)
    settled, superseded = supersession.newer_first(
        settled, items, now.date(), query=query, facts=facts or {}
    )
    if newer_out is not None:
        newer_out.update(superseded)
    for cid, by in superseded.items():
        if cid in detail:
            detail[cid]["superseded_by"] = place(records[by])
    for cid in detail:
        detail[cid]["final"] = round(settled[cid], 6)
    return settled


def diversity_pool(scores: Mapping[int, float], k: int) -> list[int]:
    """The candidates diversity chooses k among (whose snippets may be looked at)."""
    return best_first(scores)[: k * 4]


def diversify(
    scores: dict[int, float],
    records: Mapping[int, ChunkRecord],
    snippet: Callable[[int], Snippet],
    k: int,
    policy: Policy,
    snippet_tokens: int | None = None,
    *,
    reach_of: Callable[[int], tuple[int, int]] | None = None,
    words_of: dict[int, frozenset[str]] | None = None,
    overlaps: dict[tuple[int, int], float] | None = None,
) -> list[int]:
    """The k best by MMR over the top 4k: the same lines or chunk shown twice count as
    identical, otherwise word overlap is the similarity.

    With `snippet_tokens` (the snippets' budget), two chunks of a file too far apart for
    their snippets to meet are compared by words without making their snippets; so are
    two whose `reach_of` (the lines each snippet can show, a closer bound) do not meet.
    `words_of`: chunks' word sets known already (filled in as more are made); `overlaps`:
    the word overlap of two chunks (ids in order), the same (filled in likewise)."""
    pool = diversity_pool(scores, k)
    words_of = {} if words_of is None else words_of
    overlaps = {} if overlaps is None else overlaps
    pairs: dict[tuple[int, int], float] = {}

    def similarity(a: int, b: int) -> float:
        key = (a, b) if a < b else (b, a)
        value = pairs.get(key)
        if value is None:
            value = pairs[key] = _similarity(a, b, key)
        return value

    def _similarity(a: int, b: int, key: tuple[int, int]) -> float:
        ra, rb = records[a], records[b]
        if ra.hash == rb.hash:
            return 1.0
        if ra.path == rb.path and _may_meet(ra, rb, snippet_tokens, a, b, reach_of):
            sa, sb = snippet(a), snippet(b)
            if sa.line_start <= sb.line_end and sb.line_start <= sa.line_end:
                return 1.0  # the same lines shown twice
        value = overlaps.get(key)
        if value is None:
            for cid in key:
                if cid not in words_of:
                    words_of[cid] = word_set(records[cid].text)
            value = overlaps[key] = jaccard(words_of[key[0]], words_of[key[1]])
        return value

    return mmr(pool, scores, similarity, k, policy)


def reach(record: ChunkRecord, snippet_tokens: int) -> tuple[int, int]:
    """Lines a snippet of this chunk can show (present.chunk_snippet, snippets.best_snippet).

    A snippet is a window inside the chunk, or the whole chunk widened into a running
    log's neighbouring lines while it fits the budget; every line costs at least one
    token, so the widening adds at most the budget less the chunk's own lines."""
    last = max(record.line_end, record.line_start + record.text.count("\n"))
    if record.source not in CONTEXT_SOURCES:
        return record.line_start, last
    extra = max(snippet_tokens - (record.line_end - record.line_start + 1), 0)
    return record.line_start - extra, last + extra


def _may_meet(
    a: ChunkRecord,
    b: ChunkRecord,
    snippet_tokens: int | None,
    a_id: int = 0,
    b_id: int = 0,
    reach_of: Callable[[int], tuple[int, int]] | None = None,
) -> bool:
    if snippet_tokens is not None:
        (a_lo, a_hi), (b_lo, b_hi) = reach(a, snippet_tokens), reach(b, snippet_tokens)
        if a_hi < b_lo or b_hi < a_lo:
            return False
    if reach_of is not None:
        (a_lo, a_hi), (b_lo, b_hi) = reach_of(a_id), reach_of(b_id)
        if a_hi < b_lo or b_hi < a_lo:
            return False
    return True
