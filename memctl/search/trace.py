"""SearchTrace: what one search saw on its way, for the tools that calibrate and train it.

Passed to `Searcher.search(trace=...)`, it is filled in by the stages as they run: the
candidate lists and records, the reranker's features and windows (`rerank_features`: also
when the reranker does not reorder, for training it), its probabilities, the snippets, the
relevance floor's words and verdict. A search without one pays nothing, and a trace
changes no result: the tools under scripts/ read it instead of replacing library code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memctl.index.protocol import WordCounts
    from memctl.index.usage import ChunkRecord
    from memctl.lexical.parse import Query
    from memctl.lexical.plan import LexicalPlan
    from memctl.search.floor.evidence import Verdict
    from memctl.search.floor.rule import WeightedTerm
    from memctl.search.present.results import Snippets
    from memctl.search.rank.dated import DatedQuery
    from memctl.search.rerank.model import Shown
    from memctl.search.run import SearchRun


@dataclass
class SearchTrace:
    rerank_features: bool = False  # compute the reranker's features even when it does not reorder
    query: Query | None = None
    plan: LexicalPlan | None = None
    words: WordCounts | None = None  # how the query's words weigh in this index
    lists: dict[str, dict[int, float]] = field(default_factory=dict)
    records: dict[int, ChunkRecord] = field(default_factory=dict)
    snippets: Snippets | None = None
    features: dict[int, list[float]] = field(default_factory=dict)  # the reranker's, by chunk id
    windows: dict[int, Shown] = field(default_factory=dict)  # the window each was judged on
    rerank: dict[int, float] = field(default_factory=dict)  # its probabilities (empty: none)
    terms: list[WeightedTerm] | None = None  # the query's words by IDF, as the floor weighs them
    present: Any = None  # ... and which of them the vault holds
    chosen: list[int] = field(default_factory=list)  # after diversity, before the floor
    verdict: Verdict | None = None
    dated: DatedQuery | None = None  # the dates the query says, as the search read them

    def record(
        self,
        run: SearchRun,
        chosen: list[int],
        probability: dict[int, float],
        verdict: Verdict,
    ) -> None:
        """What the stages saw, from the run the Searcher carried through them."""
        self.query, self.plan, self.words, self.snippets = (
            run.parsed,
            run.plan,
            run.words,
            run.snippets,
        )
        self.lists, self.records, self.chosen = run.lists, run.records, list(chosen)
        self.rerank, self.verdict = dict(probability), verdict
        self.dated = run.dated
        if run.weighted is not None:
            self.terms, self.present = run.weighted

    def keep_rerank(self, features: dict[int, list[float]], windows: dict[int, Shown]) -> None:
        """The reranking step's features and windows (rerank.windows.rerank_scores)."""
        self.features, self.windows = features, windows
