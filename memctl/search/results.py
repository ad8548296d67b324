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
            "vault": self.vault,
        }
        if self.explain is not None:
            out["explain"] = self.explain
        return out


@dataclass
class SearchResponse:
    query: str
    results: list[SearchResult]
    pending_embeddings: int = 0
    notices: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "results": [r.to_dict() for r in self.results],
            "pending_embeddings": self.pending_embeddings,
            "notices": self.notices,
        }
