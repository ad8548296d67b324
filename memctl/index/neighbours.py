"""Nearest neighbours of the chunks outside COLD, for lint's near-duplicate checks (SQLite).

Lint compares tiers (HOT with WARM and COLD, WARM with COLD; COLD with COLD is history),
so only HOT and WARM chunks ask: a few thousand at most, against every vector. The
vectors are read from vec0 in blocks, each scored against all askers with one matrix
product, and each asker keeps its `k` best of another tier. Memory stays at one block of
scores (~40 MB) and of vectors (at most 48 MB) however large the index; nothing is
all-pairs.

The scan is asker x every vector, so it grows with the archive (~40 s at 1M chunks on a
busy machine) while a night changes a few files. With a `memo` file each asker's list is
kept with a snapshot of the index (per file: its rows' id range, count and vectors), and
the next run scans only what moved: an asker whose file changed, or one of whose kept
neighbours is in a changed or removed file, is scanned in full; every other asker is
scored against the rows of changed files alone and merged with its kept list, which
gives the same top `k` as a full scan.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memctl.files import atomic_write_text
from memctl.vault import ARCHIVE_DIR

# Asker x block scores held at once: with argpartition's int64 positions, ~20 bytes each,
# so ~40 MB whatever the index's size.
SCORES_PER_BLOCK = 2 * 1024 * 1024
# Rows per block whatever the askers: with a few askers (a night's new note) the scores
# bound alone allowed blocks of ~700k vectors, 1 GB each and its normalised copy.
MAX_BLOCK_ROWS = 32768  # 48 MB of 384-dim float32
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
    conn: Any,
    *,
    min_cosine: float,
    k: int,
    blocks: BlockSource | None = None,
    memo: Path | None = None,
) -> list[NeighbourPair]:
    """Each HOT and WARM chunk's `k` nearest chunks of another tier, cosine >= `min_cosine`.

    `blocks(rows)`: every vector in blocks from a faster copy than vec0 (search's cached
    matrix), or None to read vec0. `memo`: where the lists are kept between runs (see the
    module docstring), or None to scan everything."""
    import numpy as np

    # Outside memory/archive/ by the path index: a tier scan would read every chunk's row.
    askers = conn.execute(
        "SELECT c.id, c.tier, c.path, v.embedding FROM chunks AS c JOIN chunks_vec AS v "
        "ON v.rowid = c.id WHERE c.embedded = 1 AND (c.path < ? OR c.path >= ?)",
        (ARCHIVE_DIR + "/", ARCHIVE_DIR + "0"),
    ).fetchall()
    if not askers or k <= 0:
        return []
    ids = np.array([a[0] for a in askers], dtype=np.int64)
    codes = np.array([_TIERS.get(a[1], 2) for a in askers], dtype=np.int8)
    queries = _unit(np.stack([np.frombuffer(a[3], dtype=np.float32) for a in askers]))
    scan = _Scan(ids, codes, k)
    snapshot = _snapshot(conn) if memo is not None else None
    kept = _kept(memo, snapshot, conn, k) if memo is not None else None
    fresh = np.ones(len(askers), dtype=bool)
    if kept is not None:
        lists, changed = kept
        for i, asker in enumerate(askers):
            previous = lists.get(str(asker[0]))
            if asker[2] in changed or previous is None or changed & set(previous[2]):
                continue
            fresh[i] = False
            scan.best_ids[i], scan.best_scores[i] = previous[0], previous[1]
        old = np.nonzero(~fresh)[0]
        if old.size and changed:
            scan.run(queries, old, _changed_rows(conn, sorted(changed), queries.shape[1]))
    new = np.nonzero(fresh)[0]
    if new.size:
        block = min(MAX_BLOCK_ROWS, max(1024, SCORES_PER_BLOCK // len(new)))
        source = (blocks(block) if blocks else None) or _vec0_blocks(conn, block, queries.shape[1])
        scan.run(queries, new, source)
    if memo is not None and snapshot is not None:
        _save(memo, conn, snapshot, k, askers, scan)
    return [
        NeighbourPair(int(ids[i]), int(scan.best_ids[i, j]), float(scan.best_scores[i, j]))
        for i in range(len(askers))
        for j in range(k)
        if scan.best_ids[i, j] >= 0 and scan.best_scores[i, j] >= min_cosine
    ]


class _Scan:
    """The askers' running top `k` of another tier."""

    def __init__(self, ids: Any, codes: Any, k: int) -> None:
        import numpy as np

        self.ids, self.codes, self.k = ids, codes, k
        order = np.argsort(ids)
        self.sorted_ids, self.sorted_codes = ids[order], codes[order]
        self.best_scores = np.full((len(ids), k), -np.inf, dtype=np.float32)
        self.best_ids = np.full((len(ids), k), -1, dtype=np.int64)

    def run(self, queries: Any, which: Any, source: Blocks) -> None:
        """Score askers `which` against every (ids, vectors) block of `source`."""
        import numpy as np

        q, codes = queries[which], self.codes[which]
        best_scores, best_ids = self.best_scores[which], self.best_ids[which]
        for row_ids, vectors in source:
            scores = q @ _unit(np.asarray(vectors, dtype=np.float32)).T
            # An asker's own tier; every other chunk is COLD.
            at = np.minimum(np.searchsorted(self.sorted_ids, row_ids), len(self.sorted_ids) - 1)
            row_codes = np.where(self.sorted_ids[at] == row_ids, self.sorted_codes[at], 2)
            scores[codes[:, None] == row_codes[None, :]] = -np.inf  # same tier (and itself)
            take = min(self.k, len(row_ids))
            top = np.argpartition(-scores, take - 1, axis=1)[:, :take]
            merged_scores = np.concatenate([best_scores, np.take_along_axis(scores, top, 1)], 1)
            merged_ids = np.concatenate([best_ids, row_ids[top]], axis=1)
            keep = np.argsort(-merged_scores, axis=1, kind="stable")[:, : self.k]
            best_scores = np.take_along_axis(merged_scores, keep, 1)
            best_ids = np.take_along_axis(merged_ids, keep, 1)
        self.best_scores[which], self.best_ids[which] = best_scores, best_ids


# -- the memo ------------------------------------------------------------------------------


def _snapshot(conn: Any) -> dict[str, list[int]]:
    """Per file: its rows' smallest and largest id and count (by the path index), and how
    many of them still wait for a vector (by the pending index). Equal snapshots of a file
    mean the same rows with the same vectors: a re-indexed file gets new ids."""
    files = {
        path: [lo, hi, count, 0]
        for path, lo, hi, count in conn.execute(
            "SELECT path, min(id), max(id), count(*) FROM chunks GROUP BY path"
        )
    }
    for path, pending in conn.execute(
        "SELECT path, count(*) FROM chunks WHERE embedded = 0 GROUP BY path"
    ):
        files[path][3] = pending
    return files


def _model(conn: Any) -> list[str | None]:
    rows = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('model_id', 'dim')"))
    return [rows.get("model_id"), rows.get("dim")]


def _kept(
    memo: Path, snapshot: dict[str, list[int]] | None, conn: Any, k: int
) -> tuple[dict[str, list[Any]], set[str]] | None:
    """The last run's lists (asker id -> [ids, scores, their paths]) and the files changed
    or removed since; None when there is no usable memo (another model, another k)."""
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        data = json.loads(memo.read_text(encoding="utf-8"))
        if data["model"] != _model(conn) or data["k"] != k or snapshot is None:
            return None
        before: dict[str, list[int]] = data["files"]
        changed = {p for p, s in snapshot.items() if before.get(p) != s}
        changed |= set(before) - set(snapshot)
        lists: dict[str, list[Any]] = data["lists"]
        return lists, changed
    return None


def _changed_rows(conn: Any, paths: list[str], dim: int) -> Iterator[tuple[Any, Any]]:
    import numpy as np

    for start in range(0, len(paths), 500):
        part = paths[start : start + 500]
        marks = ", ".join("?" * len(part))
        found = conn.execute(
            "SELECT c.id, v.embedding FROM chunks AS c JOIN chunks_vec AS v ON v.rowid = c.id "
            f"WHERE c.embedded = 1 AND c.path IN ({marks})",
            part,
        ).fetchall()
        if found:
            ids = np.fromiter((r[0] for r in found), dtype=np.int64, count=len(found))
            vectors = np.frombuffer(b"".join(r[1] for r in found), dtype=np.float32)
            yield ids, vectors.reshape(len(found), dim)


def _save(
    memo: Path, conn: Any, snapshot: dict[str, list[int]], k: int, askers: list[Any], scan: _Scan
) -> None:
    """The lists, with each neighbour's file (so a change to it is noticed next time)."""
    neighbours = sorted({int(i) for i in scan.best_ids.ravel() if i >= 0})
    path_of: dict[int, str] = {}
    for start in range(0, len(neighbours), 500):
        part = neighbours[start : start + 500]
        marks = ", ".join("?" * len(part))
        path_of.update(conn.execute(f"SELECT id, path FROM chunks WHERE id IN ({marks})", part))
    lists = {
        str(asker[0]): [
            [int(x) for x in scan.best_ids[i]],
            [float(x) if x > -1e30 else -1e38 for x in scan.best_scores[i]],
            sorted({path_of.get(int(x), "") for x in scan.best_ids[i] if x >= 0}),
        ]
        for i, asker in enumerate(askers)
    }
    data = {"model": _model(conn), "k": k, "files": snapshot, "lists": lists}
    with contextlib.suppress(OSError):
        atomic_write_text(memo, json.dumps(data, separators=(",", ":")))


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
