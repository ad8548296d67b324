"""What a snippet reads around its chunk on PostgreSQL: context rows and window vectors.

Both take many (vault, path, lo, hi) windows in one round trip. A file's chunks never
overlap, so those overlapping lo..hi are the last one starting before lo and those
starting in lo..hi: two reads of the (vault, path, line_start) index each (a plain join
read every chunk from the file's first line to hi, and each row to test its line_end).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import psycopg

from memctl.index.usage import ContextRow

if TYPE_CHECKING:
    import numpy as np

Windows = Sequence[tuple[str, str, int, int]]

# Every character Python's str.isspace() holds (what estimate_tokens does not price;
# tests/postgres/test_pg_context.py checks the list).
SPACES = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004"
    "\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
# What a chunk's lines cost a snippet at least (snippets.py prices a line at
# estimate_tokens + 1): one token a line, and a quarter a character that is not a space
# (a run of word characters costs ceil(len / 4), any other character 1).
_LEAST_COST = (
    "(length(c.text) - length(replace(c.text, E'\\n', '')) + 1 "
    "+ length(translate(c.text, %s, '')) / 4.0)"
)


def _window_chunks(columns: str) -> str:
    """Each numbered window (and its chunk's first line, `core`) beside the chunks
    overlapping its lines, as `columns` of `c` with line_start and line_end."""
    picked = (
        f"SELECT c.line_start, c.line_end, {columns} FROM chunks AS c "
        "WHERE c.vault = w.vault AND c.path = w.path AND c.line_start"
    )
    return (
        "FROM unnest(%s::text[], %s::text[], %s::integer[], %s::integer[], %s::integer[]) "
        "WITH ORDINALITY AS w(vault, path, lo, hi, core, i) CROSS JOIN LATERAL ("
        f"({picked} < w.lo ORDER BY c.line_start DESC LIMIT 1) UNION ALL "
        f"({picked} BETWEEN w.lo AND w.hi)) AS c WHERE c.line_end >= w.lo"
    )


def _arrays(
    vault: str, windows: Windows, cores: Sequence[int] = ()
) -> tuple[list[str], list[str], list[int], list[int], list[int | None]]:
    """The windows (vault "": `vault`) and their chunks' first lines as the arrays
    `_window_chunks` unnests."""
    return (
        [v or vault for v, _, _, _ in windows],
        [w[1] for w in windows],
        [w[2] for w in windows],
        [w[3] for w in windows],
        list(cores) if cores else [None] * len(windows),
    )


def context_windows(
    conn: psycopg.Connection[Any],
    vault: str,
    windows: Windows,
    budget: int | None = None,
    cores: Sequence[int] = (),
) -> list[list[ContextRow]]:
    """`context_rows` of every window.

    With `budget` and `cores` (the first line of each window's own chunk): on each side
    of that chunk only the rows a snippet of at most `budget` tokens can reach. A snippet
    grows from its chunk line by line until the next line does not fit (snippets.py), so
    a row past those whose least cost (`_LEAST_COST`) already adds up to more than the
    budget shows nothing. At 1M (the bench's running logs, ~100 tokens a chunk) that
    leaves ~9 of a window's ~21 rows, and the same snippets."""
    if not windows:
        return []
    bounded = budget is not None and len(cores) == len(windows)
    near = (
        f"SELECT w.i, c.line_start, c.line_end, c.text, coalesce(sum({_LEAST_COST}) "
        "OVER (PARTITION BY w.i, sign(c.line_start - w.core) "
        "ORDER BY abs(c.line_start - w.core) "
        "ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS nearer "
        f"{_window_chunks('c.text')}"
    )
    limit = budget if bounded else None
    rows = conn.execute(
        f"SELECT i, line_start, line_end, text FROM ({near}) AS r "
        "WHERE %s::numeric IS NULL OR nearer <= %s ORDER BY i, line_start",
        (SPACES, *_arrays(vault, windows, cores if bounded else ()), limit, limit),
    ).fetchall()
    found: list[list[ContextRow]] = [[] for _ in windows]
    for i, start, end, text in rows:
        found[i - 1].append(ContextRow(start, end, text))
    return found


def window_vectors(
    conn: psycopg.Connection[Any], vault: str, windows: Windows
) -> list[dict[int, np.ndarray]]:
    """Per window, the vectors of the chunks overlapping it (those without one left out)."""
    import numpy as np

    if not windows:
        return []
    rows = conn.execute(
        f"SELECT w.i, c.id, c.embedding {_window_chunks('c.id, c.embedding')} "
        "AND c.embedding IS NOT NULL",
        _arrays(vault, windows),
        # Binary: parsing ~30 vectors' text took ~5 ms a search at 1M, reading them 0.4.
        binary=True,
    ).fetchall()
    found: list[dict[int, np.ndarray]] = [{} for _ in windows]
    for i, cid, vector in rows:
        found[i - 1][int(cid)] = np.asarray(vector.to_numpy(), dtype=np.float32)
    return found
