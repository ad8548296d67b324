"""SearchRun: one query on its way through the stages after its candidate lists, carrying
what each later stage reads of the earlier ones (hybrid.Searcher.search builds it once the
lists are fused and scored; reranking, diversity, the floor and the results read it)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memctl.index.protocol import WordCounts
    from memctl.index.usage import ChunkRecord
    from memctl.lexical.parse import Query
    from memctl.lexical.plan import LexicalPlan
    from memctl.search.floor.rule import WeightedTerm
    from memctl.search.kept import IndexMemory
    from memctl.search.present.results import Snippets
    from memctl.search.rank.dated import DatedQuery
    from memctl.search.rank.ranking import Scored
    from memctl.search.rank.scoring import Weights


@dataclass
class SearchRun:
    text: str  # the query as typed
    parsed: Query
    mode: str
    k: int
    now: datetime
    model_id: str  # the index's embedding model (read once a search)
    plan: LexicalPlan
    lists: dict[str, dict[int, float]]  # each candidate list: chunk id -> raw score
    vector: Any  # the query's vector, when the vector list was searched
    weights: Weights  # the lists' weights for this query
    fused: dict[int, dict[str, float]]  # each candidate's contribution by list
    records: dict[int, ChunkRecord]
    scored: Scored
    snippets: Snippets
    kept: IndexMemory  # what the Searcher remembers of an unchanged index
    words: WordCounts  # how the query's words weigh in this index
    keeps_reads: bool  # what is read of the index may be kept (CandidateSource.keeps_reads)
    # The query's words by IDF and which the vault holds, read once for the reranker and
    # the floor where the counts are exact (None: each reads its own).
    weighted: tuple[list[WeightedTerm], list[bool]] | None
    dated: DatedQuery | None = None  # the dates the query says, as the search reads them
