"""Nearest neighbours of the chunks outside COLD, for lint's near-duplicate checks (SQLite).

Lint compares tiers (HOT with WARM and COLD, WARM with COLD; COLD with COLD is history),
so only HOT and WARM chunks ask: a few thousand at most, against every vector. The
vectors are read from vec0 in blocks, each scored against all askers with one matrix
product, and each asker keeps its `k` best of another tier. Memory stays at one block of
scores (~40 MB) however large the index; nothing is all-pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from memctl.vault import ARCHIVE_DIR

# Asker x block scores held at once: with argpartition's int64 positions, ~20 bytes each,
# so ~40 MB whatever the index's size.
SCORES_PER_BLOCK = 2 * 1024 * 1024
_TIERS = {"hot": 0, "warm": 1, "cold": 2}


@dataclass(frozen=True)
class NeighbourPair:
    """Chunk `source` (HOT or WARM) and one of its nearest chunks of another tier."""

    source: int
    neighbour: int
    cosine: float  # as the model measures it (uncalibrated)


Blocks = Iterable[tuple[Any, Any]]  # (ids, vectors) of every vector, block by block
BlockSource = Callable[[int], Blocks | None]  # rows per block -> blocks, or None: use vec0


def near_pairs(
    conn: Any, *, min_cosine: float, k: int, blocks: BlockSource | None = None
) -> list[NeighbourPair]:
    """Each HOT and WARM chunk's `k` nearest chunks of another tier, cosine >= `min_cosine`.

    `blocks(rows)`: every vector in blocks from a faster copy than vec0 (search's cached
    matrix), or None to read vec0."""
    import numpy as np

    # Outside memory/archive/ by the path index: a tier scan would read every chunk's row.
    askers = conn.execute(
        "SELECT c.id, c.tier, v.embedding FROM chunks AS c JOIN chunks_vec AS v "
        "ON v.rowid = c.id WHERE c.embedded = 1 AND (c.path < ? OR c.path >= ?)",
        (ARCHIVE_DIR + "/", ARCHIVE_DIR + "0"),
    ).fetchall()
    if not askers or k <= 0:
        return []
    ids = np.array([a[0] for a in askers], dtype=np.int64)
    codes = np.array([_TIERS.get(a[1], 2) for a in askers], dtype=np.int8)
    order = np.argsort(ids)
    sorted_ids, sorted_codes = ids[order], codes[order]
    queries = _unit(np.stack([np.frombuffer(a[2], dtype=np.float32) for a in askers]))
    best_scores = np.full((len(askers), k), -np.inf, dtype=np.float32)
    best_ids = np.full((len(askers), k), -1, dtype=np.int64)
    block = max(1024, SCORES_PER_BLOCK // len(askers))
    source = (blocks(block) if blocks else None) or _vec0_blocks(conn, block, queries.shape[1])
    for row_ids, vectors in source:
        scores = queries @ _unit(np.asarray(vectors, dtype=np.float32)).T
        # An asker's own tier; every other chunk is COLD.
        at = np.minimum(np.searchsorted(sorted_ids, row_ids), len(sorted_ids) - 1)
        row_codes = np.where(sorted_ids[at] == row_ids, sorted_codes[at], 2)
        scores[codes[:, None] == row_codes[None, :]] = -np.inf  # same tier (and itself)
        take = min(k, len(row_ids))
        top = np.argpartition(-scores, take - 1, axis=1)[:, :take]
        merged_scores = np.concatenate([best_scores, np.take_along_axis(scores, top, 1)], 1)
        merged_ids = np.concatenate([best_ids, row_ids[top]], axis=1)
        keep = np.argsort(-merged_scores, axis=1, kind="stable")[:, :k]
        best_scores = np.take_along_axis(merged_scores, keep, 1)
        best_ids = np.take_along_axis(merged_ids, keep, 1)
    return [
        NeighbourPair(int(ids[i]), int(best_ids[i, j]), float(best_scores[i, j]))
        for i in range(len(askers))
        for j in range(k)
        if best_ids[i, j] >= 0 and best_scores[i, j] >= min_cosine
    ]


def _vec0_blocks(conn: Any, rows: int, dim: int) -> Iterator[tuple[Any, Any]]:
    import numpy as np

    cursor = conn.execute("SELECT rowid, embedding FROM chunks_vec")
    while found := cursor.fetchmany(rows):
        ids = np.fromiter((r[0] for r in found), dtype=np.int64, count=len(found))
        vectors = np.frombuffer(b"".join(r[1] for r in found), dtype=np.float32)
        yield ids, vectors.reshape(len(found), dim)


def _unit(vectors: Any) -> Any:
    import numpy as np

    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
