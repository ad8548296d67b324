"""The window words table: each chunk's text with its neighbours', searchable by word.

A chunk alone often lacks the words of its question (a reply names no topic; the turn
before it does), while the snippet shown for it reaches into its neighbours. `windows_fts`
holds, under each chunk's id, the words of that chunk and of the WINDOW_CHUNKS chunks on
each side of it in the same file, so BM25 can rank what a snippet around the chunk shows
(memctl.index.sqlite.window_list searches it while `[search] weight_window`, 0.4 by default,
is above 0).

The table is contentless (the windows' text would triple the chunks' in index.db): a
file's rows are deleted with the text they were built from, rebuilt from its chunks
before they change, so rows are always written and deleted a whole file at a time.
"""

from __future__ import annotations

from typing import Any

WINDOW_CHUNKS = 1  # neighbours on each side of a chunk in its window

SCHEMA = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS windows_fts USING fts5("
    "text, content='', tokenize='unicode61 remove_diacritics 2')"
)


def _windows(conn: Any, path: str) -> list[tuple[int, str]]:
    rows = conn.execute(
        "SELECT id, coalesce(heading, ''), text FROM chunks WHERE path = ? ORDER BY line_start, id",
        (path,),
    ).fetchall()
    if not has_window(len(rows)):
        return []
    return [(rows[i][0], window_text(rows, i)) for i in range(len(rows))]


def has_window(chunks_in_file: int) -> bool:
    """Whether a file's chunks get windows: not when it has one chunk (pure). That window is
    the chunk itself, and ranking it again would only double the words list's weight
    against the vectors (a set of one-paragraph notes lost cross-lingual recall that way)."""
    return chunks_in_file > 1


def forget_file(conn: Any, path: str) -> None:
    """Drop the windows of a file's chunks (before its chunks change)."""
    conn.executemany(
        "INSERT INTO windows_fts(windows_fts, rowid, text) VALUES ('delete', ?, ?)",
        _windows(conn, path),
    )


def write_file(conn: Any, path: str) -> None:
    """The windows of a file's current chunks, one row per chunk."""
    conn.executemany("INSERT INTO windows_fts(rowid, text) VALUES (?, ?)", _windows(conn, path))


def window_text(rows: list[Any], i: int) -> str:
    """Chunk i's window: its headings and texts with its neighbours' (pure)."""
    lo, hi = max(0, i - WINDOW_CHUNKS), min(len(rows), i + WINDOW_CHUNKS + 1)
    parts: list[str] = []
    for _id, heading, text in rows[lo:hi]:
        parts.extend(p for p in (heading, text) if p)
    return "\n".join(parts)


def fill(conn: Any) -> None:
    """Every file's windows (an index migrated from before the table existed)."""
    for (path,) in conn.execute("SELECT DISTINCT path FROM chunks").fetchall():
        write_file(conn, path)
