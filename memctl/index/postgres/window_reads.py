"""The snippet windows' reads on PostgreSQL: the chunks of each (vault, path, lo, hi)
window (their lines, for the snippets; their vectors, for the reranker), in one round
trip for all of a search's windows (see reads.PgReads)."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg.types.string import ByteaBinaryLoader

from memctl.index.protocol import ContextWindow
from memctl.index.usage import ContextRow

if TYPE_CHECKING:
    import numpy as np

# Each numbered (vault, path, lo, hi) window joined to the chunks overlapping its lines.
# A file's chunks never overlap (memctl.index.chunker: each line in one chunk, and a sync
# replaces a file's rows whole), so none starting before the last one to start at or
# before lo reaches lo: the index scan starts there, not at the file's first chunk (it
# read ~45 rows a window to keep ~2 at 1M, the window vectors' statement twice as long).
# The four arrays go in binary (%b): psycopg dumps these lists ~2.5 times as fast as in
# text (~0.14 against ~0.35 ms for a search's ~30 windows, each statement).
_WINDOW_CHUNKS = (
    "FROM unnest(%b::text[], %b::text[], %b::integer[], %b::integer[]) "
    "WITH ORDINALITY AS w(vault, path, lo, hi, i) "
    "CROSS JOIN LATERAL (SELECT coalesce(max(b.line_start), w.lo) FROM chunks AS b "
    "WHERE b.vault = w.vault AND b.path = w.path AND b.line_start <= w.lo) AS f(start) "
    "JOIN chunks AS c ON c.vault = w.vault AND c.path = w.path "
    "AND c.line_start >= f.start AND c.line_start <= w.hi AND c.line_end >= w.lo"
)


def _arrays(windows: Sequence[ContextWindow]) -> tuple[list[str], list[str], list[int], list[int]]:
    """The windows as the four arrays `_WINDOW_CHUNKS` unnests."""
    return (
        [w[0] for w in windows],
        [w[1] for w in windows],
        [w[2] for w in windows],
        [w[3] for w in windows],
    )


def stretches(windows: Sequence[ContextWindow]) -> tuple[list[ContextWindow], list[int]]:
    """The windows of a file that meet (overlap or touch) merged into stretches, and each
    window's stretch by position (pure): a chunk overlaps a window only if it overlaps its
    stretch, so reading the stretches reads every chunk once."""
    merged: list[ContextWindow] = []
    stretch_of = [0] * len(windows)
    for n in sorted(range(len(windows)), key=lambda n: windows[n]):
        vault, path, lo, hi = windows[n]
        if merged and merged[-1][:2] == (vault, path) and lo <= merged[-1][3] + 1:
            merged[-1] = (vault, path, merged[-1][2], max(merged[-1][3], hi))
        else:
            merged.append(windows[n])
        stretch_of[n] = len(merged) - 1
    return merged, stretch_of


def overlapping(
    rows: Sequence[ContextRow], lo: int, hi: int, bounds: tuple[list[int], list[int]] | None
) -> list[ContextRow]:
    """Those of `rows` (in line order) with line_end >= lo and line_start <= hi, in the same
    order (pure); `bounds`: the rows' starts and ends when the ends rise too (chunks that do
    not overlap: a slice found by bisection), else None (each row tested)."""
    if bounds is None:
        return [r for r in rows if r[1] >= lo and r[0] <= hi]
    starts, ends = bounds
    return list(rows[bisect.bisect_left(ends, lo) : bisect.bisect_right(starts, hi)])


def line_bounds(rows: Sequence[ContextRow]) -> tuple[list[int], list[int]] | None:
    """`overlapping`'s bounds of rows in line order (None when an end falls)."""
    ends = [r[1] for r in rows]
    if all(a <= b for a, b in itertools.pairwise(ends)):
        return [r[0] for r in rows], ends
    return None


def context_windows(
    conn: psycopg.Connection[Any], windows: Sequence[ContextWindow]
) -> list[list[ContextRow]]:
    """The chunks (line_start, line_end, text) overlapping each window, in line order.

    The windows of a search's candidates overlap (a quarter of their rows at 1M, ~150 of
    ~590 texts): those of a file that meet are read as one stretch, and each window's
    rows are those of its stretch that overlap it."""
    if not windows:
        return []
    merged, stretch_of = stretches(windows)
    read: list[list[ContextRow]] = [[] for _ in merged]
    rows = conn.execute(
        f"SELECT w.i, c.line_start, c.line_end, c.text {_WINDOW_CHUNKS} ORDER BY w.i, c.line_start",
        _arrays(merged),
    ).fetchall()
    # tuple.__new__, not the NamedTuple's own __new__ (a Python function).
    new = tuple.__new__
    for i, start, end, text in rows:
        read[i - 1].append(new(ContextRow, (start, end, text)))
    found: list[list[ContextRow]] = []
    bounds: dict[int, tuple[list[int], list[int]] | None] = {}
    for (_, _, lo, hi), k in zip(windows, stretch_of, strict=True):
        if merged[k][2:] == (lo, hi):
            found.append(list(read[k]))
            continue
        if k not in bounds:
            bounds[k] = line_bounds(read[k])
        found.append(overlapping(read[k], lo, hi, bounds[k]))
    return found


def window_vectors(
    conn: psycopg.Connection[Any], windows: Sequence[ContextWindow]
) -> list[dict[int, np.ndarray]]:
    """Per window, the vectors of the chunks overlapping it (chunks without one left out)."""
    if not windows:
        return []
    found: list[dict[int, np.ndarray]] = [{} for _ in windows]
    # Binary: parsing ~30 vectors' text took ~5 ms a search at 1M, reading them 0.4. Each
    # vector comes as its bytes (bytea's loader, in C), all decoded at once below rather
    # than a pgvector object and two arrays a row (~0.5 ms a new search at 1M).
    cursor = conn.cursor(binary=True)
    cursor.adapters.register_loader("vector", ByteaBinaryLoader)
    rows = cursor.execute(
        # In line order: a window's vectors are summed in this order.
        f"SELECT w.i, c.id, c.embedding {_WINDOW_CHUNKS} WHERE c.embedding IS NOT NULL "
        "ORDER BY w.i, c.line_start",
        _arrays(windows),
    ).fetchall()
    for (i, cid, _), vector in zip(rows, _vectors([r[2] for r in rows]), strict=True):
        found[i - 1][int(cid)] = vector
    return found


def _vectors(sent: Sequence[bytes]) -> Sequence[np.ndarray]:
    """pgvector's binary form of vectors (dimensions and a reserved field, 2 bytes each,
    then the floats, big-endian) as float32 arrays, the same values as pgvector's loader
    gives: of one dimension, rows of one array (the reserved field read as a float and
    dropped)."""
    import numpy as np

    if not sent:
        return []
    width = len(sent[0])
    if width % 4 or any(len(v) != width for v in sent):
        return [
            np.frombuffer(v, dtype=">f4", count=int.from_bytes(v[:2], "big"), offset=4).astype(
                np.float32
            )
            for v in sent
        ]
    floats = np.frombuffer(b"".join(sent), dtype=">f4").reshape(len(sent), width // 4)
    return list(floats[:, 1:].astype(np.float32))
