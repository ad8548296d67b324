"""Which chunks a snippet's window of lines covers, and their vectors (SQLite): the
reranker compares a query with the window a result would show, not the chunk alone."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memctl.sqlite import select_in

if TYPE_CHECKING:
    import numpy as np

    from memctl.sqlite import Connection


class SpanIndex:
    """A file's chunk spans (id, line_start, line_end) in id order, and the ids of those a
    window of lines overlaps: when the ids follow the lines (starts and ends never fall,
    as a file indexed in one go gives), they are one run found by bisection, else each
    span is tested."""

    __slots__ = ("ends", "rows", "starts")

    def __init__(self, rows: list[tuple[int, int, int]]) -> None:
        self.rows = rows
        starts = [r[1] for r in rows]
        ends = [r[2] for r in rows]
        ordered = all(a <= b for a, b in itertools.pairwise(starts)) and all(
            a <= b for a, b in itertools.pairwise(ends)
        )
        self.starts: list[int] | None = starts if ordered else None
        self.ends: list[int] = ends

    def overlapping(self, lo: int, hi: int) -> list[int]:
        if self.starts is None:
            return [int(cid) for cid, start, end in self.rows if end >= lo and start <= hi]
        first = bisect.bisect_left(self.ends, lo)  # the first span ending at lo or later
        stop = bisect.bisect_right(self.starts, hi)  # the first starting after hi
        return [int(row[0]) for row in self.rows[first:stop]]


def window_vectors(
    conn: Connection,
    index: dict[str, SpanIndex],
    windows: Sequence[tuple[str, str, int, int]],
    matrix: Any = None,
    spans: dict[str, list[tuple[int, int, int]]] | None = None,
) -> list[dict[int, np.ndarray]]:
    """Per (vault, path, lo, hi) window, the vectors of the chunks overlapping it (chunks
    without a vector yet left out); the vectors are read once for all windows, from
    `matrix` (a search.vectors.VectorMatrix of this index) when given. `index`: the
    caller's SpanIndex per path, reused while a path's rows are the same list. `spans`:
    each file's (id, line_start, line_end) in id order, kept by the caller while the index
    is unchanged (read here when missing)."""
    import numpy as np

    if spans is None:
        spans = {}
    inside = []
    for _v, path, lo, hi in windows:
        rows = spans.get(path)
        if rows is None:
            # In id order, as the chunks_path index returns a path's rows.
            rows = spans[path] = conn.execute(
                "SELECT id, line_start, line_end FROM chunks WHERE path = ? ORDER BY id",
                (path,),
            ).fetchall()
        known = index.get(path)
        if known is None or known.rows is not rows:
            known = index[path] = SpanIndex(rows)
        inside.append(known.overlapping(lo, hi))
    wanted = list(dict.fromkeys(cid for ids in inside for cid in ids))
    if matrix is not None:
        found = matrix.rows(wanted)
        return [{cid: found[cid] for cid in ids if cid in found} for ids in inside]
    found = {
        int(cid): np.frombuffer(blob, dtype=np.float32)
        for cid, blob in select_in(
            conn, "SELECT rowid, embedding FROM chunks_vec WHERE rowid IN ({marks})", wanted
        )
    }
    return [{cid: found[cid] for cid in ids if cid in found} for ids in inside]
