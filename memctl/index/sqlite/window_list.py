"""The window words candidate list: BM25 over each chunk's window (the chunk with its
neighbours, memctl.index.window_words), each hit credited to the chunk at its centre.

A fourth list beside words, trigrams and vectors, fused with `[search] weight_window`
(0 leaves it out), in hybrid and lexical modes. This is the SQLite index's; a shared
PostgreSQL server ranks the same windows in SQL (memctl.index.postgres.windows, search).
"""

from __future__ import annotations

from typing import Any

from memctl.index.sqlite.lexical import ranked_bm25
from memctl.lexical.plan import Filters, LexicalPlan


def window_candidates(
    conn: Any, plan: LexicalPlan, filters: Filters, limit: int
) -> dict[int, float]:
    """Chunk id -> BM25 of its window, the best `limit`."""
    expression = plan.expression()
    # A query of words found everywhere ranks nothing useful and costs a full scan.
    if not expression or plan.all_common:
        return {}
    return ranked_bm25(conn, "windows_fts", expression, filters, limit)
