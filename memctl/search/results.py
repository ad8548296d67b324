"""What a search returns: the documented JSON shape (see docs/search.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class SearchResult:
    path: str
    line_start: int
    line_end: int
    heading: str
    snippet: str
    score: float
    tier: str
    source: str
    date: str | None
    highlights: tuple[tuple[int, int], ...] = ()
    hash: str = ""
    vault: str = ""  # the namespace (agent) it belongs to
    chunk_lines: tuple[int, int] = (0, 0)  # the matched chunk's own lines (not in the JSON)
    explain: dict[str, Any] | None = None
    evidence: float = 1.0  # what the relevance floor compares (memctl.search.floor.rule)
    coverage: float = 1.0  # its parts, kept for the floor's calibration (not in the JSON)
    cosine: float | None = None
    cross: bool = False  # written in another script than the query (its own cosine bar)
    tokens: int = 0  # the snippet's cost (memctl.tokens estimate)
    rerank: float | None = None  # the reranker's probability (None: not reranked)
    superseded_by: str | None = None  # "path:line" of a newer memory giving another value

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "path": self.path,
            "line_start": self.line_start,
            "line_end": self.line_end,
            "heading": self.heading,
            "snippet": self.snippet,
            "score": round(self.score, 6),
            "tier": self.tier,
            "source": self.source,
            "date": self.date,
            "evidence": round(self.evidence, 4),
            "tokens": self.tokens,
            "vault": self.vault,
        }
        if self.superseded_by is not None:
            out["superseded_by"] = self.superseded_by
        if self.explain is not None:
            out["explain"] = self.explain
        return out


@dataclass
class SearchResponse:
    query: str
    results: list[SearchResult]
    pending_embeddings: int = 0
    notices: list[str] = field(default_factory=list)
    below_floor: int = 0  # results of the top k left out by the relevance floor
    floor: float | None = None  # the floor applied (None: --all)
    as_of: dict[str, str] | None = None  # {"as_of": what was asked, "commit": sha}
    matched: int = 0  # results that passed the floor, before a --budget cut (not in JSON)
    missing: float = 0.0  # the query's words absent from the vault (floor calibration)
    dates: dict[str, Any] | None = None  # the date ranges the query was read as (rank/dated.py)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "query": self.query,
            "results": [r.to_dict() for r in self.results],
            "pending_embeddings": self.pending_embeddings,
            "notices": self.notices,
            "below_floor": self.below_floor,
            "floor": self.floor,
        }
        if self.dates is not None:
            out["dates"] = self.dates
        if self.as_of is not None:
            out.update(self.as_of)
        return out
