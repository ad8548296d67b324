"""memctl.search: `search(vault, query)`, the one entry point (a one-shot search, or the
warm Searcher of a long-lived process). `Searcher` (hybrid.py) keeps an index open for many
queries; the stages live in this package's modules (docs/internals.md names each one).

Nothing is imported here at module level: `from memctl.lexical.parse import ...` must not
load NumPy (tests/test_import_budget.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import datetime

    from memctl.lexical.plan import Filters
    from memctl.search.results import SearchResponse
    from memctl.vault import Vault

__all__ = ["search"]


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
