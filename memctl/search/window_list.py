"""The window words candidate list: BM25 over each chunk's window (the chunk with its
neighbours, memctl.index.window_words), each hit credited to the chunk at its centre.

A fourth list beside words, trigrams and vectors, fused with `[search] weight_window`
(0 leaves it out), in hybrid and lexical modes. This is the SQLite index's; a shared
PostgreSQL server ranks the same windows in SQL (memctl.index.postgres.windows, search).
"""

from __future__ import annotations

from typing import Any

from memctl.search.candidates import Filters, LexicalPlan


def window_candidates(
    conn: Any, plan: LexicalPlan, filters: Filters, limit: int
) -> dict[int, float]:
    """Chunk id -> BM25 of its window, the best `limit`."""
    expression = plan.expression()
    # A query of words found everywhere ranks nothing useful and costs a full scan.
    if not expression or plan.all_common:
        return {}
    if filters.active():
        where, params = filters.sql("c")
        rows = conn.execute(
            "SELECT w.rowid, -bm25(windows_fts) FROM windows_fts AS w JOIN chunks AS c "
            f"ON c.id = w.rowid WHERE windows_fts MATCH ? AND {where} "
            "ORDER BY bm25(windows_fts) LIMIT ?",
            (expression, *params, limit),
        )
    else:
        # Sorting on the selected bm25 rather than FTS5's `rank` column: the same rows,
        # scores and order, ~40% less CPU (1.77 -> 1.01 ms a query at 10k, SQLite 3.51).
        rows = conn.execute(
            "SELECT rowid, bm25(windows_fts) AS score FROM windows_fts "
            "WHERE windows_fts MATCH ? ORDER BY score LIMIT ?",
            (expression, limit),
        )
        return {int(i): -float(s) for i, s in rows}
    return {int(i): float(s) for i, s in rows}
