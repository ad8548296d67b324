"""Vector search over a memory-mapped float32 matrix cached under `.memctl/`.

sqlite-vec 0.1.9's brute-force scan costs ~70 ms at 100k and ~700 ms at 1M chunks on
these machines; a NumPy product over the same vectors, memory-mapped, is ~10x faster
and exact (see ../shared/notes/sqlite-search-costs.md). vec0 stays the store of record:
the matrix is a derived copy, rebuilt when the index's signature moves (a file
re-indexed, a chunk embedded, the model switched), and small indexes skip it entirely.

From `PREFILTER_MIN` rows on, even the exact product (~90 ms at 1M) is most of a
search's budget, so a one-bit-per-dimension sketch picks the closest rows by Hamming
distance first and only those are scored exactly. Each dimension is binarised around
the corpus mean: sentence-embedding models share a large common direction, and raw
signs would spend most bits on it. `scripts/bench_search` reports the prefilter's
recall against the exact scan.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

from memctl.files import read_unlinked_text

if TYPE_CHECKING:
    from memctl.sqlite import Connection

MIN_VECTORS = 5000  # below this vec0 answers in a few ms and a cache file is not worth it
PREFILTER_MIN = 200_000  # below this the exact product is under ~20 ms
PREFILTER_KEEP = 1000  # rows the bit sketch hands to the exact rerank (at least)
_POINTER = "search-vectors.json"
_PARTS = ("ids", "matrix", "mean", "bits")


def signature(conn: Connection) -> str:
    """Changes whenever the set of vectors can have changed; cheap (no scan of chunks)."""
    files = conn.execute("SELECT count(*), max(indexed_at), total(size) FROM files").fetchone()
    top = conn.execute("SELECT max(rowid) FROM chunks").fetchone()[0]
    pending = conn.execute("SELECT count(*) FROM chunks WHERE embedded = 0").fetchone()[0]
    meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('model_id', 'dim')"))
    raw = json.dumps([list(files), top, pending, meta.get("model_id"), meta.get("dim")])
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def sketch(vectors: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """Sign bits around `mean`, packed into 64-bit words, one row per word (words x rows).

    Word-major so the Hamming scan streams each word over all rows contiguously.
    """
    packed = np.packbits(np.atleast_2d(vectors) > mean, axis=1)
    pad = (-packed.shape[1]) % 8
    if pad:
        packed = np.pad(packed, ((0, 0), (0, pad)))
    return np.ascontiguousarray(packed.view(np.uint64).T)


class VectorMatrix:
    def __init__(
        self,
        ids: np.ndarray,
        matrix: np.ndarray,
        mean: np.ndarray | None = None,
        bits: np.ndarray | None = None,
        *,
        prefilter_min: int = PREFILTER_MIN,
        signature: str = "",
    ) -> None:
        self.signature = signature
        self.ids = ids
        self.matrix = matrix
        self.mean = mean
        self.bits = bits
        self.prefilter_min = prefilter_min
        self._order: np.ndarray | None = None  # argsort of ids, made on first rows()

    def rows(self, ids: Sequence[int]) -> dict[int, np.ndarray]:
        """The vectors of these chunk ids that the matrix holds (the reranker's windows:
        a memory-mapped read, where vec0 point lookups cost ~1 ms each)."""
        if not ids or len(self) == 0:
            return {}
        if self._order is None:
            self._order = np.argsort(self.ids, kind="stable")
        wanted = np.asarray(ids, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.ids, wanted, sorter=self._order), len(self) - 1)
        positions = self._order[at]
        held = self.ids[positions] == wanted
        # One gather for all of them (rows of it are views): a memory-mapped row read one
        # by one is a new memmap object each.
        block = np.asarray(self.matrix[positions[held]], dtype=np.float32)
        return dict(zip(wanted[held].tolist(), block, strict=True))

    def __len__(self) -> int:
        return int(self.ids.shape[0])

    def top(self, query: np.ndarray, limit: int, *, exact: bool = False) -> dict[int, float]:
        """Cosine similarity (vectors are unit length) of the best `limit` rows.

        Large matrices are pre-filtered by the bit sketch unless `exact` is asked for;
        the scores returned are always exact.
        """
        if len(self) == 0 or limit <= 0:
            return {}
        query = np.asarray(query, dtype=np.float32)
        with _one_blas_thread():
            return self._top(query, limit, exact)

    def top_unheld(self, query: np.ndarray, limit: int) -> dict[int, float]:
        """top() for a caller that holds BLAS at one thread itself (Ahead)."""
        if len(self) == 0 or limit <= 0:
            return {}
        return self._top(query, limit, False)

    def _top(self, query: np.ndarray, limit: int, exact: bool) -> dict[int, float]:
        use_sketch = not exact and self.bits is not None and len(self) >= self.prefilter_min
        if use_sketch:
            rows = self._closest_by_sketch(query, max(PREFILTER_KEEP, limit * 10))
            scores = self.matrix[rows] @ query
        else:
            rows = None
            scores = self.matrix @ query
        limit = min(limit, scores.shape[0])
        best = np.argpartition(-scores, limit - 1)[:limit]
        best = best[np.argsort(-scores[best])]
        positions = best if rows is None else rows[best]
        # tolist(): Python ints and floats at once (float32 to float is exact either way).
        return dict(zip(self.ids[positions].tolist(), scores[best].tolist(), strict=True))

    def _closest_by_sketch(self, query: np.ndarray, keep: int) -> np.ndarray:
        """Sorted row positions of (at least) the `keep` rows nearest in Hamming distance."""
        assert self.bits is not None and self.mean is not None
        qbits = sketch(query, self.mean)[:, 0]
        rows = self.bits.shape[1]
        distance = np.zeros(rows, dtype=np.uint16)
        word = np.empty(rows, dtype=np.uint64)
        ones = np.empty(rows, dtype=np.uint8)
        for j, q in enumerate(qbits):
            np.bitwise_xor(self.bits[j], q, out=word)
            np.bitwise_count(word, out=ones)
            np.add(distance, ones, out=distance)
        # Distances are small integers: a histogram finds the cut-off without a sort.
        histogram = np.bincount(distance, minlength=64 * len(qbits) + 1)
        cutoff = int(np.searchsorted(np.cumsum(histogram), keep))
        return np.flatnonzero(distance <= cutoff)


_blas: Any = None


class Ahead:
    """`matrix.top(query, limit)` in `worker` (another thread) while the caller does
    other work that uses no BLAS, e.g. SQL: `with Ahead(...) as ahead: ahead.result()`.

    BLAS is held at one thread by the caller's thread for the whole span: set and
    restored from the worker instead, OpenBLAS's own threads spun ~14 ms of CPU a search
    (measured at 10k)."""

    def __init__(
        self, worker: Executor, matrix: VectorMatrix, query: np.ndarray, limit: int
    ) -> None:
        self._held = _one_blas_thread()
        self._held.__enter__()
        try:
            self.query = query  # as given (the reranker's cosines use it as it is)
            self._args = (np.asarray(query, dtype=np.float32), limit)
            self._matrix = matrix
            self._future = worker.submit(matrix.top_unheld, *self._args)
        except BaseException:
            self._held.__exit__(None, None, None)
            raise

    def result(self) -> dict[int, float]:
        """The list; computed here if the worker has not started on it (a busy machine
        has no core for it: waiting would only add its wait to the search)."""
        if self._future.cancel():
            return self._matrix.top_unheld(*self._args)
        return self._future.result()

    def __enter__(self) -> Ahead:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if not self._future.cancel():
                self._future.result()  # never leave the product running past the span
        except BaseException:
            pass
        finally:
            self._held.__exit__(None, None, None)


@contextlib.contextmanager
def _one_blas_thread() -> Iterator[None]:
    """OpenBLAS on one thread for a matrix-vector product: its worker threads cost ~3x
    the CPU of the product itself (4.6 ms against 1.6 ms at 10k x 384) and far more wall
    time on a busy machine, while one core streams the matrix as fast as two.

    The BLAS libraries are found once per process and set directly: threadpoolctl's
    `limit()` looks them all up again on each call (~0.2 ms, a tenth of a 10k search's
    vector list)."""
    global _blas
    if _blas is None:
        from threadpoolctl import ThreadpoolController

        _blas = ThreadpoolController().select(user_api="blas").lib_controllers
    before = [lib.num_threads for lib in _blas]
    for lib in _blas:
        lib.set_num_threads(1)
    try:
        yield
    finally:
        for lib, threads in zip(_blas, before, strict=True):
            lib.set_num_threads(threads)


def load(
    conn: Connection,
    state_dir: Path,
    *,
    min_vectors: int = MIN_VECTORS,
    previous: VectorMatrix | None = None,
) -> VectorMatrix | None:
    """The cached matrix for the index as it is now, rebuilt if stale; None if not worth it.

    `previous` (a matrix this process already holds) is returned as it is when still
    current: a fresh mapping would page the whole matrix in again (~7 ms at 100k rows).
    """
    # max(rowid) is an O(1) upper bound on the vector count; count(*) would scan.
    top = conn.execute("SELECT max(rowid) FROM chunks").fetchone()[0] or 0
    if top < min_vectors:
        return None
    sig = signature(conn)
    if previous is not None and previous.signature == sig:
        return previous
    with contextlib.suppress(OSError, ValueError, KeyError):
        if _current_signature(state_dir) == sig:
            names = _names(sig)
            return VectorMatrix(
                *(np.load(_plain(state_dir / names[part]), mmap_mode="r") for part in _PARTS),
                signature=sig,
            )
    return build(conn, state_dir, sig)


# The cache's files are named from the index's signature, never from what the pointer says,
# and read only when they are plain files: a cloned repository can commit `.memctl/`
# entries, and a pointer or a link there could name any file on the machine. Written only
# through files created here (O_EXCL), never through a link planted at a temp name.


def _names(sig: str) -> dict[str, str]:
    return {part: f"search-vectors-{sig}.{part}.npy" for part in _PARTS}


def _plain(path: Path) -> Path:
    if not stat.S_ISREG(os.lstat(path).st_mode):
        raise OSError(f"{path.name} is not a plain file")
    return path


def _current_signature(state_dir: Path) -> object:
    return json.loads(read_unlinked_text(state_dir / _POINTER))["signature"]


def _created(path: Path) -> BinaryIO:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # a leftover of a killed build, or a planted link: the link goes
    return path.open("xb")


def cached_blocks(
    conn: Connection, state_dir: Path, rows: int
) -> Iterator[tuple[np.ndarray, np.ndarray]] | None:
    """The cached matrix in blocks of `rows` (ids, vectors), read from the file rather than
    mapped, so a full pass holds one block in memory; None unless the cache is current
    (building it would hold every vector at once: callers fall back to vec0)."""
    with contextlib.suppress(OSError, ValueError, KeyError):
        sig = signature(conn)
        if _current_signature(state_dir) == sig:
            names = _names(sig)
            ids = np.load(_plain(state_dir / names["ids"]))
            return _file_blocks(ids, _plain(state_dir / names["matrix"]), rows)
    return None


def _file_blocks(ids: np.ndarray, path: Path, rows: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    with path.open("rb") as handle:
        version = np.lib.format.read_magic(handle)
        read_header = (
            np.lib.format.read_array_header_1_0
            if version == (1, 0)
            else np.lib.format.read_array_header_2_0
        )
        shape, _fortran, dtype = read_header(handle)
        dim = shape[1]
        for start in range(0, shape[0], rows):
            count = min(rows, shape[0] - start)
            block = np.fromfile(handle, dtype=dtype, count=count * dim).reshape(count, dim)
            yield ids[start : start + count], block


_BUILD_BLOCK = 16384  # rows of vec0 read (and sketched) at a time: ~50 MB


def build(conn: Connection, state_dir: Path, sig: str) -> VectorMatrix:
    """Write the cache files from vec0, one block of rows at a time: memory stays at a
    block (a million vectors are 1.5 GB; the lifecycle builds this too, within 2 GB)."""
    dim = int(conn.execute("SELECT value FROM meta WHERE key = 'dim'").fetchone()[0])
    names = _names(sig)
    temp = {part: state_dir / f".{names[part]}.{os.getpid()}.tmp" for part in _PARTS}
    own = not conn.in_transaction
    if own:
        conn.execute("BEGIN")  # one snapshot: the count and the rows agree
    try:
        count = int(conn.execute("SELECT count(*) FROM chunks_vec_rowids").fetchone()[0])
        ids = np.empty(count, dtype=np.int64)
        total = np.zeros(dim, dtype=np.float64)
        done = 0
        with _created(temp["matrix"]) as handle:
            header = {"descr": "<f4", "fortran_order": False, "shape": (count, dim)}
            np.lib.format.write_array_header_1_0(handle, header)
            cursor = conn.execute("SELECT rowid, embedding FROM chunks_vec")
            while rows := cursor.fetchmany(_BUILD_BLOCK):
                block = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
                block = block.reshape(len(rows), dim)
                ids[done : done + len(rows)] = [r[0] for r in rows]
                total += block.sum(axis=0, dtype=np.float64)
                handle.write(block.tobytes())
                done += len(rows)
    finally:
        if own:
            conn.execute("COMMIT")
    if done != count:
        raise RuntimeError(f"vec0 returned {done} vectors where it counted {count}")
    mean = (total / max(count, 1)).astype(np.float32)
    # Sketched from the file a block at a time (a mapping would keep every page resident).
    bits = np.concatenate(
        [sketch(block, mean) for _, block in _file_blocks(ids, temp["matrix"], _BUILD_BLOCK)]
        or [sketch(mean, mean)[:, :0]],
        axis=1,
    )
    for part, array in (("ids", ids), ("mean", mean), ("bits", bits)):
        with _created(temp[part]) as handle:
            np.save(handle, array)
    for part in _PARTS:
        os.replace(temp[part], state_dir / names[part])
    # The pointer moves last, so a reader never sees a half-written set.
    tmp = state_dir / f".{_POINTER}.{os.getpid()}.tmp"
    with _created(tmp) as handle:
        handle.write(json.dumps({"signature": sig, **names}).encode("utf-8"))
    os.replace(tmp, state_dir / _POINTER)
    for old in state_dir.glob("search-vectors-*.npy"):
        if old.name not in names.values():
            with contextlib.suppress(OSError):
                old.unlink()
    return VectorMatrix(
        *(np.load(state_dir / names[part], mmap_mode="r") for part in _PARTS), signature=sig
    )
