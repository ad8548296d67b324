"""Nearest neighbours of the chunks outside COLD, for lint's near-duplicate check (SQLite).

Lint compares tiers (HOT with WARM and COLD, WARM with COLD; COLD with COLD is history),
so only HOT and WARM chunks ask: a few thousand at most, against every vector. The
vectors are read from vec0 in blocks, each scored against all askers at once with one
matrix product, and each asker keeps its `k` best above the cosine floor. Memory stays at
one block (64k x 384 floats, 100 MB) however large the index; nothing is all-pairs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memctl.vault import ARCHIVE_DIR

BLOCK = 65_536


@dataclass(frozen=True)
class NeighbourPair:
    """Chunk `source` (HOT or WARM) and one of its nearest chunks, `neighbour`."""

    source: int
    neighbour: int
    cosine: float  # as the model measures it (uncalibrated)


def near_pairs(conn: Any, *, min_cosine: float, k: int) -> list[NeighbourPair]:
    """Each HOT and WARM chunk's `k` nearest chunks of another tier, cosine >= `min_cosine`."""
    import numpy as np

    # Outside memory/archive/ by the path index: a tier scan would read every chunk's row.
    askers = conn.execute(
        "SELECT c.id, c.tier, v.embedding FROM chunks AS c JOIN chunks_vec AS v "
        "ON v.rowid = c.id WHERE c.embedded = 1 AND (c.path < ? OR c.path >= ?)",
        (ARCHIVE_DIR + "/", ARCHIVE_DIR + "0"),
    ).fetchall()
    if not askers:
        return []
    ids = np.array([a[0] for a in askers], dtype=np.int64)
    tier_of = {a[0]: a[1] for a in askers}  # every other chunk is COLD
    queries = _unit(np.stack([np.frombuffer(a[2], dtype=np.float32) for a in askers]))
    best: list[list[tuple[float, int]]] = [[] for _ in askers]
    cursor = conn.execute("SELECT rowid, embedding FROM chunks_vec")
    while rows := cursor.fetchmany(BLOCK):
        block_ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        block = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
        scores = queries @ _unit(block.reshape(len(rows), queries.shape[1])).T
        for i, j in zip(*np.nonzero(scores >= min_cosine), strict=True):
            other = int(block_ids[j])
            if tier_of.get(other, "cold") != askers[i][1]:
                best[i].append((float(scores[i, j]), other))
        for i, found in enumerate(best):
            if len(found) > k:
                best[i] = sorted(found, reverse=True)[:k]
    return [
        NeighbourPair(int(ids[i]), other, score)
        for i, found in enumerate(best)
        for score, other in sorted(found, reverse=True)[:k]
    ]


def _unit(vectors: Any) -> Any:
    import numpy as np

    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
