"""What a query carries through the stages: Asked (the query read), Listed (its candidate
lists) and SearchRun (after fusion and scoring: what reranking, diversity, the floor and the
results read). hybrid.Searcher.search builds each in turn; Searching is what the stages
read of the Searcher itself."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from memctl.config import SearchSettings
    from memctl.index.protocol import CandidateSource, IndexBackend, WordCounts
    from memctl.index.usage import ChunkRecord
    from memctl.lexical.parse import Query
    from memctl.lexical.plan import Candidates, Filters, LexicalPlan
    from memctl.search.floor.rule import WeightedTerm
    from memctl.search.kept import IndexMemory
    from memctl.search.present.results import Snippets
    from memctl.search.rank.dated import DatedQuery
    from memctl.search.rank.meaning import Fact
    from memctl.search.rank.ranking import Scored
    from memctl.search.rank.scoring import Policy, Weights
    from memctl.vault import Vault


class Searching(Protocol):
    """What the stages (candidate_lists.py, scored.py) read of the Searcher running them:
    its vault, settings and policy, its store and candidate source, what it keeps."""

    vault: Vault
    settings: SearchSettings
    policy: Policy
    fresh: bool  # this search re-checks the index's freshness
    timings: dict[str, float]  # each stage's time, by name (`embed_ms`, `catch_up_ms`...)

    @property
    def store(self) -> IndexBackend: ...

    @property
    def candidates(self) -> CandidateSource: ...

    @property
    def kept(self) -> IndexMemory: ...


@dataclass
class Asked:
    """The query as the search reads it, before any list: its words and the dates it says."""

    text: str  # the query as typed
    mode: str
    now: datetime
    vector: Any  # the query's vector, if the caller embedded it already
    parsed: Query  # the words searched (a date the query says taken out)
    plain: Query  # the words as typed (a date's words included)
    filters: Filters  # the caller's, narrowed to the date range a date-only query says
    dated: DatedQuery | None


@dataclass
class Listed:
    """A query's candidate lists and how they were read: what the later stages start from."""

    asked: Asked
    found: Candidates
    model_id: str  # the index's embedding model (read once a search)
    own: dict[int, float] | None  # the vector candidates' own cosines, where facts lifted them
    facts: dict[int, tuple[Fact, ...]]  # each vector candidate's facts (rank/meaning.py)


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
    # The query's words by IDF as the reranker weighs them, when already read (the word
    # cover reads them beside a vector list; a shared server's cost a round trip for its
    # chunk count). None: the reranker reads them itself.
    terms: list[WeightedTerm] | None = None
    # Some candidate holds half the question's IDF weight or more (scoring.echoed): the
    # words found it, and the reranker does not read the vectors' standing.
    echoed: bool = True
