"""A query's first stages: what it asks (its words, the dates it says), then its candidate lists.

The Searcher (hybrid.py) calls `asked` and `listed` in turn; what they return (run.Asked,
run.Listed) is what the ranking stages start from. The lists come from the store's
CandidateSource; here they are narrowed or widened by what the query says: a date's range
(rank/dated.py) and each vector candidate's best fact (rank/meaning.py).
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memctl.index.catch_up import catch_up, pending_notice
from memctl.index.embed.registry import canonical
from memctl.lexical.parse import Query, parse_query
from memctl.lexical.plan import Candidates, Filters
from memctl.search.options import MODE_LISTS, lists_wanted, with_window
from memctl.search.query.dates import read_dates
from memctl.search.rank import dated as dated_stage
from memctl.search.rank import meaning
from memctl.search.results import SearchResponse
from memctl.search.run import Asked, Listed, Searching

if TYPE_CHECKING:
    from memctl.config import SearchSettings


def asked(
    settings: SearchSettings, query: str, mode: str, now: datetime, filters: Filters, vector: Any
) -> Asked:
    """The query read: its words, and the dates it says (rank/dated.py; not in bm25
    mode, the plain baseline), a date-only query's range narrowing the filters."""
    parsed = parse_query(query)
    dated = (
        dated_stage.dated_query(parsed, read_dates(query, now.date()), filters)
        if mode != "bm25" and settings.dates
        else None
    )
    read = Asked(query, mode, now, vector, parsed, parsed, filters, dated)
    if dated is not None:
        read.parsed = dated.parsed
        read.filters = dated.filters(filters) if dated.carried else filters
    return read


def listed(searcher: Searching, asked: Asked, response: SearchResponse) -> Listed | None:
    """The query's candidate lists, each vector candidate scored by its best fact too;
    None when it has no words (the response then says so)."""
    notices = response.notices
    source = searcher.candidates
    source.fresh = searcher.fresh
    settings = searcher.settings
    # A kept Searcher's vector product starts here, beside the statements below and
    # the lexical lists (SqliteCandidates.vector_first).
    with source.vector_first(
        asked.text,
        asked.parsed,
        MODE_LISTS[asked.mode],
        asked.filters,
        asked.vector,
        settings.candidates,
    ) as first:
        pending = _pending(searcher, asked.mode, response)
        if asked.parsed.is_empty():
            notices.append("the query has no words to search for")
            return None
        # Read once: each read of it is a statement (the index's model changes only
        # with a re-index, which the freshness walk above would have run).
        model_id = searcher.store.model_id
        # Vectors of another model than the configured one (the setting or the default
        # changed; `memctl index` re-embeds) must never meet this model's query vector.
        configured = canonical(searcher.vault.settings.embed.model)
        wanted = lists_wanted(asked.mode, model_id, configured, notices)
        found = _lists_read(searcher, asked, wanted, notices, first)
    # The chunks' own cosines stay the floor's: its bars were fitted on them, and a
    # best-of-several-facts cosine sits higher for any question, foreign ones too.
    own: dict[int, float] | None = None
    facts: dict[int, tuple[meaning.Fact, ...]] = {}
    if settings.units and found.vector is not None and found.lists.get("vector"):
        found.lists["vector"], own = _by_fact(
            searcher, found.lists["vector"], found.vector, asked.filters, facts
        )
    if pending and "vector" in wanted:
        notices.append(pending_notice(pending, "vector" in found.lists))
    return Listed(asked, found, model_id, own, facts)


def _pending(searcher: Searching, mode: str, response: SearchResponse) -> int:
    """The chunks still waiting for their vectors, a few embedded first where the search
    wants vectors (the kept reads checked against the index's change counter first)."""
    searcher.kept.check(searcher.candidates.data_version())
    pending = searcher.store.pending_count()
    if pending and searcher.fresh and mode in ("hybrid", "vector"):
        pending = _catch_up(searcher, pending, response.notices)
    response.pending_embeddings = pending
    return pending


def _catch_up(searcher: Searching, pending: int, notices: list[str]) -> int:
    """Embed a few pending chunks before answering (memctl.index.catch_up)."""
    started = time.perf_counter()
    done = catch_up(searcher.vault, pending, searcher.store.model_id)
    if done.embedded:
        searcher.timings["catch_up_ms"] = (time.perf_counter() - started) * 1000
    if done.busy:
        notices.append("another memctl process is computing embeddings")
    return done.pending


def _lists_read(
    searcher: Searching, asked: Asked, wanted: tuple[str, ...], notices: list[str], first: Any
) -> Candidates:
    """The candidate lists, with those read inside the range a query's date says merged
    in (no note of that time at all: the date's words are the query's words again)."""
    ranged = None
    if asked.dated is not None and not asked.dated.carried:
        ranged = _ranged(
            searcher,
            asked.text,
            asked.parsed,
            asked.dated.filters(asked.filters),
            wanted,
            asked.vector,
        )
        if ranged is None:
            # No note of that time matches at all (a vault of other years): the
            # date's words are the query's words again, and nothing is boosted.
            asked.dated, asked.parsed = asked.dated.unfound(asked.plain), asked.plain
    settings = searcher.settings
    found = searcher.candidates.lists(
        asked.text,
        asked.parsed,
        asked.filters,
        with_window(wanted, searcher.policy),
        asked.vector,
        notices,
        settings.candidates,
        settings.common_term_fraction,
        first,
    )
    if ranged is not None:
        found.lists = dated_stage.merged(found.lists, ranged)
    return found


def _ranged(
    searcher: Searching,
    query: str,
    parsed: Query,
    filters: Filters,
    wanted: tuple[str, ...],
    vector: Any,
) -> dict[str, dict[int, float]] | None:
    """The lists read inside the range a query says (rank/dated.py), so the notes
    dated then are candidates however they rank in the whole vault; None when no
    note of that time matches at all."""
    found = searcher.candidates.lists(
        query,
        parsed,
        filters,
        with_window(wanted, searcher.policy),
        vector,
        [],  # its notices are the main lists' own
        searcher.settings.candidates,
        searcher.settings.common_term_fraction,
    )
    return found.lists if any(found.lists.values()) else None


def _by_fact(
    searcher: Searching,
    scores: dict[int, float],
    qvec: Any,
    filters: Filters,
    facts: dict[int, tuple[meaning.Fact, ...]],
) -> tuple[dict[int, float], dict[int, float] | None]:
    """The vector list with each chunk scored by its best fact (rank/meaning.py), read
    wider first where the vault holds facts and a wider read is cheap; and the listed
    chunks' own cosines (None: no fact changed anything). `facts` gets each chunk's
    fact nearest the query (supersession compares them)."""
    source, store = searcher.candidates, searcher.store
    texts = {cid: r.text for cid, r in source.records(list(scores)).items()}
    if not meaning.has_units(texts):
        return scores, None
    limit = len(scores)
    chunks = searcher.kept.chunk_count(store.chunk_count, source.keeps_reads)
    if chunks > meaning.LIFT_MAX_CHUNKS:
        return scores, None
    if not filters.active() and chunks <= meaning.POOL_MAX_CHUNKS:
        wider = store.nearest(qvec, max(meaning.POOL, limit))
        scores = {**wider, **scores}
        unread = [c for c in wider if c not in texts]
        texts |= {c: r.text for c, r in source.records(unread).items()}
    ranked = meaning.lift(scores, texts, qvec, store.cached_vectors, facts)
    lifted = dict(list(ranked.items())[:limit])
    return lifted, {cid: scores[cid] for cid in lifted}
