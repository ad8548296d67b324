"""Exact vector search over a memory-mapped float32 matrix cached under `.memctl/`.

sqlite-vec 0.1.9's brute-force scan costs ~70 ms at 100k and ~700 ms at 1M chunks on
these machines; a NumPy product over the same vectors, memory-mapped, is ~10x faster
and exact (see ../shared/notes/sqlite-search-costs.md). vec0 stays the store of record:
the matrix is a derived copy, rebuilt when the index's signature moves (a file
re-indexed, a chunk embedded, the model switched), and small indexes skip it entirely.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

MIN_VECTORS = 5000  # below this vec0 answers in a few ms and a cache file is not worth it
_POINTER = "search-vectors.json"


def signature(conn: Any) -> str:
    """Changes whenever the set of vectors can have changed; cheap (no scan of chunks)."""
    files = conn.execute("SELECT count(*), max(indexed_at), total(size) FROM files").fetchone()
    top = conn.execute("SELECT max(rowid) FROM chunks").fetchone()[0]
    pending = conn.execute("SELECT count(*) FROM chunks WHERE embedded = 0").fetchone()[0]
    meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('model_id', 'dim')"))
    raw = json.dumps([list(files), top, pending, meta.get("model_id"), meta.get("dim")])
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


class VectorMatrix:
    def __init__(self, ids: np.ndarray, matrix: np.ndarray) -> None:
        self.ids = ids
        self.matrix = matrix

    def __len__(self) -> int:
        return int(self.ids.shape[0])

    def top(self, query: np.ndarray, limit: int) -> dict[int, float]:
        """Exact cosine similarity (vectors are unit length) of the best `limit` rows."""
        if len(self) == 0:
            return {}
        scores = self.matrix @ query.astype(np.float32)
        limit = min(limit, scores.shape[0])
        best = np.argpartition(-scores, limit - 1)[:limit]
        best = best[np.argsort(-scores[best])]
        return {int(self.ids[i]): float(scores[i]) for i in best}


def load(conn: Any, state_dir: Path, *, min_vectors: int = MIN_VECTORS) -> VectorMatrix | None:
    """The cached matrix for the index as it is now, rebuilt if stale; None if not worth it."""
    # max(rowid) is an O(1) upper bound on the vector count; count(*) would scan.
    top = conn.execute("SELECT max(rowid) FROM chunks").fetchone()[0] or 0
    if top < min_vectors:
        return None
    sig = signature(conn)
    pointer = state_dir / _POINTER
    with contextlib.suppress(OSError, ValueError, KeyError):
        current = json.loads(pointer.read_text(encoding="utf-8"))
        if current["signature"] == sig:
            ids = np.load(state_dir / current["ids"], mmap_mode="r")
            matrix = np.load(state_dir / current["matrix"], mmap_mode="r")
            return VectorMatrix(ids, matrix)
    return build(conn, state_dir, sig)


def build(conn: Any, state_dir: Path, sig: str) -> VectorMatrix:
    dim = int(conn.execute("SELECT value FROM meta WHERE key = 'dim'").fetchone()[0])
    rows = conn.execute("SELECT rowid, embedding FROM chunks_vec").fetchall()
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), dim)
    names = {"ids": f"search-vectors-{sig}.ids.npy", "matrix": f"search-vectors-{sig}.f32.npy"}
    for key, array in (("ids", ids), ("matrix", matrix)):
        tmp = state_dir / f".{names[key]}.{os.getpid()}.tmp"
        with tmp.open("wb") as handle:
            np.save(handle, array)
        os.replace(tmp, state_dir / names[key])
    # The pointer moves last, so a reader never sees a half-written pair.
    tmp = state_dir / f".{_POINTER}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps({"signature": sig, **names}), encoding="utf-8")
    os.replace(tmp, state_dir / _POINTER)
    for old in state_dir.glob("search-vectors-*.npy"):
        if old.name not in names.values():
            with contextlib.suppress(OSError):
                old.unlink()
    return VectorMatrix(
        np.load(state_dir / names["ids"], mmap_mode="r"),
        np.load(state_dir / names["matrix"], mmap_mode="r"),
    )
